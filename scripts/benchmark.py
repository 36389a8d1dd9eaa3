"""How fast the app reacts, and how fast its math is: one command, one markdown report.

    python scripts/benchmark.py --out docs/benchmark.md          # 10 moves per screen
    python scripts/benchmark.py --quick                          # 3 moves, fewer sizes

1. In headless Chromium, the time from a slider key press to the end of the screen's re-render,
   on every stage screen, with the book preset, GPT-2 small and 512 random tokens.
2. The same for a straightforward full-matrix Altair heatmap page (scripts/baseline_heatmap_app.py).
3. The compute time of each stage's lesson function on this machine's device, and the course's
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

from attention_core import lesson  # noqa: E402
from attention_core.device import describe, pick_device  # noqa: E402
from attention_core.efficiency import time_call  # noqa: E402
from attention_core.inputs import BOOK_INPUTS  # noqa: E402
from attention_core.modules import MultiHeadAttention  # noqa: E402
from attention_core.seeding import build_seeded  # noqa: E402
from local_server import CHROMIUM, CHROMIUM_ARGS, streamlit_server, wait_idle  # noqa: E402
from screens.registry import STAGES  # noqa: E402

# The slider moved on each stage screen: the query token, except where the screen is about another control.
SLIDER_OTHER_THAN_QUERY = {"dropout": "dropout"}
SCREENS = {s.url_path: SLIDER_OTHER_THAN_QUERY.get(s.url_path, "query") for s in STAGES}
CONFIGS = {"book": "", "gpt2-small": "preset=gpt2-small", "512 tokens": "input=random&tokens=512"}
TARGET_MS = {"book": 150, "gpt2-small": 500}
QUIET_MS = 400  # the re-render is over once nothing has changed for this long
SPEEDUP_TARGET, MHA_TARGET = 20, 1.3

# Installed once per page load. From each key press it records when the script run starts and ends
# (the stApp attribute), the last change to the page outside the slider itself, the end of the last
# long task (Vega drawing on a canvas blocks the main thread without touching the DOM) and the last
# image load. All in the browser's own clock.
INSTALL = """(key) => {
  const b = window.__bench = {t0: null, running: null, done: null, last: 0, changed: 0};
  const app = document.querySelector('[data-testid="stApp"]');
  const main = document.querySelector('[data-testid="stMain"]') || document.body;
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
  if (b.done === null || document.querySelector('[data-testid="stSkeleton"]')) return false;
  if ([...document.querySelectorAll('[data-testid="stMain"] img')].some(i => !i.complete)) return false;
  return performance.now() - Math.max(b.done, b.last) > quiet;
}"""


@contextmanager
def serve(script: Path):
    """`streamlit run script` headless on a free port; yields the base URL."""
    with streamlit_server(script) as (base, _proc, _log):
        yield base


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


def browser_section(moves: int, quick: bool, lines: list[str]) -> None:
    from playwright.sync_api import sync_playwright
    baseline_sizes = (6, 64, 512) if quick else (6, 64, 256, 512)
    at_512 = ["scores"] if quick else list(SCREENS)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            lines += [f"Chromium {browser.version}, headless, 1600 × 1000. Time from the key press on the slider "
                      f"to the end of the re-render (script run over, no skeleton, images loaded, and nothing on "
                      f"the page changed for {QUIET_MS} ms after the last change or long task; that quiet wait is "
                      f"not counted). {moves} moves per row after one warm-up move, alternating → and ←.", ""]
            app_rows = {}
            with serve(ROOT / "app.py") as base:
                warm = browser.new_page()  # app.py runs once, so the screens' URL paths exist
                warm.goto(base, timeout=180_000)
                wait_idle(warm, timeout_ms=180_000)
                warm.close()
                for config, query in CONFIGS.items():
                    for screen, key in SCREENS.items():
                        if config == "512 tokens" and screen not in at_512:
                            continue
                        url = f"{base}/{screen}" + (f"?{query}" if query else "")
                        app_rows[config, screen] = slider_latency(browser, url, key, moves)
                        print(f"  {config:>10} /{screen}: {ms(summary(app_rows[config, screen]['times'])[0])} ms",
                              file=sys.stderr)
            lines += ["### Slider move → screen re-rendered", "",
                      "Split of the median move: until the script run starts / the run (server, and the page "
                      "updating as elements arrive) / after the run ends (drawing, images).", "",
                      "| screen | setting | slider | median ms | p90 ms | split ms | target | meets | failed moves "
                      "| errors |",
                      "|---|---|---|---:|---:|---|---|---|---:|---:|"]
            for (config, screen), r in app_rows.items():
                median, p90 = summary(r["times"])
                target = TARGET_MS.get(config)
                meets = "–" if target is None or median is None else ("yes" if median <= target else "**no**")
                split = " / ".join(ms(v) for v in r["split"])
                lines.append(f"| /{screen} | {config} | `{SCREENS[screen]}` | {ms(median)} | {ms(p90)} | {split} | "
                             f"{f'≤ {target} ms' if target else '–'} | {meets} | {r['failed']} | {r['errors']} |")

            problems = [f"- /{screen} ({config}): " + "; ".join(r["why"]) for (config, screen), r in app_rows.items()
                        if r["why"]]
            if problems:
                lines += ["", "Problems seen:", *problems]

            base_rows = {}
            with serve(ROOT / "scripts" / "baseline_heatmap_app.py") as base:
                for tokens in baseline_sizes:
                    base_rows[tokens] = slider_latency(browser, f"{base}/?tokens={tokens}", "seed", moves)
                    print(f"  baseline {tokens}: {ms(summary(base_rows[tokens]['times'])[0])} ms", file=sys.stderr)
        finally:
            browser.close()
    lines += ["", "### Baseline: a full-matrix Altair heatmap page (scripts/baseline_heatmap_app.py)", "",
              "One `mark_rect` per cell of a T × T softmax matrix with tooltips; the seed slider redraws it.", "",
              "| tokens | cells | median ms | p90 ms | split ms | failed moves |", "|---:|---:|---:|---:|---|---:|"]
    for tokens, r in base_rows.items():
        median, p90 = summary(r["times"])
        split = " / ".join(ms(v) for v in r["split"])
        lines.append(f"| {tokens} | {tokens * tokens:,} | {ms(median)} | {ms(p90)} | {split} | {r['failed']} |")
    baseline_512 = summary(base_rows.get(512, {"times": []})["times"])[0]
    lines += ["", f"### At 512 tokens: the app against the baseline (target ≥ {SPEEDUP_TARGET}× faster)", "",
              "| screen | app median ms | baseline median ms | speed-up | meets |", "|---|---:|---:|---:|---|"]
    for screen in at_512:
        app_median = summary(app_rows["512 tokens", screen]["times"])[0]
        if app_median and baseline_512:
            ratio = baseline_512 / app_median
            lines.append(f"| /{screen} | {ms(app_median)} | {ms(baseline_512)} | {ratio:.1f}× | "
                         f"{'yes' if ratio >= SPEEDUP_TARGET else '**no**'} |")
        else:
            lines.append(f"| /{screen} | {ms(app_median)} | {ms(baseline_512)} | – | – |")


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
            x, d_out, heads = lesson.make_inputs("random", "", False, tokens, 768, 123).x, 768, 12
        timings = [time_call(fn, device, repeats) * 1e3 for fn in (
            lambda: lesson.projection_trace(x, "v1", d_out, 123, device),
            lambda: lesson.causal_trace(x, d_out, 789, tokens, device),
            lambda: lesson.heads_trace(x, d_out, heads, 123, tokens, device))]
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
    args = parser.parse_args()
    repeats = args.repeats or (3 if args.quick else 10)
    device, _ = pick_device("auto")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    lines = ["# Benchmark", "",
             f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
             f"- Command: `python scripts/benchmark.py {' '.join(sys.argv[1:])}`".replace("  ", " "),
             f"- Machine: {platform.machine()}, {os.cpu_count()} CPU cores, device {describe(device)}"
             + (f", load average at the start {load[0]:.2f}" if load else ""),
             f"- {versions()}", ""]
    if not args.skip_browser:
        browser_section(repeats, args.quick, lines)
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
