"""AppTest: /implementations checks every class against the chapter, shows a stored measurement, measures."""
import json

import pytest

from attention_core.lessons.bonus_bench import IMPLEMENTATIONS
from conftest import ROOT, chart_frames, open_screen, page_text
from screens.registry import BY_NAME, SCREENS


def test_registered_beside_efficiency():
    names = [s.name for s in SCREENS]
    assert names.index("implementations") == names.index("efficiency") + 1
    assert BY_NAME["implementations"].section == "Going further"


@pytest.mark.parametrize("preset", ["book", "gpt2-small"])
def test_first_load_agreement_and_stored_measurement(preset):
    at = open_screen("implementations", preset=preset)
    agreement = at.dataframe[0].value
    assert list(agreement.index) == [label for label, _ in IMPLEMENTATIONS.values()]
    for label, row in agreement.iterrows():
        for shape, cell in row.items():
            square = shape.split(",")[0].split(" → ")
            if label.endswith("nn.MultiheadAttention") and square[0] != square[1]:
                assert cell.startswith("cannot build: needs d_in == d_out")
            else:
                assert cell.endswith("✓") and float(cell.split()[0]) <= 1e-5, (label, shape, cell)
    text = page_text(at)
    assert "runs the **flash_attention** kernel; with flash forbidden, **math**" in text
    assert "Stored measurement" in text
    frames = chart_frames(at)
    assert len(frames) == 3  # forward time, forward + backward time, memory: log-log
    assert all(spec["encoding"]["y"]["scale"]["type"] == "log" for spec, _ in frames)
    forward = frames[0][1][0]
    assert set(forward["tokens"]) == {128, 256, 512, 1024}
    assert "8 · FlexAttention" in set(forward["implementation"])  # it runs forward on a CPU
    assert any("FlexAttention" in w.value and "does not support backward on CPU" in w.value for w in at.warning)
    assert "At T = 1,024 the fastest forward + backward is" in text
    stored = json.loads((ROOT / "docs" / "implementations-cpu.json").read_text())
    grid = at.dataframe[1].value  # the table: every stored number, formatted, or a dash
    for row in stored["rows"]:
        shown = grid.loc[row["label"], ("fwd+bwd ms", row["tokens"])]
        assert shown == (f"{row['backward_s'] * 1e3:,.1f}" if row["backward"] == "ok" else "–")
    flex = grid.loc[IMPLEMENTATIONS["flex"][0]]
    assert flex[("fwd ms", 128)] != "–" and flex[("fwd+bwd ms", 128)] == "–"


def test_measure_here_runs_a_bounded_sweep():
    at = open_screen("implementations")
    assert at.slider(key="impl_repeats").max == 5
    at.select_slider(key="impl_max_tokens").set_value(128)
    at.button(key="impl_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    text = page_text(at)
    assert "Measured just now" in text and "At T = 128 the fastest forward + backward is" in text
    assert {int(t) for t in chart_frames(at)[0][1][0]["tokens"]} == {128}
