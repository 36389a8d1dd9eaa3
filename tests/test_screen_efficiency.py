"""AppTest: the efficiency screen renders without measuring, and measures when asked."""
from attention_core.lessons import efficiency
from conftest import chart_specs, open_screen, page_text


def test_first_load_shows_a_quick_measurement(monkeypatch):
    """Issue 21: the screen opens with its charts, from two small sizes, three calls each, never the sweep."""
    asked = []
    real = efficiency.measure_size

    def record(device, batch, heads, head_dim, num_tokens, repeats, methods, dtype="float32"):
        asked.append((num_tokens, repeats))
        return real(device, batch, heads, head_dim, num_tokens, repeats, methods, dtype)
    monkeypatch.setattr(efficiency, "measure_size", record)
    at = open_screen("efficiency")
    assert not at.exception
    assert "Efficiency: fused attention" in [t.value for t in at.title]
    specs = chart_specs(at)
    assert len(specs) == 2  # time and memory, before any button
    assert sorted(asked) == [(128, 3), (256, 3)]
    text = page_text(at)
    assert "quick first measurement" in text and "Press **Measure**" in text
    assert "3.2 GB" in text  # 12 x 8192^2 x 4 bytes, computed
    assert "math" in text  # the backends found here


def test_the_button_measures_and_shows_charts_and_agreement():
    at = open_screen("efficiency")
    at.select_slider(key="eff_max_tokens").set_value(256)
    at.slider(key="eff_repeats").set_value(1)
    at.slider(key="eff_heads").set_value(2)
    at.button(key="eff_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    specs = chart_specs(at)
    assert len(specs) == 2  # time and memory, both log-log
    assert all(s["encoding"]["x"]["scale"]["type"] == "log" and s["encoding"]["y"]["scale"]["type"] == "log"
               for s in specs)
    text = page_text(at)
    assert "all within 1e-05" in text and "✓" in text and "✗" not in text
    assert "At T = 256 the fused kernel took" in text
    assert "2 heads, head_dim 64" in text
    table = at.dataframe[0].value
    assert list(table.index) == [128, 256]

    # Moving a control afterwards keeps the last results (labelled with their settings), measuring nothing.
    at.slider(key="eff_heads").set_value(4).run()
    assert len(chart_specs(at)) == 2 and "2 heads, head_dim 64" in page_text(at)


def test_one_token_sidebar_input_renders():
    at = open_screen("efficiency", input="random", tokens=1)
    assert not at.exception
    assert "Press **Measure**" in page_text(at)
