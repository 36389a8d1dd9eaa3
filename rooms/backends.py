"""Which store a class's rooms live in, by one setting: the two backends of rooms/store.py's interface.

The interface (store.py) knows no backend; this module, above it, picks one. SQLite (the default, no setup) is
shared by every process on one machine; Redis is for several machines.
"""
import os
import tempfile
from pathlib import Path
from typing import Callable

from rooms.store import Limits, Store, StoreUnavailable

ENV = "ATTENTION_ROOMS_STORE"  # "", "sqlite:///path/rooms.sqlite3", "redis://host:6379/0", or "off"


def default_sqlite_path() -> Path:
    """One file per user in the temp dir: every app process this user runs on the machine shares it."""
    user = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return Path(tempfile.gettempdir()) / f"attention-rooms-{user}" / "rooms.sqlite3"


def open_store(url: str | None = None, *, limits: Limits | None = None,
               clock: Callable[[], float] | None = None) -> Store:
    """The store that `url` names (None: the ATTENTION_ROOMS_STORE setting; "": the default SQLite file).
    Raises StoreUnavailable, and only that, when rooms cannot work."""
    url = (os.environ.get(ENV, "") if url is None else url).strip()
    if url.lower() == "off":
        raise StoreUnavailable(f"rooms are switched off ({ENV}=off)")
    if url == "" or url.startswith("sqlite://"):
        from rooms.sqlite_store import SQLiteStore
        path = url.removeprefix("sqlite://") or None  # "sqlite:///tmp/r.db" -> "/tmp/r.db"
        return SQLiteStore(path or default_sqlite_path(), limits=limits, clock=clock)
    if url.startswith(("redis://", "rediss://", "unix://")):
        from rooms.redis_store import RedisStore
        return RedisStore(url, limits=limits, clock=clock)
    raise StoreUnavailable(f"{ENV} names no store this app knows (sqlite://..., redis://... or off)")
