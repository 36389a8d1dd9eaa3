"""Build the book's modules under a seed without disturbing anyone else's random numbers.

The book seeds PyTorch's one global generator (`torch.manual_seed(123)`) and then creates a
module. In a server where many users' scripts run in threads, two users seeding at once would
get each other's weights. A lock makes seed-and-build one step, and `fork_rng` puts the
global generator back afterwards.
"""
import threading

import torch

_LOCK = threading.Lock()


def build_seeded(factory, seed: int, *args, device_type: str | None = None, **kwargs):
    """`torch.manual_seed(seed); factory(*args, **kwargs)`, safe to call from many threads.

    factory is any callable: a class to build, or a module whose forward draws random numbers.
    device_type ("cuda", "mps"): that device's generators are seeded and put back too, as
    `torch.manual_seed` seeds every device's generator in the book's code.
    """
    rng = torch.random.fork_rng(device_type=device_type) if device_type else torch.random.fork_rng(devices=[])
    with _LOCK, rng:
        torch.manual_seed(seed)
        return factory(*args, **kwargs)
