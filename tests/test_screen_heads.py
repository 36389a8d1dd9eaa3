"""AppTest: the multi-head screen shows the book's numbers, offers only divisors, reacts to its controls, and
runs a folded section's work only while it is open."""
import pytest

from attention_core.lessons.head_counts import frame_of
from conftest import chart_specs, charts_drawn, open_screen, open_sections, page_text, view_row, views


def metrics(at) -> dict:
    return {m.label: str(m.value) for m in at.metric if " vs " not in m.label}


def test_book_preset_shows_the_books_context_vectors_and_shapes():
    at = open_screen("heads", sections="all")
    text = page_text(at)
    # Wrapper, 2 CausalAttention heads of d_out 2, row 1: [-0.4519, 0.2216, 0.4772, 0.1063] (section 3.6.1)
    assert "-0.4519" in text and "0.2216" in text and "0.4772" in text and "0.1063" in text
    assert "shape `(1, 6, 4)`" in text
    # MultiHeadAttention, d_out 2 split into 2 heads, row 1: [0.3190, 0.4858] (section 3.6.2)
    assert "0.3190" in text and "0.4858" in text
    assert "shape `(1, 6, 2)`" in text
    assert "d_out = 2 split into 2 heads of head_dim 1" in text
    assert "(1, 6, 2, 1)" in text and "(1, 2, 6, 1)" in text and "(1, 2, 6, 6)" in text
    # a table of a 4-D tensor shows one (T, T) slice, named as the code would index it
    assert "**`attn_weights`** · shape `(1, 2, 6, 6)` · showing `attn_weights[0, 0]`" in text
    assert "**`context_vecs (wrapper)`** · shape `(1, 6, 4)` · showing `context_vecs[0]`" in text  # the variable, not the label
    raw = [m.value for m in at.markdown if m.value.startswith("**`attn_weights`**")]
    assert raw and "`(1,\u00a02,\u00a06,\u00a06)`" in raw[0]  # no-break spaces: a slide never wraps inside the tuple
    assert "2,360,064" in text  # GPT-2 small's MultiHeadAttention, from lesson.mha_parameter_count
    assert "21,233,664" in text  # the wrapper at GPT-2 small: 12 full-width heads
    assert metrics(at) == {"num_heads": "2", "head_dim": "1", "parameters (MultiHeadAttention)": "24"}
    assert len(chart_specs(at)) == 2  # one heatmap per head (Every head side by side); each head's rows are in the view
    view = views(at)["heads_view"]  # every head of every count, each the book's MultiHeadAttention's (seed 123)
    num_heads, head = view["meta"]["frames"]["dims"]
    assert num_heads["values"] == [1, 2] and head["lengths"] == [1, 2]  # head 2 of 1 head is not there
    assert view["meta"]["frames"]["initial"] == frame_of(2, 2, 0)  # the lesson's 2 heads, head 1
    from attention_core.book.inputs import BOOK_INPUTS
    from attention_core.lessons import traces
    for count in (1, 2):
        weights = traces.heads_trace(BOOK_INPUTS, 2, count, 123, 6, "cpu")["mha"]["attn_weights"][0]  # (heads, T, T)
        for h in range(count):
            for query in range(6):
                assert list(view_row(view, query, frame=frame_of(2, count, h)).values()) == [
                    f"{w:.4f}" for w in weights[h, query, :query + 1].tolist()]


def test_the_view_offers_every_divisor_and_the_lesson_follows_the_committed_count():
    # d_out = 12 at 6 tokens: 28 maps of 6 x 6 (1 + 2 + 3 + 4 + 6 + 12 heads) go to the browser, which scrubs
    # num_heads and Head itself; no server control is left to rerun the page.
    at = open_screen("heads", d_out=12, sections=["maps", "split"])
    assert not at.select_slider and "heads" not in [s.key for s in at.main.slider]
    view = views(at)["heads_view"]
    num_heads, head = view["meta"]["frames"]["dims"]
    assert (num_heads["param"], num_heads["values"]) == ("heads", [1, 2, 3, 4, 6, 12])
    assert head["param"] == "head" and head["lengths"] == [1, 2, 3, 4, 6, 12]
    assert len(view["cells"]) == 28 * 21  # every head of every count, each a causal map's 21 stored cells
    before = (page_text(at), charts_drawn(at))
    at.session_state["keep:heads"], at.session_state["keep:head"] = 4, 3  # the student commits head 3 of 4 in the view
    at.run()
    assert not at.exception
    assert metrics(at)["head_dim"] == "3" and metrics(at)["num_heads"] == "4"
    assert "d_out = 12 split into 4 heads of head_dim 3" in page_text(at)
    assert (page_text(at), charts_drawn(at)) != before
    assert len(chart_specs(at)) == 4  # one map per head of the committed count
    assert views(at)["heads_view"]["meta"]["frames"]["initial"] == frame_of(12, 4, 2)  # the view opens where it was left


def test_a_commit_from_the_view_keeps_only_heads_that_exist(monkeypatch):
    from types import SimpleNamespace

    from ui.draw import view_route
    from screens.heads_blocks import count_frames
    committed = {}
    monkeypatch.setattr(view_route, "set_value", committed.__setitem__)
    frames = count_frames(12, 2, 0)
    for selection, expected in (({"heads": 4, "head": 3}, {"heads": 4, "head": 3}),
                                ({"heads": 2, "head": 3}, {"heads": 2}),  # head 3 of 2 heads does not exist
                                ({"heads": 5, "head": 1}, {})):  # 5 does not divide 12
        committed.clear()
        monkeypatch.setattr(view_route, "st", SimpleNamespace(session_state={"v": {"selection": selection}}))
        view_route._commit("v", frames)
        assert committed == expected, selection


def test_query_picker_changes_the_screen():
    at = open_screen("heads", sections=["split", "maps"])
    before = (page_text(at), charts_drawn(at))
    at = open_screen("heads", query=5, sections=["split", "maps"])
    assert not at.exception
    assert (page_text(at), charts_drawn(at)) != before
    assert "The query of token 5" in page_text(at) and "q^{(5)}" in page_text(at)


def test_gpt2_small_renders_with_12_heads_of_64():
    at = open_screen("heads", preset="gpt2-small", sections="all")
    assert at.select_slider(key="heads").value == 12  # 2,044 maps of 1,024 tokens would not fit: the server's control
    # 2,360,064 is exercise 3.3's answer, further down: no metric gives it; the "Parameter counts" section says why
    assert metrics(at) == {"num_heads": "12", "head_dim": "64"}
    assert any("the parameter count is exercise 3.3's answer" in c.value for c in at.caption)  # sections="all"
    text = page_text(at)
    assert "d_out = 768 split into 12 heads of head_dim 64" in text
    # The view draws bars only here (no map): no caption explains a colour scale it does not show.
    from attention_core.drawing.colour import SHARE_WORDS
    assert SHARE_WORDS not in text
    query = next(e.value for e in at.latex if "q^{(" in e.value)  # 768 values a query: abridged to fit the width
    assert r"\text{head 12}" in query and r"\text{head 3}" not in query and len(query) < 400
    assert "(1, 12, 1024, 64)" in text and "(1, 1024, 9216)" in text and "(1, 1024, 768)" in text
    heads = [im for im in at.get("image") if "head" in str(im.proto)]
    # 1024 tokens: images, not Altair cells; untrained heads there are one texture, so one row of 4 shows it
    # (twelve filled three slides with alike noise), and the sentence under them compares all twelve
    # (and, above 64 tokens where the view draws no map, the committed head's whole map under it)
    whole = [im for im in heads if "its whole map of attn_weights: 1,024 × 1,024 drawn as an image" in str(im.proto)]
    assert len(whole) == 1 and len(heads) == 4 + 1 and "Drawing heads 1–4 of 12: untrained heads at this size " in text
    # whether they "look alike" follows the distance the sentence under them states (claims.heads_claim)
    alike = "The maps above are nearly the same" in text
    assert ("untrained heads at this size look alike" in text) is alike
    assert ("untrained heads at this size differ, but only by chance" in text) is not alike
    view = views(at)["heads_view"]
    assert view["meta"]["layout"] == "top" and len(view["cells"]) == 12 * 1024 * 32  # each row's 32 largest, per head
    assert [d["param"] for d in view["meta"]["frames"]["dims"]] == ["head"]  # one count: the Head slider alone


# The documented fallback (ui.clamp): the preset's value when it divides d_out, else the default's,
# else the divisor nearest to the value asked for.
@pytest.mark.parametrize("params, fallback, source", [
    ({"d_out": 12, "heads": 5}, 2, "the default"),  # a changed d_out leaves the book preset: the default, 2 heads
    ({"d_out": 9, "heads": 4}, 3, "the nearest allowed"),  # 2 does not divide 9: the nearest divisor of 1, 3, 9 to 4
    ({"preset": "gpt2-small", "heads": 5}, 12, "GPT-2 small's value"),  # the preset's own 12 heads, not the default
], ids=["default", "nearest", "preset"])
def test_heads_that_do_not_divide_d_out_fall_back_to_the_documented_value_with_a_note(params, fallback, source):
    # The note says where the count it shows came from (a teacher read: "falls back to 2 without saying why 2").
    at = open_screen("heads", **params)
    d_out = params.get("d_out", 768)
    assert f"{params['heads']} heads do not divide d_out = {d_out}; showing {fallback} instead ({source})." in [
        w.value for w in at.warning]
    if at.select_slider:  # GPT-2 small: the server's control
        assert at.select_slider(key="heads").value == fallback
    else:  # every count in the view, which opens at the fallback
        assert views(at)["heads_view"]["meta"]["frames"]["initial"] == frame_of(d_out, fallback, 0)
    assert metrics(at)["num_heads"] == str(fallback) and metrics(at)["head_dim"] == str(d_out // fallback)


def test_invalid_heads_in_url_shows_a_note_and_the_screen_renders():
    for raw, why in (("0", "is outside 1 to 1,024"), ("abc", "is not a whole number")):
        at = open_screen("heads", heads=raw, sections=["wrapper"])
        assert any(f"heads='{raw}'" in w.value and why in w.value for w in at.warning), raw
        assert metrics(at)["num_heads"] == "2" and metrics(at)["head_dim"] == "1"
        assert "0.3190" in page_text(at)


def test_one_token_and_one_output_dimension_render():
    at = open_screen("heads", input="random", tokens=1, d_out=1, sections="all")
    assert not at.exception
    assert metrics(at) == {"num_heads": "1", "head_dim": "1", "parameters (MultiHeadAttention)": "11"}  # 3·3·1 + 1·1 + 1
    assert "d_out = 1 split into 1 head of head_dim 1" in page_text(at)
    assert "nan" not in page_text(at).lower()


def test_too_large_a_setting_shows_a_note_instead_of_computing():
    at = open_screen("heads", preset="gpt2-small", heads=768)
    assert any("would need" in w.value for w in at.warning)
    assert metrics(at) == {"num_heads": "768", "head_dim": "1"}
    assert not at.get("image")


def test_a_query_move_at_gpt2_size_re_uses_the_encoded_images(monkeypatch):
    # Encoding 512 x 512 maps costs tens of ms each: a move that changes only the query must
    # neither recompute nor re-encode them, and must send the same image bytes (the same URLs).
    from ui.draw import heatmaps
    encoded = []
    real = heatmaps.png_bytes
    monkeypatch.setattr(heatmaps, "png_bytes", lambda image: encoded.append(1) or real(image))
    at = open_screen("heads", preset="gpt2-small", sections=["maps"])
    first = [image.proto.imgs[0].url for image in at.get("image")]
    assert len(first) >= 4 and encoded
    encoded.clear()
    at = open_screen("heads", preset="gpt2-small", query=500, sections=["maps"])  # the query the lesson follows, committed
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


@pytest.mark.parametrize("preset", ["book", "custom", "gpt2-small"])
def test_exercise_3_3s_answer_is_not_shown_before_the_exercise(preset):
    # Outside the worked solution, nothing above exercise 3.3 gives its answer (GPT-2 small's counts);
    # the worked solution still has them. (custom: the book's sizes with 3 tokens. gpt2-small: the screen's
    # own sizes are the exercise's, so a caption and the parameter table name "exercise 3.3" instead.)
    params = {"custom": {"input": "random", "tokens": 3}, "gpt2-small": {"preset": "gpt2-small"}}.get(preset, {})
    at = open_screen("heads", sections="all", **params)
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
    at = open_screen("heads", sections=["wrapper"])
    shapes = [t.value for t in at.table if "tensor" in t.value.columns]
    assert len(shapes) == 1
    joined = shapes[0].set_index("tensor").loc["heads joined", "MultiHeadAttention"]
    assert joined == "(1, 6, 2) (merge_heads)"
    # The book has no merge_heads: the text says whose name it is and which line of the book it stands for.
    from screens.heads_blocks import MERGE_HEADS
    assert "the book has no such function" in MERGE_HEADS and "context_vec.transpose(1, 2).contiguous().view" in MERGE_HEADS
    assert any(c.value == f"`merge_heads`: {MERGE_HEADS}." for c in at.caption)
    at = open_sections(at, "heads", ["out-proj"])
    assert any(f"After `merge_heads` ({MERGE_HEADS})" in m.value for m in at.markdown)


@pytest.mark.parametrize("params", [{}, {"preset": "gpt2-small"}], ids=["book", "gpt2-small"])
def test_the_screen_opens_on_its_lesson_with_at_most_30_elements(params):
    at = open_screen("heads", **params)
    assert len(list(at.main)) <= 30, [type(n).__name__ for n in at.main]  # every node of the main area, blocks too
    assert len(metrics(at)) == (2 if params else 3) and "heads_view" in views(at)  # GPT-2's count: exercise 3.3
    assert [e.label for e in at.expander] == [
        "Every head side by side", "Cutting d_out into heads", "Wrapper vs weight split", "The tensors",
        "out_proj: mixing the heads", "Parameter counts", "The PyTorch code of this step", "Why it works",
        "Agreement with PyTorch", "Exercises 3.2 and 3.3", "Readers' questions", "Common mistakes"]


@pytest.mark.parametrize("params", [{}, {"preset": "gpt2-small"}], ids=["book", "gpt2-small"])
def test_a_closed_section_computes_nothing_and_opening_it_shows_it(monkeypatch, params):
    # The wrapper (heads_trace: at GPT-2 small twelve full-width CausalAttention modules, 3.8 s) runs only for
    # the sections that show it; the lesson's view needs MultiHeadAttention's weights alone.
    from attention_core.lessons import traces
    calls = []
    real = traces.heads_trace
    monkeypatch.setattr(traces, "heads_trace", lambda *a, **k: calls.append(a[1:3]) or real(*a, **k))
    at = open_screen("heads", **params)
    assert calls == [] and not at.dataframe and not at.table and not at.latex and not chart_specs(at)
    assert "(merge_heads)" not in page_text(at) and "0.3190" not in page_text(at)
    open_sections(at, "heads", ["wrapper"])
    assert not at.exception
    assert len(calls) == 1  # computed once the section opened
    assert any("tensor" in t.value.columns for t in at.table)  # its shape table
    assert "(merge_heads)" in page_text(at)
    assert ("0.3190" in page_text(at)) == (not params)  # the book's MultiHeadAttention row 1 (section 3.6.2)
    assert not at.latex  # the split's formulas: still closed


def test_a_wrapper_too_large_is_refused_even_where_every_count_fits_the_browser(monkeypatch):
    """d_in = d_out = 1024 at 8 tokens: every head count fits the view's stack, but 1,024 full-width wrapper heads
    (3.2 billion parameters) must never be built, whichever section is opened."""
    from attention_core.book import modules
    from attention_core.lessons import traces
    calls, built = [], []
    monkeypatch.setattr(traces, "heads_trace", lambda *args, **kwargs: calls.append(args) or {})
    wrapper_init = modules.MultiHeadAttentionWrapper.__init__
    monkeypatch.setattr(modules.MultiHeadAttentionWrapper, "__init__",  # the readers' question built one (12.9 GB)
                        lambda self, *args, **kwargs: built.append(args) or wrapper_init(self, *args, **kwargs))
    at = open_screen("heads", preset="custom", input="random", tokens="8", d_in="1024", d_out="1024", heads="1024",
                     sections="all")
    assert calls == [] and [args for args in built if args[-1] == 1024] == []
    assert any("1,024 heads at 8 tokens" in w.value for w in at.warning)
    assert "the wrapper is too large to build here" in page_text(at)  # its column counted: 3,221,225,472
    assert "3,221,225,472" in page_text(at)


def test_above_64_tokens_the_lesson_still_draws_the_heads_map():
    """Issue 35: at GPT-2's 1,024 tokens the view sends only each row's largest weights (no map); the lesson draws
    the committed head's whole map as an image under it, so the heads lesson shows a map at every size."""
    at = open_screen("heads", preset="gpt2-small")
    assert not at.exception
    assert len(at.get("image")) >= 1
    assert any("whole matrix" in m.value for m in at.markdown)
