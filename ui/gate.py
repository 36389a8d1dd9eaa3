"""One script run at a time per server process: admission control for a class on one process.

Streamlit runs every session's script in a thread of its own, and Python runs one thread at a time (the
GIL). Sixty students' reruns at once therefore share one core in 5 ms slices: each finishes as late as
the last of them, the thread switches cost CPU of their own, and the event-loop thread that sends
every finished page waits for the GIL behind them. Measured with scripts/load_test.py (60 students,
book preset, one process, 2 cores, one run after the other): p95 3.43 s with every run at once, 1.01 s
with two at a time, 0.94 s with one (docs/DEPLOY.md). A rerun that waits here waits in line instead, and
the runs ahead of it finish at full speed.

ATTENTION_SCRIPT_SLOTS sets how many runs go at once (default 1; 0 turns the gate off). Work that
waits rather than computes (a download) gives its slot back meanwhile with `released()`.
"""
import os
import threading
from contextlib import contextmanager


def _slots_from(text: str) -> int:
    """The operator's ATTENTION_SCRIPT_SLOTS: a whole number, 0 or more; anything else keeps the default 1."""
    try:
        return max(0, int(text))
    except ValueError:
        return 1


SLOTS = _slots_from(os.environ.get("ATTENTION_SCRIPT_SLOTS", "1"))
_slots = threading.BoundedSemaphore(SLOTS) if SLOTS else None
_held = threading.local()  # whether this script thread holds a slot (a fragment inside a full run nests)


def holding() -> bool:
    return bool(getattr(_held, "slot", False))


@contextmanager
def one_at_a_time():
    """Run the body holding one of the process's slots; nested uses (a fragment in a full run) share it."""
    if _slots is None or holding():
        yield
        return
    _slots.acquire()
    _held.slot = True
    try:
        yield
    finally:
        _held.slot = False
        _slots.release()


@contextmanager
def released():
    """Give this thread's slot back for the body (work that waits on the network, not on the CPU)."""
    if _slots is None or not holding():
        yield
        return
    _held.slot = False
    _slots.release()
    try:
        yield
    finally:
        _slots.acquire()
        _held.slot = True
