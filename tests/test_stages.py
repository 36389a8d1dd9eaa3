"""Properties of the step functions in attention_core.book.stages."""
import math

import pytest
import torch

from attention_core import BOOK_INPUTS
from attention_core.book import stages


def _rand(*shape, seed=0):
    return torch.rand(*shape, generator=torch.Generator().manual_seed(seed))


def _randn(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


# --- normalisations and scaling --------------------------------------------------------------

def test_softmax_rows_sum_to_one():
    weights = stages.softmax(_randn(3, 5, 7, seed=1) * 10)
    torch.testing.assert_close(weights.sum(dim=-1), torch.ones(3, 5))
    assert (weights >= 0).all()


@pytest.mark.parametrize("normalise", [stages.normalize_by_sum, stages.softmax_naive, stages.softmax])
def test_all_normalisations_sum_to_one_for_positive_scores(normalise):
    scores = stages.attn_scores(BOOK_INPUTS, BOOK_INPUTS)  # all positive
    weights = normalise(scores)
    torch.testing.assert_close(weights.sum(dim=-1), torch.ones(6))
    assert (weights > 0).all()


def test_normalize_by_sum_goes_negative_for_mixed_signs():
    weights = stages.normalize_by_sum(torch.tensor([2.0, -1.5, 0.5]))
    assert (weights < 0).any()
    assert abs(float(weights.sum()) - 1.0) < 1e-6
    assert (stages.softmax(torch.tensor([2.0, -1.5, 0.5])) > 0).all()


def test_softmax_naive_overflows_but_softmax_does_not():
    scores = torch.tensor([1000.0, 1.0])
    assert torch.isnan(stages.softmax_naive(scores)).any()
    stable = stages.softmax(scores)
    assert torch.isfinite(stable).all()
    assert abs(float(stable.sum()) - 1.0) < 1e-6
    torch.testing.assert_close(stable, torch.tensor([1.0, 0.0]))


def test_scale_scores_by_sqrt_d_k():
    s = _randn(4, 4, seed=2)
    torch.testing.assert_close(stages.scale_scores(s, 4), s / 2)
    torch.testing.assert_close(stages.scale_scores(s, 64), s / 8)


# --- causal mask -----------------------------------------------------------------------------

def test_causal_mask_zeroes_the_future_both_ways():
    scores = _randn(2, 6, 6, seed=3)
    above = torch.triu(torch.ones(6, 6, dtype=torch.bool), diagonal=1)
    via_scores = stages.softmax(stages.mask_scores(scores))
    masked_simple, via_weights = stages.mask_after_softmax(stages.softmax(scores))
    for weights in (via_scores, via_weights, masked_simple):
        assert (weights[..., above] == 0).all()
    torch.testing.assert_close(via_scores.sum(-1), torch.ones(2, 6))
    torch.testing.assert_close(via_weights.sum(-1), torch.ones(2, 6))
    torch.testing.assert_close(via_scores, via_weights)


def test_masked_simple_rows_sum_below_one_before_renormalising():
    masked_simple, _ = stages.mask_after_softmax(stages.softmax(_randn(6, 6, seed=4)))
    sums = masked_simple.sum(dim=-1)
    assert (sums[:-1] < 1 - 1e-6).all()
    assert abs(float(sums[-1]) - 1.0) < 1e-6  # the last token sees everything


def test_mask_scores_with_longer_context_length():
    scores = _randn(6, 6, seed=5)
    short = stages.mask_scores(scores)
    torch.testing.assert_close(stages.mask_scores(scores, 10), short)
    torch.testing.assert_close(stages.mask_scores(scores, 6), short)
    assert torch.isinf(short[0, 1:]).all() and torch.isfinite(short.diagonal()).all()


def test_masks_are_complementary():
    assert torch.equal(stages.causal_mask(5) + stages.mask_simple(5), torch.ones(5, 5))


# --- dropout -----------------------------------------------------------------------------------

def test_dropout_eval_mode_and_p_zero_leave_input_unchanged():
    w = _rand(6, 6, seed=6)
    out, keep = stages.dropout(w, 0.5, 123, train=False)
    assert torch.equal(out, w) and torch.equal(keep, torch.ones(6, 6))
    out, _ = stages.dropout(w, 0.0, 123)
    assert torch.equal(out, w)


def test_dropout_p_one_gives_zeros_without_nan():
    out, keep = stages.dropout(_rand(6, 6, seed=7), 1.0, 123)
    assert torch.equal(out, torch.zeros(6, 6))
    assert not torch.isnan(out).any()
    assert torch.equal(keep, torch.zeros(6, 6))


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_survivors_are_scaled(p):
    w = _rand(8, 8, seed=8) + 0.1
    out, keep = stages.dropout(w, p, 42)
    kept = keep.bool()
    assert kept.any() and (~kept).any()
    torch.testing.assert_close(out[kept], w[kept] / (1 - p))
    assert (out[~kept] == 0).all()


def test_dropout_keeps_the_expectation():
    w = stages.softmax(_randn(6, 6, seed=9))
    mean = torch.stack([stages.dropout(w, 0.5, seed)[0] for seed in range(2000)]).mean(dim=0)
    assert (mean - w).abs().max() < 0.05


@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_dropout_keep_fraction(p):
    keep = stages.dropout_keep_mask((500, 500), p, 3)
    assert abs(float(keep.mean()) - (1 - p)) < 0.02


def test_dropout_is_seeded_and_leaves_global_rng_alone():
    before = torch.get_rng_state()
    a = stages.dropout_keep_mask((20, 20), 0.5, 1)
    assert torch.equal(a, stages.dropout_keep_mask((20, 20), 0.5, 1))
    assert not torch.equal(a, stages.dropout_keep_mask((20, 20), 0.5, 2))
    assert torch.equal(before, torch.get_rng_state())


# --- heads ---------------------------------------------------------------------------------------

def test_split_then_merge_heads_is_identity():
    x = _randn(2, 5, 12, seed=10)
    heads = stages.split_heads(x, 3)
    assert heads.shape == (2, 3, 5, 4)
    torch.testing.assert_close(heads[:, 1], x[..., 4:8])  # head 1 holds columns 4..7
    assert torch.equal(stages.merge_heads(heads), x)


def test_divisors():
    assert stages.divisors(12) == [1, 2, 3, 4, 6, 12]
    assert stages.divisors(1) == [1]
    assert stages.divisors(7) == [1, 7]


# --- entropy, loops, diffs -------------------------------------------------------------------------

@pytest.mark.parametrize("num_tokens", [1, 2, 6, 100])
def test_entropy_uniform_and_one_hot(num_tokens):
    uniform = torch.full((num_tokens,), 1.0 / num_tokens)
    assert abs(float(stages.entropy(uniform)) - math.log(num_tokens)) < 1e-5
    one_hot = torch.zeros(num_tokens)
    one_hot[-1] = 1.0
    assert float(stages.entropy(one_hot)) == 0.0


def test_loops_equal_matrix_forms():
    inputs = _randn(9, 5, seed=11)
    scores = stages.attn_scores(inputs, inputs)
    weights = stages.softmax(scores)
    context = stages.context_vectors(weights, inputs)
    for i in range(9):
        torch.testing.assert_close(stages.attn_scores_loop(inputs, inputs[i]), scores[i])
        torch.testing.assert_close(stages.context_vector_loop(weights[i], inputs), context[i])
    assert torch.equal(stages.dot_product_terms(inputs[0], inputs[1]).sum(), (inputs[0] * inputs[1]).sum())


def test_max_abs_diff():
    a = torch.tensor([[1.0, -torch.inf], [0.5, torch.inf]])
    assert stages.max_abs_diff(a, a.clone()) == 0.0
    b = torch.tensor([[1.25, -torch.inf], [0.5, torch.inf]])
    assert stages.max_abs_diff(a, b) == 0.25
    assert stages.max_abs_diff(a, torch.tensor([[1.0, 0.0], [0.5, torch.inf]])) == math.inf
    assert stages.max_abs_diff(torch.empty(0), torch.empty(0)) == 0.0
