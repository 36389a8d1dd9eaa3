"""Slides from the app: every screen as 16:9 PNGs, or every chart as PNG + SVG.

    python scripts/slides.py                                # all screens -> ./slides, 1920x1080
    python scripts/slides.py --screens scores mask --params "preset=book&query=2" --scale 2
    python scripts/slides.py --layout tall                  # one tall 1920-wide image per screen
    python scripts/slides.py --figures --screens scores     # every chart, offline (vl-convert)

Screenshots start `streamlit run app.py` headless on a free port (or use --url of a running app)
and open each screen in Debian's Chromium (/usr/bin/chromium or $CHROMIUM) with Streamlit's toolbar
and the sidebar hidden, in the light theme. A long screen becomes several slides, cut between
elements where possible. The exit status is 1 when a screen shows an exception or an st.error.
"""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import unicodedata
import urllib.parse
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# URL path -> file in pages/ (the file names differ from the paths on purpose, see app.py).
SCREENS = {"home": "home", "scores": "attention_scores", "softmax": "softmax_scaling", "mask": "causal_mask",
           "dropout": "attention_dropout", "heads": "multi_head", "why-scaling": "scaling_experiments",
           "efficiency": "attention_efficiency"}
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WIDTH, HEIGHT = 1920, 1080
TOP_BAND = 48  # blank margin above the content of every slide after the first
# Streamlit 1.67's embed mode hides the toolbar but not the sidebar; the empty header goes too.
# Injected before the app renders, so charts are laid out at the full width from the start.
HIDE_CHROME = """(() => {
  const css = '[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],'
    + ' [data-testid="stExpandSidebarButton"], [data-testid="stHeader"] { display: none !important; }';
  const add = () => { const s = document.createElement('style'); s.textContent = css;
                      document.head.appendChild(s); };
  if (document.head) add(); else document.addEventListener('DOMContentLoaded', add);
})()"""
PROBLEMS = '[data-testid="stException"], [data-testid="stAlertContentError"]'
# Ready: the run is over, no placeholder is left, images are loaded and every chart is drawn.
READY = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-testid="stSkeleton"], [data-testid="stStatusWidget"]')) return false;
  if (!document.querySelector('[data-testid="stMain"] [data-testid="stElementContainer"]')) return false;
  if ([...document.images].some(i => !i.complete)) return false;
  return [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')]
    .every(c => !c.checkVisibility() || c.querySelector('canvas, svg.marks'));  // hidden tabs draw later
}"""
# Where each element sits in the main column, in page pixels from the top of the scroll area.
LAYOUT = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const top = main.getBoundingClientRect().top - main.scrollTop;
  const sel = ['stElementContainer', 'stHorizontalBlock', 'stExpander', 'stLayoutWrapper']
    .map(t => `[data-testid="stMain"] [data-testid="${t}"]`).join(',');
  const boxes = [...document.querySelectorAll(sel)].filter(e => e.checkVisibility())
    .map(e => e.getBoundingClientRect())
    .filter(r => r.width > 0 && r.height > 0).map(r => [r.top - top, r.bottom - top]);
  const bg = getComputedStyle(document.querySelector('[data-testid="stApp"]')).backgroundColor;
  return {height: main.scrollHeight, boxes, bg};
}"""


def slug(text: str, limit: int = 60) -> str:
    """ASCII letters, digits, dots and dashes only: safe on every file system."""
    text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-.")[:limit].strip("-.") or "x"


def stem(screen: str, params: list[tuple[str, str]]) -> str:
    tag = "_".join(f"{slug(k, 20)}-{slug(v, 30)}" for k, v in params)
    return f"{slug(screen)}__{tag}" if tag else slug(screen)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def streamlit_server(app: Path):
    """`streamlit run APP` headless on a free port; yields its base URL, stops it afterwards."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(app), "--server.headless", "true", "--server.port",
         str(port), "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"],
        cwd=app.parent, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
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


def wait_ready(page, timeout_s: float) -> None:
    """The run is over and the main column has stopped changing height for 0.3 s."""
    time.sleep(0.2)  # let the new run start before its state is read
    page.wait_for_function(READY, timeout=timeout_s * 1000, polling=100)
    page.evaluate("document.fonts.ready.then(() => true)")
    last = None
    for _ in range(50):
        height = page.evaluate("document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
        if height == last and page.evaluate(READY):
            return
        last = height
        time.sleep(0.3)


def page_not_found(page) -> bool:
    return any("Page not found" in t for t in page.locator('[role="dialog"]').all_inner_texts())


def open_screen(page, url: str, timeout_s: float) -> list[str]:
    """Load one screen; return the text of every exception and st.error on it."""
    page.goto(url, wait_until="domcontentloaded")
    wait_ready(page, timeout_s)
    if page_not_found(page):  # Streamlit 1.67 says so on the very first request to a fresh server
        page.reload(wait_until="domcontentloaded")
        wait_ready(page, timeout_s)
    problems = [t.strip() for t in page.locator(PROBLEMS).all_inner_texts()]
    if page_not_found(page):
        problems.append("Page not found")
    return problems


def cuts(layout: dict, height: int) -> list[tuple[int, int]]:
    """(start, end) of each slide: as much as fits, ending in a gap between elements if one is near."""
    boxes = layout["boxes"]
    end = int(max([b for _, b in boxes] + [0]) + 40) if boxes else layout["height"]

    def clean(y):
        return not any(top + 1 < y < bottom - 1 for top, bottom in boxes)

    spans, start = [], 0
    while start < end:
        room = height - (TOP_BAND if start else 0)
        if start + room >= end:
            spans.append((start, end))
            break
        gaps = [int(top) - 8 for top, _ in boxes if start + room * 0.5 < top - 8 <= start + room]
        gaps = [y for y in gaps if clean(y)]
        stop = max(gaps) if gaps else start + room
        spans.append((start, stop))
        start = stop
    return spans


def shoot(page, base: str, path: str, query: str, name: str, args) -> tuple[list[Path], list[str]]:
    url = f"{base}/{path}?{query}"
    problems = open_screen(page, url, args.timeout)
    layout = page.evaluate(LAYOUT)
    out = Path(args.out)
    if args.layout == "tall":
        page.set_viewport_size({"width": WIDTH, "height": layout["height"]})
        wait_ready(page, args.timeout)
        height = page.evaluate(LAYOUT)["height"]
        file = out / f"{name}.png"
        page.screenshot(path=file, animations="disabled", clip={"x": 0, "y": 0, "width": WIDTH, "height": height})
        page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
        return [file], problems
    # Everything laid out at once (the app scrolls inside its own container): a viewport as tall
    # as the content plus one slide, then one clip per slide with blank bands over the neighbours.
    page.set_viewport_size({"width": WIDTH, "height": layout["height"] + HEIGHT})
    wait_ready(page, args.timeout)
    layout = page.evaluate(LAYOUT)
    files = []
    for i, (start, stop) in enumerate(cuts(layout, HEIGHT), 1):
        top = start - TOP_BAND if start else 0
        page.evaluate("""([top, stop, bottom, bg]) => {
          for (const [y, h] of [[top, stop - top], [bottom, top + 1080 - bottom]]) {
            const d = document.createElement('div'); d.className = 'slides-band';
            d.style.cssText = `position:fixed;left:0;top:${y}px;width:100%;height:${h}px;background:${bg};z-index:2147483647`;
            document.body.appendChild(d);
          }
        }""", [top, start, stop, layout["bg"]])
        file = out / f"{name}__{i:02d}.png"
        page.screenshot(path=file, animations="disabled", clip={"x": 0, "y": top, "width": WIDTH, "height": HEIGHT})
        page.evaluate("document.querySelectorAll('.slides-band').forEach(d => d.remove())")
        files.append(file)
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    return files, problems


def screenshots(args, params: list[tuple[str, str]]) -> int:
    from playwright.sync_api import Error as PlaywrightError, sync_playwright
    if not Path(CHROMIUM).exists():
        sys.exit(f"Chromium not found at {CHROMIUM} (Debian: apt-get install chromium, or set $CHROMIUM)")
    query = urllib.parse.urlencode(params + [("embed", "true"), ("embed_options", "light_theme")])
    failed = 0
    with (nullcontext(args.url.rstrip("/")) if args.url else streamlit_server(Path(args.app).resolve())) as base, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT},
                                          device_scale_factor=args.scale, color_scheme="light")
            context.add_init_script(HIDE_CHROME)
            page = context.new_page()
            for screen in args.screens:
                began = time.time()
                try:
                    files, problems = shoot(page, base, "" if screen == "home" else screen, query,
                                            stem(screen, params), args)
                except PlaywrightError as error:  # a timeout: report it, go on with the next screen
                    files, problems = [], [f"{type(error).__name__}: {str(error).splitlines()[0]}"]
                    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
                print(f"{screen}: {len(files)} image(s) in {time.time() - began:.1f} s: "
                      + ", ".join(str(f) for f in files))
                for problem in problems:
                    failed += 1
                    print(f"ERROR on screen {screen}: {problem.splitlines()[0] if problem else '(empty)'}")
        finally:
            browser.close()
    return failed


@contextmanager
def nullcontext(value):
    yield value


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--screens", nargs="+", default=list(SCREENS), metavar="SCREEN",
                        help="URL paths of the screens (home is /): " + " ".join(SCREENS) + " (default: all)")
    parser.add_argument("--params", default="", help='URL parameters for every screen, e.g. "preset=book&query=2"')
    parser.add_argument("--presenter", action="store_true", help="add presenter=1 (the app's presenter mode)")
    parser.add_argument("--out", default="slides", help="folder for the images (default: ./slides)")
    parser.add_argument("--layout", choices=["pages", "tall"], default="pages",
                        help="pages: 16:9 slides, a long screen split in several (default); tall: one tall image")
    parser.add_argument("--scale", type=float, default=1, help="device scale factor: 2 gives 3840x2160 slides")
    parser.add_argument("--url", help="base URL of a running app (default: start app.py on a free port)")
    parser.add_argument("--app", default=str(ROOT / "app.py"), help="the Streamlit entry script to start")
    parser.add_argument("--timeout", type=float, default=90, help="seconds to wait for one screen (default 90)")
    parser.add_argument("--figures", action="store_true",
                        help="instead of screenshots: every chart as PNG and SVG, rendered offline by vl-convert")
    args = parser.parse_args(argv)
    params = urllib.parse.parse_qsl(args.params.lstrip("?"), keep_blank_values=True)
    if args.presenter:
        params = [(k, v) for k, v in params if k != "presenter"] + [("presenter", "1")]
    Path(args.out).mkdir(parents=True, exist_ok=True)
    began = time.time()
    if args.figures:
        from figures import export_figures  # scripts/figures.py: AppTest + vl-convert, no browser
        failed = export_figures(args, params)
    else:
        unknown = [s for s in args.screens if s not in SCREENS and args.app == str(ROOT / "app.py")]
        if unknown:
            parser.error(f"unknown screen(s) {unknown}; choose from {' '.join(SCREENS)}")
        failed = screenshots(args, params)
    print(f"wrote to {Path(args.out).resolve()} in {time.time() - began:.1f} s")
    if failed:
        print(f"{failed} error(s) on screen: see above", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
