"""AppTest: the dropout screen shows the book's dropped weights, reacts to every control, survives extremes."""
import json
import re
import time

import torch

from conftest import chart_specs, open_screen, page_text, view_row, views

RATES = [round(0.05 * i, 2) for i in range(21)]

# The sections that show computed numbers (the readers' questions say "nan" on purpose: −∞ × 0).
NUMBERS = ["keep", "draws", "tensors", "checks", "mistakes"]

BOOK_DROPPED = ["2.0000", "0.7599", "0.6194", "0.6206", "0.4921", "0.4925", "0.3966", "0.3775", "0.3327"]


def _no_nan_or_inf(at) -> None:
    everything = page_text(at) + json.dumps(chart_specs(at))
    assert not re.search(r"\bnan\b|\binf\b|infinity", everything, re.IGNORECASE)


def test_book_preset_shows_the_books_dropped_weights_and_factor():
    at = open_screen("dropout", sections="all")
    text = page_text(at)
    # torch.manual_seed(123); nn.Dropout(0.5)(attn_weights) on SelfAttention_v2's causal weights (seed 789)
    for number in BOOK_DROPPED:
        assert number in text, number
    assert "× 2.0000" in text
    assert "0.5517 \\times 0 / 0.5 = 0.0000" in text  # the default cell (2, 1) was dropped
    assert "shape `(6, 6)`" in text and "shape `(6, 2)`" in text


def test_selected_cell_arithmetic_is_computed():
    at = open_screen("dropout", query=3, key=1)
    assert "0.3800 \\times 1 / 0.5 = 0.7599" in page_text(at)


def _metric(at, label_start: str) -> str:
    return next(str(m.value) for m in at.metric if m.label.startswith(label_start))


def _keep_mask(p: float, seed: int) -> torch.Tensor:
    """The book's way: torch.manual_seed(seed), then nn.Dropout(p) on a (6, 6) weights tensor."""
    torch.manual_seed(seed)
    return torch.nn.Dropout(p)(torch.ones(6, 6)) != 0  # (6, 6), True where kept


def _dropped_visible(p: float, seed: int) -> str:
    return f"{int((~_keep_mask(p, seed)).tril().sum())} of 21"  # 21 visible cells below the causal mask


def _cell(at) -> str:
    return at.latex[0].value.strip("$\n")


def test_every_control_changes_what_it_names():
    at = open_screen("dropout", sections=["checks"], dropout=0.2)
    assert not at.exception, [e.value for e in at.exception]
    assert _metric(at, "Scale factor") == "× 1.2500"
    assert _metric(at, "Visible weights dropped") == _dropped_visible(0.2, 123)
    assert "/ 0.8 =" in _cell(at)
    at.number_input(key="dropout_seed").set_value(7).run()
    assert _metric(at, "Visible weights dropped") == _dropped_visible(0.2, 7)
    assert any(m.label == "dropout vs torch.manual_seed(7); nn.Dropout(0.2)" for m in at.metric)
    at = open_screen("dropout", dropout=0.2, dropout_seed=7, query=4)
    # alpha_41 of the book's causal weights (SelfAttention_v2, seed 789): row 4 is 0.2758, 0.2460, 0.2462, 0.2319
    keep = int(_keep_mask(0.2, 7)[3, 0])
    assert r"\alpha_{4,1}" in _cell(at) and rf"= 0.2758 \times {keep} / 0.8 =" in _cell(at), _cell(at)
    at = open_screen("dropout", dropout=0.2, dropout_seed=7, query=4, key=3)
    keep = int(_keep_mask(0.2, 7)[3, 2])
    assert r"\alpha_{4,3}" in _cell(at) and rf"= 0.2462 \times {keep} / 0.8 =" in _cell(at), _cell(at)
    at.toggle(key="train").set_value(False).run()
    assert _cell(at).endswith(r"= 0.2462 \quad \text{(eval mode)}"), _cell(at)
    assert _metric(at, "Visible weights dropped") == "0 of 21" and _metric(at, "Scale factor") == "× 1 (dropout off)"


def test_p_one_drops_everything_without_nan():
    at = open_screen("dropout", sections=NUMBERS, dropout=1)
    text = page_text(at)
    assert "all weights dropped: the context vectors are all zero" in text
    assert "none: all dropped" in text
    _no_nan_or_inf(at)


def test_p_zero_leaves_the_weights_unchanged():
    at = open_screen("dropout", sections=["tensors"], dropout=0)
    text = page_text(at)
    assert "p = 0: nothing is dropped" in text and "× 1.0000" in text
    weights, keep, dropped = (f.value for f in at.dataframe[-3:])
    assert weights.equals(dropped) and (keep.to_numpy() == 1).all()
    _no_nan_or_inf(at)


def test_eval_mode_is_the_identity():
    at = open_screen("dropout", sections=["tensors"], train=0)
    text = page_text(at)
    assert "dropout is the identity" in text and "only active in training" in text
    assert "× 1 (dropout off)" in text
    weights, _, dropped = (f.value for f in at.dataframe[-3:])
    assert weights.equals(dropped)


def test_convergence_chart_is_present():
    at = open_screen("dropout", sections=["draws"])
    titles = [s.get("title") for s in chart_specs(at)]
    assert "average of N dropout draws vs the weights" in titles
    spec = next(s for s in chart_specs(at) if s.get("title") == "average of N dropout draws vs the weights")
    assert spec["encoding"]["x"]["field"] == "draws" and spec["encoding"]["x"]["scale"]["type"] == "log"
    assert "average of 1,024 draws has row sums" in page_text(at)


def test_gpt2_small_renders_in_time_and_limits_the_average():
    start = time.perf_counter()
    at = open_screen("dropout", sections=["draws", "tensors"], preset="gpt2-small")
    assert time.perf_counter() - start < 30
    text = page_text(at)
    assert "× 1.1111" in text  # p = 0.1
    assert "first 64 queries (of 1,024" in text
    assert "shape `(1024, 1024)`; showing its first 8 of 1,024 rows and first 8 of 1,024 columns" in text


def test_one_token_renders():
    at = open_screen("dropout", sections=NUMBERS, input="random", tokens=1)
    assert "shape `(1, 1)`" in page_text(at)
    _no_nan_or_inf(at)


def test_bad_dropout_in_url_shows_a_note_and_renders():
    for raw, why in (("nan", "not a finite number"), ("2", "outside 0 to 1")):
        at = open_screen("dropout", dropout=raw)
        assert any("`dropout=" in w.value and why in w.value for w in at.warning), raw
        assert views(at)["dropout_view"]["meta"]["frames"]["initial"] == RATES.index(0.5)
        assert "× 2.0000" in page_text(at)


def test_every_rate_travels_at_once_and_each_frame_is_that_rates_dropout():
    at = open_screen("dropout")
    view = views(at)["dropout_view"]
    assert view["meta"]["frames"]["dims"][0]["values"] == RATES and view["meta"]["frames"]["dims"][0]["param"] == "dropout"
    book = torch.tensor([[float(t) for t in view_row(view, i, frame=RATES.index(0.5)).values()] for i in range(6)][2])
    assert [f"{v:.4f}" for v in book.tolist()] == ["0.7599", "0.6194", "0.6206"]  # the book's row 3 (seed 123, p = 0.5)
    for rate in (0.2, 0.9):
        keep = _keep_mask(rate, 123)[3, :4]
        row = [float(t) for t in view_row(view, 3, frame=RATES.index(rate)).values()]
        before = [0.2758, 0.2460, 0.2462, 0.2319]  # the book's causal weights, row 4 (seed 789)
        assert row == [round(b * int(kept) / (1 - rate), 4) for b, kept in zip(before, keep)] or \
            all(abs(r - b * int(kept) / (1 - rate)) <= 1e-4 for r, b, kept in zip(row, before, keep)), (rate, row)
    assert list(view_row(view, 1, "also0").values()) == ["0.5517", "0.4483"]  # before dropout, beside it


def test_a_survivor_above_one_and_the_row_sums_travel_with_each_rate():
    view = views(open_screen("dropout"))["dropout_view"]
    assert view_row(view, 0, frame=RATES.index(0.5)) == {0: "2.0000"}  # query 1 sees only itself: kept and doubled
    sums = view["vector0"]["code"].to_numpy().reshape(len(RATES), 6, 2)
    assert sums[RATES.index(0.5), 1].tolist() == [10000, 0]  # query 2: both of its weights dropped
    assert sums[RATES.index(0.0), :, 1].tolist() == [10000] * 6  # p = 0 keeps every row's sum at 1


def test_at_gpt2_size_the_keep_section_shows_where_dropout_struck():
    at = open_screen("dropout", sections=["keep"], preset="gpt2-small")
    captions = [im.proto.imgs[0].caption if hasattr(im.proto, "imgs") else str(im.proto) for im in at.get("image")]
    assert any("Where dropout struck" in c for c in captions), captions


def test_the_dropped_share_image_counts_the_dropped_visible_cells_of_each_block():
    import numpy as np
    from attention_core.drawing import colour, matrix_images
    T = 512  # blocks of 2 x 2 cells
    visible = np.tril(np.ones((T, T)))
    keep = np.ones((T, T))
    keep[100, 50] = 0  # one of the 4 visible cells of block (50, 25) dropped
    keep[300:302, 10:12] = 0  # a whole block dropped
    keep[400:402, 20:22] = [[0, 1], [1, 1]]  # and another block a quarter dropped
    image, blocks, top = matrix_images.dropped_overview(keep, visible)
    assert "2 × 2" in blocks and image.shape == (512, 512, 3) and top == 1.0  # 3 blocks of 32,896: the 98th percentile is 0
    expected = np.full((256, 256), 0.0)
    expected[50, 25], expected[150, 5], expected[200, 10] = 0.25, 1.0, 0.25
    expected[np.triu(np.ones((256, 256), dtype=bool), k=1)] = np.nan  # the future: no visible cell
    assert (image == colour.matrix_image(expected / top, "weights", 2)).all()
    sparse = np.where(np.random.default_rng(0).random((T, T)) < 0.1, 0.0, 1.0)  # p = 0.1: scaled to the 98th percentile
    image, _, top = matrix_images.dropped_overview(sparse, visible)
    assert top == 0.5  # about 5% of the blocks lose 2 of 4 cells or more


# --- the lesson first, every other section folded and idle until opened --------------------------------

SECTIONS = {  # section: (its title, what only it draws)
    "keep": ("Keep mask and where dropout struck", lambda at: any("keep mask" in json.dumps(s.get("title", "")) for s in chart_specs(at))),
    "draws": ("Row sums and the average over many draws", lambda at: "average of 1,024 draws has row sums" in page_text(at)),
    "tensors": ("The tensors", lambda at: "**`keep_mask`**" in page_text(at)),
    "code": ("The PyTorch code of this step", lambda at: any("def dropout_keep_mask" in c.value for c in at.code)),
    "why": ("Why it works", lambda at: "Why drop attention weights?" in page_text(at)),
    "checks": ("Agreement with PyTorch", lambda at: any(m.label.startswith("dropout vs torch.manual_seed") for m in at.metric)),
    "questions": ("Readers' questions", lambda at: "1/p or 1/(1 − p)?" in page_text(at)),
    "mistakes": ("Common mistakes", lambda at: any("the model's answers are random" in e.value for e in at.error)),
}
WORK = {"keep": "show_matrix", "draws": "many_draws", "tensors": "table", "questions": "reader_questions",
        "mistakes": "mistakes"}  # section: the call (ui or the screen's blocks) only it makes


def test_the_lesson_runs_alone_and_each_section_runs_only_when_opened(monkeypatch):
    import collections
    import ui
    from screens import dropout_blocks as blocks
    calls = collections.Counter()
    for name in WORK.values():
        # the screen calls blocks.x for the blocks its own file defines, ui.x for the rest
        owner = blocks if getattr(getattr(blocks, name, None), "__module__", "") == blocks.__name__ else ui
        real = getattr(owner, name)

        def counting(*args, _real=real, _name=name, **kwargs):
            calls[_name] += 1
            return _real(*args, **kwargs)
        monkeypatch.setattr(owner, name, counting)
    at = open_screen("dropout")
    assert [e.label for e in at.expander] == [title for title, _ in SECTIONS.values()]  # drawn folded, in order
    assert not calls, calls
    assert not [name for name, (_, shows) in SECTIONS.items() if shows(at)]
    assert list(views(at)) == ["dropout_view"] and "0.5517 \\times 0 / 0.5 = 0.0000" in _cell(at)  # the lesson
    for name, (_, shows) in SECTIONS.items():
        calls.clear()
        at = open_screen("dropout", sections=[name])
        assert shows(at), name
        assert set(calls) == ({WORK[name]} if name in WORK else set()), (name, calls)
        assert [other for other, (_, drawn) in SECTIONS.items() if other != name and drawn(at)] == [], name


def test_the_lesson_holds_at_most_30_elements_at_both_presets():
    for params in ({}, {"train": 0}, {"preset": "gpt2-small"}, {"preset": "gpt2-small", "train": 0}):
        at = open_screen("dropout", **params)
        assert len(list(at.main)) <= 30, (params, len(list(at.main)))


def test_at_gpt2_size_the_map_marks_every_dropped_cell_apart_from_small_weights():
    # At 1,024 tokens a dropped 0 was drawn in the palest shade, like any small weight: Python now marks the
    # cells dropout removed (one bit each) and the view draws them in their own colour.
    import numpy as np

    from attention_core.drawing.view_data import DROPPED_HEX
    at = open_screen("dropout", preset="gpt2-small")
    view = views(at)["dropout_view"]
    assert view["meta"]["dropped"]["colour"] == DROPPED_HEX and view["meta"]["rows"] == 1024
    marked = int(np.unpackbits(view["dropped"]["bits"].to_numpy().astype(np.uint8)).sum())
    dropped = next(m for m in at.metric if m.label == "Visible weights dropped").value  # "52,539 of 524,800"
    assert marked == int(dropped.split(" of ")[0].replace(",", "")) > 40_000  # p = 0.1 of 524,800 visible cells


def test_at_gpt2_size_the_keep_section_draws_where_dropout_struck_not_a_solid_keep_mask():
    # A teacher read: at p = 0.1 every 4 × 4 block of the 0/1 keep mask holds a kept cell, so its overview was one
    # solid dark square under "light = dropped". The share dropped per block shows where dropout struck.
    at = open_screen("dropout", preset="gpt2-small", sections=["keep"])
    captions = [i.caption for e in at.get("image") for i in e.proto.imgs]
    assert any(c.startswith("Where dropout struck: 1,024 × 1,024") for c in captions), captions
    assert not any(c.startswith("keep mask") for c in captions), captions


def test_the_view_has_an_intro_that_says_what_to_look_for():
    # At GPT-2 (the rate is a server slider there) the view opened on a bare title: a noisy 1,024-token map, no words.
    for params in ({}, {"preset": "gpt2-small"}):
        at = open_screen("dropout", **params)
        assert any("Fuchsia cells are the weights this draw dropped to 0" in m.value for m in at.markdown), params
    at = open_screen("dropout", preset="gpt2-small", train=0)  # eval mode: the box above says it, once
    assert not any("Fuchsia cells" in m.value for m in at.markdown)
