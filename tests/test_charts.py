"""Drawing large matrices: aggregation keeps totals and maxima, the window shows exact values."""
import json

import numpy as np
import torch

from attention_core.drawing import charts, colour, matrix_images
from attention_core.lessons import traces as lesson
from conftest import chart_frames, open_screen


def test_block_reduce_keeps_totals_and_maxima():
    rng = np.random.default_rng(0)
    m = rng.random((1000, 1000))  # 1000 is not a multiple of 4: edge blocks are partial
    total = matrix_images.block_reduce(m, 4, "sum")
    peak = matrix_images.block_reduce(m, 4, "max")
    assert total.shape == peak.shape == (250, 250)
    np.testing.assert_allclose(total.sum(), m.sum(), rtol=1e-12)
    assert peak.max() == m.max()
    np.testing.assert_allclose(total[0, 0], m[:4, :4].sum())
    assert peak[3, 7] == m[12:16, 28:32].max()
    odd = matrix_images.block_reduce(rng.random((10, 10)), 4, "max")
    assert odd.shape == (3, 3)


def test_block_reduce_ignores_masked_cells():
    scores = np.triu(np.full((8, 8), -np.inf), k=1) + np.tril(np.ones((8, 8)))
    reduced = matrix_images.block_reduce(scores, 4, "mean")
    assert reduced[0, 0] == 1.0 and np.isnan(reduced[0, 1])  # top-right block is all future


def test_overview_factor_keeps_images_at_most_256_pixels():
    assert matrix_images.overview_factor(64) == 1
    assert matrix_images.overview_factor(256) == 1
    assert matrix_images.overview_factor(1024) == 4
    assert matrix_images.overview_factor(1000) == 4


def test_window_returns_the_exact_values():
    m = np.arange(100 * 100, dtype=float).reshape(100, 100)
    part = matrix_images.window(m, 10, 50, 32)
    assert part.shape == (32, 32)
    assert part[0, 0] == m[10, 50] and part[-1, -1] == m[41, 81]


def test_images_use_the_heatmaps_colour_scales():
    image = colour.matrix_image(np.array([[0.0, 1.0]]), "weights")
    assert image.shape == (1, 2, 3) and image.dtype == np.uint8
    assert image[0, 0].sum() > image[0, 1].sum()  # 0 is light, 1 is dark blue
    masked = colour.matrix_image(np.array([[1.0, -np.inf]]), "scores")
    assert tuple(masked[0, 1]) in (colour.MASKED_RGB, colour.MASKED_STRIPE)  # masked cells are hatched grey
    assert colour.SCORES.domain(np.array([[-2.0, 1.0, -np.inf]])) == (-2.0, 2.0)
    assert colour.WEIGHTS.bar().shape == (14, 256, 3)


def test_small_heatmaps_can_be_clicked():
    spec = charts.heatmap(np.eye(3), list("abc"), list("abc"), clickable=True).to_dict()
    assert "cell" in json.dumps(spec)


def test_gpt2_scale_screen_shows_an_overview_every_cells_shade_and_each_rows_largest_scores_exactly():
    from conftest import view_row, views
    at = open_screen("scores", preset="gpt2-small", proj="v1", window="101", window_key="90", window_size="32")
    view = views(at)["scores_view"]
    meta = view["meta"]
    assert "4 × 4 block" in meta["overview"]["blocks"] and len(view["overview"]) == 256 * 256
    assert meta["initial"] | {} == {"query": 2, "key": 1, "window": 101, "window_key": 90, "window_size": 32}
    # Every cell's shade travels (the browser moves the window), and the exact scores of each row's 32 largest
    # (its bars and their readout); they are the scores of those tokens.
    assert len(view["cells"]) == 1024 * 1024 and list(view["cells"].columns) == ["shade"]
    x = lesson.make_inputs("random", "", False, 1024, 768, 123).x
    # Computed on the device the screen used (auto: CUDA first), so the 4-decimal strings compare exactly there too
    record, _, _ = lesson.projection_trace(x, "v1", 768, 123, "cuda" if torch.cuda.is_available() else "cpu", book=False)
    scores = record["attn_scores"].double()  # (T, T)
    for i in (100, 131):
        sent = view_row(view, i)
        # each row's 32 largest (no ties among random scores), and the lesson's key 1, whose number every row carries
        assert sorted(sent) == sorted(set(torch.topk(scores[i], 32).indices.tolist()) | {0})
        assert sent == {j: f"{scores[i, j].item():.4f}" for j in sent}


def test_a_query_changes_only_where_the_view_opens_not_the_numbers_it_gets():
    # The browser moves the query: the data a view gets is the same for every query, so a query move
    # needs nothing from the server, and a rerun with another query resends the same cached tables.
    from conftest import views
    two, four = views(open_screen("softmax", sections="all")), views(open_screen("softmax", sections="all", query=4))
    assert list(two) == list(four)
    for key in two:
        follows = two[key]["meta"]["url_selection"]  # the d_k experiment's map is not of the tokens: it opens at 1
        assert two[key]["meta"]["initial"]["query"] == (2 if follows else 1)
        assert four[key]["meta"]["initial"]["query"] == (4 if follows else 1)
        for table in (name for name in two[key] if name != "meta"):
            assert two[key][table].equals(four[key][table]), (key, table)


def test_dataset_names_do_not_depend_on_the_numbers():
    labels = list("abcd")
    one = charts.to_spec(charts.heatmap(np.eye(4), labels, labels))
    two = charts.to_spec(charts.heatmap(np.eye(4) * 0.5, labels, labels))
    assert list(one["datasets"]) == list(two["datasets"]) == ["chart_data_0"]
    assert {k: v for k, v in one.items() if k != "datasets"} == {k: v for k, v in two.items() if k != "datasets"}
