"""Slides from the app: every screen as 16:9 PNGs, or every chart as PNG + SVG.

    python scripts/slides.py                                # all screens -> ./slides/01-home__01.png ..., 1920x1080
    python scripts/slides.py --strict                       # exit 1 when the deck's check flags a slide
    python scripts/slides.py --screens scores mask --params "preset=book&query=2" --scale 2
    python scripts/slides.py --params "preset=gpt2-small"   # only the screens the preset changes
    python scripts/slides.py --layout tall                  # one tall 1920-wide image per screen
    python scripts/slides.py --figures --screens scores     # every chart, offline (vl-convert)

Screenshots start `streamlit run app.py` headless on a free port (or use --url of a running app)
and open each screen in Debian's Chromium (/usr/bin/chromium or $CHROMIUM) with Streamlit's toolbar
and the sidebar hidden, in the light theme, in the app's presenter mode (type and charts for the
back of a room, tables without scroll boxes; --no-presenter for the screen as a student sees it),
laid out 1920 / --zoom CSS pixels wide and captured at 1920 x 1080. Every folded section of a screen
is opened (--sections all, the URL's open=all), and each open section starts a slide with its title.
A long screen becomes several slides, cut between its blocks: a heading and its intro stay with the
picture they introduce, a caption with the block above it. A block taller than a slide is scaled down
only while its text stays at 16 px or more on the slide, and cut between two rows beyond that; a slide
left mostly empty joins its neighbour where both fit. At a preset other than the book's, the screens
the preset does not change are left out (the run says which; --keep-unchanged makes them too).
Files sort in the sidebar's order (01-home, 02-scores, ...: screens/registry.py). What the app marks for the
teacher alone (ui.for_the_teacher: a download command, a missing file) is left out, and named in left-out*.txt.
The deck checks itself (scripts/deck/check.py): every slide with something cut at an edge, a wrapped line of code,
text under 16 px, less than a quarter filled, or a caption apart from its picture is reported, and written to
check*.txt beside the slides.
The exit status is 1 when a screen shows an exception or an st.error, or with --strict when the check flags a slide.
The code: scripts/deck/.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # scripts/, so that `deck` imports from anywhere

from deck import cli  # noqa: E402
# What tests/test_slides.py checks directly (the cutting: tests/test_slides_cutting.py on deck.cutting).
from deck import check  # noqa: E402,F401
from deck.capture import fit_slide  # noqa: E402,F401
from deck.figures import arrow_records, chart_title  # noqa: E402,F401
from deck.naming import numbered, slug, stem, with_presenter  # noqa: E402,F401
from screens.registry import BY_NAME  # noqa: E402,F401


def make_parser():
    return cli.make_parser(__doc__)


def parse_args(argv=None):
    return make_parser().parse_args(argv)


def main(argv=None) -> int:
    return cli.main(argv, __doc__)


if __name__ == "__main__":
    sys.exit(main())
