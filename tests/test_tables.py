"""ui.table: a big matrix shows a window a slide or a 1280-wide screen shows whole, and says which part (issue 29:
GPT-2's "first 64 × 64" scroll boxes showed about 10 × 20 cells and half a row on a slide)."""
import re

from conftest import open_screen
from ui.draw import display


def test_a_table_shows_at_most_the_first_eight_rows_and_columns():
    assert display.window(6, 3) == (6, 3) and display.window(8, 8) == (8, 8)
    assert display.window(9, 6) == (8, 6) and display.window(1024, 768) == (8, 8)
    assert display.window_note((6, 3), (6, 3)) == ""
    assert display.window_note((8, 8), (1024, 768)) == "first 8 of 1,024 rows and first 8 of 768 columns"
    assert display.window_note((3, 8), (3, 1024)) == "first 8 of 1,024 columns"


def tables(at) -> list[tuple[str, object]]:
    """Each ui.table on the page: the line above it and its DataFrame, in order."""
    labels = [m.value.replace("\u00a0", " ") for m in at.markdown if re.match(r"\*\*`[^`]+`\*\* · shape", m.value)]
    frames = [f.value for f in at.dataframe]
    assert len(labels) == len(frames), (labels, len(frames))
    return list(zip(labels, frames))


def test_gpt2_small_tables_show_the_first_eight_by_eight_and_say_so():
    at = open_screen("scores", sections=["tensors"], preset="gpt2-small")
    shown = tables(at)
    assert len(shown) >= 3
    for label, frame in shown:
        assert frame.shape == (8, 8), (label, frame.shape)
        assert "showing its first 8 of 1,024 rows and first 8 of" in label, label
        assert list(frame.index) == [f"{i} t{i}" for i in range(1, 9)]  # the first tokens, not some others
    scores = dict(shown)["**`attn_scores`** · shape `(1024, 1024)`; showing its first 8 of 1,024 rows and first 8 of "
                         "1,024 columns"]
    assert list(scores.columns) == [f"{j} t{j}" for j in range(1, 9)]


def test_the_book_tables_stay_whole():
    for label, frame in tables(open_screen("scores", sections=["tensors"])):
        assert "showing" not in label and frame.shape[0] == 6, (label, frame.shape)


def test_a_grid_packs_tables_side_by_side_as_many_as_a_row_holds():
    six, one, eight = display.table_units([[0.0] * 6] * 6), display.table_units([[0.0]] * 6), display.table_units(
        [[0.0] * 1024] * 1024)
    assert (six, one, eight) == (7.5, 2.5, 9.5)
    assert display.grid_rows([six, six, six]) == [[0, 1], [2]]  # two 6 x 6 maps a row
    assert display.grid_rows([one] * 6) == [[0, 1, 2, 3], [4, 5]]  # at most ROW_TABLES a row
    assert display.grid_rows([eight, eight]) == [[0], [1]]  # a GPT-2 window alone
    assert display.grid_rows([eight] * 3, display.PRESENTER_ROW_UNITS) == [[0, 1], [2]]  # two on a projector
    assert display.grid_rows([six, one, one, six]) == [[0, 1, 2], [3]]  # in order, never reshuffled
    assert display.grid_rows([]) == []


def test_the_mask_screens_tables_sit_in_rows_of_two_and_keep_their_order():
    at = open_screen("mask", sections=["tensors"])
    names = [label.split("`")[1] for label, _ in tables(at)]
    assert names[:3] == ["masked_scores (attn_scores.masked_fill(mask_bool, -inf))", "attn_weights", "masked_simple"]
    rows = [block for block in at.main.children.values() if type(block).__name__ == "Block"]
    side_by_side = [c for c in at.columns if any(re.match(r"\*\*`[^`]+`\*\* · shape", m.value) for m in c.markdown)]
    assert len(side_by_side) == 6, len(side_by_side)  # six 6-column tables: three rows of two
    assert rows  # the page has blocks at all (a guard against an empty tree passing the count above)


def test_presenter_mode_draws_tensors_as_static_tables_in_the_big_font():
    # A data grid draws on a canvas at 14 px whatever the page's font; a projector needs the app's big text.
    at = open_screen("mask", sections=["tensors"], presenter="1")
    assert not at.dataframe
    shown = [t.value for t in at.table]
    assert len(shown) >= 6, len(shown)
    weights = next(t for t in shown if t.shape == (6, 6) and "0.5517" in t.to_string())  # the book's masked row 2
    assert "0.4483" in weights.to_string() and "-inf" in shown[0].to_string()


def test_a_static_table_in_presenter_mode_keeps_the_grids_labels_and_formats():
    # A deck's "Every measurement" read "fastest_ms" and 121.230032 where the screen's grid says "fastest ms" and 121.23.
    import pandas as pd
    import streamlit as st
    from ui.draw.display import _as_static
    frame = pd.DataFrame({"fastest_ms": [121.230032], "calls": [3123], "status": ["ok"]})
    html = _as_static(frame, {"fastest_ms": st.column_config.NumberColumn("fastest ms", format="%.2f"),
                              "status": "what happened"}).to_html()
    assert all(text in html for text in (">fastest ms<", ">121.23<", ">3,123<", ">what happened<")), html
    assert "fastest_ms" not in html and "121.230032" not in html
    # A float column the grid does not format: the app's 4 decimals, not st.table's 6 (/dropout's "p = 0.100000").
    html = _as_static(pd.DataFrame({"p": [0.1, 0.2], "1/(1-p)": [1.1111111, 1.25], "gap": [3e-8, 0.0]}), {}).to_html()
    assert ">0.1000<" in html and ">1.1111<" in html and "0.100000" not in html, html
    assert ">3 × 10⁻⁸<" in html  # not 0.0000: a difference that small is still one
    assert ">6,291,456<" in _as_static(pd.DataFrame({"bytes": [6291456.0, 18432.0]}), {}).to_html()
    # Text only (/kv-cache's True/False mask slice, redrawn every move): no Styler, which costs ~7 ms a run to render
    text = _as_static(pd.DataFrame({"1": ["True"], "2": ["False"]}), {"2": "key 2"})
    assert isinstance(text, pd.DataFrame) and list(text.columns) == ["1", "key 2"]
