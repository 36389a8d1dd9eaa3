"""The options of scripts/slides.py, and which part of the package each run asks for."""
import argparse
import sys
import time
import urllib.parse
from pathlib import Path

from screens.registry import BY_NAME

from . import ROOT
from .naming import numbered, stem
from .presets import left_out_note, unchanged

ZOOM = 1.0  # default --zoom: presenter mode is laid out for a 1920-wide page; above 1.2 its heatmaps overflow columns


def make_parser(description: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--screens", nargs="+", default=None, metavar="SCREEN",
                        help="URL paths of the screens (home is /): " + " ".join(BY_NAME) + " (default: all)")
    parser.add_argument("--params", default="", help='URL parameters for every screen, e.g. "preset=book&query=2"')
    parser.add_argument("--presenter", action=argparse.BooleanOptionalAction, default=True,
                        help="the app's presenter mode (presenter=1: big type, folded explanations, tables whole); "
                             "on by default, --no-presenter for the screen as a student sees it")
    parser.add_argument("--sections", default="all",
                        help="the folded sections to open (the URL's open=): all (default), none, or names such as "
                             "code,tensors; each open section starts a slide")
    parser.add_argument("--zoom", type=float, default=ZOOM,
                        help=f"lay the page out 1920/ZOOM CSS pixels wide and draw it ZOOM times as big (default {ZOOM:g}; "
                             "1 = a 1920-wide browser window)")
    parser.add_argument("--out", default="slides", help="folder for the images (default: ./slides)")
    parser.add_argument("--layout", choices=["pages", "tall"], default="pages",
                        help="pages: 16:9 slides, a long screen split in several (default); tall: one tall image")
    parser.add_argument("--scale", type=float, default=1, help="device scale factor: 2 gives 3840x2160 slides")
    parser.add_argument("--url", help="base URL of a running app (default: start app.py on a free port)")
    parser.add_argument("--app", default=str(ROOT / "app.py"), help="the Streamlit entry script to start")
    parser.add_argument("--timeout", type=float, default=90, help="seconds to wait for one screen (default 90)")
    parser.add_argument("--figures", action="store_true",
                        help="instead of screenshots: every chart as PNG and SVG, rendered offline by vl-convert")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when the deck's check flags a slide (something cut at an edge, text under 16 px, "
                             "a slide under a quarter filled, a caption apart from its picture); every run reports "
                             "them, and writes check__<params>.txt beside the slides")
    parser.add_argument("--readme", action="store_true",
                        help="instead of slides: the README's screenshot (docs/screenshot.png, or --out FILE.png), "
                             "/scores at the book preset as a newcomer sees it, sidebar open, 1440 x 900")
    parser.add_argument("--keep-unchanged", action="store_true",
                        help="at a preset other than the book's (--params preset=gpt2-small), make the screens the "
                             "preset does not change too; by default the run leaves them out and says which")
    return parser


def chosen_screens(args, params: list[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """The screens to make, and those left out: every screen by default, less the ones a preset other than the
    book's does not change (unless --keep-unchanged); screens named with --screens are always made."""
    if args.screens is not None:
        return args.screens, []
    everything = list(BY_NAME)
    left = [] if args.keep_unchanged else unchanged(everything, params)
    return [s for s in everything if s not in left], left


def leave_out(out: Path, left: list[str], params: list[tuple[str, str]], figures: bool) -> None:
    """Say which screens were left out and why, on stdout and in a text file beside the slides; remove their
    images of an earlier run at this preset, so the folder holds what the note says."""
    file = out / f"{stem('left-out', params)}.txt"
    file.unlink(missing_ok=True)  # an earlier run's: this run writes its own (and capture.py the boxes it left out)
    if not left:
        return
    note = left_out_note(left, params)
    print(note)
    file.write_text(note + "\n", encoding="utf-8")
    for screen in left:
        for stale in out.glob(f"{stem(numbered(screen, left), params)}__{'chart' if figures else ''}[0-9][0-9]*.*"):
            stale.unlink()


def main(argv=None, description: str | None = None) -> int:
    parser = make_parser(description)
    args = parser.parse_args(argv)
    params = urllib.parse.parse_qsl(args.params.lstrip("?"), keep_blank_values=True)
    if not args.zoom >= 0.5:
        parser.error("--zoom must be at least 0.5")
    unknown = [s for s in args.screens or [] if s not in BY_NAME]
    if unknown and (args.figures or Path(args.app).resolve() == ROOT / "app.py"):  # --app: any URL path
        parser.error(f"unknown screen(s) {' '.join(unknown)}; choose from {' '.join(BY_NAME)}")
    if args.readme:
        from .readme import SCREENSHOT, readme_screenshot
        target = Path(args.out) if args.out.endswith(".png") else SCREENSHOT
        problems = readme_screenshot(target, Path(args.app).resolve(), args.timeout, args.url)
        print(f"wrote {target}" + "".join(f"\nERROR on screen: {p.splitlines()[0]}" for p in problems))
        return 1 if problems else 0
    screens, left = chosen_screens(args, params)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    leave_out(out, left, params, args.figures)
    began = time.time()
    flagged = 0
    if args.figures:
        from .figures import export_figures
        failed = export_figures(args, params, screens)
    else:
        from .capture import screenshots
        failed, flagged = screenshots(args, params, screens)
    print(f"wrote to {out.resolve()} in {time.time() - began:.1f} s")
    if failed:
        print(f"{failed} error(s) on screen: see above", file=sys.stderr)
    if flagged and args.strict:
        print(f"--strict: the check flagged {flagged} slide(s): see above", file=sys.stderr)
    return 1 if failed or (flagged and args.strict) else 0
