"""scripts/slides.py, run as a teacher would: slides from the real app in Chromium, figures offline."""
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from xml.etree import ElementTree

import pytest
from PIL import Image  # installed with Streamlit

from browser import require_browser, streamlit_server
from conftest import open_screen

ROOT = Path(__file__).resolve().parents[1]
SLIDES = ROOT / "scripts" / "slides.py"
_spec = importlib.util.spec_from_file_location("slides", SLIDES)
SLIDES_MODULE = importlib.util.module_from_spec(_spec)  # its naming and data helpers, for the checks
_spec.loader.exec_module(SLIDES_MODULE)


def slides(*args, timeout=600) -> subprocess.CompletedProcess:  # a busy 2-core machine takes minutes
    return subprocess.run([sys.executable, str(SLIDES), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def named(screen: str) -> str:
    """The screen's file-name stem: its place in the sidebar, then its name ("02-scores")."""
    return SLIDES_MODULE.numbered(screen, [screen])


def pngs(folder: Path, screen: str) -> list[Path]:
    return sorted(folder.glob(f"{named(screen)}__*.png"))


def not_blank(path: Path) -> bool:
    """More than 0.5% of the pixels differ from the most common colour (the background)."""
    image = Image.open(path).convert("RGB")
    image.thumbnail((480, 270))  # plenty for this, and quick
    counts = sorted(count for count, _ in image.getcolors(maxcolors=image.width * image.height))
    return sum(counts[:-1]) > 0.005 * image.width * image.height


@pytest.fixture
def browser():
    require_browser()


@pytest.fixture(scope="module")
def server():
    """One running app for the runs that take --url (the first test starts its own)."""
    require_browser()
    with streamlit_server() as base:
        yield base


def chrome_hidden(path: Path) -> bool:
    """The left edge (where the sidebar would be) and the top edge (the toolbar) are plain background,
    the colour of the right margin, which is background in any case."""
    image = Image.open(path).convert("RGB")
    w, h = image.size

    def colours(box):
        strip = image.crop(box)
        return {colour for _, colour in strip.getcolors(maxcolors=strip.width * strip.height)}

    background = colours((w - w // 100, 0, w, h))
    return len(background) == 1 and colours((0, 0, w // 50, h)) == colours((0, 0, w, h // 27)) == background


def test_slides_of_two_screens_are_16_9_images_with_content(browser):
    out = Path(tempfile.mkdtemp(prefix="slides-"))
    run = slides("--screens", "scores", "mask", "--layout", "pages", "--out", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    assert str(out) in run.stdout
    for screen in ("scores", "mask"):
        files = pngs(out, screen)
        assert len(files) >= 2, f"{screen}: a long screen gives several slides, got {files}"
        assert files[0].name == f"{named(screen)}__01.png"
        for file in files:
            assert Image.open(file).size == (1920, 1080), file
            assert not_blank(file), f"{file} is blank"
        assert chrome_hidden(files[0]), f"{files[0]}: the sidebar or the toolbar shows"
    made = sorted(p.name for s in ("scores", "mask") for p in pngs(out, s))
    assert sorted(p.name for p in out.iterdir()) == sorted(made + ["check.txt"])
    # Names sort in the sidebar's order (scores before mask), and the check reports on every slide it made.
    order = list(SLIDES_MODULE.BY_NAME)
    assert made == sorted(made, key=lambda n: (order.index(n.split("__")[0].split("-", 1)[1]), n))
    report = (out / "check.txt").read_text().splitlines()
    assert report[-1].endswith(f"of {len(made)} slide(s) flagged"), report[-1]
    assert all(line.split(":")[0] in made for line in report[:-1]), report


def test_scale_2_gives_3840x2160_and_parameters_name_the_files(server):
    out = Path(tempfile.mkdtemp(prefix="slides-"))
    run = slides("--url", server, "--screens", "home", "--scale", "2", "--params", "preset=book&query=3",
                 "--out", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    files = pngs(out, "home")
    assert files and files[0].name == "01-home__preset-book_query-3__01.png"
    assert Image.open(files[0]).size == (3840, 2160)
    assert not_blank(files[0])


def test_the_readme_screenshot_comes_from_the_app_with_its_sidebar(server):
    out = Path(tempfile.mkdtemp(prefix="readme-")) / "screenshot.png"
    run = slides("--url", server, "--readme", "--out", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    image = Image.open(out).convert("RGB")
    assert image.size == (1440, 900) and not_blank(out)
    sidebar, main = image.getpixel((5, 450)), image.getpixel((1435, 450))
    assert sidebar != main, (sidebar, main)  # the sidebar is open: its own background at the left edge
    assert "docs/screenshot.png" in (ROOT / "README.md").read_text() and "--readme" in (
        ROOT / "docs" / "teaching.md").read_text() + (ROOT / "README.md").read_text()


def test_the_tall_layout_is_one_image_1920_wide_with_the_whole_screen(server):
    out = Path(tempfile.mkdtemp(prefix="slides-"))
    run = slides("--url", server, "--screens", "scores", "--layout", "tall", "--out", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    assert [p.name for p in out.iterdir()] == [f"{named('scores')}__tall.png"]
    file = out / f"{named('scores')}__tall.png"
    width, height = Image.open(file).size
    assert width == 1920 and height > 2 * 1080  # the screen is longer than two slides
    assert not_blank(file)


def test_an_exception_or_an_st_error_on_a_screen_makes_it_exit_non_zero(browser):
    folder = Path(tempfile.mkdtemp(prefix="slides-app-"))
    (folder / "app.py").write_text(textwrap.dedent("""
        import streamlit as st

        def fine():
            st.title("fine")
            st.warning("a warning is not an error")

        def boom():
            st.title("boom")
            raise RuntimeError("boom on purpose")

        def err():
            st.title("err")
            st.error("an st.error on purpose")

        st.navigation([st.Page(fine, url_path="fine", default=True), st.Page(boom, url_path="boom"),
                       st.Page(err, url_path="err")]).run()
    """))
    out = folder / "slides"
    run = slides("--app", str(folder / "app.py"), "--screens", "home", "boom", "err", "--out", str(out))
    assert run.returncode != 0
    assert "ERROR on screen boom: RuntimeError" in run.stdout, run.stdout
    assert "ERROR on screen err: an st.error on purpose" in run.stdout, run.stdout
    assert "ERROR on screen home" not in run.stdout
    assert pngs(out, "home") and list(out.glob("*-boom__01.png"))  # the slides are still written, to show the error


def require_vl_convert():
    if importlib.util.find_spec("vl_convert") is None:  # a laptop may skip this; CI may not
        problem = "vl-convert-python is not installed (pip install -r requirements-dev.txt)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(problem)
        pytest.skip(problem)


def test_figures_say_which_images_they_leave_out():
    require_vl_convert()
    # At 1,024 tokens the mask screen's maps are drawn with st.image (with colour bars), and its causal
    # weights by the attention view (in the browser): neither is a chart.
    out = Path(tempfile.mkdtemp(prefix="figures-"))
    run = slides("--figures", "--screens", "mask", "--params", "input=random&tokens=1024", "--out", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    at = open_screen("mask", input="random", tokens=1024, sections="all")  # --figures opens every section
    images = len(at.get("image"))
    assert images >= 2 and f"(not charts, skipped: {images} image(s) drawn with st.image, 1 attention view(s)" in run.stdout, run.stdout
    assert len(list(out.glob("*.svg"))) == len(at.get("vega_lite_chart"))


def test_figures_are_every_chart_of_a_screen_as_png_and_svg():
    require_vl_convert()
    charts = open_screen("mask", sections="all").get("vega_lite_chart")
    assert len(charts) >= 1
    out = Path(tempfile.mkdtemp(prefix="figures-"))
    run = slides("--figures", "--screens", "mask", "--out", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    svgs, figures = sorted(out.glob(f"{named('mask')}__chart*.svg")), sorted(out.glob(f"{named('mask')}__chart*.png"))
    assert len(svgs) == len(figures) == len(charts)
    assert [p.stem for p in svgs] == [p.stem for p in figures]
    for i, (chart, svg, png) in enumerate(zip(charts, svgs, figures), 1):
        spec = json.loads(chart.proto.spec)
        assert svg.stem == f"{named('mask')}__chart{i:02d}_{SLIDES_MODULE.slug(SLIDES_MODULE.chart_title(spec), 50)}"
        assert spec.get("title") and svg.stem != f"{named('mask')}__chart{i:02d}_chart"  # named by the title
        assert ElementTree.parse(svg).getroot().tag.endswith("svg")
        # The data travelled with the spec: at least one drawn mark per row of the chart's data
        # (a bar chart filters the matrix down to the selected query's row: one mark per key).
        rows = max(len(SLIDES_MODULE.arrow_records(d.data.data)) for d in chart.proto.datasets)
        shown = int(rows ** 0.5) if "transform" in json.dumps(spec) else rows
        # (a drawn rect or line is an SVG path; marks carry no ARIA role: a chart is one named picture, charts.accessible)
        assert svg.read_text().count("<path") >= shown > 0
        width, height = Image.open(png).size  # fits a 1920x1080 slide, touching two of its sides
        assert width <= 1921 and height <= 1081 and (width >= 1900 or height >= 1060), (png, width, height)
        assert not_blank(png)


# --- the defaults for a projector (no browser needed; where slides are cut: test_slides_cutting.py) ---

def test_presenter_mode_is_the_default_and_stays_out_of_the_file_names():
    parse = SLIDES_MODULE.parse_args
    every = ("open", "all")  # every folded section open: the default --sections
    assert SLIDES_MODULE.with_presenter([], parse([]).presenter) == [("presenter", "1"), every]
    assert SLIDES_MODULE.with_presenter([], parse(["--presenter"]).presenter) == [("presenter", "1"), every]
    assert SLIDES_MODULE.with_presenter([("query", "2")], parse(["--no-presenter"]).presenter) == [("query", "2"), every]
    assert SLIDES_MODULE.with_presenter([("presenter", "0")], True) == [("presenter", "0"), every]  # --params wins
    assert SLIDES_MODULE.with_presenter([], True, "none") == [("presenter", "1")]  # --sections none
    assert SLIDES_MODULE.with_presenter([("open", "code")], True) == [("open", "code"), ("presenter", "1")]
    assert parse([]).zoom == 1 and parse(["--zoom", "1.25"]).zoom == 1.25
    assert SLIDES_MODULE.stem("scores", []) == "scores"


def test_fit_slide_scales_a_tall_capture_into_one_16_9_slide():
    import io
    tall = Image.new("RGB", (1536, 3000), (200, 0, 0))
    buffer = io.BytesIO()
    tall.save(buffer, format="PNG")
    slide = SLIDES_MODULE.fit_slide(buffer.getvalue(), "rgb(255, 255, 255)", 1)
    assert slide.size == (1920, 1080)
    assert slide.getpixel((960, 540)) == (200, 0, 0) and slide.getpixel((5, 540)) == (255, 255, 255)


def test_the_slides_open_every_folded_section_and_none_leaves_the_lesson_alone(server):
    """Every stage screen opens on its lesson; the slides still show its code, tensors and checks (?open=all)."""
    heights = {}
    for sections in ("all", "none"):
        out = Path(tempfile.mkdtemp(prefix="slides-"))
        run = slides("--url", server, "--screens", "mask", "--layout", "tall", "--sections", sections, "--out", str(out))
        assert run.returncode == 0, run.stdout + run.stderr
        heights[sections] = Image.open(out / f"{named('mask')}__tall.png").size[1]
    assert heights["all"] > 3 * heights["none"], heights  # the sections are most of the screen


# --- the deck's check (scripts/deck/check.py): what a teacher would otherwise fix by hand ---

CHECKED_APP = """
import streamlit as st

st.set_page_config(layout="wide")
st.html("<style>html { font-size: 22px; }</style>")  # the app's presenter mode: 22 px text
WORDS = "Enough words to fill a good part of the slide. " * 90

def pictures(overhang: int) -> None:
    # Two columns; the left one's picture reaches `overhang` px past its column, into the gap or the next one.
    left, right = st.columns(2, gap="medium")
    left.html(f'<table style="width: calc(100% + {overhang}px); height: 60px; background: #1f77b4"><tr><td>q</td>'
              '</tr></table>')
    right.html('<table style="width: 100%; height: 60px; background: #d62728"><tr><td>k</td></tr></table>')

def cut():
    st.title("A code block wider than its box")
    st.markdown(WORDS)
    st.code("attn = torch.softmax(" + ", ".join(f"argument_{i}" for i in range(40)) + ")", wrap_lines=False)
    pictures(200)  # over its neighbour
    st.code("total = 0\\ntotal = " + " + ".join(f"term_{i}" for i in range(60)), wrap_lines=True)  # wraps to column 0

def fine():
    st.title("Nothing cut, nothing small")
    st.markdown(WORDS)
    st.code("attn = torch.softmax(scores, dim=-1)")
    pictures(10)  # into the gap between the columns only (a legend at presenter size)

def tiny():
    st.title("Small print")
    st.markdown(WORDS)
    st.html('<p style="font-size:10px">read me from the back of the room</p>')

def empty():
    st.markdown("one line")

def teacher():
    st.title("A lesson, and a box for the teacher")
    st.markdown(WORDS)
    with st.container(key="slides-skip-download"):
        st.info("Run python -m download-the-weights first")

def sparse():
    # A piece that fills a fifth of its slide: drawn larger, as far as its wrapped code line still fits on one line.
    st.markdown("\\n".join(f"- point {i}: a line of the lesson that a class reads from the back of the room, in big type"
                           for i in range(8)))
    # Two lines: drawn larger, they stay two (a zoom that folded a block's lines into one would wrap it at once).
    st.code("scores = queries @ keys.transpose(1, 2) / keys.shape[-1] ** 0.5\\n"
            "context_vec = torch.softmax(queries @ keys.transpose(1, 2) / keys.shape[-1] ** 0.5, dim=-1) @ values",
            wrap_lines=True)

def start():
    st.title("Start")

st.navigation([st.Page(start, default=True), st.Page(cut, url_path="cut"), st.Page(fine, url_path="fine"),
               st.Page(tiny, url_path="tiny"), st.Page(empty, url_path="empty"),
               st.Page(teacher, url_path="teacher"), st.Page(sparse, url_path="sparse")]).run()
"""


def test_the_check_flags_a_cut_code_block_small_text_and_an_empty_slide_and_strict_fails(browser):
    folder = Path(tempfile.mkdtemp(prefix="slides-check-"))
    (folder / "app.py").write_text(CHECKED_APP)
    out = folder / "slides"
    screens = ["cut", "fine", "tiny", "empty", "teacher", "sparse"]
    run = slides("--app", str(folder / "app.py"), "--screens", *screens, "--out", str(out), "--strict")
    assert run.returncode == 1 and "ERROR" not in run.stdout, run.stdout + run.stderr  # --strict: a flagged slide fails
    report = (out / "check.txt").read_text()
    flags, files = {}, set()
    for line in report.splitlines()[:-1]:
        file, flag = line.split(": ", 1)
        if file.endswith(".png"):
            flags.setdefault(file.split("__")[0].split("-", 1)[1], []).append(flag)
            files.add(file)
    assert any(f.startswith("cut: ") and " px wide in a " in f and "argument_3" in f for f in flags["cut"]), report
    assert any(f.startswith("cut: table ") and " past its stColumn" in f for f in flags["cut"]), report
    assert any(f.startswith("cut: a code line wraps") and "term_3" in f for f in flags["cut"]), report
    assert any(f.startswith("small text: ") and "10.0 px" in f for f in flags["tiny"]), report
    assert any(f.startswith("nearly empty: ") for f in flags["empty"]), report
    assert "fine" not in flags and "teacher" not in flags, report  # nothing cut, small or empty there
    # The sparse slide is laid out again larger (scripts/deck/fill.py), but only as far as its code line stays one line
    # (at 1.7 times and more it wraps); the one line of "empty" stays nearly empty however large it is drawn.
    larger = re.search(r"23-sparse__01\.png drawn ([\d.]+) times as large", run.stdout)
    assert larger and 1.15 <= float(larger.group(1)) < 1.7 and "sparse" not in flags, run.stdout + report
    assert not any(f.startswith("cut: ") for f in flags["tiny"] + flags["empty"]), report
    assert report.splitlines()[-1] == f"{len(files)} of {len(list(out.glob('*.png')))} slide(s) flagged"
    assert "check: " in run.stdout and "--strict" in run.stderr
    # The box marked for the teacher is left out of the slide and named in the left-out file.
    left = (out / "left-out.txt").read_text()
    assert "teacher" in left and "download-the-weights" in left, left
    # Without --strict the same deck reports the same and exits 0.
    again = slides("--app", str(folder / "app.py"), "--screens", "cut", "fine", "--out", str(out))
    assert again.returncode == 0, again.stdout + again.stderr
    assert "cut: " in (out / "check.txt").read_text()


def test_filled_is_the_share_of_the_slide_that_holds_ink():
    check = SLIDES_MODULE.check
    slide = Image.new("RGB", (1920, 1080), (255, 255, 255))
    assert check.filled(slide, "rgb(255, 255, 255)") == 0
    slide.paste((0, 0, 0), (0, 0, 1920, 270))  # the top quarter drawn on
    assert abs(check.filled(slide, "rgb(255, 255, 255)") - 0.25) < 0.03
    assert check.fill_flag(0.2) and not check.fill_flag(0.3)
    faint = Image.new("RGB", (1920, 1080), (250, 250, 250))  # a background a shade off white is not ink
    assert check.filled(faint, "rgb(255, 255, 255)") == 0


def test_a_block_of_text_fills_its_area_and_a_lone_line_or_far_apart_blocks_do_not():
    check = SLIDES_MODULE.check
    white = "rgb(255, 255, 255)"
    listing = Image.new("RGB", (1920, 1080), (255, 255, 255))
    for y in range(100, 820, 80):  # lines of code 80 px apart, words 100 px apart: half its squares inked
        for x in range(100, 1300, 200):
            listing.paste((0, 0, 0), (x, y, x + 100, y + 20))
    block = 1200 * 720 / (1920 * 1080)  # the listing's area: 42% of the slide
    assert check.inked(listing, white) < 0.6 * block  # read square by square, it looked "nearly empty" (under 25%)
    assert abs(check.filled(listing, white) - block) < 0.05 and not check.fill_flag(check.filled(listing, white))
    line = Image.new("RGB", (1920, 1080), (255, 255, 255))  # one caption line under nothing: still nearly empty
    line.paste((0, 0, 0), (100, 100, 1500, 130))
    assert check.fill_flag(check.filled(line, white))
    corners = Image.new("RGB", (1920, 1080), (255, 255, 255))  # two metrics far apart: the space between stays empty
    corners.paste((0, 0, 0), (100, 100, 400, 300))
    corners.paste((0, 0, 0), (1500, 700, 1800, 900))
    assert check.filled(corners, white) == check.inked(corners, white) and check.fill_flag(check.filled(corners, white))


def test_only_a_screens_title_slide_may_be_nearly_empty():
    check = SLIDES_MODULE.check
    title = {"top": 60, "bottom": 140, "kind": "heading"}
    intro = {"top": 150, "bottom": 220, "kind": "text"}
    badge = {"top": 230, "bottom": 262, "kind": "other"}
    table = {"top": 280, "bottom": 600, "kind": "other"}
    assert check.title_slide([title, intro, badge], 0, 1000) and check.title_slide([title, intro, table], 0, 1000)
    assert not check.fill_flag(0.12, title=True) and check.fill_flag(0.12, title=False)
    assert "24% of the slide filled (under 25%)" in check.fill_flag(0.2496)[0]  # never "25% ... (under 25%)"
    assert not check.title_slide([title, intro], 1000, 2000)  # a later slide of the screen is no title slide
    assert not check.title_slide([intro, badge], 0, 1000)  # no heading first: a tail, not a title


def test_text_is_measured_at_the_slides_scale_and_a_caption_apart_from_its_picture_is_flagged():
    check = SLIDES_MODULE.check
    measured = {"texts": [[100, 20.0, "body"], [200, 18.0, "a tick label"], [2000, 10.0, "on the next slide"]],
                "cut": [[150, 180, "pre 900 px wide in a 800 px box"]]}
    assert check.small_text_flags(measured, 0, 1080, 1.0, 1.0) == []
    small = check.small_text_flags(measured, 0, 1080, 0.8, 1.0)  # scaled to 0.8: 18 px becomes 14.4 px
    assert small and "14.4 px" in small[0] and "a tick label" in small[0] and "1 run(s)" in small[0]
    assert check.cut_flags(measured, 0, 1080) == ["cut: pre 900 px wide in a 800 px box"]
    assert check.cut_flags(measured, 1080, 2160) == []
    picture = {"top": 0, "bottom": 900, "kind": "other", "after": False}
    caption = {"top": 1100, "bottom": 1150, "kind": "text", "after": True, "text": "dark = may see"}
    apart = check.caption_flags([picture, caption], [(0, 1000), (1000, 2000)])
    assert list(apart) == [1] and "dark = may see" in apart[1][0]
    # st.image's own caption is in the picture's block: a slide's edge between the two parts them as well
    image = {"top": 0, "bottom": 1500, "kind": "other", "after": False, "text": "the whole map", "glued": [[10, 1500]]}
    assert list(check.caption_flags([image], [(0, 1000), (1000, 2000)])) == [1]
    assert check.caption_flags([image], [(0, 1600)]) == {}
    assert check.caption_flags([picture, caption], [(0, 2000)]) == {}  # together on one slide


def test_file_names_sort_in_the_sidebars_order():
    order = list(SLIDES_MODULE.BY_NAME)
    names = [SLIDES_MODULE.numbered(screen, order) for screen in order]
    assert names == sorted(names) and names[0] == "01-home"
    assert [n.split("-", 1)[1] for n in names] == order
    assert SLIDES_MODULE.numbered("boom", ["home", "boom"]) == f"{len(order) + 1:02d}-boom"  # not in the registry
