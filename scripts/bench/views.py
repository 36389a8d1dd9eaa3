"""The moves the browser handles: every slider of every attention view, key press to drawn.

On each stage screen and /trained, in each setting: for each view on the page and each of its visible sliders
(query, key, zoom window, frames such as the temperature or the head), it focuses the slider and presses →
and ← (two forward, two back, 20 ms apart: a person's pace at most). Per press, from the page's own clock
(performance.now() against the key event's timeStamp):
- drawn: the view's redraw has finished (the canvas and texts hold the new state);
- frame: the next animation frame has started, the one that paints it.
It also counts the websocket messages the page sends meanwhile: a browser move sends none.
"""
import statistics
import sys

from local_server import CHROMIUM, CHROMIUM_ARGS, wait_idle

from . import ROOT
from .sliders import CONFIGS, SCREENS, serve, with_open

VIEW_SCREENS = SCREENS + ["trained"]

# Installed on each view root once: a keydown anywhere in it (its sliders included) records when the next
# frame starts. The view itself records `timings` (each redraw, from the event that caused it).
PROBE = """root => { const v = root.attentionView; v.frames = []; v.timings.length = 0;
  if (!root.__probe) { root.__probe = true;
    root.addEventListener('keydown', ev => requestAnimationFrame(() => v.frames.push(performance.now() - ev.timeStamp)), true); } }"""
VIEW_SLIDERS = """root => [...root.querySelectorAll('.av-slider:not([hidden]) input')].map(i => ({
  control: i.dataset.control, name: i.closest('.av-slider').querySelector('.av-slider-name').textContent,
  max: Number(i.max) }))"""


def view_moves(browser, url: str, presses: int) -> tuple[list[dict], int]:
    """([{view, control, name, drawn: [ms], frame: [ms], sent}] for every slider of every view on the page,
    the bytes the server sent to open the page)."""
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    sent, received = [], []

    def watch(ws):
        ws.on("framesent", lambda payload: sent.append(payload))
        ws.on("framereceived", lambda payload: received.append(len(payload)))
    page.on("websocket", watch)
    try:
        page.goto(url, timeout=180_000)
        wait_idle(page, timeout_ms=180_000)
        page.wait_for_selector(".av", state="attached", timeout=60_000)  # the view mounts after the run ends
        page.wait_for_timeout(300)  # every view of the page, not just the first
        opened = sum(received)
        rows = []
        views = page.locator(".av")
        for n in range(views.count()):
            root = views.nth(n)
            title = root.locator(".av-title").inner_text()
            for slider in root.evaluate(VIEW_SLIDERS):
                if slider["max"] < 2 or not presses:
                    continue  # nothing to move (one token, one head), or only the bytes were wanted
                root.evaluate(PROBE)
                thumb = root.locator(f"input[data-control={slider['control']}]")
                thumb.focus()
                before = len(sent)
                for press in range(presses):
                    page.keyboard.press(("ArrowRight", "ArrowLeft")[(press // 2) % 2])
                    page.wait_for_timeout(20)
                page.wait_for_timeout(100)
                drawn = [t["fromEvent"] for t in root.evaluate("r => r.attentionView.timings")]
                frames = root.evaluate("r => r.attentionView.frames.splice(0)")
                rows.append({"view": title, "control": slider["control"], "name": slider["name"], "drawn": drawn,
                             "frame": frames, "sent": len(sent) - before})
        return rows, opened
    finally:
        page.close()


def measure(presses: int) -> tuple[dict, dict]:
    """{(config, screen): view_moves' rows} for every setting and screen, and {(config, screen): the bytes
    the screen took to open}."""
    from playwright.sync_api import sync_playwright
    rows, opened = {}, {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            with serve(ROOT / "app.py") as base:
                for config, query in CONFIGS.items():
                    for screen in VIEW_SCREENS:
                        url = f"{base}/{screen}" + (f"?{query}" if query else "")
                        # The views of the lesson and of every folded section are pressed (?open=all); the bytes
                        # are those of the screen as it opens, with its sections closed.
                        rows[config, screen], _ = view_moves(browser, with_open(url, "all"), presses)
                        opened[config, screen] = view_moves(browser, url, 0)[1]
                        found = rows[config, screen]
                        worst = max((statistics.median(r["drawn"]) for r in found if r["drawn"]), default=None)
                        print(f"  view moves {config:>10} /{screen}: worst median {worst} ms", file=sys.stderr)
        finally:
            browser.close()
    return rows, opened
