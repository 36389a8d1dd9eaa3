"""Colour scales that show structure at every size: shares of an even split, masked cells apart."""
import json

import numpy as np
import torch

from attention_core.book import stages
from attention_core.drawing import charts, colour, matrix_images, shares as share
from attention_core.drawing.shares import masked_cells


def causal_weights(tokens: int, d: int = 64, seed: int = 0, size: float = 0.3) -> np.ndarray:
    """Causal attention weights of small random queries and keys: rows within about ×1.2 of even, as
    in the GPT-2-sized heads of the chapter's random init (their 2nd-98th percentile: 0.89×-1.1×)."""
    g = torch.Generator().manual_seed(seed)
    q, k = size * torch.randn(tokens, d, generator=g), size * torch.randn(tokens, d, generator=g)
    scores = stages.mask_scores(stages.attn_scores(q, k))  # (T, T), -inf above the diagonal
    return stages.softmax(stages.scale_scores(scores, d)).numpy()  # (T, T)


def luminance(image: np.ndarray) -> np.ndarray:
    return image.astype(float) @ np.array([0.299, 0.587, 0.114])


def test_masked_cells_are_the_future_of_a_causal_map_and_nothing_else():
    w = causal_weights(6)
    assert (masked_cells(w) == np.triu(np.ones((6, 6), bool), 1)).all()
    dropped = w.copy()
    dropped[4, 1] = 0.0  # a dropped weight below the diagonal is a weight of 0, not masked
    assert not masked_cells(dropped)[4, 1]
    full = stages.softmax(torch.randn(6, 6)).numpy()  # no mask: nothing is masked
    assert not masked_cells(full).any()


def test_an_even_split_has_share_zero_and_the_range_does_not_blow_up_noise():
    even = np.tril(np.ones((5, 5))) / np.arange(1, 6)[:, None]  # row i spreads 1/(i+1) over its keys
    shares = share.shares(even)
    assert np.allclose(shares[np.tril(np.ones((5, 5), bool))], 0.0)
    assert np.isnan(shares[0, 1])
    low, high = share.share_range(shares)
    assert high - low == share.MIN_SHARE_SPAN and low < 0 < high


def test_a_1024_token_causal_map_has_contrast_between_masked_and_visible_and_along_a_row():
    w = causal_weights(1024)
    image, _, _ = matrix_images.overview(w, "weights", colour.SHARE)
    lum = luminance(image)
    n = lum.shape[0]
    upper, lower = np.triu(np.ones((n, n), bool), 16), np.tril(np.ones((n, n), bool), -16)
    assert abs(lum[upper].mean() - lum[lower].mean()) > 25  # masked hatch vs visible weights
    row = lum[3 * n // 4, : n // 2]  # a row's visible part
    p10, p90 = np.percentile(row, [10, 90])
    assert p90 - p10 > 30, (p10, p90)  # keys differ visibly along the row
    # The plain 0..1 scale shows why the share scale exists: the same row is one flat colour.
    flat = luminance(matrix_images.overview(w, "weights", colour.WEIGHTS)[0])[3 * n // 4, : n // 2]
    assert np.ptp(flat) < 5


def test_masked_hatch_is_no_colour_of_either_palette():
    for scale in (colour.WEIGHTS, colour.SHARE):
        ramp = scale.ramp(np.linspace(0, 1, 512))
        for grey in (colour.MASKED_RGB, colour.MASKED_STRIPE):
            assert np.abs(ramp - np.array(grey)).sum(axis=1).min() > 20


def test_altair_heatmap_greys_masked_cells_and_spans_the_share_range():
    w = causal_weights(20)
    labels = [str(i) for i in range(20)]
    spec = charts.to_spec(charts.heatmap(w, labels, labels, "weights", scale=colour.SHARE))
    fill = spec["layer"][0]["encoding"]["color"]
    assert fill["condition"] == {"test": "datum.masked", "value": colour.MASKED_HEX}
    assert fill["field"] == "shade"
    assert fill["scale"]["domain"] == list(share.share_range(share.shares(w)))
    assert fill["scale"]["range"] == list(colour.SHARES_HEX) and fill["scale"]["interpolate"] == "rgb"  # as images
    rows = next(iter(spec["datasets"].values()))
    assert sum(r["masked"] for r in rows) == 20 * 19 // 2
    plain = charts.to_spec(charts.heatmap(w, labels, labels, "weights"))
    assert plain["layer"][0]["encoding"]["color"]["scale"]["domain"] == [0, 1]


def test_auto_picks_the_plain_scale_for_the_book_and_shares_at_gpt2_size():
    assert colour.scale_for("weights", "auto", 6) is colour.WEIGHTS
    assert colour.scale_for("weights", "auto", 1024) is colour.SHARE
    assert colour.scale_for("weights", "absolute", 1024) is colour.WEIGHTS
    assert colour.scale_for("scores", "share", 1024) is colour.SCORES  # the setting is about weights only
    assert share.times_even(1.0) == "2× even"
    assert json.dumps(colour.SHARE.bar().shape) == "[14, 256, 3]"
