"""The readers' questions: each demonstration computes the right and the wrong version, and the check
that tells them apart passes for the right one and fails for the wrong one."""
import pytest
import torch

from attention_core.lessons import traces as lesson, reader_questions as rq
from attention_core.book.inputs import BOOK_INPUTS, random_inputs
from attention_core.book.modules import CausalAttention


def test_dropout_scale_is_one_over_one_minus_p():
    rows = {row["p"]: row for row in rq.dropout_scale()}
    assert sorted(rows) == [0.1, 0.2, 0.5]
    for p, row in rows.items():
        assert row["nn.Dropout survivor value"] == pytest.approx(1 / (1 - p), abs=1e-6)  # PyTorch's own scale
        assert rq.keeps_expectation(row["nn.Dropout survivor value"], p)
        assert row["mean with 1/(1-p)"] == pytest.approx(1, abs=0.01)
    for p in (0.1, 0.2):  # the readers' 1/p fails where p != 0.5 ...
        assert not rq.keeps_expectation(1 / p, p)
        assert rows[p]["mean with 1/p"] == pytest.approx((1 - p) / p, rel=0.01)  # about 9 and 4
    assert rq.keeps_expectation(1 / 0.5, 0.5)  # ... and the book's p = 0.5 hides it


def test_dropout_on_weights_drops_on_scores_does_not():
    record = lesson.causal_trace(BOOK_INPUTS, 2, 789, 6, "cpu")[0]
    out = rq.dropout_placement(record["attn_scores"], 0.5, 123, d_k=2)
    assert out["dropped"].any()
    assert rq.dropped_keys_get_nothing(out["right"], out["dropped"])
    assert not rq.dropped_keys_get_nothing(out["wrong"], out["dropped"])
    assert torch.allclose(out["wrong_row_sums"], torch.ones(6))  # softmax after: nothing was really dropped
    assert not torch.allclose(out["right_row_sums"], torch.ones(6))
    assert out["nan_rows_if_after_mask"] > 0  # -inf * 0 = nan
    # the book's order is exactly "weights, then dropout": the app's masked weights times keep / (1 - p)
    assert torch.allclose(out["right"], record["attn_weights"] * out["keep"] * 2)


@pytest.mark.parametrize("num_tokens, d_out, num_heads", [(6, 4, 2), (5, 6, 3), (4, 8, 4)])
def test_head_split_keeps_tokens_only_with_the_transpose(num_tokens, d_out, num_heads):
    out = rq.head_split(num_tokens, d_out, num_heads)
    assert rq.split_keeps_tokens(out["right"])
    assert not rq.split_keeps_tokens(out["wrong"])
    assert out["right_shape"] == out["wrong_shape"] == (1, num_heads, num_tokens, d_out // num_heads)
    assert all(tokens == list(range(1, num_tokens + 1)) for tokens in out["right_tokens"])
    head_dim = d_out // num_heads
    assert [(a, b) for _, a, b in out["right"][1]] == [(head_dim + 1, 2 * head_dim)] * num_tokens


def test_wrong_head_split_of_the_book_example():
    out = rq.head_split(6, 4, 2)
    assert out["wrong_tokens"] == [[1, 2, 3], [4, 5, 6]]  # head 1 never sees tokens 4-6
    assert out["wrong"][0][:2] == [(1, 1, 2), (1, 3, 4)]  # rows 1 and 2 of head 1 are both token 1
    one_head = rq.head_split(6, 4, 1)  # with one head there is nothing to mix up
    assert rq.split_keeps_tokens(one_head["wrong"])


def test_d_out_means_per_head_in_the_wrapper_and_total_in_mha():
    out = rq.d_out_meaning(BOOK_INPUTS, 2, 2)
    assert out["wrapper_shape"] == (1, 6, 4) and out["mha_shape"] == (1, 6, 2)
    assert out["wrapper_head_width"] == 2 and out["mha_head_dim"] == 1
    assert out["wrapper_params"] == 36 and out["mha_params"] == 24
    assert out["wrapper_d_out_for_same_width"] == 1 and out["wrapper_shape_for_same_width"] == out["mha_shape"]


def test_mask_buffer_moves_and_is_saved_attribute_does_neither():
    out = rq.mask_storage(3, 2, 6, target="meta")
    buffer, attribute = out["buffer"], out["attribute"]
    assert "mask" in buffer["state_dict"] and "mask" not in attribute["state_dict"]
    assert buffer["devices"]["mask"] == "meta" and attribute["devices"]["mask"] == "cpu"
    assert all(d == "meta" for n, d in attribute["devices"].items() if n != "mask")  # .to() moved the rest
    assert buffer["error"] is None and buffer["output"] == "(1, 6, 2) on meta"
    assert attribute["output"] is None and "device" in attribute["error"] and "cpu" in attribute["error"]
    assert set(buffer["state_dict"]) == set(CausalAttention(3, 2, 6, 0.0).state_dict())  # the book's class


def test_mask_storage_on_the_cpu_has_nothing_to_move():
    out = rq.mask_storage(3, 2, 6, target="cpu")
    assert out["attribute"]["error"] is None  # the bug hides until the model moves to a GPU
    assert "mask" not in out["attribute"]["state_dict"]


def test_platform_dropout_private_generator_is_repeatable():
    weights = lesson.causal_trace(BOOK_INPUTS, 2, 789, 6, "cpu")[0]["attn_weights"]
    out = rq.platform_dropout(weights, 0.5, 123)
    assert out["book_vs_app"] == 0.0  # the app's mask is the book's on the CPU
    assert out["cells_changed_by_one_extra_draw"] > 0  # the global generator is shared
    assert out["app_repeatable"] == 0.0
    assert not torch.equal(out["reference"], out["shifted"])
    big = rq.platform_dropout(lesson.causal_trace(random_inputs(16, 3, 2), 2, 1, 16, "cpu")[0]["attn_weights"], 0.1, 7)
    assert big["book_vs_app"] < 1e-6 and big["cells"] == 256  # same mask; x / 0.9 vs x * (1 / 0.9) rounding


@pytest.mark.parametrize("d_in, d_out, num_heads", [(3, 2, 2), (3, 4, 2), (5, 6, 3), (4, 8, 1)])
def test_the_counted_d_out_answers_equal_the_built_ones(d_in, d_out, num_heads):
    x = torch.randn(6, d_in, generator=torch.Generator().manual_seed(d_out))
    assert rq.d_out_meaning_counted(6, d_in, d_out, num_heads) == rq.d_out_meaning(x, d_out, num_heads)
