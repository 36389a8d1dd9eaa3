"""Screenshots: the app in Chromium, each screen captured as 16:9 slides (or one tall image)."""
import io
import re
import sys
import time
import urllib.parse
from contextlib import contextmanager, nullcontext
from pathlib import Path

from local_server import CHROMIUM, CHROMIUM_ARGS, streamlit_server
from screens.registry import BY_NAME

from . import check, fill
from .check_js import CANVAS_TEXT, MEASURE, SKIP
from .cutting import HEIGHT, TOP_BAND, WIDTH, layout_slides, small_text
from .naming import numbered, stem, with_presenter
from .page_js import HIDE_CHROME, LAYOUT, PROBLEMS, READY


@contextmanager
def served(app: Path, timeout_s: float = 60):
    """The app headless on a free port; yields its base URL (a busy machine may take minutes to start it)."""
    with streamlit_server(app, start_timeout=max(60, timeout_s)) as (base, _proc, _log):
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
    page.goto(url, wait_until="domcontentloaded", timeout=timeout_s * 1000)  # not Playwright's 30 s: a busy machine
    wait_ready(page, timeout_s)
    # The common mistakes draw each wrong version in an error box on purpose: those are lessons, not problems.
    problems = [t.strip() for t in page.evaluate(
        "([sel, skip]) => [...document.querySelectorAll(sel)].filter(e => !e.closest('[class*=\"-mistakes\"]')"
        " && !e.closest(skip)).map(e => e.innerText)", [PROBLEMS, SKIP])]
    if page_not_found(page):
        problems.append("Page not found")
    return problems


def shoot(page, base: str, path: str, query: str, name: str, args) -> tuple[list[Path], list[str], list[str]]:
    """One screen's images, the problems on it, and a note per scaled-down slide. The check's findings go to
    args.reports (a SlideReport per slide) and args.skipped ({screen: texts left out for the teacher})."""
    url = f"{base}/{path}?{query}"
    problems = open_screen(page, url, args.timeout)
    width, height = WIDTH / args.zoom, HEIGHT / args.zoom  # one slide in CSS pixels
    out = Path(args.out)
    if args.layout == "tall":
        layout = page.evaluate(LAYOUT, height)
        page.set_viewport_size({"width": round(width), "height": layout["height"]})
        wait_ready(page, args.timeout)
        tall = page.evaluate(LAYOUT, height)["height"]
        file = out / f"{name}__tall.png"
        page.screenshot(path=file, animations="disabled", clip={"x": 0, "y": 0, "width": round(width), "height": tall})
        page.set_viewport_size({"width": round(width), "height": round(height)})
        return [file], problems, []
    # Everything laid out at once (the app scrolls inside its own container): a viewport as tall
    # as the content plus one slide, then one clip per slide with blank bands over the neighbours.
    page.set_viewport_size({"width": round(width), "height": page.evaluate(LAYOUT, height)["height"] + round(height)})
    wait_ready(page, args.timeout)
    layout = page.evaluate(LAYOUT, height)
    measured = page.evaluate(MEASURE, SKIP)
    if measured["skipped"]:
        args.skipped[name] = (["the whole screen"] if measured["whole"] else []) + measured["skipped"]
    for stale in out.glob(f"{name}__[0-9][0-9].png"):  # from an earlier, longer run of this screen
        stale.unlink()
    if measured["whole"]:  # nothing on it for a class (ui.for_the_teacher(..., whole_screen=True))
        page.set_viewport_size({"width": round(width), "height": round(height)})
        return [], problems, []
    files, scaled = [], []
    slides = layout_slides(layout, height, TOP_BAND, args.zoom)
    captions = check.caption_flags(layout["blocks"], [(s.start, s.stop) for s in slides])
    for i, slide in enumerate(slides, 1):
        top = slide.start - slide.band
        tall = max(height, slide.stop - top)  # a unit taller than a slide: captured whole, then scaled to fit
        title = check.title_slide(layout["blocks"], slide.start, slide.stop)
        image = capture(page, top, slide.start, slide.stop, tall, width, layout["bg"], args.scale)
        start, stop, ratio, seen = slide.start, slide.stop, 1.0, measured  # seen: what the check reads cuts from
        if tall <= height and check.inked(image, layout["bg"]) < check.MIN_FILLED:
            larger = fill.zoom_in(page, slide.start, slide.stop, height - slide.band, lambda: wait_ready(page, args.timeout))
            if larger:  # laid out again, larger (fill.py); the zoom comes off before the next slide
                ratio, start, stop, seen = larger
                image = capture(page, start - slide.band, start, stop, tall, width, layout["bg"], args.scale)
                fill.zoom_out(page, lambda: wait_ready(page, args.timeout))
                scaled.append(f"{name}__{i:02d}.png drawn {ratio:.2f} times as large: its ink covered under "
                              f"{check.MIN_FILLED:.0%} of the slide")
        file = out / f"{name}__{i:02d}.png"
        image.save(file)
        files.append(file)
        args.reports.append(check.SlideReport(file.name, check.cut_flags(seen, start, stop)
                                              + check.small_text_flags(measured, slide.start, slide.stop,
                                                                       slide.scale * ratio, args.zoom)
                                              + captions.get(i - 1, [])
                                              + check.fill_flag(check.filled(image, layout["bg"]), title)))
        if slide.scale < 1:
            size = small_text(slide.fonts)
            px = args.zoom * slide.scale  # image pixels per CSS pixel of text, on a 1920 x 1080 slide
            scaled.append(f"{file.name} scaled {slide.scale:.2f}" + (
                f", small text {size * px:.1f} px (smallest {min(map(float, slide.fonts)) * px:.1f} px)"
                if size else ", no text"))
    page.set_viewport_size({"width": round(width), "height": round(height)})
    return files, problems, scaled


def capture(page, top: float, start: float, stop: float, tall: float, width: float, background: str, scale: float):
    """One slide: the page from `top`, `tall` CSS px high, with blank bands over what lies above `start` and below
    `stop` (the neighbouring slides' content), fitted to 16:9."""
    page.evaluate("""([top, stop, bottom, bg, height]) => {
      for (const [y, h] of [[top, stop - top], [bottom, top + height - bottom]]) {
        const d = document.createElement('div'); d.className = 'slides-band';
        d.style.cssText = `position:fixed;left:0;top:${y}px;width:100%;height:${h}px;background:${bg};z-index:2147483647`;
        document.body.appendChild(d);
      }
    }""", [top, start, stop, background, tall])
    shot = page.screenshot(animations="disabled", clip={"x": 0, "y": top, "width": width, "height": tall})
    page.evaluate("document.querySelectorAll('.slides-band').forEach(d => d.remove())")
    return fit_slide(shot, background, scale)


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


def screenshots(args, params: list[tuple[str, str]], screens: list[str]) -> tuple[int, int]:
    """Every screen as slides: (errors on screen, slides the check flags)."""
    from playwright.sync_api import Error as PlaywrightError, sync_playwright
    if not Path(CHROMIUM).exists():
        sys.exit(f"Chromium not found at {CHROMIUM} (Debian: apt-get install chromium, or set $CHROMIUM)")
    query = urllib.parse.urlencode(with_presenter(params, args.presenter, args.sections)
                                   + [("embed", "true"), ("embed_options", "light_theme")])
    failed, scaled = 0, []
    args.reports, args.skipped = [], {}
    with (nullcontext(args.url.rstrip("/")) if args.url else served(Path(args.app).resolve(), args.timeout)) as base, \
            sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": round(WIDTH / args.zoom), "height": round(HEIGHT / args.zoom)},
                                          device_scale_factor=args.scale * args.zoom, color_scheme="light")
            context.add_init_script(HIDE_CHROME)
            context.add_init_script(CANVAS_TEXT)
            page = context.new_page()
            for screen in screens:
                began = time.time()
                try:
                    path = BY_NAME[screen].url_path if screen in BY_NAME else screen  # --app: any URL path
                    files, problems, notes = shoot(page, base, path, query, stem(numbered(screen, screens), params),
                                                   args)
                except PlaywrightError as error:  # a timeout: report it, go on with the next screen
                    files, problems, notes = [], [f"{type(error).__name__}: {str(error).splitlines()[0]}"], []
                    page.set_viewport_size({"width": round(WIDTH / args.zoom), "height": round(HEIGHT / args.zoom)})
                print(f"{screen}: {len(files)} image(s) in {time.time() - began:.1f} s: "
                      + ", ".join(str(f) for f in files) + "".join(f"\n  {n}" for n in notes)
                      + "".join(f"\n  flagged {r.file}: {flag}" for r in args.reports[-len(files):] if files
                                for flag in r.flags), flush=True)
                scaled += notes
                for problem in problems:
                    failed += 1
                    print(f"ERROR on screen {screen}: {problem.splitlines()[0] if problem else '(empty)'}")
        finally:
            browser.close()
    larger = [note for note in scaled if " times as large" in note]
    scaled = [note for note in scaled if note not in larger]
    with_text = [note for note in scaled if _px(note)]
    print(f"{len(scaled)} slide(s) scaled down to fit"
          + (f"; the smallest small text on them: {min(with_text, key=_px)}" if with_text else "")
          + f"; {len(larger)} drawn larger to fill them")
    return failed, (write_check(args, params) if args.layout == "pages" else 0)


def write_check(args, params: list[tuple[str, str]]) -> int:
    """The deck's check (check.py), printed and written beside the slides; the number of slides it flags."""
    lines = check.report_lines(args.reports, args.skipped)
    report = Path(args.out) / f"{stem('check', params)}.txt"
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if args.skipped:  # beside the preset's left-out screens (cli.leave_out), if any
        with open(Path(args.out) / f"{stem('left-out', params)}.txt", "a", encoding="utf-8") as note:
            note.write("".join(f"{line}\n" for line in check.skipped_lines(args.skipped)))
    print("check: " + "\ncheck: ".join(lines) + f"\n(the check's report: {report})")
    return sum(1 for r in args.reports if r.flags)


def _px(note: str) -> float:
    """The small text's size in a note of `shoot` (0 when it names none)."""
    found = re.search(r"small text ([\d.]+) px", note)
    return float(found.group(1)) if found else 0
