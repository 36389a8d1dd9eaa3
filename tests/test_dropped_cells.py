"""Dropout's dropped cells are marked by Python (view_data.dropped_bits) and drawn apart from small weights; the
/heads formula of one query cut into heads stays short at GPT-2 size. Pure functions: no app, no browser."""
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from attention_core.book import stages
from attention_core.drawing import view_data
from attention_core.drawing.text import query_in_heads_latex

ROOT = Path(__file__).resolve().parents[1]


def _weights(T: int, seed: int = 0) -> torch.Tensor:
    """(T, T) causal attention weights of random scores."""
    scores = torch.randn(T, T, generator=torch.Generator().manual_seed(seed))
    return torch.softmax(scores.masked_fill(stages.causal_mask(T).bool(), -torch.inf), dim=-1)


def _flags(bits: np.ndarray, shape) -> np.ndarray:
    return np.unpackbits(bits, bitorder="little")[:int(np.prod(shape))].reshape(shape).astype(bool)


def test_dropped_bits_mark_exactly_the_cells_dropout_removed():
    weights = _weights(40)
    after, keep = stages.dropout(weights, 0.5, 123, True)  # (T, T) each
    bits = view_data.dropped_bits(after.numpy(), weights.numpy())["bits"].to_numpy()
    removed = (keep == 0) & stages.mask_simple(40).bool()  # visible cells the draw dropped
    assert removed.sum() > 100 and np.array_equal(_flags(bits, (1, 40, 40))[0], removed.numpy())
    # A stack of rates against one map before: frame f's cells follow frame f - 1's.
    rates = [0.0, 0.3, 0.9]
    stack = torch.stack([stages.dropout(weights, p, 7, True)[0] for p in rates])  # (F, T, T)
    flags = _flags(view_data.dropped_bits(stack.numpy(), weights.numpy())["bits"].to_numpy(), (3, 40, 40))
    assert not flags[0].any() and 0 < flags[1].sum() < flags[2].sum()
    assert np.array_equal(flags, ((stack == 0) & (weights != 0)).numpy())


def test_the_view_payload_sends_the_marks_only_with_the_map():
    weights = _weights(100).numpy()
    after = stages.dropout(torch.as_tensor(weights), 0.1, 123, True)[0].numpy()
    also = (("before", weights, "weights", "share"),)
    payload = view_data.view_payload(after, [str(i) for i in range(100)], "weights", "share", also=also, dropped_from=1)
    assert payload["meta"]["dropped"] == {"colour": view_data.DROPPED_HEX, "name": view_data.DROPPED_NAME}
    assert _flags(payload["dropped"]["bits"].to_numpy(), (100, 100)).sum() == ((after == 0) & (weights != 0)).sum()
    rows_only = view_data.view_payload(after, [str(i) for i in range(100)], "weights", "share", also=also,
                                       dropped_from=1, parts=("row", "cell"))
    assert "dropped" not in rows_only and "dropped" not in rows_only["meta"]
    assert "dropped" not in view_data.view_payload(after, [str(i) for i in range(100)], "weights", "share", also=also)


def test_the_browser_reads_pythons_bits_where_python_put_them(tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (tests/test_view.py says so in CI)")
    weights = _weights(24)
    stack = torch.stack([stages.dropout(weights, p, 5, True)[0] for p in (0.2, 0.6)])  # (F, T, T)
    bits = view_data.dropped_bits(stack.numpy(), weights.numpy())["bits"].tolist()
    expected = [[f, i, j] for f, i, j in zip(*np.nonzero(((stack == 0) & (weights != 0)).numpy()))]
    script = tmp_path / "read.mjs"
    script.write_text(  # attention_view.js's droppedCell: n = (frame · rows + i) · cols + j
        f'import {{ bitAt }} from "{(ROOT / "ui/view/view_core.mjs").as_uri()}";\n'
        f"const bits = Uint8Array.from({json.dumps(bits)}), found = [];\n"
        "for (let f = 0; f < 2; f++) for (let i = 0; i < 24; i++) for (let j = 0; j < 24; j++)\n"
        "  if (bitAt(bits, (f * 24 + i) * 24 + j)) found.push([f, i, j]);\n"
        "console.log(JSON.stringify(found));\n", encoding="utf-8")
    run = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [[int(v) for v in cell] for cell in expected] and len(expected) > 50


def test_a_gpt2_sized_query_cut_into_heads_stays_short():
    queries = torch.randn(1, 12, 3, 64)  # (b, h, T, head_dim): GPT-2 small's 12 heads of 64
    line = query_in_heads_latex(queries, 1)
    numbers = re.findall(r"-?\d+\.\d+", line)
    assert len(numbers) <= 8 and "head 12" in line and "head 3}" not in line  # first two, a gap, the last
    book = query_in_heads_latex(torch.randn(1, 2, 6, 1), 1)  # the book's 2 heads of 1: every value
    assert len(re.findall(r"-?\d+\.\d+", book)) == 2 and r"\dots" not in book


def test_nothing_dropped_sends_no_marks():
    weights = _weights(10).numpy()  # eval mode: the weights pass through, no cell is dropped
    payload = view_data.view_payload(weights, [str(i) for i in range(10)], also=(("before", weights, "weights", "absolute"),),
                                     dropped_from=1)
    assert "dropped" not in payload and "dropped" not in payload["meta"]
