"""The browser-side attention view: key press to drawn frame for each of its controls, and its payload size.

    python scripts/view_benchmark.py                 # 6 and 1,024 tokens, 40 presses a control
    python scripts/view_benchmark.py --presses 100 --tokens 6 64 1024
    python scripts/view_benchmark.py --payload-only  # only the payload's bytes and build time (no browser)
    python scripts/view_benchmark.py --screens --preset gpt2-small  # each stage screen's views as it opens (AppTest)

Serves scripts/view_app.py (the view on a seeded causal map), focuses
the view in headless Chromium and presses each control's key. Two figures a press, both from the
page's own clock (performance.now() against the key event's timeStamp):
- drawn: the view's redraw has finished (the canvas and texts hold the new state);
- frame: the next animation frame has started, the one that paints it (headless Chromium paces
  frames itself, so this adds up to one frame interval of waiting to the work).
Also the bytes one map's payload takes (Arrow tables as Streamlit serialises them, plus the JSON).
The build time is the median of 5 builds of that payload (Python's side of a map that is new to the server).
A measurement, not a test: the figures depend on the machine and its load.
"""
import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

import pandas as pd  # noqa: E402
import torch  # noqa: E402
from streamlit.dataframe_util import convert_anything_to_arrow_bytes  # noqa: E402

from attention_core.drawing.view_data import view_payload  # noqa: E402
from local_server import chromium_page, streamlit_server, wait_idle  # noqa: E402

APP = ROOT / "scripts" / "view_app.py"
# Each control's keys, alternating so the selection stays inside the map whatever its size.
CONTROLS = {"query": ["ArrowDown", "ArrowUp"], "key": ["ArrowRight", "ArrowLeft"],
            "window": ["Shift+ArrowDown", "Shift+ArrowUp"], "window_key": ["Shift+ArrowRight", "Shift+ArrowLeft"],
            "window_size": ["+", "-"]}
FRAME_PROBE = """e => { e.attentionView.frames = [];
  e.addEventListener('keydown', ev => requestAnimationFrame(() => e.attentionView.frames.push(performance.now() - ev.timeStamp))); }"""


def payload_bytes(tokens: int) -> dict:
    """Bytes of the view's data for one seeded causal map of `tokens` tokens, and the time to build it."""
    gen = torch.Generator().manual_seed(0)
    scores = torch.randn(tokens, tokens, generator=gen)  # (T, T)
    masked = torch.triu(torch.ones(tokens, tokens, dtype=torch.bool), diagonal=1)
    weights = torch.softmax(scores.masked_fill(masked, float("-inf")), dim=-1).numpy()  # (T, T)
    builds = []
    for _ in range(5):
        start = time.perf_counter()
        payload = view_payload(weights, [f"token{i}" for i in range(tokens)], scale="share" if tokens > 16 else "absolute")
        builds.append(time.perf_counter() - start)
    built = statistics.median(builds)
    sizes = {name: len(convert_anything_to_arrow_bytes(df)) for name, df in payload.items() if isinstance(df, pd.DataFrame)}
    sizes["the JSON"] = len(json.dumps(payload["meta"]))
    return {"sizes": sizes, "total": sum(sizes.values()), "build_s": built}


def measure(base: str, tokens: int, presses: int) -> dict:
    results = {}
    with chromium_page() as page:
        page.goto(f"{base}/?tokens={tokens}")
        wait_idle(page)
        view = page.locator(".av")
        view.wait_for(timeout=60_000)
        view.evaluate(FRAME_PROBE)
        view.focus()
        for control, keys in CONTROLS.items():
            if tokens <= 64 and control.startswith("window"):
                continue  # a small map has no zoom window
            view.evaluate("e => { e.attentionView.timings.length = 0; e.attentionView.frames.length = 0; }")
            for n in range(presses):
                page.keyboard.press(keys[(n // 2) % 2])  # two steps forward, two back
                page.wait_for_timeout(20)  # a person's pace at most: presses never pile up in one frame
            page.wait_for_timeout(100)
            results[control] = _timings(view)
        view.evaluate("e => { e.attentionView.timings.length = 0; }")
        box = page.locator(".av-grid").bounding_box()
        for n in range(presses):  # the pointer crosses the cells diagonally; each move sets the hover text
            page.mouse.move(box["x"] + (n + 0.5) % 32 / 32 * box["width"], box["y"] + (n * 7 + 0.5) % 32 / 32 * box["height"])
            page.wait_for_timeout(20)
        results["hover"] = _timings(view)
    return results


def _timings(view) -> dict:
    """This control's figures: drawn (the handler's own clock) and, for key presses, the next frame."""
    drawn = [t["fromEvent"] for t in view.evaluate("e => e.attentionView.timings")]
    return {"drawn": drawn, "frame": view.evaluate("e => e.attentionView.frames.splice(0)")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, nargs="+", default=[6, 1024])
    parser.add_argument("--presses", type=int, default=40)
    parser.add_argument("--payload-only", action="store_true", help="only the payload's bytes and build time")
    parser.add_argument("--screens", nargs="*", help="the views each stage screen sends as it opens (AppTest, no "
                        "browser): all stage screens, or those named")
    parser.add_argument("--preset", default="gpt2-small", help="with --screens: the app's preset")
    args = parser.parse_args()
    if args.payload_only:
        return print_payloads(args.tokens)
    if args.screens is not None:
        return print_screens(args.screens, args.preset)
    print("| tokens | control | key → drawn median / max (ms) | key → next frame median / max (ms) | presses |")
    print("|---|---|---|---|---|")
    with streamlit_server(APP) as (base, _proc, _log):
        for tokens in args.tokens:
            for control, r in measure(base, tokens, args.presses).items():
                d, f = r["drawn"], r["frame"]
                frame = f"{statistics.median(f):.1f} / {max(f):.1f}" if f else "– (no frame probe on the pointer)"
                print(f"| {tokens} | {control} | {statistics.median(d):.1f} / {max(d):.1f} | {frame} | {len(d)} |")
    print()
    print_payloads(args.tokens)


def print_payloads(token_counts) -> None:
    for tokens in token_counts:
        b = payload_bytes(tokens)
        parts = ", ".join(f"{name} {size:,}" for name, size in b["sizes"].items())
        print(f"payload at {tokens} tokens: {b['total']:,} bytes ({parts}); built in {b['build_s'] * 1000:.0f} ms")


def screen_views(screen: str, preset: str) -> list[dict]:
    """Each attention view the screen sends as it opens (its lesson only: folded sections stay shut), as the
    browser receives it: the JSON and every Arrow table, in bytes, and the time view_payload took to build it."""
    from streamlit.testing.v1 import AppTest

    from attention_core.drawing import view_data
    from screens.registry import BY_NAME
    from ui.compute import byte_cache
    built, real = [], view_data.view_payload

    def timed(*args, **kwargs):
        start = time.perf_counter()
        payload = real(*args, **kwargs)
        built.append((payload["meta"]["title"], time.perf_counter() - start))
        return payload

    view_data.view_payload = timed  # ui/draw/view_route.py calls it through the module
    try:
        byte_cache.clear_all()  # every map is built here, so its build time is measured
        at = AppTest.from_file(str(ROOT / "main.py"), default_timeout=300)
        at.query_params["preset"] = preset
        at.run()
        at.switch_page(BY_NAME[screen].file).run()
    finally:
        view_data.view_payload = real
    times = dict(built)
    found = []
    for element in at.get("bidi_component"):
        mixed = element.proto.mixed
        data = json.loads(mixed.json)
        meta = data["meta"]
        png = sum(map(len, meta["overview"].get("png", []))) if meta["overview"] else 0  # before 2026-11-25: base64 PNGs
        tables = {name: len(mixed.arrow_blobs[ref["__streamlit_arrow_ref__"]].data) for name, ref in data.items()
                  if isinstance(ref, dict) and "__streamlit_arrow_ref__" in ref}
        overview = png + tables.pop("overview", 0)
        found.append({"view": element.proto.id.rsplit("-", 1)[-1], "rows": meta["rows"], "layout": meta["layout"],
                      "exact": meta.get("exact", "all"), "frames": len(meta["legends"]), "json": len(mixed.json) - png,
                      "main": tables.pop("cells", 0) + tables.pop("top", 0) + tables.pop("bands", 0),
                      "overview": overview, "rest": sum(tables.values()), "build_s": times.get(meta["title"])})
    return found


def print_screens(screens: list[str], preset: str) -> None:
    from screens.registry import STAGE_PATHS
    print(f"| screen ({preset}) | view | size × frames | layout / exact | the map's tables | its rows' also-maps and "
          "vectors | overviews | the JSON | view total | build ms |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|")
    for screen in screens or STAGE_PATHS:
        total = 0
        for v in screen_views(screen, preset):
            size = v["main"] + v["rest"] + v["overview"] + v["json"]
            total += size
            build = "cached" if v["build_s"] is None else f"{v['build_s'] * 1000:.0f}"
            print(f"| /{screen} | {v['view']} | {v['rows']} × {v['frames']} | {v['layout']} / {v['exact']} | "
                  f"{v['main']:,} | {v['rest']:,} | {v['overview']:,} | {v['json']:,} | {size:,} | {build} |")
        print(f"| /{screen} | **all views** | | | | | | | **{total:,}** | |")


if __name__ == "__main__":
    main()
