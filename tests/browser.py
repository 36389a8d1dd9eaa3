"""Helpers for browser tests: a real `streamlit run` server and Debian's Chromium via Playwright.

Without Chromium (a laptop) the browser tests skip with the reason; with CI=true a missing
browser is a failure, so CI can never pass by skipping them.
"""
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def require_browser():
    """Skip (laptop) or fail (CI) when Chromium or Playwright is missing."""
    problem = None
    if not Path(CHROMIUM).exists():
        problem = f"Chromium not found at {CHROMIUM} (Debian: apt-get install chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "the playwright package is not installed (pip install -r requirements-dev.txt)"
    if problem:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"browser tests cannot run in CI: {problem}")
        pytest.skip(problem)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def streamlit_server():
    """Start `streamlit run app.py` headless on a free port; yield its base URL."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
         "--server.port", str(port), "--server.fileWatcherType", "none",
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                if urllib.request.urlopen(base + "/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("streamlit did not start:\n" + proc.stdout.read().decode(errors="replace"))
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextmanager
def chromium_page(width=1600, height=1000):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser.new_page(viewport={"width": width, "height": height})
        finally:
            browser.close()


def wait_idle(page, timeout_ms=90_000):
    """Until the script run is over and no element is still a placeholder skeleton."""
    time.sleep(0.2)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout_ms)
    page.wait_for_function("!document.querySelector('[data-testid=stSkeleton]')", timeout=timeout_ms)


def exceptions(page) -> list[str]:
    return page.locator('[data-testid="stException"]').all_inner_texts()
