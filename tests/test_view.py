"""The attention view's data: the payload decodes back to the tensors, and the JS unit tests pass.

The browser prints codes as c / 10**4 and colours shade s as t = s / 254 on the sent stops; these tests
decode the payload the same way and compare with PyTorch's numbers and colour.py's images."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from streamlit.dataframe_util import convert_anything_to_arrow_bytes

from attention_core.drawing import colour, matrix_images
from attention_core.drawing.view_data import EXACT_MAX, SHADE_MASKED, TOP_KEYS, fixed_codes, stored_cells, view_payload

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from view_maps import seeded_map, tempered  # noqa: E402
from conftest import code_text  # noqa: E402  (the view's formatFixed, in Python)


def test_the_javascript_unit_tests_pass():
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("node is missing in CI (Debian: apt-get install nodejs)")
        pytest.skip("node is not installed (Debian: apt-get install nodejs)")
    run = subprocess.run([node, "--test", "tests/js"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout and "# pass 0" not in run.stdout


def test_the_inlined_module_parses(tmp_path):
    """The three files share one module scope: a name declared twice, or a syntax slip, breaks them all."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (the JavaScript unit test above fails in CI)")
    from ui.view.view import _source  # imports streamlit, fine in tests
    module = tmp_path / "view.mjs"
    module.write_text(_source()[0], encoding="utf-8")
    run = subprocess.run([node, "--check", str(module)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-3000:]


def _decode(payload):
    meta, cells = payload["meta"], payload["cells"]
    i, j = stored_cells(meta["rows"], meta["cols"], meta["layout"])
    return meta, i, j, cells["code"].to_numpy().astype(np.int64), cells["shade"].to_numpy()


@pytest.mark.parametrize("rows, cols", [(5, 3), (3, 5), (6, 6)])
def test_a_causal_map_sends_its_triangle_in_stored_cells_order_at_any_shape(rows, cols):
    # A wide or square causal map is cut by a boolean mask, a tall one gathered with padding past its last key:
    # both must be the order stored_cells (and the browser's frameCellIndex) reads.
    scores = torch.randn(rows, cols, generator=torch.Generator().manual_seed(3))  # (rows, cols)
    future = torch.triu(torch.ones(rows, cols, dtype=torch.bool), diagonal=1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1).double().numpy()
    meta, i, j, codes, _ = _decode(view_payload(weights, [str(t) for t in range(max(rows, cols))]))
    assert meta["layout"] == "lower"
    inside = j < cols
    assert codes[inside].tolist() == fixed_codes(weights[i[inside], j[inside]]).tolist()
    assert (codes[~inside] == 0).all() and inside.sum() == np.count_nonzero(~future.numpy())


def _stops_colour(stops, t):
    """The sent stops interpolated at t, as ColourScale.ramp does (the browser's colourAt: test_colour_in_node.py)."""
    return colour.ColourScale("sent", tuple(stops)).ramp(t)


@pytest.mark.parametrize("tokens", [6, 64, EXACT_MAX])
def test_printed_numbers_and_colours_are_the_tensors(tokens):
    q, k, scores, weights = seeded_map(tokens)
    scale = colour.WEIGHTS if tokens <= 16 else colour.SHARE
    payload = view_payload(weights.numpy(), [str(t) for t in range(tokens)], scale=scale,
                           q=q.numpy(), k=k.numpy(), scores=scores.numpy())
    meta, i, j, codes, shades = _decode(payload)
    w = weights.double().numpy()
    assert meta["layout"] == "lower" and len(codes) == tokens * (tokens + 1) // 2  # the masked future is not sent
    texts = [f"{c // 10000 if c >= 0 else '-' + str(-c // 10000)}.{abs(c) % 10000:04d}" for c in codes]
    assert texts == [f"{w[a, b]:.4f}" for a, b in zip(i, j)]
    expected = scale.image(scale.values(w))[i, j].astype(float)  # colour.py's own pixels
    drawn = _stops_colour(meta["stops"], shades / (SHADE_MASKED - 1))
    assert np.abs(drawn - expected).max() <= 2.5  # shades are 255 levels of the same ramp
    assert (shades < SHADE_MASKED).all()
    if tokens <= 64:
        d = q.shape[1]
        assert payload["q"]["code"].to_numpy().reshape(tokens, d).tolist() == fixed_codes(q.numpy()).tolist()
        sent = payload["scores"]["code"].to_numpy().reshape(tokens, tokens) / 1e4
        np.testing.assert_allclose(sent, (q.double() @ k.double().T).numpy(), atol=0.5e-4 + 1e-6)
    else:
        assert "q" not in payload and meta["d"] == 0


def _sent_rows(payload, frame: int = 0):
    """A large matrix's exact values as the browser reads them: each row's keys and codes from its "top" table,
    (T, top) each; keys past the last one pad a short row."""
    meta, top = payload["meta"], payload["top"]
    shape = (-1, meta["rows"], meta["top"])
    return top["key"].to_numpy().reshape(shape)[frame], top["code"].to_numpy().astype(np.int64).reshape(shape)[frame]


def _picture_payload(kind: str, rows: int, cols: int):
    """A seeded (rows, cols) map above EXACT_MAX: causal weights on the share scale, or unmasked scores."""
    gen = torch.Generator().manual_seed(7)
    scores = torch.randn(rows, cols, generator=gen, dtype=torch.float64) * 3  # (rows, cols)
    if kind == "scores":
        matrix, scale = scores.numpy(), colour.SCORES
    else:
        future = torch.triu(torch.ones(rows, cols, dtype=torch.bool), diagonal=1)
        matrix, scale = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1).numpy(), colour.SHARE
    return matrix, view_payload(matrix, [str(t) for t in range(max(rows, cols))], kind=kind, scale=scale)


@pytest.mark.parametrize("kind, rows, cols", [("weights", 300, 300), ("scores", 200, 200), ("weights", 200, 150)])
def test_a_large_matrix_sends_every_cells_shade_and_each_rows_largest_values_exactly(kind, rows, cols):
    matrix, payload = _picture_payload(kind, rows, cols)
    meta = payload["meta"]
    assert meta["exact"] == "top" and meta["top"] == TOP_KEYS and meta["layout"] == ("full" if kind == "scores" else "lower")
    assert list(payload["cells"].columns) == ["shade"] and payload["cells"]["shade"].dtype == np.uint8  # 1 byte a cell
    # The picture: every stored cell's shade is colour.py's colour for it (padding past a tall map's last key: masked).
    i, j = stored_cells(rows, cols, meta["layout"])
    shades = payload["cells"]["shade"].to_numpy()
    inside = j < cols
    scale = colour.scale_for(kind, colour.SHARE)
    expected = scale.image(scale.values(matrix))[i[inside], j[inside]].astype(float)
    assert np.abs(_stops_colour(meta["stops"], shades[inside] / (SHADE_MASKED - 1)) - expected).max() <= 2.5
    assert (shades[~inside] == SHADE_MASKED).all() and (shades[inside] < SHADE_MASKED).all()
    # The exact values: each row's TOP_KEYS largest (as the bars pick them: the lower key on a tie), each the tensor's.
    keys, codes = _sent_rows(payload)
    rounded = fixed_codes(matrix)
    for row in range(rows):
        visible = min(row + 1, cols) if kind == "weights" else cols
        largest = sorted(sorted(range(visible), key=lambda key: (-rounded[row, key], key))[:TOP_KEYS])
        assert [key for key in keys[row] if key < cols] == largest, row
        assert [code_text(c) for key, c in zip(keys[row], codes[row]) if key < cols] == \
            [f"{matrix[row, key]:.4f}" for key in largest]


@pytest.mark.parametrize("kind", ["weights", "scores"])
def test_a_cell_not_sent_is_inside_the_band_of_values_its_shade_holds(kind):
    matrix, payload = _picture_payload(kind, 300, 300)
    meta = payload["meta"]
    low, high = (payload["bands"][end].to_numpy().astype(np.int64) for end in ("low", "high"))  # (256,) codes
    shade = payload["cells"]["shade"].to_numpy()
    i, j = stored_cells(300, 300, meta["layout"])
    # The share scale's unit is the legend's: the weight × the keys its query may see (× even share).
    unit = matrix[i, j] * (np.minimum(i, 299) + 1) if kind == "weights" else matrix[i, j]
    assert meta["band_unit"] == ("× even share" if kind == "weights" else "")
    assert (low[shade] <= unit * 1e4).all() and (unit * 1e4 <= high[shade]).all()
    # Each band is the shade's own slice of the colour range (the end shades also hold what the range clips).
    lo, hi = meta["domain"]
    inner = np.unique(shade[(shade > 0) & (shade < SHADE_MASKED - 1)])
    if kind == "scores":  # linear: one shade spans (hi - lo) / 254, plus the outward rounding
        assert (high[inner] - low[inner] <= (hi - lo) / (SHADE_MASKED - 1) * 1e4 + 2).all()
    else:  # log2 shares: one shade spans a factor of 2 ** ((hi - lo) / 254)
        assert (high[inner] <= (low[inner] + 1) * 2 ** ((hi - lo) / (SHADE_MASKED - 1)) + 1).all()


def test_a_stack_of_large_frames_sends_each_frames_largest_values_and_bands():
    _, _, scores, _ = seeded_map(200)
    stack = np.stack([tempered(scores, t).double().numpy() for t in (0.5, 2.0)])  # (2, T, T)
    payload = view_payload(stack, [str(t) for t in range(200)], scale="share",
                           frames={"name": "τ", "param": "temperature", "values": [0.5, 2], "labels": ["0.5", "2"], "initial": 0})
    assert len(payload["top"]) == 2 * 200 * TOP_KEYS and len(payload["bands"]) == 2 * (SHADE_MASKED + 1)
    assert len(payload["overview"]) == 2 * payload["meta"]["overview"]["rows"] * payload["meta"]["overview"]["cols"]
    for frame in (0, 1):
        keys, codes = _sent_rows(payload, frame)
        for row in (0, 57, 199):
            assert [code_text(c) for key, c in zip(keys[row], codes[row]) if key < 200] == \
                [f"{stack[frame, row, key]:.4f}" for key in keys[row] if key < 200]


def test_up_to_exact_max_tokens_every_value_travels_and_above_only_shades_and_each_rows_largest():
    for tokens, exact in ((EXACT_MAX, "all"), (EXACT_MAX + 1, "top")):
        payload = view_payload(seeded_map(tokens)[3].numpy(), ["x"] * tokens, scale="share")
        assert payload["meta"]["exact"] == exact and ("top" in payload) == (exact == "top")
    payload = view_payload(seeded_map(1024)[3].numpy(), ["x"] * 1024, scale="share")
    sizes = {name: len(convert_anything_to_arrow_bytes(table)) for name, table in payload.items() if name != "meta"}
    assert sizes["cells"] < 1024 * 1025 // 2 * 1.01 and sum(sizes.values()) < 760_000, sizes  # was 1.67 MB with its PNG


def test_the_overview_is_matrix_images_overview_as_shades_and_only_large_maps_get_one():
    # Strings as settings.colour holds them: view_payload and overview map them to the scale (colour.scale_for).
    for kind, scale, tokens in (("weights", "share", 300), ("scores", "absolute", 200), ("weights", "absolute", 100)):
        q, k, scores, weights = seeded_map(tokens)
        matrix = (scores if kind == "scores" else weights).double().numpy()
        payload = view_payload(matrix, ["x"] * tokens, kind=kind, scale=scale)
        image, blocks, _ = matrix_images.overview(matrix, kind, scale)
        meta = payload["meta"]["overview"]
        shades = payload["overview"]["shade"].to_numpy().reshape(meta["rows"], meta["cols"])
        step = image.shape[0] // meta["rows"]  # the PNG drew each block as step × step pixels
        pixels = image[::step, ::step].astype(float)  # (rows, cols, 3), a block's top-left pixel
        hatched = np.isin(pixels, [colour.MASKED_RGB, colour.MASKED_STRIPE]).all(axis=-1)
        assert ((shades == SHADE_MASKED) == hatched).all() and hatched.any() == (kind == "weights")
        drawn = _stops_colour(payload["meta"]["stops"], shades / (SHADE_MASKED - 1))
        assert np.abs(drawn - pixels)[~hatched].max() <= 2.5, kind  # the same ramp, 255 levels
        assert meta["blocks"] == blocks
    assert view_payload(seeded_map(64)[3].numpy(), ["x"] * 64)["meta"]["overview"] is None


def test_fixed_codes_round_like_python_formatting_at_ties_and_signs():
    tricky = np.array([0.12345, 0.03125, -0.03125, 1.00005, 2.5e-5, -1.23456, 0.99995, 0.0])
    for value, code in zip(tricky, fixed_codes(tricky)):
        text = f"{value:.4f}"
        assert code == int(text.replace(".", "")), (value, code, text)


def test_scores_use_signed_codes_a_diverging_scale_and_masked_cells_as_the_lower_layout():
    scores = torch.tensor([[0.5, -float("inf")], [-1.25, 2.0]])  # (T, T) masked scores
    payload = view_payload(scores.numpy(), ["a", "b"], kind="scores")
    meta, i, j, codes, shades = _decode(payload)
    assert meta["layout"] == "lower" and codes.tolist() == [5000, -12500, 20000]
    assert meta["stops"] == list(colour.REDBLUE_HEX)
    assert shades.tolist() == [round((0.5 / 2 + 1) / 2 * 254), round((-1.25 / 2 + 1) / 2 * 254), 254]
    full = view_payload(np.array([[0.2, 0.8], [0.6, 0.4]]), ["a", "b"])
    assert full["meta"]["layout"] == "full" and full["cells"]["code"].tolist() == [2000, 8000, 6000, 4000]


def test_rows_alone_send_each_rows_largest_keys_as_the_bars_pick_them():
    q, k, scores, weights = seeded_map(200)
    w = weights.double().numpy()
    payload = view_payload(weights.numpy(), [str(t) for t in range(200)], parts=("row", "cell"),
                           also=(("scores", scores.numpy(), "scores", "absolute"),))
    for table, matrix, causal in ((payload["cells"], w, True), (payload["also0"], scores.double().numpy(), False)):
        keys = table["key"].to_numpy().reshape(200, 32)
        codes = table["code"].to_numpy().reshape(200, 32)
        for row in (0, 5, 31, 32, 150, 199):
            visible = row + 1 if causal else 200
            ranked = sorted(range(visible), key=lambda j: (-round(matrix[row, j], 4), j))[:32]
            assert [j for j in keys[row] if j < 200] == sorted(ranked)
            assert (keys[row][min(visible, 32):] == 200).all()  # the padding of a short row is no key
            sent = [c for j, c in zip(keys[row], codes[row]) if j < 200]
            assert sent == [int(f"{matrix[row, j]:.4f}".replace(".", "")) for j in sorted(ranked)]
    assert payload["meta"]["layout"] == "top" and payload["meta"]["causal"] and payload["meta"]["also"][0]["layout"] == "top"
    assert len(payload["cells"]) == 200 * 32  # not 200 * 201 / 2


def test_rows_only_views_pick_the_largest_keys_like_a_stable_sort_even_on_ties_and_send_no_overview():
    # Weights from a handful of values: most of a row ties with others, so which 32 travel is decided by
    # the lower key, as the view's rowKeys decides. A partial sort must pick the same cells a full stable sort does.
    rng = np.random.default_rng(3)
    ties = rng.choice([0.001, 0.002, 0.005, 0.01], size=(150, 150))
    ties = np.tril(ties) / np.tril(ties).sum(axis=1, keepdims=True)  # (T, T) causal weights, rows sum to 1
    payload = view_payload(ties, [str(t) for t in range(150)], parts=("row", "cell"))
    keys = payload["cells"]["key"].to_numpy().reshape(150, 32)
    codes = fixed_codes(ties)
    for row in range(150):
        visible = row + 1
        ranked = sorted(range(visible), key=lambda j: (-codes[row, j], j))[:32]
        assert [j for j in keys[row] if j < 150] == sorted(ranked), row
    assert payload["meta"]["overview"] is None  # no matrix drawn: no overview built or sent
    assert view_payload(ties, [str(t) for t in range(150)])["meta"]["overview"] is not None


def test_a_stack_of_frames_sends_each_frame_after_the_other_with_its_own_legend():
    _, _, scores, weights = seeded_map(6)
    stack = np.stack([weights.numpy(), np.full((6, 6), 1 / 6)])
    payload = view_payload(stack, list("abcdef"), frames={"name": "f", "param": "temperature", "values": [1, 2],
                                                           "labels": ["1", "2"], "initial": 1})
    codes = payload["cells"]["code"].to_numpy()
    assert payload["meta"]["layout"] == "full"  # the even frame has no masked cell, so both are sent whole
    assert codes[:36].tolist() == fixed_codes(weights.numpy()).reshape(-1).tolist()
    assert (codes[36:] == 1667).all()
    assert len(payload["meta"]["legends"]) == 2 and payload["meta"]["frames"]["initial"] == 1


def test_an_unmasked_softmax_that_underflows_to_one_hot_is_not_taken_for_a_causal_map():
    x = torch.randn(100, 768, generator=torch.Generator().manual_seed(0))
    one_hot = torch.softmax(x @ x.T, dim=-1).numpy()  # x · x at 768 dims: every row one-hot on the diagonal
    assert (np.triu(one_hot, 1) == 0).all()  # the zeros above the diagonal that looked like a mask
    payload = view_payload(one_hot, [str(t) for t in range(100)], parts=("row", "cell"))
    assert not payload["meta"]["causal"]  # so the bars say "32 largest of 100 keys", not "all 2 keys"
    _, _, _, causal = seeded_map(100)
    assert view_payload(causal.numpy(), [str(t) for t in range(100)])["meta"]["causal"]


@pytest.mark.parametrize("parts", [("row", "cell"), ("matrix", "row", "cell")])
def test_the_lessons_key_keeps_its_number_in_every_row_of_a_large_map(parts):
    # At GPT-2's size only each row's 32 largest travel; the lesson's own cell (query 2, key 1 at the preset) was then
    # "≤ 0.0022" in the bars and "a smaller value" in the readout, on the slide that works it out by hand.
    from conftest import view_row
    _, _, _, weights = seeded_map(300)
    w = weights.double().numpy()  # (300, 300) causal
    payload = view_payload(w, [f"t{i + 1}" for i in range(300)], scale="share", query=200, key=5, parts=parts)
    meta = payload["meta"]
    assert meta["column"] == 4 and len(payload["column"]) == 300
    other = view_payload(w, [f"t{i + 1}" for i in range(300)], scale="share", query=200, key=9, parts=parts)
    for i in (4, 100, 299):
        assert view_row(payload, i)[4] == f"{w[i, 4]:.4f}"
    assert 4 not in view_row(other, 299)  # with another key chosen, key 5 is not among row 300's largest
    assert 4 not in view_row(payload, 3)  # a row that cannot see key 5 (the future) gets no number for it
