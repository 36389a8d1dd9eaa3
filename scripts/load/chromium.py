"""Real Chromium students (what a student sees), and the cold start: `streamlit run` -> home page drawn.

Playwright is imported only here and only when a browser is asked for (--browsers, --cold-start).
"""
import statistics
import time

from local_server import CHROMIUM, CHROMIUM_ARGS, exceptions, streamlit_flags, wait_idle

from .report import header
from .servers import local_server
from .students import Interaction

def browser_session(base, number, args, deadline, results, rng):
    """A real Chromium tab: open a screen and press the attention view's query slider until the deadline; each
    press is timed from the key event to the view's redraw (the browser draws it; nothing goes to the server)."""
    from playwright.sync_api import sync_playwright
    screen = "scores"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            start = time.perf_counter()
            try:
                page.goto(f"{base}/{screen}" + (f"?{args.params}" if args.params else ""),
                          timeout=args.timeout * 1000)
                wait_idle(page, timeout_ms=args.timeout * 1000)
                errors = exceptions(page)
                results.append(Interaction(1000 + number, "browser open", screen, time.perf_counter() - start,
                                           "; ".join(errors)[:300] or None))
            except Exception as error:
                results.append(Interaction(1000 + number, "browser open", screen, time.perf_counter() - start,
                                           f"{type(error).__name__}: {str(error)[:200]}"))
                return
            thumb = page.locator("input[data-control=query]").first  # the attention view's own query slider
            while time.monotonic() < deadline:
                time.sleep(rng.uniform(0.5, 1.5) * args.think)
                if time.monotonic() >= deadline:
                    break
                try:
                    thumb.focus(timeout=args.timeout * 1000)
                    now, low, high = (float(v) for v in thumb.evaluate("el => [el.value, el.min, el.max]"))
                    # a key that moves the thumb (at an end, the other way), so every press redraws
                    page.keyboard.press("ArrowLeft" if now >= high else "ArrowRight" if now <= low
                                        else rng.choice(["ArrowRight", "ArrowLeft"]))
                    page.wait_for_timeout(30)
                    drawn = page.locator(".av").first.evaluate("r => r.attentionView.timings.at(-1).fromEvent")
                    errors = exceptions(page)
                    results.append(Interaction(1000 + number, "browser move query", screen, drawn / 1000,
                                               "; ".join(errors)[:300] or None))
                except Exception as error:  # playwright's TimeoutError among others
                    results.append(Interaction(1000 + number, "browser move query", screen, args.timeout,
                                               f"{type(error).__name__}: {str(error)[:200]}"))
        finally:
            browser.close()


def cold_start(args) -> str:
    """Seconds from `streamlit run` to a first visit fully rendered in Chromium (a fresh server each time): the
    home page at once by default; with --cold-screen and --cold-after, the first student's screen that many
    seconds after the start (what a class meets when nobody opened the app before it)."""
    from playwright.sync_api import sync_playwright
    screen, after = args.cold_screen or "", args.cold_after
    rows = ["| run | server answers /_stcore/health s | first visit at s | first visit rendered s | "
            "rendered, from the start s | reload (warm) s | errors |", "|---|---:|---:|---:|---:|---:|---|"]
    firsts = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)  # started before the clock
        try:
            for run in range(args.repeats):
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                t0 = time.perf_counter()
                with local_server(extra_args=streamlit_flags(args.option)) as (base, _pid, _log):
                    healthy = time.perf_counter() - t0
                    time.sleep(max(0.0, t0 + after - time.perf_counter()))
                    visit = time.perf_counter()
                    page.goto(f"{base}/{screen}" + (f"?{args.params}" if args.params else ""),
                              timeout=args.timeout * 1000)
                    wait_idle(page, timeout_ms=args.timeout * 1000)
                    page.wait_for_selector("h1", timeout=args.timeout * 1000)
                    first, since_start = time.perf_counter() - visit, time.perf_counter() - t0
                    errors = exceptions(page)
                    t1 = time.perf_counter()
                    page.reload(timeout=args.timeout * 1000)
                    wait_idle(page, timeout_ms=args.timeout * 1000)
                    warm = time.perf_counter() - t1
                page.close()
                firsts.append(first)
                rows.append(f"| {run + 1} | {healthy:.1f} | {visit - t0:.1f} | {first:.1f} | {since_start:.1f} | "
                            f"{warm:.1f} | {'; '.join(errors) or 'none'} |")
        finally:
            browser.close()
    lines = header("Cold start", args)
    where = f"/{screen}" if screen else "the home page"
    lines += [f"From `streamlit run app.py` (process start) to a first visit of {where}"
              + (f"?{args.params}" if args.params else "")
              + (f", {after:g} s after the start," if after else ", as soon as the server answers,")
              + " fully rendered in headless Chromium (script run over, no skeleton left, the title drawn), timed "
                "from the visit. Chromium is launched before the clock starts. The first run after a fresh "
                "install is slower still (Python compiles the packages' bytecode).", "",
              *rows, "", f"Median first visit: {statistics.median(firsts):.1f} s."]
    return "\n".join(lines) + "\n"
