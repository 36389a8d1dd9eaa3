"""Head labels read off attention maps, and the one-image model view (attention_core.models.head_labels, head_images)."""
import math

import numpy as np
import pytest
import torch

from attention_core.drawing import colour, head_images
from attention_core.models import head_labels

T = 8


def causal_uniform():
    return torch.tril(torch.ones(T, T)) / torch.arange(1, T + 1)[:, None]  # (T, T)


def one_hot_rows(targets):
    """Row i puts all its weight on key targets[i]."""
    w = torch.zeros(T, T)
    w[torch.arange(T), torch.tensor(targets)] = 1.0
    return w


def test_each_pattern_gets_its_label():
    ids = [5, 6, 7, 5, 6, 7, 5, 6]  # period 3: every query from the 4th on has earlier copies
    previous = one_hot_rows([0] + list(range(T - 1)))
    sink = one_hot_rows([0] * T)
    itself = one_hot_rows(list(range(T)))
    duplicate = one_hot_rows([0, 1, 2, 0, 1, 2, 3, 4])  # the most recent earlier copy (or the first token)
    maps = torch.stack([previous, sink, itself, duplicate, causal_uniform()])[None]  # (1 layer, 5 heads, T, T)
    scores = head_labels.score_heads(maps, ids)[0]
    assert [s.label for s in scores] == ["previous", "first", "self", "duplicate", "broad"]
    assert scores[0].previous == pytest.approx(1.0) and scores[1].first == pytest.approx(1.0)
    assert scores[3].duplicate == pytest.approx(1.0)
    assert scores[4].spread == pytest.approx(1.0) and scores[2].spread == pytest.approx(0.0)
    assert scores[4].previous == pytest.approx(np.mean([1 / (i + 1) for i in range(1, T)]))


def test_no_repeated_token_means_no_duplicate_score():
    scores = head_labels.score_heads(causal_uniform()[None, None], list(range(T)))[0][0]
    assert math.isnan(scores.duplicate) and scores.label == "broad"


# The head grid is drawn on the app's share scale (colour.SHARE), its domain fixed at ±RANGE for every head.
EVEN = colour.rgb_of(colour.SHARES_HEX[2])  # the palette's middle: log2 share 0, exactly even
HATCHED = (colour.MASKED_RGB, colour.MASKED_STRIPE)


def test_uniform_rows_are_the_middle_colour_and_the_future_hatched_grey():
    ratio = head_images.relative_to_uniform(causal_uniform().numpy())
    below = np.tril(np.ones((T, T), bool))
    assert np.allclose(ratio[below], 0.0, atol=1e-6) and np.isnan(ratio[~below]).all()
    rgb = head_images.SCALE.image(ratio)
    assert tuple(rgb[T - 1, 0]) == EVEN and tuple(rgb[0, T - 1]) in HATCHED
    assert head_images.SCALE.hex == colour.SHARE.hex and head_images.SCALE.fixed == (-3.0, 3.0)


def test_a_sharp_late_row_is_the_darkest_colour_not_faded():
    # Row 8 puts all its weight on one key: 8 x the uniform share of 1/8 = 2^3: the darkest end.
    rgb = head_images.SCALE.image(head_images.relative_to_uniform(one_hot_rows([0] * T).numpy()))
    assert tuple(rgb[T - 1, 0]) == colour.rgb_of(colour.SHARES_HEX[-1])
    assert tuple(rgb[T - 1, 1]) == colour.rgb_of(colour.SHARES_HEX[0])  # no weight at all: the palest end


def test_the_model_view_is_one_image_with_a_tile_per_head():
    maps = np.stack([np.stack([one_hot_rows([0] * T).numpy()] * 3)] * 2)  # (2 layers, 3 heads, T, T)
    maps[1, 2] = causal_uniform().numpy()
    image = head_images.model_view(maps, head_px=16, gap=4)
    px = 16 // T
    assert image.shape == (2 * T * px + 4, 3 * T * px + 2 * 4, 3) and image.dtype == np.uint8
    tile = image[T * px + 4:, 2 * (T * px + 4):]  # layer 2, head 3: the uniform map
    assert tuple(tile[-1, 0]) == EVEN and tuple(tile[0, -1]) in HATCHED
    assert tuple(image[-1, 0]) == colour.rgb_of(colour.SHARES_HEX[-1])  # layer 2, head 1: a sink's last row, key 1
