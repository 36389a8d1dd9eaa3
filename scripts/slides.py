"""Slides from the app: every screen as 16:9 PNGs, or every chart as PNG + SVG.

    python scripts/slides.py                                # all screens -> ./slides, 1920x1080
    python scripts/slides.py --screens scores mask --params "preset=book&query=2" --scale 2
    python scripts/slides.py --layout tall                  # one tall 1920-wide image per screen
    python scripts/slides.py --figures --screens scores     # every chart, offline (vl-convert)

Screenshots start `streamlit run app.py` headless on a free port (or use --url of a running app)
and open each screen in Debian's Chromium (/usr/bin/chromium or $CHROMIUM) with Streamlit's toolbar
and the sidebar hidden, in the light theme, in the app's presenter mode (type and charts for the
back of a room, tables without scroll boxes; --no-presenter for the screen as a student sees it),
laid out 1920 / --zoom CSS pixels wide and captured at 1920 x 1080. A long screen becomes several
slides, cut only between its top-level blocks; a block taller than a slide gets a slide of its own,
scaled down to fit. Every folded section of a screen is opened (--sections all, the URL's open=all),
and each open section starts a slide with its title. The exit status is 1 when a screen shows an exception or an st.error.
"""
import argparse
import io
import json
import math
import os
import re
import sys
import time
import unicodedata
import urllib.parse
import urllib.request
from contextlib import contextmanager, nullcontext
from pathlib import Path
from xml.etree import ElementTree

from local_server import CHROMIUM, CHROMIUM_ARGS, streamlit_server

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from screens.registry import BY_NAME  # noqa: E402  the screens by short name: "home" or the URL path
WIDTH, HEIGHT = 1920, 1080  # a slide, in image pixels at --scale 1
ZOOM = 1.0  # default --zoom: presenter mode is laid out for a 1920-wide page; above 1.2 its heatmaps overflow columns
TOP_BAND = 32  # blank margin (CSS pixels) above the content of every slide after the first
GAP = 8  # a cut lies this far above the next block's top: in the gap between two blocks
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
# Where the units of the main column sit, in CSS pixels from the top of its scroll area: its
# top-level blocks (columns, tabs, expanders and containers count as one), except that a container
# taller than a slide (a fragment holding most of a screen) counts as the blocks inside it.
LAYOUT = """(slide) => {
  const main = document.querySelector('[data-testid="stMain"]');
  const origin = main.getBoundingClientRect().top - main.scrollTop;
  const box = e => { const r = e.getBoundingClientRect(); return [r.top - origin, r.bottom - origin]; };
  const shown = e => e.checkVisibility() && e.getBoundingClientRect().height > 0;
  // An open section taller than a slide counts as its title (a heading) and the blocks inside it.
  const section = e => { const d = e.querySelector(':scope > [data-testid="stExpander"] > details[open]');
                         return d && [d.querySelector(':scope > summary'),
                                      d.querySelector(':scope > [data-testid="stExpanderDetails"] > [data-testid="stVerticalBlock"]')]; };
  const units = parent => [...parent.children].filter(shown).flatMap(e => {
    if (e.getBoundingClientRect().height <= slide) return [e];
    const inner = e.querySelector(':scope > [data-testid="stVerticalBlock"]');
    if (inner) return units(inner);
    const open = section(e);
    return open && open[1] ? [open[0], ...units(open[1])] : [e];
  });
  const blocks = units(document.querySelector('[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"]'))
    .map(e => {
      const element = e.matches('[data-testid="stElementContainer"]');  // one element, not a block of them
      const title = e.tagName === 'SUMMARY';  // an open section's title: a heading for what follows
      const first = element ? e : e.querySelector('[data-testid="stElementContainer"]');
      return [...box(e), title || (element && !!e.querySelector('[data-testid="stHeading"]')),
              element && e.innerText.trim().endsWith(':'),
              (element && !!e.querySelector('[data-testid="stCaptionContainer"]'))  // a caption, or a folded
                || (!!e.querySelector('[data-testid="stExpander"]') && !e.querySelector('details[open]')  // expander:
                    && e.getBoundingClientRect().height < 120),  // both go with the block above

              title || (!!first && !!first.querySelector('[data-testid="stHeading"]'))
                || !!e.querySelector(':scope > [data-testid="stExpander"] > details[open]')];  // a section opens a slide
    });
  const bg = getComputedStyle(document.querySelector('[data-testid="stApp"]')).backgroundColor;
  return {height: main.scrollHeight, blocks, bg};
}"""


def slug(text: str, limit: int = 60) -> str:
    """ASCII letters, digits, dots and dashes only: safe on every file system."""
    text = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-.")[:limit].strip("-.") or "x"


def stem(screen: str, params: list[tuple[str, str]]) -> str:
    tag = "_".join(f"{slug(k, 20)}-{slug(v, 30)}" for k, v in params)
    return f"{slug(screen)}__{tag}" if tag else slug(screen)


def with_presenter(params: list[tuple[str, str]], presenter: bool, sections: str = "all") -> list[tuple[str, str]]:
    """The URL parameters a screen is opened with: presenter=1 added unless off or set in --params, and
    open=<--sections> (every folded section open by default) unless --params names `open` itself.
    File names come from --params alone, so the defaults leave them as they were."""
    given = {name for name, _ in params}
    return (params + ([("presenter", "1")] if presenter and "presenter" not in given else [])
            + ([("open", sections)] if sections not in ("", "none") and "open" not in given else []))


@contextmanager
def served(app: Path):
    """The app headless on a free port; yields its base URL."""
    with streamlit_server(app) as (base, _proc, _log):
        yield base


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
    # The common mistakes draw each wrong version in an error box on purpose: those are lessons, not problems.
    problems = [t.strip() for t in page.evaluate(
        "sel => [...document.querySelectorAll(sel)].filter(e => !e.closest('[class*=\"-mistakes\"]')).map(e => e.innerText)",
        PROBLEMS)]
    if page_not_found(page):
        problems.append("Page not found")
    return problems


def groups(layout: dict) -> list[list]:
    """[top, bottom, opens with a heading] of the units a slide never splits: the blocks of LAYOUT,
    with a heading or a line ending with a colon glued to the block after it, and a caption or a
    folded expander to the block above it. A block is [top, bottom, is a heading, ends with a colon,
    goes with the block above, opens with a heading]."""
    found, glue_next = [], False
    for top, bottom, heading, colon, caption, opens in layout["blocks"]:
        if found and (glue_next or caption):
            found[-1][1] = max(found[-1][1], bottom)
        else:
            found.append([top, bottom, opens])
        glue_next = heading or colon
    return found


def cuts(layout: dict, height: float, band: float = TOP_BAND) -> list[tuple[int, int]]:
    """(start, end) of each slide, in CSS pixels of the page: as many whole units (see `groups`) as fit.

    A cut falls only in the gap before a unit, never inside one; a cut before a heading is
    preferred when it leaves the slide at least 60% full. A unit taller than a slide gets a slide
    of its own, longer than `height` (the caller scales it down to fit).
    """
    units = groups(layout)
    if not units:
        return [(0, int(layout["height"]))]
    end = int(max(bottom for _, bottom, _ in units) + 40)
    spans, start, i = [], 0, 0
    while i < len(units):
        room = height - (band if spans else 0)
        def after(k):  # where a slide that ends with unit k stops: just above the next unit
            return int(units[k + 1][0] - GAP) if k + 1 < len(units) else end

        j = i + 1  # units i .. j-1 go on this slide: the first always, the next ones while they fit
        while j < len(units) and after(j) - start <= room:
            j += 1
        if j < len(units) and not units[j][2]:  # the next slide would not open on a heading: find one
            j = next((k for k in range(j - 1, i, -1) if units[k][2] and units[k][0] - GAP - start >= 0.6 * room), j)
        stop = after(j - 1)
        spans.append((start, stop))
        start, i = stop, j
    return spans


def shoot(page, base: str, path: str, query: str, name: str, args) -> tuple[list[Path], list[str]]:
    url = f"{base}/{path}?{query}"
    problems = open_screen(page, url, args.timeout)
    slide_height = HEIGHT / args.zoom
    layout = page.evaluate(LAYOUT, slide_height)
    out = Path(args.out)
    if args.layout == "tall":
        page.set_viewport_size({"width": round(WIDTH / args.zoom), "height": layout["height"]})
        wait_ready(page, args.timeout)
        height = page.evaluate(LAYOUT, slide_height)["height"]
        file = out / f"{name}__tall.png"
        page.screenshot(path=file, animations="disabled",
                        clip={"x": 0, "y": 0, "width": round(WIDTH / args.zoom), "height": height})
        page.set_viewport_size({"width": round(WIDTH / args.zoom), "height": round(HEIGHT / args.zoom)})
        return [file], problems
    # Everything laid out at once (the app scrolls inside its own container): a viewport as tall
    # as the content plus one slide, then one clip per slide with blank bands over the neighbours.
    width, height = WIDTH / args.zoom, HEIGHT / args.zoom  # one slide in CSS pixels
    page.set_viewport_size({"width": round(width), "height": layout["height"] + round(height)})
    wait_ready(page, args.timeout)
    layout = page.evaluate(LAYOUT, height)
    for stale in out.glob(f"{name}__[0-9][0-9].png"):  # from an earlier, longer run of this screen
        stale.unlink()
    files = []
    for i, (start, stop) in enumerate(cuts(layout, height), 1):
        top = start - TOP_BAND if start else 0
        tall = max(height, stop - top)  # a unit taller than a slide: captured whole, then scaled to fit
        page.evaluate("""([top, stop, bottom, bg, height]) => {
          for (const [y, h] of [[top, stop - top], [bottom, top + height - bottom]]) {
            const d = document.createElement('div'); d.className = 'slides-band';
            d.style.cssText = `position:fixed;left:0;top:${y}px;width:100%;height:${h}px;background:${bg};z-index:2147483647`;
            document.body.appendChild(d);
          }
        }""", [top, start, stop, layout["bg"], tall])
        file = out / f"{name}__{i:02d}.png"
        shot = page.screenshot(animations="disabled", clip={"x": 0, "y": top, "width": width, "height": tall})
        fit_slide(shot, layout["bg"], args.scale).save(file)
        page.evaluate("document.querySelectorAll('.slides-band').forEach(d => d.remove())")
        files.append(file)
    page.set_viewport_size({"width": round(width), "height": round(height)})
    return files, problems


def fit_slide(png: bytes, background: str, scale: float):
    """A capture as one 16:9 slide (WIDTH x HEIGHT times scale): a taller one scaled down, centred."""
    from PIL import Image
    image = Image.open(io.BytesIO(png)).convert("RGB")
    size = (round(WIDTH * scale), round(HEIGHT * scale))
    if image.size == size:
        return image
    ratio = min(size[0] / image.width, size[1] / image.height)
    image = image.resize((max(1, round(image.width * ratio)), max(1, round(image.height * ratio))), Image.LANCZOS)
    rgb = tuple(int(v) for v in re.findall(r"\d+", background)[:3]) or (255, 255, 255)
    slide = Image.new("RGB", size, rgb)
    slide.paste(image, ((size[0] - image.width) // 2, 0))
    return slide


def screenshots(args, params: list[tuple[str, str]]) -> int:
    from playwright.sync_api import Error as PlaywrightError, sync_playwright
    if not Path(CHROMIUM).exists():
        sys.exit(f"Chromium not found at {CHROMIUM} (Debian: apt-get install chromium, or set $CHROMIUM)")
    query = urllib.parse.urlencode(with_presenter(params, args.presenter, args.sections) + [("embed", "true"), ("embed_options", "light_theme")])
    failed = 0
    with (nullcontext(args.url.rstrip("/")) if args.url else served(Path(args.app).resolve())) as base, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": round(WIDTH / args.zoom), "height": round(HEIGHT / args.zoom)},
                                          device_scale_factor=args.scale * args.zoom, color_scheme="light")
            context.add_init_script(HIDE_CHROME)
            page = context.new_page()
            for screen in args.screens:
                began = time.time()
                try:
                    path = BY_NAME[screen].url_path if screen in BY_NAME else screen  # --app: any URL path
                    files, problems = shoot(page, base, path, query,
                                            stem(screen, params), args)
                except PlaywrightError as error:  # a timeout: report it, go on with the next screen
                    files, problems = [], [f"{type(error).__name__}: {str(error).splitlines()[0]}"]
                    page.set_viewport_size({"width": round(WIDTH / args.zoom), "height": round(HEIGHT / args.zoom)})
                print(f"{screen}: {len(files)} image(s) in {time.time() - began:.1f} s: "
                      + ", ".join(str(f) for f in files))
                for problem in problems:
                    failed += 1
                    print(f"ERROR on screen {screen}: {problem.splitlines()[0] if problem else '(empty)'}")
        finally:
            browser.close()
    return failed


# --- figures: every chart offline, no browser ------------------------------------------------

def arrow_records(raw: bytes) -> list[dict]:
    """Streamlit's Arrow bytes as Vega-Lite rows; NaN and infinities become null (JSON has none)."""
    import pyarrow as pa
    rows = pa.ipc.open_stream(raw).read_all().to_pylist()
    return [{k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in row.items()}
            for row in rows]


def standalone(proto) -> dict:
    """The chart's Vega-Lite spec with its data put back in (Streamlit sends the data beside it)."""
    spec = json.loads(proto.spec)
    for dataset in proto.datasets:
        spec.setdefault("datasets", {})[dataset.name] = arrow_records(dataset.data.data)
    if proto.HasField("data") and proto.data.data:
        spec["data"] = {"values": arrow_records(proto.data.data)}
    if "mark" in spec or "layer" in spec:  # one view: size it as a 16:9 figure where it has no size
        height = spec.get("height") if isinstance(spec.get("height"), (int, float)) else None
        if "width" not in spec:
            spec["width"] = round(height * 16 / 9) if height else 960
        if "height" not in spec:
            spec["height"] = round(spec["width"] * 9 / 16) if isinstance(spec["width"], (int, float)) else 540
    return spec


def chart_title(spec: dict) -> str:
    for view in [spec] + spec.get("layer", []):
        title = view.get("title")
        if isinstance(title, dict):
            title = title.get("text")
        if isinstance(title, list):
            title = " ".join(map(str, title))
        if title:
            return str(title)
    return "chart"


def run_screen(app: Path, screen: str, params: list[tuple[str, str]], timeout: float):
    """The screen as AppTest runs it: app.py with the URL parameters, then the page."""
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(app), default_timeout=timeout)
    for name, raw in params:
        at.query_params[name] = raw
    at.run()
    if BY_NAME[screen].url_path:
        at.switch_page(BY_NAME[screen].file).run()
        # The URL's open= reached the first screen AppTest ran (home): give the same sections to this one.
        wanted = dict(params).get("open")
        if wanted and "sections:open" in at.session_state:
            opened = dict(at.session_state["sections:open"])
            opened[BY_NAME[screen].url_path] = set(wanted.split(","))
            at.session_state["sections:open"] = opened
            at.run()
    return at


def not_charts(at) -> list[str]:
    """What --figures leaves out: images and diagrams, which are not Vega-Lite charts."""
    return [f"{len(at.get(kind))} {what}" for kind, what in
            (("image", "image(s) drawn with st.image"), ("graphviz_chart", "graphviz diagram(s)"),
             ("bidi_component", "attention view(s), drawn by the browser: in the screenshots"))
            if len(at.get(kind))]


def export_figures(args, params: list[tuple[str, str]]) -> int:
    """Every Altair chart of every screen as SVG, and as PNG scaled to fit a slide (1920x1080 x scale)."""
    import vl_convert as vlc
    os.environ.setdefault("STREAMLIT_LOGGER_LEVEL", "error")  # AppTest's "missing ScriptRunContext" noise
    out, failed = Path(args.out), 0
    for screen in args.screens:
        began = time.time()
        at = run_screen(Path(args.app), screen, with_presenter(params, args.presenter, args.sections), args.timeout)
        lessons = {e.value for box in at.expander if box.label == "Common mistakes" for e in box.error}  # wrong on purpose
        problems = ([str(e.value).splitlines()[0] for e in at.exception]
                    + [str(e.value) for e in at.error if e.value not in lessons])
        for stale in out.glob(f"{stem(screen, params)}__chart[0-9][0-9]_*.*"):  # from an earlier run
            stale.unlink()
        files = []
        for i, chart in enumerate(at.get("vega_lite_chart"), 1):
            spec = standalone(chart.proto)
            name = f"{stem(screen, params)}__chart{i:02d}_{slug(chart_title(spec), 50)}"
            svg = vlc.vegalite_to_svg(json.dumps(spec, allow_nan=False))
            root = ElementTree.fromstring(svg)
            width, height = float(root.get("width")), float(root.get("height"))
            png = vlc.svg_to_png(svg, scale=args.scale * min(WIDTH / width, HEIGHT / height))
            (out / f"{name}.svg").write_text(svg, encoding="utf-8")
            (out / f"{name}.png").write_bytes(png)
            files += [out / f"{name}.svg", out / f"{name}.png"]
        skipped = not_charts(at)
        print(f"{screen}: {len(files) // 2} chart(s) in {time.time() - began:.1f} s"
              + (f" (not charts, skipped: {', '.join(skipped)})" if skipped else "")
              + "".join(f"\n  {f}" for f in files))
        for problem in problems:
            failed += 1
            print(f"ERROR on screen {screen}: {problem}")
    return failed


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--screens", nargs="+", default=list(BY_NAME), metavar="SCREEN",
                        help="URL paths of the screens (home is /): " + " ".join(BY_NAME) + " (default: all)")
    parser.add_argument("--params", default="", help='URL parameters for every screen, e.g. "preset=book&query=2"')
    parser.add_argument("--presenter", action=argparse.BooleanOptionalAction, default=True,
                        help="the app's presenter mode (presenter=1: big type, folded explanations, tables whole); "
                             "on by default, --no-presenter for the screen as a student sees it")
    parser.add_argument("--sections", default="all",
                        help="the folded sections to open (the URL's open=): all (default), none, or names such as "
                             "code,tensors; each open section starts a slide")
    parser.add_argument("--zoom", type=float, default=ZOOM,
                        help=f"lay the page out 1920/ZOOM CSS pixels wide and draw it ZOOM times as big (default {ZOOM:g}; "
                             "1 = a 1920-wide browser window)")
    parser.add_argument("--out", default="slides", help="folder for the images (default: ./slides)")
    parser.add_argument("--layout", choices=["pages", "tall"], default="pages",
                        help="pages: 16:9 slides, a long screen split in several (default); tall: one tall image")
    parser.add_argument("--scale", type=float, default=1, help="device scale factor: 2 gives 3840x2160 slides")
    parser.add_argument("--url", help="base URL of a running app (default: start app.py on a free port)")
    parser.add_argument("--app", default=str(ROOT / "app.py"), help="the Streamlit entry script to start")
    parser.add_argument("--timeout", type=float, default=90, help="seconds to wait for one screen (default 90)")
    parser.add_argument("--figures", action="store_true",
                        help="instead of screenshots: every chart as PNG and SVG, rendered offline by vl-convert")
    return parser


def parse_args(argv=None) -> argparse.Namespace:
    return make_parser().parse_args(argv)


def main(argv=None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    params = urllib.parse.parse_qsl(args.params.lstrip("?"), keep_blank_values=True)
    if not args.zoom >= 0.5:
        parser.error("--zoom must be at least 0.5")
    unknown = [s for s in args.screens if s not in BY_NAME]
    if unknown and (args.figures or Path(args.app).resolve() == ROOT / "app.py"):  # --app: any URL path
        parser.error(f"unknown screen(s) {' '.join(unknown)}; choose from {' '.join(BY_NAME)}")
    Path(args.out).mkdir(parents=True, exist_ok=True)
    began = time.time()
    failed = export_figures(args, params) if args.figures else screenshots(args, params)
    print(f"wrote to {Path(args.out).resolve()} in {time.time() - began:.1f} s")
    if failed:
        print(f"{failed} error(s) on screen: see above", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
