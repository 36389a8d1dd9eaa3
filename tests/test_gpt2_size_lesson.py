"""At GPT-2 small's size the screens must tell the chapter's story: zero-mean inputs, nn.Linear's
weights, scaled rows spread and unscaled rows sharp; and the all-positive saturation as its own experiment."""
import math

import pytest
import torch

from attention_core.lessons import experiments, initialisation, traces as lesson
from attention_core.book.inputs import BOOK_INPUTS
from attention_core.book.modules import SelfAttention_v2
from attention_core.book.seeding import build_seeded


@pytest.fixture(scope="module")
def gpt2_v1():
    x = lesson.make_inputs("random", "", False, 1024, 768, 123).x  # the gpt2-small preset's inputs
    return x, lesson.projection_trace(x, "v1", 768, 123, "cpu", book=False)[0]


def test_gpt2_size_inputs_and_weights_are_zero_mean_with_nn_linear_std(gpt2_v1):
    x, record = gpt2_v1
    assert abs(float(x.mean())) < 0.01 and abs(float(x.std()) - 1) < 0.01
    for w in (record["W_query"], record["W_key"]):  # (768, 768)
        assert abs(float(w.mean())) < 1e-3
        assert float(w.std()) == pytest.approx(1 / math.sqrt(3 * 768), rel=0.02)  # uniform in ±1/√d_in
        assert float(w.abs().max()) <= initialisation.linear_bound(768)
    v2 = build_seeded(SelfAttention_v2, 123, 768, 768)  # the very weights v2 gets under the same seed
    assert torch.equal(record["W_query"], v2.W_query.weight.detach().T)


def test_only_the_books_inputs_keep_the_books_torch_rand_weights():
    assert initialisation.book_weights("book")
    assert not initialisation.book_weights("random") and not initialisation.book_weights("sentence")
    book = lesson.projection_trace(BOOK_INPUTS, "v1", 2, 123, "cpu")[0]
    assert (book["W_query"] >= 0).all()  # torch.rand, as the book prints it
    assert "torch.rand" in initialisation.weights_line("v1", 123, True)
    assert "nn.Linear" in initialisation.weights_line("v1", 123, False)


def test_scaled_rows_at_gpt2_small_are_neither_even_nor_one_hot_and_unscaled_are_sharper(gpt2_v1):
    _, record = gpt2_v1
    scaled = experiments.sharpness(record["attn_weights"])
    unscaled = experiments.sharpness(torch.softmax(record["attn_scores"], dim=-1))
    assert 2 / 1024 < scaled["largest weight"] < 0.05, scaled  # not 1/1024 (even), far from 1
    assert 0.9 < scaled["entropy ÷ uniform"] < 0.999, scaled
    assert scaled["one-hot rows"] == 0
    assert unscaled["largest weight"] > 0.5 and unscaled["entropy ÷ uniform"] < 0.3, unscaled
    assert unscaled["largest weight"] > 20 * scaled["largest weight"]


def test_the_saturation_experiment_shows_what_torch_rand_does_and_what_zero_mean_fixes():
    rows = {(r["inputs"], r["weights"]): r for r in experiments.saturation(seed=123)}
    worst = rows["torch.rand", "torch.rand"]  # the book's v1 with torch.rand inputs, at GPT-2's width
    assert worst["score mean"] > 1e6 and worst["spread in a row"] > 1000
    assert worst["largest weight, scaled"] > 0.999 and worst["one-hot rows, scaled"] == 1.0  # √d_k does not help
    # Zero-mean inputs alone: the weights' positive mean still lines every query up.
    assert rows["torch.randn", "torch.rand"]["one-hot rows, scaled"] > 0.9
    # Zero-mean weights alone: all-positive inputs make every key alike, rows come out even.
    assert rows["torch.rand", "nn.Linear"]["entropy ÷ uniform, scaled"] > 0.999
    real = rows["torch.randn", "nn.Linear"]
    assert abs(real["score mean"]) < 1 and 0.25 < real["spread in a row"] < 0.45  # ≈ 1/3 after scaling
    assert 1 / 256 < real["largest weight, scaled"] < 0.05 and 0.95 < real["entropy ÷ uniform, scaled"] < 0.999
    assert real["largest weight, unscaled"] > 0.5


def test_sharpness_of_even_and_one_hot_rows():
    even = experiments.sharpness(torch.full((4, 4), 0.25))
    assert even["largest weight"] == pytest.approx(0.25) and even["entropy ÷ uniform"] == pytest.approx(1)
    one_hot = experiments.sharpness(torch.eye(4))
    assert one_hot == {"largest weight": 1.0, "entropy ÷ uniform": 0.0, "one-hot rows": 1.0}


def test_the_softmax_screen_at_gpt2_small_states_its_weights_and_both_sharpness_numbers():
    from conftest import open_screen, page_text
    at = open_screen("softmax", sections=["checks"], preset="gpt2-small")
    metrics = {m.label: m.value for m in at.metric}
    scaled, unscaled = (float(metrics[f"median largest weight · {t}"]) for t in ("softmax(ω / √768)", "softmax(ω), unscaled"))
    assert 2 / 1024 < scaled < 0.05 and unscaled > 0.5  # spread, but not even; unscaled far sharper
    assert 0.9 < float(metrics["median entropy ÷ uniform · softmax(ω / √768)"]) < 0.999
    text = page_text(at)
    assert "nn.Linear weights that `torch.manual_seed(123)`" in text
    # No LaTeX in plain text, no failed check for the overflow the screen demonstrates on purpose.
    assert not any("\\times" in c.value for c in at.caption)
    assert not any(m.delta == "differs" for m in at.metric), [(m.label, m.value) for m in at.metric]
    assert "naive exp / sum overflows on" in text and "book scores" not in text


def test_the_median_of_an_even_number_of_rows_is_the_mean_of_the_middle_two():
    # /softmax's six rows at the book preset had the largest weights 0.2104, 0.2264, 0.2256, 0.1994, 0.1949, 0.2092:
    # by hand the median is 0.2098; torch.median's lower middle value, 0.2092, is what the screen showed.
    largest = (0.6104, 0.6264, 0.6256, 0.5994, 0.5949, 0.6092)  # rows of two weights: each row's largest
    weights = torch.tensor([[w, 1 - w] for w in largest])  # (6, 2)
    assert experiments.sharpness(weights)["largest weight"] == pytest.approx((0.6092 + 0.6104) / 2, abs=1e-6)
