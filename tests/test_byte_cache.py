"""The byte-bounded cache behind the traces: its budget holds, and a class computes a setting once."""
import threading
import time

import numpy as np
import torch

from ui.compute.byte_cache import ByteCache, size_of


def test_size_counts_tensors_arrays_and_bytes_inside_containers():
    record = {"w": torch.zeros(10, 10), "rows": [np.zeros(5, dtype=np.uint8), b"abc"], "n": 3}
    assert size_of(record) == 400 + 5 + 3


def test_the_budget_holds_and_the_least_recently_used_entry_goes_first():
    cache = ByteCache("test", max_bytes=1000)
    for key in "abc":
        cache.get(key, lambda: np.zeros(400, dtype=np.uint8))
    assert cache.bytes == 800 and list(cache.items) == ["b", "c"]  # a went when c came
    cache.get("b", lambda: None)  # b used again: now c is the oldest
    cache.get("d", lambda: np.zeros(400, dtype=np.uint8))
    assert list(cache.items) == ["b", "d"] and cache.bytes <= 1000


def test_a_value_larger_than_the_budget_is_returned_but_not_kept():
    cache = ByteCache("test", max_bytes=100)
    value = cache.get("big", lambda: np.zeros(1000, dtype=np.uint8))
    assert value.nbytes == 1000 and cache.bytes == 0 and "big" not in cache.items


def test_callers_of_the_same_key_at_once_compute_it_once():
    cache, calls = ByteCache("test", max_bytes=10_000), []

    def build():
        calls.append(1)
        time.sleep(0.2)
        return np.zeros(10)
    threads = [threading.Thread(target=cache.get, args=("k", build)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1


def test_the_allocator_settings_work_here():
    from ui.server import allocator as memory
    assert memory.limit_arenas() is True  # glibc on this Linux machine accepts the cap
    memory.trim()  # and trimming is harmless
