"""AppTest: /implementations checks every class against the chapter, shows a stored measurement, measures."""
import re
import json

import pytest
import torch

from attention_core.lessons.bonus_bench import IMPLEMENTATIONS
from conftest import ROOT, chart_frames, open_screen, page_text, plain_number
from screens.registry import BY_NAME, SCREENS


def test_registered_beside_efficiency():
    names = [s.name for s in SCREENS]
    assert names.index("implementations") == names.index("efficiency") + 1
    assert BY_NAME["implementations"].section == "Going further"


@pytest.mark.parametrize("preset", ["book", "gpt2-small"])
def test_first_load_agreement_and_stored_measurement(preset):
    # On the CPU, on any machine: the stored measurement, the backend sentence and FlexAttention's missing backward
    # are the CPU's (a CUDA machine would pick the GPU; the next test covers whatever device runs).
    at = open_screen("implementations", preset=preset, device="cpu")
    agreement = at.table[0].value  # static: a name or cell is never cut at a column's edge
    assert list(agreement.index) == [label for label, _ in IMPLEMENTATIONS.values()]
    for label, row in agreement.iterrows():
        for shape, cell in row.items():
            square = shape.split(",")[0].split(" → ")
            if label.endswith("nn.MultiheadAttention") and square[0] != square[1]:
                assert cell == "– (d_in ≠ d_out)"  # short enough for its cell; the caption says why
            else:
                assert cell.endswith("✓") and plain_number(cell[:-2]) <= 1e-5, (label, shape, cell)
    text = page_text(at)
    assert "✓ means ≤ 10⁻⁵" in text and "1e-05" not in text  # the tolerance written one way, as on every screen
    assert "1 threads" not in text and "1 thread," in text
    assert "runs the **flash_attention** kernel; with flash forbidden, **math**" in text
    assert "the stored measurement of scripts/bench_implementations.py" in text  # in the teacher's box
    assert re.search(r"Measured on .+: T = 128 … 1,024, the median of \d+ runs", text), text  # what the charts show
    frames = chart_frames(at)
    assert len(frames) == 3  # forward time, forward + backward time, memory: log-log
    assert all(spec["encoding"]["y"]["scale"]["type"] == "log" for spec, _ in frames)
    forward = frames[0][1][0]
    assert set(forward["tokens"]) == {128, 256, 512, 1024}
    assert "8 · FlexAttention" in set(forward["label"])  # it runs forward on a CPU
    for spec, (data, *_) in frames:  # every line in the legend, every name whole
        legend = spec["encoding"]["color"]
        assert legend["legend"]["labelLimit"] == 0 and set(legend["scale"]["domain"]) == set(data["label"])
        assert len(set(data["label"])) >= 7 and spec["height"] >= 24 * len(set(data["label"])) + 90  # room for them
    assert any("FlexAttention" in w.value and "does not support backward on CPU" in w.value for w in at.warning)
    assert "At T = 1,024 the fastest forward + backward is" in text
    stored = json.loads((ROOT / "docs" / "implementations-cpu.json").read_text())
    grid = at.dataframe[0].value  # the table: every stored number, formatted, or a dash
    for row in stored["rows"]:
        shown = grid.loc[row["label"], ("fwd+bwd ms", f"{row['tokens']:,}")]
        assert shown == (f"{row['backward_s'] * 1e3:,.1f}" if row["backward"] == "ok" else "–")
    flex = grid.loc[IMPLEMENTATIONS["flex"][0]]
    assert flex[("fwd ms", "128")] != "–" and flex[("fwd+bwd ms", "128")] == "–"
    assert ("fwd ms", "1,024") in grid.columns


def test_measure_here_runs_a_bounded_sweep():
    at = open_screen("implementations")
    assert at.slider(key="impl_repeats").max == 5
    at.select_slider(key="impl_max_tokens").set_value(128)
    at.button(key="impl_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    text = page_text(at)
    assert "Measured just now" in text and "At T = 128 the fastest forward + backward is" in text
    assert {int(t) for t in chart_frames(at)[0][1][0]["tokens"]} == {128}



def test_the_backend_sentence_names_the_kernels_of_the_device_it_runs_on():
    """Issue 38: on a GPU machine the sentence names the GPU's kernels; on a CPU the CPU's (asked of PyTorch)."""
    from attention_core.lessons import bonus_fused
    at = open_screen("implementations")
    used = "cuda" if torch.cuda.is_available() else "cpu"  # the sidebar's device is auto: CUDA first
    flash, no_flash = bonus_fused.sdpa_backend(used), bonus_fused.sdpa_backend(used, flash=False)
    assert f"runs the **{flash}** kernel; with flash forbidden, **{no_flash}**" in page_text(at)
