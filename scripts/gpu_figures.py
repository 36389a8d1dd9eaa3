"""The figures that need a CUDA GPU, in one run: where heads_trace's time goes at GPT-2 small's size, and the KV
cache's tokens per second on the GPU (issues 36, 38). Prints markdown; docs/gpu.md keeps a run with its machine.

    python scripts/gpu_figures.py > figures.md      # on a machine with CUDA (falls back to the CPU, and says so)
"""
import platform
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attention_core.book.modules import MultiHeadAttention, MultiHeadAttentionWrapper  # noqa: E402
from attention_core.lessons import kv_cache, traces  # noqa: E402
from attention_core.lessons.traces import build_seeded  # noqa: E402


def clock(fn, sync, repeats=3):
    """The fastest of `repeats` calls, in ms, the device synchronised around each."""
    best = float("inf")
    for _ in range(repeats):
        sync()
        start = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def main() -> None:
    device = "cuda" if torch.cuda.is_available() else "cpu"
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    name = torch.cuda.get_device_name() if device == "cuda" else platform.processor() or "CPU"
    print(f"# GPU figures\n\n{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {name}; torch {torch.__version__}; "
          f"Python {platform.python_version()}; {torch.get_num_threads()} CPU threads\n")
    x = torch.randn(1024, 768, generator=torch.Generator().manual_seed(0))
    print("## heads_trace at GPT-2 small's size (1,024 tokens, 768 dims, 12 heads), fastest of 3\n")
    print("| step | ms |\n|---|---:|")
    rows = [
        ("build MultiHeadAttentionWrapper (CPU, seeded)", lambda: build_seeded(MultiHeadAttentionWrapper, 123, 768, 768,
                                                                            1024, 0.0, 12)),
        ("build MultiHeadAttention (CPU, seeded)", lambda: build_seeded(MultiHeadAttention, 123, 768, 768, 1024, 0.0, 12)),
        ("MultiHeadAttention forward alone", None),
        ("heads_trace, whole", lambda: traces.heads_trace(x, 768, 12, 123, 1024, device)),
    ]
    mha = build_seeded(MultiHeadAttention, 123, 768, 768, 1024, 0.0, 12).to(device)
    batch = x.unsqueeze(0).to(device)
    for label, fn in rows:
        if fn is None:
            with torch.no_grad():
                fn = lambda: mha(batch)  # noqa: E731
        print(f"| {label} | {clock(fn, sync):,.1f} |")
    print("\n## KV cache: tokens per second, one layer, with and without the cache\n")
    result = kv_cache.speed_trace(torch.zeros(6, 3), d_out=2, seed=123, device=device, budget_s=20.0)
    print(f"device used: {result['device']}{' (' + result['note'] + ')' if result['note'] else ''}\n")
    print("| sizes | cached tokens/s | uncached tokens/s | verdict |\n|---|---:|---:|---|")
    for row in result["rows"]:
        print(f"| {row['sizes']} | {row['cached']:,.0f} | {row['uncached']:,.0f} | {kv_cache.speed_verdict(row)} |")


if __name__ == "__main__":
    main()
