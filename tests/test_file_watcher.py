"""`streamlit run app.py` as the README starts it watches the app's files without inotify.

Streamlit's default watcher ("auto": watchdog, which requirements.txt installs on Linux) watches the app's
folder recursively, .venv included, for every event down to a file being opened, and re-walks the tree when
its queue overflows: it doubled the server CPU of a rerun (156 against 76 ms at the book preset).
.streamlit/config.toml chooses "poll", which still reloads an edited file.
"""
import asyncio
import os
import random
import sys
import tomllib
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


def test_the_config_polls_so_that_edits_still_reload():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["fileWatcherType"] == "poll"  # not "none": a developer's edit still reruns the app


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads the server's open files in Linux's /proc")
@pytest.mark.parametrize("watcher, uses_inotify", [(None, False), ("watchdog", True)])
def test_the_app_as_the_readme_runs_it_watches_without_inotify(watcher, uses_inotify):
    """None: the repo's config, as `streamlit run app.py` reads it. "watchdog": the control, which shows that
    counting the server's inotify instances sees the watcher Streamlit would otherwise use."""
    if watcher == "watchdog":
        pytest.importorskip("watchdog", reason="watchdog is not installed (requirements.txt skips it on macOS)")
    with local_server.streamlit_server(ROOT / "app.py", file_watcher=watcher) as (base, proc, _log):
        asyncio.run(open_home(base))  # a run registers the app's modules with the watcher
        assert (inotify_instances(proc.pid) > 0) == uses_inotify
