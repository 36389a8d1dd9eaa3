"""AppTest: the multi-head screen shows the book's numbers, offers only divisors, reacts to its controls."""
import pytest

from conftest import chart_specs, charts_drawn, open_screen, page_text, view_row, views


def metrics(at) -> dict:
    return {m.label: str(m.value) for m in at.metric if " vs " not in m.label}


def test_book_preset_shows_the_books_context_vectors_and_shapes():
    at = open_screen("heads")
    text = page_text(at)
    # Wrapper, 2 CausalAttention heads of d_out 2, row 1: [-0.4519, 0.2216, 0.4772, 0.1063] (section 3.6.1)
    assert "-0.4519" in text and "0.2216" in text and "0.4772" in text and "0.1063" in text
    assert "shape `(1, 6, 4)`" in text
    # MultiHeadAttention, d_out 2 split into 2 heads, row 1: [0.3190, 0.4858] (section 3.6.2)
    assert "0.3190" in text and "0.4858" in text
    assert "shape `(1, 6, 2)`" in text
    assert "d_out = 2 split into 2 heads of head_dim 1" in text
    assert "(1, 6, 2, 1)" in text and "(1, 2, 6, 1)" in text and "(1, 2, 6, 6)" in text
    assert "2,360,064" in text  # GPT-2 small's MultiHeadAttention, from lesson.mha_parameter_count
    assert "21,233,664" in text  # the wrapper at GPT-2 small: 12 full-width heads
    assert metrics(at) == {"num_heads": "2", "head_dim": "1", "d_out": "2", "parameters (MultiHeadAttention)": "24"}
    assert len(chart_specs(at)) == 2  # one heatmap per head; each head's rows are in the view
    view = views(at)["heads_view"]  # every head's weights, each the book's MultiHeadAttention's (seed 123)
    from attention_core.book.inputs import BOOK_INPUTS
    from attention_core.lessons import traces
    weights = traces.heads_trace(BOOK_INPUTS, 2, 2, 123, 6, "cpu")["mha"]["attn_weights"][0]  # (heads, T, T)
    for head in (0, 1):
        for query in range(6):
            assert list(view_row(view, query, frame=head).values()) == [f"{w:.4f}" for w in weights[head, query, :query + 1].tolist()]


def test_heads_picker_offers_only_divisors_and_changes_the_screen():
    at = open_screen("heads", d_out=12)
    picker = at.select_slider(key="heads")
    assert [int(o) for o in picker.options] == [1, 2, 3, 4, 6, 12]
    before = (page_text(at), charts_drawn(at))
    picker.set_value(4).run()
    assert not at.exception
    assert metrics(at)["head_dim"] == "3" and metrics(at)["num_heads"] == "4"
    assert "d_out = 12 split into 4 heads of head_dim 3" in page_text(at)
    assert (page_text(at), charts_drawn(at)) != before
    assert len(chart_specs(at)) == 4  # one map per head; the rows are in the view, which flips through the heads
    frames = views(at)["heads_view"]["meta"]["frames"]
    assert frames["dims"][0]["values"] == [1, 2, 3, 4] and frames["dims"][0]["param"] == "head"


def test_query_picker_changes_the_screen():
    at = open_screen("heads")
    before = (page_text(at), charts_drawn(at))
    at = open_screen("heads", query=5)
    assert not at.exception
    assert (page_text(at), charts_drawn(at)) != before
    assert "The query of token 5" in page_text(at) and "q^{(5)}" in page_text(at)


def test_gpt2_small_renders_with_12_heads_of_64():
    at = open_screen("heads", preset="gpt2-small")
    assert metrics(at) == {"num_heads": "12", "head_dim": "64", "d_out": "768",
                           "parameters (MultiHeadAttention)": "2,360,064"}
    text = page_text(at)
    assert "d_out = 768 split into 12 heads of head_dim 64" in text
    assert "(1, 12, 1024, 64)" in text and "(1, 1024, 9216)" in text and "(1, 1024, 768)" in text
    heads = [im for im in at.get("image") if "head" in str(im.proto)]
    assert len(heads) == 12  # 1024 tokens: every head drawn as an image, not Altair cells
    view = views(at)["heads_view"]
    assert view["meta"]["layout"] == "top" and len(view["cells"]) == 12 * 1024 * 32  # each row's 32 largest, per head


# The documented fallback (ui.clamp): the preset's value when it divides d_out, else the default's,
# else the divisor nearest to the value asked for.
@pytest.mark.parametrize("params, fallback", [
    ({"d_out": 12, "heads": 5}, 2),  # a changed d_out leaves the book preset: the default, 2 heads
    ({"d_out": 9, "heads": 4}, 3),  # 2 does not divide 9: the nearest divisor of 1, 3, 9 to 4
    ({"preset": "gpt2-small", "heads": 5}, 12),  # the preset's own 12 heads, not the default 2
], ids=["default", "nearest", "preset"])
def test_heads_that_do_not_divide_d_out_fall_back_to_the_documented_value_with_a_note(params, fallback):
    at = open_screen("heads", **params)
    d_out = params.get("d_out", 768)
    assert f"{params['heads']} heads do not divide d_out = {d_out}; showing {fallback} instead." in [
        w.value for w in at.warning]
    assert at.select_slider(key="heads").value == fallback
    assert metrics(at)["num_heads"] == str(fallback) and metrics(at)["head_dim"] == str(d_out // fallback)


def test_invalid_heads_in_url_shows_a_note_and_the_screen_renders():
    for raw, why in (("0", "is outside 1 to 1024"), ("abc", "is not a whole number")):
        at = open_screen("heads", heads=raw)
        assert any(f"heads='{raw}'" in w.value and why in w.value for w in at.warning), raw
        assert metrics(at)["num_heads"] == "2" and metrics(at)["head_dim"] == "1"
        assert "0.3190" in page_text(at)


def test_one_token_and_one_output_dimension_render():
    at = open_screen("heads", input="random", tokens=1, d_out=1)
    assert not at.exception
    assert metrics(at) == {"num_heads": "1", "head_dim": "1", "d_out": "1", "parameters (MultiHeadAttention)": "11"}  # 3·3·1 + 1·1 + 1
    assert "d_out = 1 split into 1 head of head_dim 1" in page_text(at)
    assert "nan" not in page_text(at).lower()


def test_too_large_a_setting_shows_a_note_instead_of_computing():
    at = open_screen("heads", preset="gpt2-small", heads=768)
    assert any("would need" in w.value for w in at.warning)
    assert "2,360,064" in page_text(at)
    assert not at.get("image")


def test_a_query_move_at_gpt2_size_re_uses_the_encoded_images(monkeypatch):
    # Encoding twelve 512 x 512 maps costs tens of ms each: a move that changes only the query must
    # neither recompute nor re-encode them, and must send the same image bytes (the same URLs).
    from ui.draw import heatmaps
    encoded = []
    real = heatmaps.png_bytes
    monkeypatch.setattr(heatmaps, "png_bytes", lambda image: encoded.append(1) or real(image))
    at = open_screen("heads", preset="gpt2-small")
    first = [image.proto.imgs[0].url for image in at.get("image")]
    assert len(first) >= 12 and encoded
    encoded.clear()
    at = open_screen("heads", preset="gpt2-small", query=500)  # the query the lesson follows, committed
    assert not at.exception
    assert encoded == []
    assert [image.proto.imgs[0].url for image in at.get("image")] == first


def _shown_in_order(node, skip_expander: str):
    """(kind, text) of every element under node in page order, leaving out expanders with that label."""
    for child in getattr(node, "children", {}).values():
        if type(child).__name__ == "Expander" and child.label == skip_expander:
            continue
        if type(child).__name__ == "UnknownElement":  # the attention view: weights only (views() reads them)
            continue
        if hasattr(child, "children") and child.children:
            yield from _shown_in_order(child, skip_expander)
            continue
        shown = getattr(child, "value", None)
        yield type(child).__name__, shown.to_string() if hasattr(shown, "to_string") else str(shown)


@pytest.mark.parametrize("preset", ["book", "custom"])
def test_exercise_3_3s_answer_is_not_shown_before_the_exercise(preset):
    # Outside the worked solution, nothing above exercise 3.3 gives its answer (GPT-2 small's counts);
    # the worked solution still has them. (custom: the book's sizes with 3 tokens.)
    at = open_screen("heads", **({"input": "random", "tokens": 3} if preset == "custom" else {}))
    before = []
    for kind, text in _shown_in_order(at.main, "Worked solution"):
        if kind == "Subheader" and text.startswith("Exercise 3.3"):
            break
        before.append(text)
    else:
        pytest.fail("no exercise 3.3 on /heads")
    assert not [t for t in before if "2,360,064" in t or "21,233,664" in t]
    solution = [e for e in at.expander if e.label == "Worked solution"][-1]
    shown = "\n".join([m.value for m in solution.markdown] + [t.value.to_string() for t in solution.table])
    assert "2,360,064" in shown and "21,233,664" in shown


def test_the_shape_table_is_a_static_table_whose_cells_are_whole():
    # st.dataframe cut "(1, 6, 2) (merge_heads)" at its column's edge; st.table wraps instead.
    at = open_screen("heads")
    shapes = [t.value for t in at.table if "tensor" in t.value.columns]
    assert len(shapes) == 1
    joined = shapes[0].set_index("tensor").loc["heads joined", "MultiHeadAttention"]
    assert joined == "(1, 6, 2) (merge_heads)"
