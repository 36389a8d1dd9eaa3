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
import sys
from pathlib import Path

from attention_core.book.device import describe, pick_device

from . import compute, report, sliders, views
from .sliders import CONFIGS, SCREENS
from .views import VIEW_SCREENS


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
    if args.screens:  # in place: sliders.py and views.py loop over these very lists
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
              f"- {report.versions()}", ""]
    lines = ["## Details", ""]
    if not args.skip_browser:
        header += ["## Summary (for the README)", ""]
        result = None
        if not args.views_only:
            result = sliders.measure(repeats, args.quick)
            lines += report.slider_details(result)
        if not args.skip_views:
            moves, opened = views.measure(args.presses)
            lines += report.view_details(moves, args.presses)
            naive_512 = (report.baseline_512(result) if result else
                         sliders.baseline_512_alone(repeats) if "512 tokens" in CONFIGS else None)
            header += ["Moves the browser handles:", "", *report.view_readme_table(moves, opened), "",
                       *report.view_speedup(moves, naive_512), ""]
        if result:
            header += ["Moves that rerun on the server:", "", *report.readme_table(result), ""]
    lines = header + lines
    if not args.skip_compute:
        compute.compute_section(device, repeats, args.quick, lines)
    if load:
        lines += ["", f"Load average at the end: {os.getloadavg()[0]:.2f} (other work on the machine makes every "
                      "figure slower)."]
    report_text = "\n".join(lines) + "\n"
    print(report_text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(report_text)
