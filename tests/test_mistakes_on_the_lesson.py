"""Each common mistake is computed on the lesson's own matrix with only the mistake changed: its right version is
the lesson's numbers (issue 35: /heads' "head 1, query 2 … entropy 1.79" was softmax over all 6 keys without the
causal mask, while the lesson's head-1 map gives query 2 two keys, 0.4776 and 0.5224)."""
import pytest
import torch

from attention_core import BOOK_INPUTS
from attention_core.book import stages
from attention_core.book.inputs import random_inputs
from attention_core.lessons import pitfalls, traces

# The book's example and a larger random input (heads do not divide d_out evenly at every size: 8 / 2 do).
INPUTS = {"book": (BOOK_INPUTS, 2, 2), "random": (random_inputs(9, 8, 5), 8, 2)}


def close(a, b, atol=1e-6):
    torch.testing.assert_close(a.float(), b.float(), atol=atol, rtol=0, equal_nan=False)


@pytest.mark.parametrize("name", INPUTS)
def test_scaling_by_d_out_is_computed_on_the_heads_lessons_masked_scores(name):
    x, d_out, heads = INPUTS[name]
    mha = traces.heads_trace(x, d_out, heads, 123, x.shape[0], "cpu")["mha"]
    T = x.shape[0]
    result = pitfalls.scale_by_model_dim(mha["queries"], mha["keys"], d_out, stages.causal_mask(T).bool())
    close(result["right"], mha["attn_weights"])  # the right version is the lesson's map, every head
    assert (result["wrong"][..., stages.causal_mask(T).bool()] == 0).all()  # the bug keeps the mask: only √ changes
    if name == "book":
        close(result["right"][0, 0, 1, :2], torch.tensor([0.4776, 0.5224]), atol=1e-4)  # head 1, query 2 on screen


@pytest.mark.parametrize("name", INPUTS)
def test_softmax_mistakes_use_the_lessons_scaled_scores(name):
    x, d_out, _ = INPUTS[name]
    record, _, _ = traces.projection_trace(x, "v1", d_out, 123, "cpu")
    d_k = record["keys"].shape[-1]
    close(pitfalls.softmax_wrong_dim(record["attn_scores"], d_k)["right"], record["attn_weights"])
    for q in range(x.shape[0]):  # the notes' `/ d_k*0.5`: its right version is each query's row of the lesson
        close(pitfalls.precedence(record["attn_scores"][q], d_k)["right"], record["attn_weights"][q])


@pytest.mark.parametrize("name", INPUTS)
def test_mask_mistakes_use_the_lessons_scores_mask_and_d_k(name):
    x, d_out, _ = INPUTS[name]
    record, _, _ = traces.causal_trace(x, d_out, 789, x.shape[0], "cpu")
    d_k = record["keys"].shape[-1]
    close(pitfalls.mask_value_in_float16(record["attn_scores"], d_k)["right"], record["attn_weights"], atol=2e-3)
    # "Forgetting the mask": the lesson's scaled scores with only the mask left out; with it, nothing leaks
    close(record["unmasked_weights"], torch.softmax(record["attn_scores"] / d_k**0.5, dim=-1))
    assert pitfalls.future_leak(record["attn_weights"]).abs().max() == 0


def test_the_keys_T_mistake_is_shaped_like_the_scores_lessons_batch():
    keys = BOOK_INPUTS[None]  # (1, T, d): the screen's batch of one
    shapes = pitfalls.transpose_batched(keys, keys)
    assert shapes["right_result_shape"] == tuple(stages.attn_scores(keys, keys).shape) == (1, 6, 6)


def test_the_heads_screens_mistake_names_the_row_its_map_shows():
    from conftest import open_screen, page_text
    text = page_text(open_screen("heads", sections=["mistakes"]))
    assert "head 1, query 2 (2 keys): largest weight 0.5224" in text  # the head-1 map's query 2: 0.4776, 0.5224
    assert "flatter than intended" in text
