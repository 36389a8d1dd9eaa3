"""glibc's allocator in a server of many threads: few arenas, and memory handed back after big work.

Streamlit runs every session's script in its own thread, and glibc gives threads their own malloc
arenas (up to 8 per core), each keeping freed memory for itself: memory then follows the number of
threads that ever ran a big computation, not the work in flight. Few arenas, trimmed after big work, keep
a GPT-2-sized class's peak down (figures: docs/DEPLOY.md, "Memory at large sizes"). The environment
variable MALLOC_ARENA_MAX does the same, but only if set before the process starts, which a hosted app
cannot do; mallopt works from inside. Elsewhere (macOS, Windows, musl) these are no-ops.
"""
import ctypes
import threading

M_ARENA_MAX = -8  # glibc's mallopt parameter number
_ONCE = threading.Lock()
_DONE = []


def _libc():
    try:
        libc = ctypes.CDLL("libc.so.6")
        return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


_LIBC = _libc()


def limit_arenas(count: int = 2) -> bool:
    """Cap the number of malloc arenas for threads started from now on (once per process)."""
    with _ONCE:
        if _LIBC is None or _DONE:
            return bool(_DONE)
        _DONE.append(bool(_LIBC.mallopt(M_ARENA_MAX, count)))
        return _DONE[0]


def trim() -> None:
    """Hand freed heap memory back to the system (after a computation that held hundreds of MB)."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
