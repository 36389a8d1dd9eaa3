"""Browser-test helpers: require_browser(), and the shared server/Chromium helpers of scripts/local_server.py.

Without Chromium (a laptop) the browser tests skip with the reason; with CI=true a missing
browser is a failure, so CI can never pass by skipping them.
"""
import os
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import local_server  # noqa: E402
from local_server import CHROMIUM, CHROMIUM_ARGS, chromium_page, exceptions, free_port, wait_idle  # noqa: E402,F401


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


@contextmanager
def streamlit_server(app: Path = ROOT / "app.py"):
    """`streamlit run app.py` headless on a free port; yields its base URL."""
    with local_server.streamlit_server(app) as (base, _proc, _log):
        yield base

