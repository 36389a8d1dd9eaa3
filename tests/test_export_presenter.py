"""Slides from the app: download buttons under charts, and presenter mode for a projector."""
from types import SimpleNamespace
import json
import xml.dom.minidom

import numpy as np
from attention_core.drawing import charts, colour
from ui.draw import export
from conftest import chart_specs, open_screen, views


def test_every_chart_has_png_svg_and_csv_downloads():
    assert not open_screen("mask").get("download_button")  # off by default: they slow every rerun
    at = open_screen("mask", sections="all", downloads="1")
    labels = [b.proto.label for b in at.get("download_button")]
    charts_drawn = len(at.get("vega_lite_chart")) + len(views(at))  # an attention view's map downloads too
    assert charts_drawn >= 3 and views(at)
    for kind in ("PNG (2×)", "SVG", "CSV"):
        assert labels.count(kind) == charts_drawn, (kind, labels)


def test_large_matrices_download_as_png_and_csv():
    at = open_screen("mask", preset="gpt2-small", downloads="1")
    labels = [b.proto.label for b in at.get("download_button")]
    assert "PNG" in labels and "CSV" in labels


def test_chart_exports_render_offline():
    spec = charts.heatmap(np.eye(3), list("abc"), list("abc"), title="identity").to_dict()
    png = export._vega_png(spec)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    svg = export._vega_svg(spec)
    assert xml.dom.minidom.parseString(svg).documentElement.tagName == "svg"


def test_matrix_images_export_as_png():
    png = export.png_bytes(colour.matrix_image(np.random.default_rng(0).random((70, 70))))
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_presenter_mode_enlarges_fonts_and_folds_explanations():
    plain = open_screen("scores")
    big = open_screen("scores", presenter="1")
    assert any("font-size: 22px" in str(h.proto) for h in big.get("html"))
    assert not any("font-size: 22px" in str(h.proto) for h in plain.get("html"))
    assert views(big)["scores_view"]["meta"]["font_scale"] == 1.6  # the view's text and cells grow with it
    assert views(plain)["scores_view"]["meta"]["font_scale"] == 1.0
    plain, big = open_screen("mask", sections="all"), open_screen("mask", sections="all", presenter="1")
    heat_plain = next(s for s in chart_specs(plain) if "renormalise" in json.dumps(s.get("title", "")))  # variant 1's map
    heat_big = next(s for s in chart_specs(big) if "renormalise" in json.dumps(s.get("title", "")))
    assert heat_big["config"]["axis"]["labelFontSize"] > 11
    assert "axis" not in heat_plain.get("config", {}) or heat_plain["config"]["axis"].get("labelFontSize", 11) <= 11
    big, plain = open_screen("scores", presenter="1"), open_screen("scores")
    for at in (big, plain):  # a folded section in both modes: the picture stays big, and the text waits until opened
        assert any(e.label == "Why it works" for e in at.expander)
        assert not any("Why a loop and a matrix product?" in m.value for m in at.markdown)
    assert any("Why a loop and a matrix product?" in m.value for m in open_screen("scores", sections=["why"], presenter="1").markdown)


def test_presenter_mode_draws_tables_whole_up_to_a_slides_worth_of_rows(monkeypatch):
    # A table in a scroll box is cut off on a projector or a slide (why-scaling's stopped at d_k = 16).
    from ui.draw import display
    for presenter, rows, height in ((True, 22, "content"), (True, display.PRESENTER_ROWS, "content"),
                                    (True, 64, "auto"), (False, 22, "auto")):
        monkeypatch.setattr(display, "this_run", lambda on=presenter: SimpleNamespace(presenter=on))
        assert display.table_height(rows) == height, (presenter, rows)
