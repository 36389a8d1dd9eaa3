"""Key press on a slider -> the last change on the page, in headless Chromium.

For every slider of every stage screen (the sidebar's included) in each setting, for the floor page
(scripts/floor_app.py: one slider and a caption in a fragment) and for the naive full-matrix Altair page
(scripts/baseline_heatmap_app.py) at several sizes. The browser's own clock times each move.
"""
import statistics
import sys
from contextlib import contextmanager
from pathlib import Path

from local_server import CHROMIUM, CHROMIUM_ARGS, streamlit_server, wait_idle
from screens.registry import STAGE_PATHS

from . import ROOT
from .report import ms, summary

SCREENS = STAGE_PATHS
CONFIGS = {"book": "", "gpt2-small": "preset=gpt2-small", "512 tokens": "input=random&tokens=512"}
# Sliders that move the zoom window of a large matrix are measured like the rest; these are not sliders
# of the lesson and are left out: none at the moment.
SKIP_KEYS: set[str] = set()
# Every slider on the page, in the sidebar or the main area, by its widget key.
# A slider inside a folded section (ui/state/sections.py) reports the section: it is measured with that section alone
# open, as a visitor who opened it would move it (the page is found with every section open: ?open=all).
SLIDERS = """(screen) => [...document.querySelectorAll('[data-testid="stSlider"]')].map(el => {
  const keyed = el.closest('[class*="st-key-"]');
  const key = keyed && [...keyed.classList].find(c => c.startsWith('st-key-'));
  const wrapper = el.closest('[class*="st-key-section-"]');
  const prefix = 'st-key-section-' + screen + '-';
  const section = wrapper && [...wrapper.classList].find(c => c.startsWith(prefix));
  return key && {key: key.slice(7), sidebar: !!el.closest('[data-testid="stSidebar"]'),
                 section: section ? section.slice(prefix.length) : null};
}).filter(Boolean)"""
QUIET_MS = 400  # the re-render is over once nothing has changed for this long

# Installed once per page load. From each key press it records when the script run starts and ends
# (the stApp attribute), the last change to the page outside the slider itself, the end of the last
# long task (Vega drawing on a canvas blocks the main thread without touching the DOM) and the last
# image load. All in the browser's own clock.
INSTALL = """(key) => {
  const b = window.__bench = {t0: null, running: null, done: null, last: 0, changed: 0};
  const app = document.querySelector('[data-testid="stApp"]');
  const main = app;  // the main area and the sidebar
  new MutationObserver(records => {
    if (b.t0 === null) return;
    const now = performance.now();
    const states = records.slice(1).map(r => r.oldValue).concat([app.getAttribute('data-test-script-state')]);
    for (const s of states) {
      if (s === 'running' && b.running === null) b.running = now;
      if (s === 'notRunning' && b.running !== null && b.done === null) b.done = now;
    }
  }).observe(app, {attributes: true, attributeFilter: ['data-test-script-state'], attributeOldValue: true});
  new MutationObserver(records => {
    if (b.t0 === null) return;
    const own = document.querySelector('.st-key-' + key);
    const outside = records.filter(r => !(own && own.contains(r.target)));
    if (outside.length) { b.last = performance.now(); b.changed += outside.length; }
  }).observe(main, {subtree: true, childList: true, attributes: true, characterData: true});
  new PerformanceObserver(list => {
    for (const e of list.getEntries()) if (b.t0 !== null) b.last = Math.max(b.last, e.startTime + e.duration);
  }).observe({type: 'longtask'});
  document.addEventListener('load', e => {
    if (b.t0 !== null && e.target.tagName === 'IMG') b.last = Math.max(b.last, performance.now());
  }, true);
  window.addEventListener('keydown', () => {
    Object.assign(b, {t0: performance.now(), running: null, done: null, last: 0, changed: 0});
  }, true);
}"""
FINISHED = """(quiet) => {
  const b = window.__bench;
  const drawn = window.__attentionViewDrawn || 0;  // an attention view redraws a canvas: no DOM change to observe
  if (b.t0 !== null && drawn > b.t0) b.last = Math.max(b.last, drawn);
  if (b.done === null || document.querySelector('[data-testid="stSkeleton"]')) return false;
  if ([...document.querySelectorAll('[data-testid="stMain"] img')].some(i => !i.complete)) return false;
  return performance.now() - Math.max(b.done, b.last) > quiet;
}"""


@contextmanager
def serve(script: Path):
    """`streamlit run script` headless on a free port; yields the base URL."""
    with streamlit_server(script) as (base, _proc, _log):
        yield base


def with_open(url: str, sections: str) -> str:
    return url + ("&" if "?" in url else "?") + f"open={sections}"


def page_sliders(browser, url: str, screen: str) -> list[dict]:
    """The sliders a page shows with every section open: [{key, sidebar, section}], main area and sidebar."""
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    try:
        page.goto(with_open(url, "all"), timeout=180_000)
        wait_idle(page, timeout_ms=180_000)
        return [s for s in page.evaluate(SLIDERS, screen) if s["key"] not in SKIP_KEYS]
    finally:
        page.close()


def slider_latency(browser, url: str, key: str, moves: int) -> dict:
    """Median and p90 ms from a key press on slider `key` to the end of the re-render."""
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    try:
        page.goto(url, timeout=180_000)
        wait_idle(page, timeout_ms=180_000)
        errors = page.locator('[data-testid="stException"]').count()
        times, parts, failed, why = [], [], 0, set()
        dialog = page.locator('[role="dialog"]')
        if dialog.count():  # e.g. Streamlit's "Page not found": say so, close it, measure anyway
            why.add("a dialog was open after loading: " + dialog.first.inner_text().replace("\n", " ")[:100])
            page.keyboard.press("Escape")
            wait_idle(page, timeout_ms=180_000)
        page.evaluate(INSTALL, key)
        thumb = page.locator(f".st-key-{key} input[type=range]")
        for i in range(moves + 1):  # the first move warms the caches and is not counted
            thumb.focus()
            if not thumb.evaluate("el => el === document.activeElement"):
                blocker = page.evaluate("document.activeElement && (document.activeElement.getAttribute('role') "
                                        "|| document.activeElement.tagName)")
                why.add(f"the slider could not take the keyboard focus ({blocker} has it)")
                failed += 1
                continue
            page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
            try:
                page.wait_for_function("window.__bench.running !== null", timeout=5_000, polling=10)
                page.wait_for_function(FINISHED, arg=QUIET_MS, timeout=180_000, polling=20)
            except Exception:  # playwright's TimeoutError: the rerun never started or never ended
                why.add("no rerun started within 5 s, or it did not end")
                failed += 1
                wait_idle(page, timeout_ms=180_000)
                continue
            b = page.evaluate("window.__bench")
            if i and b["changed"]:
                end = max(b["done"], b["last"])
                times.append(end - b["t0"])
                parts.append((b["running"] - b["t0"], b["done"] - b["running"], end - b["done"]))
            elif i:
                why.add("a rerun changed nothing outside the slider")
                failed += 1
        # Where the time went (medians): key press -> run starts, the run, the drawing after it.
        split = [statistics.median(p) for p in zip(*parts)] if parts else [None] * 3
        return {"times": times, "failed": failed, "errors": errors, "why": sorted(why), "split": split}
    finally:
        page.close()


def baseline_moves(browser, sizes, moves: int) -> dict:
    """{tokens: slider_latency of the naive full-matrix Altair page's seed slider} at each size."""
    rows = {}
    with serve(ROOT / "scripts" / "baseline_heatmap_app.py") as base:
        for tokens in sizes:
            rows[tokens] = slider_latency(browser, f"{base}/?tokens={tokens}", "seed", moves)
            print(f"  baseline {tokens}: {ms(summary(rows[tokens]['times'])[0])} ms", file=sys.stderr)
    return rows


def measure(moves: int, quick: bool) -> dict:
    """The floor, every slider of every stage screen in each setting, then the baseline at each size.

    {chromium, quiet_ms, moves: how it was measured; floor, rows {(config, screen, key): ...}, baseline
    {tokens: ...}: slider_latency's results, each app row with `sidebar` added}.
    """
    from playwright.sync_api import sync_playwright
    baseline_sizes = (6, 64, 512) if quick else (6, 64, 256, 512)
    if "512 tokens" not in CONFIGS:  # the 512-token pages are what the baseline is compared with: small sizes only
        baseline_sizes = (6, 64)
    at_512 = ["scores", "heads"] if quick else SCREENS
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            chromium = browser.version
            with serve(ROOT / "scripts" / "floor_app.py") as base:
                floor = slider_latency(browser, base, "value", moves)
            print(f"  floor: {ms(summary(floor['times'])[0])} ms", file=sys.stderr)
            app_rows = {}
            with serve(ROOT / "app.py") as base:
                warm = browser.new_page()  # app.py runs once, so the screens' URL paths exist
                warm.goto(base, timeout=180_000)
                wait_idle(warm, timeout_ms=180_000)
                warm.close()
                for config, query in CONFIGS.items():
                    for screen in SCREENS:
                        if config == "512 tokens" and screen not in at_512:
                            continue
                        url = f"{base}/{screen}" + (f"?{query}" if query else "")
                        for slider in page_sliders(browser, url, screen):
                            if config == "512 tokens" and slider["sidebar"]:
                                continue  # the comparison with the baseline is about the screen's own slider
                            where = with_open(url, slider["section"]) if slider["section"] else url
                            r = slider_latency(browser, where, slider["key"], moves)
                            app_rows[config, screen, slider["key"]] = r | {"sidebar": slider["sidebar"]}
                            print(f"  {config:>10} /{screen} {slider['key']}: {ms(summary(r['times'])[0])} ms",
                                  file=sys.stderr)
            base_rows = baseline_moves(browser, baseline_sizes, moves)
        finally:
            browser.close()
    return {"chromium": chromium, "quiet_ms": QUIET_MS, "moves": moves, "floor": floor, "rows": app_rows,
            "baseline": base_rows}


def baseline_512_alone(moves: int) -> float | None:
    """The naive page's median move at 512 tokens, for a run that measures only the views."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            return summary(baseline_moves(browser, (512,), moves)[512]["times"])[0]
        finally:
            browser.close()
