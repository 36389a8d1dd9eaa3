"""AppTest: the multi-head screen shows the book's numbers, offers only divisors, reacts to its controls."""
from conftest import chart_specs, open_screen, page_text


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
    assert len(chart_specs(at)) == 2 + 2  # one heatmap per head, one query-row bar chart per head tab


def test_heads_picker_offers_only_divisors_and_changes_the_screen():
    at = open_screen("heads", d_out=12)
    picker = at.select_slider(key="heads")
    assert [int(o) for o in picker.options] == [1, 2, 3, 4, 6, 12]
    before = (page_text(at), chart_specs(at))
    picker.set_value(4).run()
    assert not at.exception
    assert metrics(at)["head_dim"] == "3" and metrics(at)["num_heads"] == "4"
    assert "d_out = 12 split into 4 heads of head_dim 3" in page_text(at)
    assert (page_text(at), chart_specs(at)) != before
    assert len(chart_specs(at)) == 4 + 4


def test_query_picker_changes_the_screen():
    at = open_screen("heads")
    before = (page_text(at), chart_specs(at))
    at.select_slider(key="query").set_value(5).run()
    assert not at.exception
    assert (page_text(at), chart_specs(at)) != before
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


def test_heads_that_do_not_divide_d_out_fall_back_with_a_note():
    at = open_screen("heads", d_out=12, heads=5)
    assert any("5 heads do not divide d_out = 12" in w.value for w in at.warning)
    assert int(at.select_slider(key="heads").value) in (1, 2, 3, 4, 6, 12)
    assert metrics(at)["head_dim"] == str(12 // int(at.select_slider(key="heads").value))


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
