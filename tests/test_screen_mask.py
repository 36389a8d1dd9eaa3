"""AppTest: the causal-mask screen shows the book's numbers, both variants, the pitfalls, and scales."""
import time

from conftest import open_screen, open_sections, page_text, plain_number, view_row, views


def _frame(at, name):
    """The dataframe printed right after the markdown header naming `name` (ui.table's layout)."""
    headers = [m.value for m in at.markdown if m.value.startswith(f"**`{name}`**")]
    assert headers, name
    names = [m.value for m in at.markdown if m.value.startswith("**`")]
    return at.dataframe[names.index(headers[0])].value


def test_book_preset_shows_the_books_numbers():
    at = open_screen("mask", sections="all")
    text = page_text(at)
    # masked scores row 2 and the causal weights of section 3.5.1 (seed 789)
    for number in ("0.4656", "0.1723", "-inf", "0.5517", "0.4483", "0.3800", "0.3097", "0.3103",
                   "0.2758", "0.2460", "0.2462", "0.2319", "0.2175", "0.1983", "0.1984", "0.1888",
                   "0.1971", "0.1935", "0.1663", "0.1666", "0.1542", "0.1529", "1.0000"):
        assert number in text, number
    latex = "\n".join(e.value for e in at.latex)
    assert r"\alpha_{2,1} = \frac{e^{0.4656/\sqrt{2}}}{e^{0.4656/\sqrt{2}} + e^{0.1723/\sqrt{2}}" in latex
    # e^(0.1723/√2) = 1.1296 (the exact score's is 1.1295): each number is what the shown ones before it give
    assert r"e^{-\infty}" in latex and r"= \frac{1.3899}{1.3899 + 1.1296 + \underbrace{0 + \dots + 0}" in latex
    assert r"= \frac{1.3899}{2.5195} = 0.5517" in latex
    # variant 1, renormalised: the book prints 0.2041 and 0.1659, whose fraction is 0.5516; a fifth digit gives 0.5517
    assert r"\frac{0.20413}{0.20413 + 0.16588} = 0.5517" in latex
    assert "(6, 6)" in text  # buffer and slice shapes


def test_both_variants_agree_and_the_difference_is_shown():
    at = open_screen("mask", sections="all")
    metric = next(m for m in at.metric if "variant 1" in m.label)
    assert plain_number(metric.value) < 1e-6
    assert "≤ 10⁻⁵). In exact arithmetic they are equal" in page_text(at)  # the same formatter and tolerance as every agreement check


def test_unrenormalised_rows_sum_to_less_than_one():
    at = open_screen("mask", sections="all")
    sums = _frame(at, "masked_simple.sum(dim=-1)").iloc[0].tolist()
    assert [f"{s:.4f}" for s in sums] == ["0.1921", "0.3700", "0.5357", "0.6775", "0.8415", "1.0000"]
    assert all(s < 1 for s in sums[:-1])
    assert "sum to 0.3700 instead of 1" in page_text(at)


def test_leak_section_names_the_future_tokens():
    at = open_screen("mask", sections="all")
    leak = next(m.value for m in at.markdown if "the future leaks." in m.value)
    for token, weight in (("starts", "0.1662"), ("with", "0.1496"), ("one", "0.1665"), ("step", "0.1477")):
        assert f"“{token}” {weight}" in leak
    assert "“Your”" not in leak and "63.0%" in leak
    at = open_screen("mask", query=6, sections=["wrong"])  # the last token has no future
    assert not at.exception
    assert any("nothing lies in its future" in m.value for m in at.markdown)


def test_larger_context_length_gives_identical_weights():
    at = open_screen("mask", sections="all")
    before = _frame(at, "attn_weights")
    at.slider(key="context_length").set_value(40).run()
    assert not at.exception
    text = page_text(at)
    assert "(40, 40)" in text and "mask[:6, :6]" in text and "Identical weights" in text
    assert _frame(at, "attn_weights").equals(before)
    assert any(m.value == "0" for m in at.metric)  # max |difference| to context_length = 6


def test_every_control_changes_what_it_names():
    at = open_screen("mask", sections="all")
    weights = _frame(at, "attn_weights")
    view = views(at)["causal"]  # every query's row travels; the browser scrubs them
    assert list(view_row(view, 3).values()) == ["0.2758", "0.2460", "0.2462", "0.2319"]  # two future keys not sent
    assert view_row(view, 1, "also0") == {0: "0.4656", 1: "0.1723"}  # masked scores: the −∞ cells are not sent
    assert len(view_row(view, 1, "also1")) == 6  # without a mask every key is seen, the future too
    at = open_screen("mask", query=4, sections="all")
    latex = [e.value.strip("$\n") for e in at.latex]
    # the book's causal weights (seed 789), row 4: 0.2758, 0.2460, 0.2462, 0.2319; two future keys masked
    assert latex[-1].startswith(r"\alpha_{4,1}") and latex[-1].endswith("= 0.2758"), latex
    assert r"\underbrace{0 + 0}_{2\text{ future}}" in latex[1]
    assert any("Without the mask “with” gives" in m.value for m in at.markdown)
    at = open_screen("mask", query=4, key=3, sections="all")
    latex = [e.value.strip("$\n") for e in at.latex]
    assert latex[-1].startswith(r"\alpha_{4,3}") and latex[-1].endswith("= 0.2462"), latex
    at.slider(key="context_length").set_value(100).run()
    assert not at.exception
    assert "(100, 100)" in page_text(at) and "mask[:6, :6]" in page_text(at)
    assert _frame(at, "attn_weights").equals(weights)  # a longer buffer, sliced: the same weights


def test_gpt2_small_renders_quickly():
    start = time.perf_counter()
    at = open_screen("mask", preset="gpt2-small", sections="all")
    assert time.perf_counter() - start < 20
    text = page_text(at)
    assert "shape `(1024, 1024)`; showing its first 8 of 1,024 rows and first 8 of 1,024 columns" in text
    assert len(at.get("image")) >= 3  # 1024 x 1024 heatmaps as images
    assert views(at)["causal"]["meta"]["overview"] is not None  # and the view's overview of the causal weights


def test_the_two_variants_share_one_legend_when_drawn_on_the_same_colours():
    # Two identical legends, one under each map, made the section a slide too tall (issue 35's deck check).
    at = open_screen("mask", preset="gpt2-small", sections=["variants"])
    captions = [image.caption for element in at.get("image") for image in element.proto.imgs]
    legends = [caption for caption in captions if caption.startswith("colour: each weight against an even share")]
    assert len(legends) == 1, captions
    assert any(caption.startswith("1: softmax, zero with tril") for caption in captions), captions


def test_one_token_renders():
    at = open_screen("mask", input="sentence", text="Hello", sections="all")
    text = page_text(at)
    assert r"\alpha_{1,1}" in text and "= 1.0000" in text
    assert "nothing lies in its future" in text


def test_bad_context_length_in_url_shows_a_note_and_renders():
    at = open_screen("mask", context_length="-5", sections=["buffer"])  # outside the parameter's range
    assert any("context_length='-5'" in w.value for w in at.warning)
    assert at.slider(key="context_length").value == 6 and "0.5517" in page_text(at)
    at = open_screen("mask", context_length="3")  # a valid number, but shorter than the input: noted, section closed
    assert any("context_length 3 is shorter than the 6 tokens" in w.value for w in at.warning)
    open_sections(at, "mask", ["buffer"])
    assert at.slider(key="context_length").value == 6


def _colour_of(spec, meaning: str) -> str:
    """The colour a mask chart gives the legend entry that contains `meaning` (its nominal scale's domain → range)."""
    stack = [spec]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            scale = node.get("scale")
            if isinstance(scale, dict) and isinstance(scale.get("domain"), list) and "range" in scale:
                for label, colour in zip(scale["domain"], scale["range"]):
                    if meaning in str(label):
                        return colour
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    raise AssertionError(f"no legend entry with {meaning!r}")


def test_both_masks_draw_may_see_in_one_colour_and_say_what_their_tensor_holds():
    # tril holds 1 where a query may see, the buffer 1 where a key is in the future: side by side, dark meant
    # "may see" in one picture and "blocked" in the other. Now dark = may see in both; each legend names the value.
    from attention_core.drawing.colour import MASK_HEX
    from conftest import chart_specs
    at = open_screen("mask", sections=["buffer"])
    variants = {s["title"]: s for s in chart_specs(at) if str(s.get("title", "")).startswith("variant")}
    assert len(variants) == 2, list(variants)
    tril = next(s for t, s in variants.items() if "tril" in t)
    buffer = next(s for t, s in variants.items() if "buffer" in t)
    assert _colour_of(tril, "1 = may see") == _colour_of(buffer, "0 = may see") == MASK_HEX[1]  # dark
    assert _colour_of(tril, "0 = blocked") == _colour_of(buffer, "1 = future, blocked") == MASK_HEX[0]  # light
    assert "In both pictures dark = may see" in page_text(at)
