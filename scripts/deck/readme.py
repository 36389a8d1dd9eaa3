"""The README's screenshot: /scores at the book preset as a newcomer first sees it, sidebar open, from the app
itself (`python scripts/slides.py --readme`), so the picture cannot drift from the app the README describes."""
import sys
from contextlib import nullcontext
from pathlib import Path

from local_server import CHROMIUM, CHROMIUM_ARGS

from . import ROOT
from .capture import open_screen, served

SCREENSHOT = ROOT / "docs" / "screenshot.png"
VIEWPORT = {"width": 1440, "height": 900}  # a laptop's browser window: the sidebar and the lesson's first view


def readme_screenshot(out: Path = SCREENSHOT, app: Path = ROOT / "app.py", timeout_s: float = 90,
                      url: str | None = None) -> list[str]:
    """Write the screenshot to `out` (from the app at `url`, else app started on a free port); return the problems
    on screen (an exception, an st.error), if any."""
    from playwright.sync_api import sync_playwright
    if not Path(CHROMIUM).exists():
        sys.exit(f"Chromium not found at {CHROMIUM} (Debian: apt-get install chromium, or set $CHROMIUM)")
    with (nullcontext(url.rstrip("/")) if url else served(app, timeout_s)) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport=VIEWPORT, color_scheme="light")
            problems = open_screen(page, f"{base}/scores?preset=book", timeout_s)
            out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(out), animations="disabled")
        finally:
            browser.close()
    return problems
