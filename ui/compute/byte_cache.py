"""A least-recently-used cache bounded in bytes, shared by every session of the server.

Streamlit's caches bound the number of entries, not their size. A trace of GPT-2 small's attention
at 1,024 tokens holds about 100 MB of tensors, one of the book preset a few kB: a count that suits
one is wrong for the other. This cache counts the bytes of the tensors, arrays and bytes it holds
and drops the least recently used entries past its budget. A value bigger than the whole budget is
returned without being kept. Concurrent callers asking for the same key wait for one computation
(a class moving the same slider at once computes it once). Never mutate what it returns.
"""
import collections
import functools
import threading

import numpy as np
import streamlit as st
import torch

from ui.server import allocator as memory

_ALL: list["ByteCache"] = []
# One computation at a time across all these caches: at GPT-2 size a heads trace holds about 450 MB of
# intermediates while it runs, and torch already spreads one computation over every core. A class asking
# for ten settings at once then queues instead of holding 5 GB (reentrant: a build may use another cache).
_COMPUTING = threading.RLock()


def one_build_at_a_time(build):
    """build(), while no other big computation of this server runs (traces, overview images), then the freed
    pages of its intermediates handed back to the system, so the next big computation reuses them instead of
    the process growing (ui/server/allocator.py; figures: docs/DEPLOY.md)."""
    with _COMPUTING:
        value = build()
        memory.trim()
    return value


def size_of(value) -> int:
    """Bytes held by tensors, arrays, Arrow tables, bytes and text inside value (dicts, lists, tuples, dataclasses)."""
    if isinstance(value, torch.Tensor):
        return value.untyped_storage().nbytes() if value.device.type == "cpu" else value.nbytes
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (bytes, bytearray, str)):
        return len(value)
    if hasattr(value, "nbytes") and hasattr(value, "schema"):  # an Arrow table (a view's codes and shades)
        return int(value.nbytes)
    if isinstance(value, dict):
        return sum(size_of(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(size_of(v) for v in value)
    if hasattr(value, "__dict__"):
        return size_of(vars(value))
    return 0


class ByteCache:
    def __init__(self, name: str, max_bytes: int):
        self.name, self.max_bytes = name, max_bytes
        self.items: collections.OrderedDict = collections.OrderedDict()  # key -> (value, bytes)
        self.bytes = 0
        self.lock = threading.Lock()
        self.building: dict = {}  # key -> lock held while one caller computes it
        _ALL.append(self)

    def get(self, key, build):
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key][0]
            building = self.building.setdefault(key, threading.Lock())
        with building:  # the first caller builds; the others wait, then find it cached
            with self.lock:
                if key in self.items:
                    self.items.move_to_end(key)
                    return self.items[key][0]
            value = one_build_at_a_time(build)
            size = size_of(value)
            with self.lock:
                self.building.pop(key, None)
                if size <= self.max_bytes:
                    self.items[key] = (value, size)
                    self.bytes += size
                    while self.bytes > self.max_bytes:
                        _, (_, dropped) = self.items.popitem(last=False)
                        self.bytes -= dropped
            return value

    def matching(self, match) -> list[tuple]:
        """[(key, value)] of the cached entries whose key satisfies match(key), most recently used first: nothing
        is built, and nothing moves in the order."""
        with self.lock:
            return [(key, self.items[key][0]) for key in reversed(self.items) if match(key)]

    def clear(self) -> None:
        with self.lock:
            self.items.clear()
            self.bytes = 0


def byte_cache(max_mb: float, spinner: str | None = None):
    """Decorator: cache a function of plain, hashable arguments within max_mb megabytes.

    Keyword arguments named with a leading underscore are passed on but are not part of the key (as
    in Streamlit's caches): the caller promises that the positional arguments identify them."""
    def wrap(fn):
        cache = ByteCache(fn.__qualname__, int(max_mb * 1e6))

        @functools.wraps(fn)
        def cached(*args, **hidden):
            assert all(name.startswith("_") for name in hidden), "only _names may stay out of the key"

            def build():
                if spinner:
                    with st.spinner(spinner):
                        return fn(*args, **hidden)
                return fn(*args, **hidden)
            return cache.get(args, build)
        cached.cache = cache
        return cached
    return wrap


def clear_all() -> None:
    for cache in _ALL:
        cache.clear()
