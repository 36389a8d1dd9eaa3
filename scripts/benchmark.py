"""How fast the app reacts, and how fast its math is: one command, one markdown report.

    python scripts/benchmark.py --out docs/benchmark.md          # 10 moves per screen
    python scripts/benchmark.py --quick                          # 3 moves, fewer sizes

1. In headless Chromium, the time from a slider key press to the last change on the page (main
   area and sidebar), for EVERY slider of every stage screen, the sidebar's included, with the book
   preset, GPT-2 small and 512 random tokens.
2. Every move the browser handles (each slider of each attention view, on every stage screen and
   /trained): key press to the view's redraw, and to the next frame; and the messages sent to the server.
3. The same for the floor (scripts/floor_app.py: one slider and a caption in a fragment) and for a
   straightforward full-matrix Altair heatmap page (scripts/baseline_heatmap_app.py).
4. The compute time of each stage's lesson function on this machine's device, and the course's
   MultiHeadAttention forward against torch.nn.MultiheadAttention(need_weights=True) at GPT-2 small size.

Needs the dev requirements (playwright) and Chromium (/usr/bin/chromium or $CHROMIUM). It is a
measurement, not a test: figures depend on the machine and its load, which the report records.
"""
import argparse
import datetime
import os
import platform
import statistics
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

import numpy as np  # noqa: E402
import torch  # noqa: E402

from attention_core.lessons import traces  # noqa: E402
from attention_core.book.device import describe, pick_device  # noqa: E402
from attention_core.lessons.efficiency import time_call  # noqa: E402
from attention_core.book.inputs import BOOK_INPUTS  # noqa: E402
from attention_core.book.modules import MultiHeadAttention  # noqa: E402
from attention_core.book.seeding import build_seeded  # noqa: E402
from local_server import CHROMIUM, CHROMIUM_ARGS, streamlit_server, wait_idle  # noqa: E402
from screens.registry import STAGES  # noqa: E402
from view_moves import median_max, view_moves  # noqa: E402

SCREENS = [s.url_path for s in STAGES]
CONFIGS = {"book": "", "gpt2-small": "preset=gpt2-small", "512 tokens": "input=random&tokens=512"}
# Median targets (ms): a slider of the screen itself, and a sidebar slider that changes the inputs.
TARGET_MS = {"book": {"screen": 150, "sidebar": 300}, "gpt2-small": {"screen": 500, "sidebar": 500}}
# Sliders that move the zoom window of a large matrix are measured like the rest; these are not sliders
# of the lesson and are left out: none at the moment.
SKIP_KEYS: set[str] = set()
# Every slider on the page, in the sidebar or the main area, by its widget key.
# A slider inside a folded section (ui/sections.py) reports the section: it is measured with that section alone
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
SPEEDUP_TARGET, MHA_TARGET = 20, 1.3

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


def summary(times):
    if not times:
        return None, None
    return statistics.median(times), float(np.percentile(times, 90))


def ms(value) -> str:
    return "–" if value is None else f"{value:,.0f}"


def baseline_moves(browser, sizes, moves: int) -> dict:
    """{tokens: slider_latency of the naive full-matrix Altair page's seed slider} at each size."""
    rows = {}
    with serve(ROOT / "scripts" / "baseline_heatmap_app.py") as base:
        for tokens in sizes:
            rows[tokens] = slider_latency(browser, f"{base}/?tokens={tokens}", "seed", moves)
            print(f"  baseline {tokens}: {ms(summary(rows[tokens]['times'])[0])} ms", file=sys.stderr)
    return rows


def browser_section(moves: int, quick: bool, lines: list[str]) -> dict:
    """Every slider of every stage screen, the floor and the baseline; returns the rows for the summary."""
    from playwright.sync_api import sync_playwright
    baseline_sizes = (6, 64, 512) if quick else (6, 64, 256, 512)
    at_512 = ["scores", "heads"] if quick else SCREENS
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            lines += [f"Chromium {browser.version}, headless, 1600 × 1000. Time from the key press on a slider to "
                      f"the last change on the page, main area or sidebar (script run over, no skeleton, images "
                      f"loaded, and nothing changed for {QUIET_MS} ms after the last change or long task; that "
                      f"quiet wait is not counted). Every slider of the screen, the sidebar's included; "
                      f"{moves} moves per slider after one warm-up move, alternating → and ←.", ""]
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

    floor_ms = summary(floor["times"])[0]
    lines += ["### The floor", "", f"One slider and a caption in a fragment (scripts/floor_app.py): median "
              f"**{ms(floor_ms)} ms**, max {ms(max(floor['times'], default=None))} ms. Nothing in Streamlit here "
              "re-renders faster; the tables give each slider's distance above it.", "",
              "### Every slider: key press → last change on the page", "",
              "Split of the median move: until the script run starts / the run (server, and the page updating as "
              "elements arrive) / after the run ends (drawing, images).", "",
              "| setting | screen | slider | where | median ms | max ms | above floor ms | split ms | target | meets "
              "| failed moves | errors |",
              "|---|---|---|---|---:|---:|---:|---|---|---|---:|---:|"]
    for (config, screen, key), r in app_rows.items():
        median = summary(r["times"])[0]
        where = "sidebar" if r["sidebar"] else "screen"
        target = TARGET_MS.get(config, {}).get(where)
        meets = "–" if target is None or median is None else ("yes" if median <= target else "**no**")
        above = None if median is None or floor_ms is None else median - floor_ms
        lines.append(f"| {config} | /{screen} | `{key}` | {where} | {ms(median)} | {ms(max(r['times'], default=None))} "
                     f"| {ms(above)} | {' / '.join(ms(v) for v in r['split'])} | "
                     f"{f'≤ {target} ms' if target else '–'} | {meets} | {r['failed']} | {r['errors']} |")
    problems = [f"- {config} /{screen} `{key}`: " + "; ".join(r["why"]) for (config, screen, key), r in app_rows.items()
                if r["why"]]
    if problems:
        lines += ["", "Problems seen:", *problems]

    lines += ["", "### Baseline: a full-matrix Altair heatmap page (scripts/baseline_heatmap_app.py)", "",
              "One `mark_rect` per cell of a T × T softmax matrix with tooltips; the seed slider redraws it.", "",
              "| tokens | cells | median ms | p90 ms | split ms | failed moves |", "|---:|---:|---:|---:|---|---:|"]
    for tokens, r in base_rows.items():
        median, p90 = summary(r["times"])
        split = " / ".join(ms(v) for v in r["split"])
        lines.append(f"| {tokens} | {tokens * tokens:,} | {ms(median)} | {ms(p90)} | {split} | {r['failed']} |")
    baseline_512 = summary(base_rows.get(512, {"times": []})["times"])[0]
    lines += ["", f"### At 512 tokens: each screen's sliders against the baseline (target ≥ {SPEEDUP_TARGET}× faster)",
              "", "| screen | slider | app median ms | baseline median ms | speed-up | meets |",
              "|---|---|---:|---:|---:|---|"]
    for (config, screen, key), r in app_rows.items():
        if config != "512 tokens":
            continue
        app_median = summary(r["times"])[0]
        ratio = baseline_512 / app_median if app_median and baseline_512 else None
        lines.append(f"| /{screen} | `{key}` | {ms(app_median)} | {ms(baseline_512)} | "
                     f"{'–' if ratio is None else f'{ratio:.1f}×'} | "
                     f"{'–' if ratio is None else ('yes' if ratio >= SPEEDUP_TARGET else '**no**')} |")
    return {"floor": floor_ms, "rows": app_rows, "baseline_512": baseline_512}


VIEW_SCREENS = SCREENS + ["trained"]
VIEW_TARGET_MS = 16  # one frame


def view_section(presses: int, lines: list[str]) -> dict:
    """Every slider of every attention view, per setting and screen; returns the rows for the summary and
    the bytes each screen took to open."""
    from playwright.sync_api import sync_playwright
    rows, opened = {}, {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            with serve(ROOT / "app.py") as base:
                for config, query in CONFIGS.items():
                    for screen in VIEW_SCREENS:
                        url = f"{base}/{screen}" + (f"?{query}" if query else "")
                        rows[config, screen], opened[config, screen] = view_moves(browser, url, presses, wait_idle)
                        worst = max((statistics.median(r["drawn"]) for r in rows[config, screen] if r["drawn"]), default=None)
                        print(f"  view moves {config:>10} /{screen}: worst median {worst} ms", file=sys.stderr)
        finally:
            browser.close()
    lines += ["", "### Moves the browser handles: key press → drawn, and → the next frame", "",
              f"Each slider of each attention view, {presses} presses (→ → ← ←, 20 ms apart). drawn: the view's "
              "redraw has finished; frame: the next animation frame has started (headless Chromium paces frames "
              "itself, so this adds up to one frame interval of waiting). Messages: what the page sent to the server "
              "meanwhile.", "",
              "| setting | screen | view | slider | drawn median / max ms | frame median / max ms | presses | messages |",
              "|---|---|---|---|---:|---:|---:|---:|"]
    for (config, screen), found in rows.items():
        for r in found:
            lines.append(f"| {config} | /{screen} | {r['view']} | {r['name']} | {median_max(r['drawn'])} | "
                         f"{median_max(r['frame'])} | {len(r['drawn'])} | {r['sent']} |")
    return rows, opened


def baseline_512_alone(moves: int) -> float | None:
    """The naive page's median move at 512 tokens, for a run that measures only the views."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            return summary(baseline_moves(browser, (512,), moves)[512]["times"])[0]
        finally:
            browser.close()


def view_speedup(rows: dict, baseline_512) -> list[str]:
    """At 512 tokens: the slowest view move against the naive page's move (the issue's 20x)."""
    drawn = [statistics.median(r["drawn"]) for (config, _), found in rows.items() if config == "512 tokens"
             for r in found if r["drawn"]]
    if not drawn or not baseline_512:
        return []
    ratio = baseline_512 / max(drawn)
    return [f"At 512 tokens the slowest median view move ({max(drawn):.1f} ms, key press to drawn) is **{ratio:,.0f}×** "
            f"faster than a move on the full-matrix Altair page ({baseline_512:,.0f} ms; target ≥ {SPEEDUP_TARGET}×): "
            + ("met." if ratio >= SPEEDUP_TARGET else "**not met**.")]


def view_readme_table(rows: dict, opened: dict) -> list[str]:
    out = ["| setting | screen | bytes to open the screen | browser-handled sliders | worst median key → drawn ms | "
           "worst median key → next frame ms | messages sent | target | meets |", "|---|---|---:|---:|---:|---:|---:|---|---|"]
    for (config, screen), found in rows.items():
        drawn = [statistics.median(r["drawn"]) for r in found if r["drawn"]]
        frame = [statistics.median(r["frame"]) for r in found if r["frame"]]
        worst = max(drawn, default=None)
        ok = worst is not None and worst <= VIEW_TARGET_MS and not sum(r["sent"] for r in found)
        out.append(f"| {config} | /{screen} | {opened[config, screen]:,} | {len(drawn)} | {'–' if worst is None else f'{worst:.1f}'} | "
                   f"{'–' if not frame else f'{max(frame):.1f}'} | {sum(r['sent'] for r in found)} | "
                   f"≤ {VIEW_TARGET_MS} ms, 0 messages | {'yes' if ok else '**no**'} |")
    return out


def readme_table(result: dict) -> list[str]:
    """The README's summary: per setting and screen, the range of the sliders' medians and the worst one."""
    out = ["| setting | screen | screen sliders: median ms | sidebar sliders: median ms | target (screen / sidebar) "
           "| meets |", "|---|---|---|---|---|---|"]
    groups: dict = {}
    for (config, screen, key), r in result["rows"].items():
        median = summary(r["times"])[0]
        if median is not None:
            groups.setdefault((config, screen), {"screen": [], "sidebar": []})[
                "sidebar" if r["sidebar"] else "screen"].append((median, key))
    for (config, screen), g in groups.items():
        target = TARGET_MS.get(config)

        def cell(items):
            if not items:
                return "–"
            low, high = min(items), max(items)
            return f"{ms(low[0])}" if len(items) == 1 else f"{ms(low[0])}–{ms(high[0])} (slowest `{high[1]}`)"
        meets = "–"
        if target:
            ok = all(m <= target["screen"] for m, _ in g["screen"]) and all(m <= target["sidebar"] for m, _ in g["sidebar"])
            meets = "yes" if ok else "**no**"
        if config == "512 tokens" and result["baseline_512"]:
            slowest = max(m for m, _ in g["screen"])
            meets = f"{result['baseline_512'] / slowest:.0f}× the baseline (≥ {SPEEDUP_TARGET}×)"
        out.append(f"| {config} | /{screen} | {cell(g['screen'])} | {cell(g['sidebar'])} | "
                   f"{'≤ %d / %d' % (target['screen'], target['sidebar']) if target else '–'} | {meets} |")
    out.append(f"\nFloor (one slider and a caption in a fragment): {ms(result['floor'])} ms median.")
    return out


def compute_section(device: str, repeats: int, quick: bool, lines: list[str]) -> None:
    sizes = (6, 256, 1024) if quick else (6, 64, 256, 1024)
    lines += ["", f"### Compute per stage on {describe(device)} (cache miss: build the seeded modules, trace, copy "
              "to the CPU)", "", f"Median of {repeats} after one warm-up. 6 tokens: the book's inputs (d_in 3, "
              "d_out 2, 2 heads); otherwise seeded random inputs at GPT-2 small's sizes (d_in = d_out = 768, "
              "12 heads).", "",
              "| tokens | scores: `projection_trace('v1')` ms | mask: `causal_trace` ms | heads: `heads_trace` ms |",
              "|---:|---:|---:|---:|"]
    for tokens in sizes:
        if tokens == 6:
            x, d_out, heads = BOOK_INPUTS, 2, 2
        else:
            x, d_out, heads = traces.make_inputs("random", "", False, tokens, 768, 123).x, 768, 12
        timings = [time_call(fn, device, repeats) * 1e3 for fn in (
            lambda: traces.projection_trace(x, "v1", d_out, 123, device),
            lambda: traces.causal_trace(x, d_out, 789, tokens, device),
            lambda: traces.heads_trace(x, d_out, heads, 123, tokens, device))]
        lines.append(f"| {tokens} | " + " | ".join(f"{t:,.1f}" for t in timings) + " |")
        print(f"  compute {tokens}: {timings}", file=sys.stderr)

    # The course's MultiHeadAttention against PyTorch's, same weights, both returning per-head weights.
    T, d, h = 1024, 768, 12
    x = torch.rand(1, T, d, generator=torch.Generator().manual_seed(0)).to(device)  # (1, 1024, 768)
    course = build_seeded(MultiHeadAttention, 123, d, d, T, 0.0, h).to(device).eval()
    reference = torch.nn.MultiheadAttention(d, h, batch_first=True).to(device).eval()
    with torch.no_grad():
        reference.in_proj_weight.copy_(torch.cat([course.W_query.weight, course.W_key.weight, course.W_value.weight]))
        reference.in_proj_bias.zero_()  # the course has qkv_bias=False
        reference.out_proj.weight.copy_(course.out_proj.weight)
        reference.out_proj.bias.copy_(course.out_proj.bias)
        future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)  # (T, T)

        def ours():
            return course(x)

        def theirs():
            return reference(x, x, x, attn_mask=future, need_weights=True, average_attn_weights=False)
        diff = float((ours() - theirs()[0]).abs().max())
        ours_s, theirs_s = time_call(ours, device, repeats), time_call(theirs, device, repeats)
    ratio = ours_s / theirs_s
    lines += ["", f"### MultiHeadAttention forward at GPT-2 small size (1 × {T} × {d}, {h} heads, causal)", "",
              "| course `MultiHeadAttention` ms | `nn.MultiheadAttention(need_weights=True)` ms | ratio | target | "
              "meets | max abs diff |", "|---:|---:|---:|---|---|---:|",
              f"| {ours_s * 1e3:,.1f} | {theirs_s * 1e3:,.1f} | {ratio:.2f}× | ≤ {MHA_TARGET}× | "
              f"{'yes' if ratio <= MHA_TARGET else '**no**'} | {diff:.1e} |"]
    print(f"  MHA ratio {ratio:.2f}", file=sys.stderr)


def versions() -> str:
    import altair
    import streamlit
    from importlib.metadata import version
    return (f"Python {platform.python_version()}, torch {torch.__version__}, streamlit {streamlit.__version__}, "
            f"altair {altair.__version__}, playwright {version('playwright')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the markdown report here (it is printed either way)")
    parser.add_argument("--quick", action="store_true", help="3 repetitions and fewer sizes")
    parser.add_argument("--repeats", type=int, help="moves per screen and compute repetitions (default 10, quick 3)")
    parser.add_argument("--skip-browser", action="store_true", help="only the compute figures")
    parser.add_argument("--skip-compute", action="store_true", help="only the browser figures")
    parser.add_argument("--screens", nargs="+", choices=SCREENS, help="only these stage screens (default all)")
    parser.add_argument("--presses", type=int, default=20, help="presses per browser-handled slider (default 20)")
    parser.add_argument("--skip-views", action="store_true", help="leave out the browser-handled moves")
    parser.add_argument("--views-only", action="store_true", help="only the browser-handled moves")
    parser.add_argument("--configs", nargs="+", choices=list(CONFIGS), help="only these settings (default all)")
    args = parser.parse_args()
    if args.screens:
        SCREENS[:] = args.screens
        VIEW_SCREENS[:] = args.screens
    for config in set(CONFIGS) - set(args.configs or CONFIGS):
        del CONFIGS[config]
    repeats = args.repeats or (3 if args.quick else 10)
    device, _ = pick_device("auto")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    header = ["# Benchmark", "",
             f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
             f"- Command: `python scripts/benchmark.py {' '.join(sys.argv[1:])}`".replace("  ", " "),
             f"- Machine: {platform.machine()}, {os.cpu_count()} CPU cores, device {describe(device)}"
             + (f", load average at the start {load[0]:.2f}" if load else ""),
             f"- {versions()}", ""]
    lines = ["## Details", ""]
    if not args.skip_browser:
        header += ["## Summary (for the README)", ""]
        result = None if args.views_only else browser_section(repeats, args.quick, lines)
        if not args.skip_views:
            moves, opened = view_section(args.presses, lines)
            header += ["Moves the browser handles:", "", *view_readme_table(moves, opened), "",
                       *view_speedup(moves, result["baseline_512"] if result else
                                     baseline_512_alone(repeats) if "512 tokens" in CONFIGS else None), ""]
        if result:
            header += ["Moves that rerun on the server:", "", *readme_table(result), ""]
    lines = header + lines
    if not args.skip_compute:
        compute_section(device, repeats, args.quick, lines)
    if load:
        lines += ["", f"Load average at the end: {os.getloadavg()[0]:.2f} (other work on the machine makes every "
                      "figure slower)."]
    report = "\n".join(lines) + "\n"
    print(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(report)


if __name__ == "__main__":
    main()
