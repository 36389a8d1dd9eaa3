"""AppTest: the efficiency screen renders without measuring, and measures when asked."""
from attention_core.lessons import efficiency
from conftest import chart_frames, chart_specs, open_screen, page_text


def test_first_load_shows_a_quick_measurement(monkeypatch):
    """Issue 21: the screen opens with its charts, from two small sizes, never the sweep; issue 29: large enough
    for the quadratic to show (a call at 128 tokens is mostly fixed costs), five calls or more each."""
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
    repeats = at.slider(key="eff_repeats").value  # the quick measurement uses the slider's repeats and says so
    assert sorted(asked) == [(256, repeats), (512, repeats)]
    text = page_text(at)
    assert "quick first measurement" in text and "Press **Measure**" in text
    assert f"at least {repeats} calls each" in text  # a teacher read: the slider said 3 beside "at least 5 calls"
    # "Where the quadratic bites" is a folded section: it runs only when open. (Its body's formula, not the "3.2 GB"
    # it computes: on a GPU the measurement's own caption may name that size too.)
    assert "8,192² × 4 bytes" not in text
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
    assert "≤ 10⁻⁵ (float32 rounding): every fused kernel agrees" in text and "✓" in text and "✗" not in text
    assert "At T = 256 the fused kernel's fastest call took" in text
    found = efficiency.summary(at.session_state["eff_last"]["rows"])
    ratio = found["course_s"] / found["sdpa_s"]  # the words follow the numbers measured just now (fastest calls)
    assert ("× faster" in text) == (ratio >= 1.1) and ("× slower" in text) == (ratio <= 1 / 1.1)
    assert "Why the fused kernel wins" not in text
    rows = at.session_state["eff_last"]["rows"]
    times = chart_frames(at)[0][1][0]  # the time chart plots each method's fastest call, as the sentence says
    fastest = {(r["tokens"], r["label"]): r["fastest_s"] * 1e3 for r in rows}
    assert all(abs(ms - fastest[(t, label)]) < 1e-9 for t, label, ms in zip(times["tokens"], times["label"], times["ms"]))
    assert "2 heads, head_dim 64" in text
    table = at.dataframe[0].value
    assert list(table.index) == ["128", "256"]  # T as the page writes it (1,024 with a separator)

    # Moving a control afterwards keeps the last results (labelled with their settings), measuring nothing.
    at.slider(key="eff_heads").set_value(4).run()
    assert len(chart_specs(at)) == 2 and "2 heads, head_dim 64" in page_text(at)


def test_one_token_sidebar_input_renders():
    at = open_screen("efficiency", input="random", tokens=1)
    assert not at.exception
    assert "Press **Measure**" in page_text(at)


def test_the_two_explanations_are_two_sections_and_open_together():
    """Two ui.explain calls on one screen need two section names (issue 28's "why" would collide)."""
    at = open_screen("efficiency", sections="all")
    assert not at.exception, [e.value for e in at.exception]
    text = page_text(at)
    assert "online softmax" in text  # the first section's body
    assert "12 × 8,192² × 4 bytes = **3.2 GB**" in text  # computed
    every = at.dataframe[-1].value  # "Every measurement": the median and the fastest of how many calls
    assert {"ms", "fastest_ms", "calls"} <= set(every.columns) and (every["calls"] >= at.slider(key="eff_repeats").value).all()
    assert (every["fastest_ms"] <= every["ms"]).all()
    # differences written as on every screen ("6.6 × 10⁻⁷", never "6.6e-07"); the course row has none: a dash
    assert all(d in ("–", "0") or "× 10" in d for d in every["max_abs_diff"]), list(every["max_abs_diff"])
    assert "–" in set(every["max_abs_diff"]) and any("× 10" in d for d in every["max_abs_diff"])
