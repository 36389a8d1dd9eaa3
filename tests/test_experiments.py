"""The "Why √d_k" experiments: the measured numbers behave as the theory says, and stay seeded."""
import math

import pytest
import torch

from attention_core.lessons import experiments
from attention_core.lessons.experiments import POWERS, SCALED, UNSCALED


@pytest.fixture(scope="module")
def full():
    """The largest run the page allows: 4,096 queries x 64 keys at every d_k, as {(d_k, variant): row}."""
    return {(r["d_k"], r["scores"]): r for r in experiments.sweep(4096, 64, seed=123)}


def column(rows, variant, name):
    return [rows[(d_k, variant)][name] for d_k in POWERS]


def test_unscaled_variance_grows_linearly_with_d_k(full):
    unscaled = column(full, UNSCALED, "variance")
    assert 40 <= unscaled[POWERS.index(1024)] / unscaled[POWERS.index(16)] <= 90  # 64 in theory
    assert 0.9 <= experiments.loglog_slope(POWERS, unscaled) <= 1.1
    for d_k, var in zip(POWERS, unscaled):
        assert 0.8 * d_k <= var <= 1.25 * d_k, (d_k, var)


@pytest.mark.parametrize("seed", [0, 1, 123])
def test_scaled_variance_stays_near_one_at_every_d_k(seed):
    rows = experiments.sweep(4096, 64, seed)
    for row in rows:
        if row["scores"] == SCALED:
            assert 0.8 <= row["variance"] <= 1.25, row


def test_scaled_and_unscaled_are_the_same_samples(full):
    # Dividing by sqrt(d_k) divides the variance by exactly d_k: both variants score the same q, k.
    for d_k in POWERS:
        assert full[(d_k, SCALED)]["variance"] == pytest.approx(full[(d_k, UNSCALED)]["variance"] / d_k, rel=1e-9)
    assert full[(1, SCALED)] | {"scores": None} == full[(1, UNSCALED)] | {"scores": None}  # sqrt(1) = 1


def test_unscaled_softmax_saturates_while_scaled_stays_flat(full):
    largest, entropy = column(full, UNSCALED, "largest weight"), column(full, UNSCALED, "entropy (nats)")
    assert all(b > a for a, b in zip(largest, largest[1:])), largest
    assert all(b < a for a, b in zip(entropy, entropy[1:])), entropy
    assert largest[-1] > 0.9 and entropy[-1] < 0.1 * math.log(64)  # near one-hot at d_k = 1024
    scaled_largest, scaled_entropy = column(full, SCALED, "largest weight"), column(full, SCALED, "entropy (nats)")
    assert max(scaled_largest) - min(scaled_largest) < 0.05
    assert max(scaled_entropy) - min(scaled_entropy) < 0.15
    assert largest[-1] - largest[0] > 10 * (max(scaled_largest) - min(scaled_largest))
    assert 1 / 64 < min(scaled_largest) and max(scaled_entropy) < math.log(64)  # not uniform either


def test_unscaled_gradient_vanishes_at_large_d_k(full):
    scaled, unscaled = full[(1024, SCALED)], full[(1024, UNSCALED)]
    assert unscaled["gradient (median)"] * 5 <= scaled["gradient (median)"]
    assert unscaled["gradient (mean)"] < scaled["gradient (mean)"]  # near-ties keep the mean up, still lower
    falling = column(full, UNSCALED, "gradient (median)")[POWERS.index(32):]
    assert all(b < a for a, b in zip(falling, falling[1:])), falling
    level = column(full, SCALED, "gradient (median)")
    assert max(level) < 1.5 * min(level)


def test_autograd_gradient_matches_the_softmax_jacobian():
    scores, g = experiments.sample_scores(8, 32, 5, seed=3)  # (32, 5)
    p = torch.softmax(scores, dim=-1)
    jacobian = torch.diag_embed(p) - p.unsqueeze(-1) * p.unsqueeze(-2)  # (32, 5, 5), symmetric
    expected = (jacobian @ g.unsqueeze(-1)).squeeze(-1).norm(dim=-1)  # (32,)
    torch.testing.assert_close(experiments.softmax_gradient_norm(scores, g), expected)
    torch.testing.assert_close(g.norm(dim=-1), torch.ones(32, dtype=torch.float64))


def test_results_are_deterministic_per_seed_and_per_d_k():
    first = experiments.sweep(512, 8, seed=42)
    assert experiments.sweep(512, 8, seed=42) == first
    assert experiments.sweep(512, 8, seed=43) != first
    # one d_k's numbers do not depend on which other d_k values ran before it
    assert experiments.measure(256, 512, 8, seed=42) == [r for r in first if r["d_k"] == 256]


def test_global_rng_is_untouched():
    torch.manual_seed(0)
    before = torch.get_rng_state()
    experiments.sweep(256, 8, seed=1)
    experiments.histogram(64, 256, 8, seed=1)
    assert torch.equal(torch.get_rng_state(), before)


def test_sample_counts_that_do_not_fill_a_group():
    scores, g = experiments.sample_scores(4, 100, 64, seed=0)
    assert scores.shape == g.shape == (100, 64) and scores.dtype == torch.float64


def test_histogram_has_unit_area_and_the_scaled_spread_is_sqrt_d_k_narrower():
    rows = experiments.histogram(256, 1024, 16, seed=9, bins=30)
    for variant in (SCALED, UNSCALED):
        bars = [r for r in rows if r["scores"] == variant]
        assert len(bars) == 30
        assert sum(r["density"] * (r["bin_end"] - r["bin_start"]) for r in bars) == pytest.approx(1.0)
    span = {}
    for variant in (SCALED, UNSCALED):
        bars = [r for r in rows if r["scores"] == variant]
        span[variant] = max(r["bin_end"] for r in bars) - min(r["bin_start"] for r in bars)
    assert span[UNSCALED] / span[SCALED] == pytest.approx(16.0)


def test_histogram_of_identical_scores_does_not_divide_by_zero():
    rows = experiments.histogram(1, 1, 1, seed=0, bins=4)  # one score: zero range
    assert all(math.isfinite(r["density"]) for r in rows)
    bars = [r for r in rows if r["scores"] == SCALED]
    assert sum(r["density"] * (r["bin_end"] - r["bin_start"]) for r in bars) == pytest.approx(1.0)


@pytest.mark.parametrize("args", [(0, 8, 1), (experiments.MAX_SAMPLES + 1, 8, 1), (16, 0, 1),
                                  (16, experiments.MAX_TOKENS + 1, 1), (16, 8, 0), (16, 8, 2048)])
def test_sizes_are_bounded(args):
    samples, tokens, d_k = args
    with pytest.raises(ValueError):
        experiments.sample_scores(d_k, samples, tokens, seed=0)


def test_loglog_slope():
    assert experiments.loglog_slope([1, 2, 4, 8], [3, 6, 12, 24]) == pytest.approx(1.0)
    assert experiments.loglog_slope([1, 2, 4, 8], [5, 5, 5, 5]) == pytest.approx(0.0)
