"""Is this checkout's slider slower than another's? An A/B in one headless Chromium, same machine.

    git worktree add /tmp/before c247788                      # the code before the layout redesign
    python scripts/compare_checkouts.py /tmp/before --rounds 4 --moves 5 --out docs/benchmark-before-layout-ab.md
    # one checkout under two server settings: the file watcher as `streamlit run app.py` had it, against poll
    python scripts/compare_checkouts.py . --other-option server.fileWatcherType=auto --this-option server.fileWatcherType=poll

For each stage screen, key press → last change on the page (scripts/benchmark.py's measure) for one slider
(default the sidebar's d_out), in both checkouts, each served by its own `streamlit run`. The rounds
alternate which checkout goes first, so a drift of the machine's load falls on both. Reported: the median
of all moves, each round's median, and a bootstrap 95 % interval of the difference of the medians (an
interval that holds 0 means the two cannot be told apart at this number of moves).
"""
import argparse
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from bench.sliders import SCREENS, slider_latency  # noqa: E402
from local_server import CHROMIUM, CHROMIUM_ARGS, streamlit_flags, streamlit_server, wait_idle  # noqa: E402


def difference_interval(before: list, now: list, draws: int = 5000, seed: int = 0) -> tuple[float, float]:
    """Bootstrap 95 % interval of median(now) − median(before)."""
    rng = random.Random(seed)
    diffs = sorted(statistics.median(rng.choices(now, k=len(now))) - statistics.median(rng.choices(before, k=len(before)))
                   for _ in range(draws))
    return diffs[int(0.025 * draws)], diffs[int(0.975 * draws) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="the other checkout (a directory holding app.py)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--moves", type=int, default=5, help="moves per screen and round, after one warm-up")
    parser.add_argument("--key", default="d_out", help="the slider's widget key (default the sidebar's d_out)")
    parser.add_argument("--screens", nargs="+", default=SCREENS)
    parser.add_argument("--other-option", action="append", default=[], metavar="NAME=VALUE",
                        help="a Streamlit config option for the other side's server, e.g. server.fileWatcherType=auto")
    parser.add_argument("--this-option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright
    trees = {"other": args.other.resolve() / "app.py", "this": ROOT / "app.py"}
    options = {"other": tuple(streamlit_flags(args.other_option)), "this": tuple(streamlit_flags(args.this_option))}
    times = {(tree, s): [] for tree in trees for s in args.screens}
    rounds = {(tree, s): [] for tree in trees for s in args.screens}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for r in range(args.rounds):
            order = list(trees.items()) if r % 2 == 0 else list(reversed(trees.items()))
            for tree, app in order:
                with streamlit_server(app, options[tree]) as (base, _proc, _log):
                    warm = browser.new_page()  # app.py runs once, so the screens' URL paths exist
                    warm.goto(base, timeout=180_000)
                    wait_idle(warm, timeout_ms=180_000)
                    warm.close()
                    for screen in args.screens:
                        found = slider_latency(browser, f"{base}/{screen}", args.key, args.moves)["times"]
                        times[tree, screen] += found
                        rounds[tree, screen].append(statistics.median(found) if found else None)
                        print(f"  round {r + 1} {tree} /{screen}: {rounds[tree, screen][-1]} ms", file=sys.stderr)
        browser.close()
    sides = {t: f"{t} ({' '.join(o) or 'server.fileWatcherType=none, as scripts/local_server.py starts it'})"
             for t, o in (("other", args.other_option), ("this", args.this_option))}
    lines = [f"# `{args.key}`: {args.other} against this checkout", "",
             f"Servers: {sides['other']}; {sides['this']}.", "",
             f"`python scripts/compare_checkouts.py {' '.join(sys.argv[1:])}`; {args.rounds} rounds of {args.moves} "
             "moves per screen and checkout, alternating which goes first.", "",
             "| screen | other: median ms | this: median ms | difference ms (95 % interval) | rounds' medians, other | "
             "rounds' medians, this |", "|---|---:|---:|---|---|---|"]
    for screen in args.screens:
        before, now = times["other", screen], times["this", screen]
        if not before or not now:
            lines.append(f"| /{screen} | – | – | no moves measured | | |")
            continue
        low, high = difference_interval(before, now)
        rounds_text = {t: ", ".join("–" if m is None else f"{m:,.0f}" for m in rounds[t, screen]) for t in trees}
        lines.append(f"| /{screen} | {statistics.median(before):,.0f} ({len(before)}) | {statistics.median(now):,.0f} "
                     f"({len(now)}) | {statistics.median(now) - statistics.median(before):+,.0f} ({low:+,.0f} … "
                     f"{high:+,.0f}) | {rounds_text['other']} | {rounds_text['this']} |")
    report = "\n".join(lines) + "\n"
    print(report)
    if args.out:
        args.out.write_text(report)


if __name__ == "__main__":
    main()
