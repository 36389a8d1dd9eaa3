"""`streamlit run app.py` as the README starts it watches the app's files without inotify.

Streamlit's default watcher (watchdog) watches the app's folder recursively, .venv included, for every
event down to a file being opened, and re-walks the tree when its queue overflows: it doubled the server
CPU of a rerun (156 against 76 ms at the book preset). .streamlit/config.toml chooses "poll" instead.
"""
import asyncio
import os
import random
import sys
from pathlib import Path

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import local_server  # noqa: E402
from load.protocol import Student  # noqa: E402


def inotify_instances(pid: int) -> int:
    """How many inotify instances the process holds: its fds that link to anon_inode:inotify. (Counting the
    watches themselves, fdinfo's `inotify wd:` lines, is not possible on every kernel: gVisor shows none.)"""
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            count += "inotify" in os.readlink(fd)
        except OSError:  # an fd closed while we read
            pass
    return count


async def open_home(base: str) -> None:
    student = Student(base, 1, 120, random.Random(0), "")
    await student.connect()
    try:
        run = await student.rerun(page_name="")
        assert not run.errors, run.errors
    finally:
        await student.close()


@pytest.mark.skipif(not Path("/proc/self/fdinfo").is_dir(), reason="reads the server's open files in Linux's /proc")
def test_the_app_as_the_readme_runs_it_watches_without_inotify():
    with local_server.streamlit_server(ROOT / "app.py", file_watcher=None) as (base, proc, _log):
        asyncio.run(open_home(base))  # a run registers the app's modules with the watcher
        assert inotify_instances(proc.pid) == 0
