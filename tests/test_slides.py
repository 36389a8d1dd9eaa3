"""scripts/slides.py, run as a teacher would: slides from the real app in Chromium, figures offline."""
import importlib.util
import json
import os
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


def slides(*args, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SLIDES), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


def pngs(folder: Path, screen: str) -> list[Path]:
    return sorted(folder.glob(f"{screen}__*.png"))


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
        assert files[0].name == f"{screen}__01.png"
        for file in files:
            assert Image.open(file).size == (1920, 1080), file
            assert not_blank(file), f"{file} is blank"
        assert chrome_hidden(files[0]), f"{files[0]}: the sidebar or the toolbar shows"
    assert {p.name for p in out.iterdir()} == {p.name for s in ("scores", "mask") for p in pngs(out, s)}


def test_scale_2_gives_3840x2160_and_parameters_name_the_files(server):
    out = Path(tempfile.mkdtemp(prefix="slides-"))
    run = slides("--url", server, "--screens", "home", "--scale", "2", "--params", "preset=book&query=3",
                 "--out", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    files = pngs(out, "home")
    assert files and files[0].name == "home__preset-book_query-3__01.png"
    assert Image.open(files[0]).size == (3840, 2160)
    assert not_blank(files[0])


def test_the_tall_layout_is_one_image_1920_wide_with_the_whole_screen(server):
    out = Path(tempfile.mkdtemp(prefix="slides-"))
    run = slides("--url", server, "--screens", "scores", "--layout", "tall", "--out", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    assert [p.name for p in out.iterdir()] == ["scores__tall.png"]
    file = out / "scores__tall.png"
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
    assert pngs(out, "home") and pngs(out, "boom")  # the slides are still written, to show the error


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
    svgs, figures = sorted(out.glob("mask__chart*.svg")), sorted(out.glob("mask__chart*.png"))
    assert len(svgs) == len(figures) == len(charts)
    assert [p.stem for p in svgs] == [p.stem for p in figures]
    for i, (chart, svg, png) in enumerate(zip(charts, svgs, figures), 1):
        spec = json.loads(chart.proto.spec)
        assert svg.stem == f"mask__chart{i:02d}_{SLIDES_MODULE.slug(SLIDES_MODULE.chart_title(spec), 50)}"
        assert spec.get("title") and svg.stem != f"mask__chart{i:02d}_chart"  # named by the title
        assert ElementTree.parse(svg).getroot().tag.endswith("svg")
        # The data travelled with the spec: at least one drawn mark per row of the chart's data
        # (a bar chart filters the matrix down to the selected query's row: one mark per key).
        rows = max(len(SLIDES_MODULE.arrow_records(d.data.data)) for d in chart.proto.datasets)
        shown = int(rows ** 0.5) if "transform" in json.dumps(spec) else rows
        assert svg.read_text().count('role="graphics-symbol"') >= shown > 0
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
        heights[sections] = Image.open(out / "mask__tall.png").size[1]
    assert heights["all"] > 3 * heights["none"], heights  # the sections are most of the screen
