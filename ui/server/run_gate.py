"""One script run at a time per server process: admission control for a class on one process.

Streamlit runs every session's script in a thread of its own, and Python runs one thread at a time (the
GIL). Sixty students' reruns at once therefore share one core in 5 ms slices: each finishes as late as
the last of them, the thread switches cost CPU of their own, and the event-loop thread that sends
every finished page waits for the GIL behind them. A rerun that waits here waits in line instead, and
the runs ahead of it finish at full speed, so a class's slowest waits come down (the load runs with and
without the gate: docs/DEPLOY.md, "Load figures").

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
def one_script_run():
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
