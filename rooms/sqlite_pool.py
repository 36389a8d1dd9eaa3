"""Connections to the rooms' SQLite file: a few idle ones per process, lent to one thread at a time.

Not one per thread: Streamlit runs each rerun on a thread of its own, so those would pile up. Not one per
call either: closing a process's last connection checkpoints the WAL and deletes it, an fsync each time
(5 ms per answer on this machine, against well under 1 ms with a connection kept open). A forked child
opens its own: SQLite forbids using a connection across a fork. Every sqlite3 error becomes
StoreUnavailable, the one error the app handles.
"""
import os
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path

from rooms.results import StoreUnavailable

BUSY_TIMEOUT_MS = 5_000  # a write waits this long for another process's write before the store says it failed
IDLE_CONNECTIONS = 4  # kept open per process; more threads at once each open one and close it after


class Pool:
    def __init__(self, path: Path):
        self.path = path
        self._idle: list[sqlite3.Connection] = []
        self._lock, self._pid = threading.Lock(), os.getpid()

    def _open(self) -> sqlite3.Connection:
        # isolation_level=None: no implicit transactions (writes say BEGIN IMMEDIATE); check_same_thread off,
        # as idle connections pass between threads, each used by one thread at a time
        con = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                              check_same_thread=False)
        con.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        con.execute("PRAGMA synchronous=NORMAL")  # safe with WAL; a power cut may drop the last answers
        return con

    @contextmanager
    def connect(self):
        con = None
        try:
            with self._lock:
                if self._pid != os.getpid():  # a forked child: the parent's connections are not ours to use
                    self._idle, self._pid = [], os.getpid()
                con = self._idle.pop() if self._idle else None
            con = con or self._open()
            yield con
        except sqlite3.Error as error:
            con, failed = None, con
            if failed is not None:
                failed.close()  # it may be in a bad state: never lend it again
            raise StoreUnavailable(f"the rooms file {self.path} failed: {error}") from error
        finally:
            if con is not None:
                with self._lock:
                    keep = (len(self._idle) < IDLE_CONNECTIONS and self._pid == os.getpid()
                            and not con.in_transaction)
                    if keep:
                        self._idle.append(con)
                if not keep:
                    con.close()

    @contextmanager
    def write(self):
        """One transaction that holds the write lock from its start (BEGIN IMMEDIATE): two processes never
        deadlock upgrading read locks, and busy_timeout queues them instead."""
        with self.connect() as con:
            con.execute("BEGIN IMMEDIATE")
            try:
                yield con
            except BaseException:
                con.rollback()
                raise
            con.execute("COMMIT")  # also after a refusal: its rate-limit count must stick

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for con in idle:
            con.close()
