"""A Streamlit server and Debian's Chromium on this machine: shared by the tests and the scripts.

Loopback only; every server started here is stopped when its `with` block ends.
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
# Without the background-networking flags Chromium keeps dialling Google on a closed network.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(base: str, deadline: float, proc=None, log: Path | None = None) -> None:
    """Until the server answers its health check; raises with the log's end if it never does."""
    while True:
        try:
            if urllib.request.urlopen(base + "/_stcore/health", timeout=2).read() == b"ok":
                return
        except OSError:
            pass
        if (proc is not None and proc.poll() is not None) or time.time() > deadline:
            tail = log.read_text(errors="replace")[-3000:] if log else ""
            raise RuntimeError(f"streamlit did not answer at {base}/_stcore/health:\n{tail}")
        time.sleep(0.2)


def streamlit_flags(options) -> list[str]:
    """Streamlit config options as NAME=VALUE (["server.fileWatcherType=auto"]) -> `streamlit run`'s flags
    (["--server.fileWatcherType", "auto"]). Passed as extra_args below they come last, and the last value of
    a flag wins, so they override this module's own."""
    flags = []
    for option in options:
        name, equals, value = option.partition("=")
        if not name or not equals:
            raise SystemExit(f"a Streamlit option is NAME=VALUE, not {option!r}")
        flags += [f"--{name}", value]
    return flags


@contextmanager
def streamlit_server(app: Path = ROOT / "app.py", extra_args: tuple = (), start_timeout: float = 60,
                     file_watcher: str | None = "none"):
    """`streamlit run APP` headless on 127.0.0.1 and a free port; yields (base URL, process, log path).

    Output goes to a temp file (a pipe nobody reads would fill up and stall the server); the file
    watcher is off, so edits in the tree during a run cannot trigger reruns. file_watcher=None leaves
    it to the app's .streamlit/config.toml, as `streamlit run app.py` does.
    """
    port = free_port()
    log = Path(tempfile.mkdtemp(prefix="streamlit-")) / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(app), "--server.headless", "true",
             "--server.address", "127.0.0.1", "--server.port", str(port),
             *(("--server.fileWatcherType", file_watcher) if file_watcher else ()),
             "--browser.gatherUsageStats", "false", *extra_args],
            cwd=Path(app).parent, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, time.time() + start_timeout, proc, log)
        yield base, proc, log
    finally:
        stop(proc)


def stop(proc: subprocess.Popen) -> None:
    """Terminate a process we started, and kill it if it has not gone after 10 s."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


@contextmanager
def chromium_page(width: int = 1600, height: int = 1000, **context):
    """One page of a fresh headless Chromium (Playwright driving Debian's browser)."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser.new_page(viewport={"width": width, "height": height}, **context)
        finally:
            browser.close()


# True once every attention view on the page has drawn (or drawn its error). Its module runs 0.2-0.5 s after the
# script run ends (measured on /mask), inside the shadow root that holds its <style>; the app's two style-less
# components (the room's) draw nothing.
VIEWS_DRAWN = """[...document.querySelectorAll('[data-testid="stBidiComponentIsolated"]')].every(h =>
  !h.shadowRoot || !h.shadowRoot.querySelector('style') || h.shadowRoot.querySelector('.av, .av-error'))"""


def wait_idle(page, timeout_ms: int = 90_000) -> None:
    """Until the script run is over, no element is still a placeholder skeleton, and every view has drawn."""
    time.sleep(0.2)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout_ms)
    page.wait_for_function("!document.querySelector('[data-testid=stSkeleton]')", timeout=timeout_ms)
    page.wait_for_function(f"() => {VIEWS_DRAWN}", timeout=timeout_ms)


def exceptions(page) -> list[str]:
    """The texts of the exceptions Streamlit drew on the page (none on a healthy screen)."""
    return page.locator('[data-testid="stException"]').all_inner_texts()


REDIS_SERVER = shutil.which("redis-server") or ("/usr/bin/redis-server" if Path("/usr/bin/redis-server").exists()
                                                else None)


@contextmanager
def redis_server(folder: Path, start_timeout: float = 10):
    """Debian's redis-server on a free loopback port, nothing on disk (--save '' --appendonly no); yields its URL
    (ATTENTION_ROOMS_STORE's form), then stops it. The rooms' tests and `scripts/cluster.py --redis` use it."""
    import redis  # the app's requirement; imported here so the other helpers do not need it
    if REDIS_SERVER is None:
        raise RuntimeError("redis-server not found (Debian: apt-get install redis-server)")
    port = free_port()
    log = open(folder / "redis.log", "wb")
    proc = subprocess.Popen([REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(folder)], stdout=log, stderr=subprocess.STDOUT)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            try:
                redis.Redis.from_url(url, socket_timeout=1).ping()
                break
            except redis.ConnectionError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not start: {(folder / 'redis.log').read_text()[-2000:]}")
                time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()
