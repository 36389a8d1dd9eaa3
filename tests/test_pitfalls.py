"""Each pitfall really produces the wrong result it claims; each agreement check can detect a gap."""
import torch

from attention_core import BOOK_INPUTS, CausalAttention
from attention_core.book import stages
from attention_core.lessons import agreement, traces as lesson, pitfalls


def book_scores():
    return stages.attn_scores(BOOK_INPUTS, BOOK_INPUTS)  # (6, 6)


def test_precedence_pitfall_divides_by_2_dk_and_gives_the_notes_numbers():
    record, _, _ = lesson.projection_trace(BOOK_INPUTS, "v1", 2, 123, "cpu")
    result = pitfalls.precedence(record["attn_scores"][1], 2)
    torch.testing.assert_close(result["wrong"], torch.tensor([0.1623, 0.1877, 0.1858, 0.1547, 0.1358, 0.1738]),
                               atol=1e-4, rtol=0)
    torch.testing.assert_close(result["right"], torch.tensor([0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820]),
                               atol=1e-4, rtol=0)
    torch.testing.assert_close(result["wrong"], torch.softmax(record["attn_scores"][1] / 4, dim=-1))


def test_scaling_by_the_model_dimension_flattens_every_head():
    gen = torch.Generator().manual_seed(0)
    q, k = torch.randn(1, 4, 8, 16, generator=gen), torch.randn(1, 4, 8, 16, generator=gen)
    result = pitfalls.scale_by_model_dim(q, k, d_model=64, mask_bool=None)
    assert stages.entropy(result["wrong"]).mean() > stages.entropy(result["right"]).mean()
    torch.testing.assert_close(result["wrong"], torch.softmax(stages.attn_scores(q, k) / 8, dim=-1))


def test_softmax_over_the_wrong_dimension_breaks_the_row_sums():
    result = pitfalls.softmax_wrong_dim(book_scores())
    torch.testing.assert_close(result["right_row_sums"], torch.ones(6))
    assert (result["wrong_row_sums"] - 1).abs().max() > 0.2
    torch.testing.assert_close(result["wrong"].sum(dim=0), torch.ones(6))  # the columns sum to 1 instead


def test_no_mask_leaks_future_tokens_into_every_row_but_the_last():
    leak = pitfalls.future_leak(torch.softmax(book_scores(), dim=-1))
    assert (leak[:-1] > 0.1).all() and leak[-1] == 0
    masked = torch.softmax(stages.mask_scores(book_scores()), dim=-1)
    assert pitfalls.future_leak(masked).abs().max() == 0


def test_minus_1e9_overflows_float16_and_a_fully_masked_row_is_nan_or_uniform():
    result = pitfalls.mask_value_in_float16(book_scores())
    assert result["error"] and "Half" in result["error"]
    torch.testing.assert_close(result["right"].sum(dim=-1), torch.ones(6), atol=1e-3, rtol=0)
    row = pitfalls.fully_masked_row(4)
    assert torch.isnan(row["with_inf"]).all()
    torch.testing.assert_close(row["with_minus_1e9"], torch.full((4,), 0.25))


def test_dropout_left_on_at_inference_makes_outputs_random():
    module = CausalAttention(3, 2, 6, 0.5)
    result = pitfalls.dropout_at_inference(module, BOOK_INPUTS[None])
    assert result["train_diff"] > 1e-3 and result["eval_diff"] == 0


def test_keys_T_on_a_batch_reverses_every_dimension():
    q, k = torch.rand(2, 6, 4), torch.rand(2, 6, 4)
    result = pitfalls.transpose_batched(q, k)
    assert result["keys_T_shape"] == (4, 6, 2) and result["error"]
    assert result["right_shape"] == (2, 4, 6) and result["right_result_shape"] == (2, 6, 6)


def test_agreement_checks_are_tiny_for_the_real_thing_and_large_for_a_wrong_one():
    record, _, _ = lesson.projection_trace(BOOK_INPUTS, "v1", 2, 123, "cpu")
    assert agreement.unmasked_vs_sdpa(record, scaled=True) <= 1e-6
    assert agreement.unmasked_vs_sdpa(record, scaled=False) > 1e-3  # the wrong scale is detected
    causal, _, _ = lesson.causal_trace(BOOK_INPUTS, 2, 789, 6, "cpu")
    assert agreement.causal_vs_sdpa(causal) <= 1e-6
    broken = dict(causal, context_vec=stages.context_vectors(causal["unmasked_weights"], causal["values"]))
    assert agreement.causal_vs_sdpa(broken) > 1e-3  # an unmasked result does not pass
    for p, seed in [(0.5, 123), (0.1, 7), (0.9, 2024)]:
        assert agreement.dropout_vs_nn(causal["attn_weights"], p, seed) <= 1e-6
    mha = agreement.mha_vs_torch(torch.rand(7, 8), 8, 2, 123, 7)
    assert mha["output"] <= 1e-5 and mha["weights"] <= 1e-5
    assert agreement.exercise_3_1(BOOK_INPUTS, 2, 789) <= 1e-6
