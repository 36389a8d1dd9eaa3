"""What each kind of element costs a slider move in Chromium: the floor page (scripts/floor_app.py) with
N more elements of one kind in its fragment, key press to the last change, as scripts/benchmark.py measures.

    python scripts/element_costs.py --out docs/element-costs.md

Why: a stage screen's server move at the book's size is mostly the browser redrawing the elements its
fragment sends again (the server's own run is 25-55 ms). The difference between a row and the floor,
divided by N, is one element's share.
"""
import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/, for local_server and bench

from bench.sliders import slider_latency  # noqa: E402
from local_server import CHROMIUM, CHROMIUM_ARGS, streamlit_server  # noqa: E402

ROWS = (("markdown", 0), ("markdown", 30), ("static", 30), ("metric", 12), ("expander", 10))


def processor() -> str:
    """The processor's model name (Linux's /proc/cpuinfo; platform.processor() is empty there)."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return platform.processor() or "processor not named"
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), "processor not named")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=12, help="moves a row (the first, which warms up, not counted)")
    parser.add_argument("--out", type=Path, help="also write the markdown table here")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright
    rows = []
    with sync_playwright() as p, streamlit_server(Path(__file__).resolve().parent / "floor_app.py") as (base, _, _):
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for kind, count in ROWS:
                result = slider_latency(browser, f"{base}/?extra={count}&kind={kind}", "value", args.moves)
                rows.append((kind, count, statistics.median(result["times"]), result["failed"]))
                print(f"  {count} x {kind}: {rows[-1][2]:.0f} ms", file=sys.stderr)
        finally:
            browser.close()
    floor = rows[0][2]
    lines = [f"# What an element costs a move (scripts/element_costs.py, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
             "", f"- Machine: {platform.machine()}, {processor()}; "
             f"median of {args.moves} moves a row, after one that warms up", "",
             "A failed move is one whose run the detector did not see start and end (probably a run so short that the "
             "page's script state never visibly changed): it is left out of the median.",
             "", "| elements in the fragment besides the slider and caption | median ms | above the floor ms | each ms | failed |",
             "|---|---:|---:|---:|---:|"]
    for kind, count, median, failed in rows:
        each = f"{(median - floor) / count:.1f}" if count else "–"
        lines.append(f"| {count} × {kind} | {median:.0f} | {median - floor:.0f} | {each} | {failed} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
