"""AppTest: the "Why √d_k" screen shows the experiment's own numbers, reacts to every control, caches."""
import pytest

from attention_core.drawing import numbers
from attention_core.lessons import experiments
from attention_core.lessons.experiments import SCALED, UNSCALED
from conftest import chart_specs, open_screen, page_text

TITLES = ["variance of the scores vs d_k", "scores at d_k = 64", "largest weight vs d_k", "entropy (nats) vs d_k",
          "gradient reaching the scores vs d_k (median over queries)"]


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.get("metric")}


def test_renders_every_chart_and_the_numbers_of_the_experiment():
    at = open_screen("why-scaling")
    assert [s.get("title") for s in chart_specs(at)] == TITLES
    for spec in chart_specs(at)[2:]:  # the curves: d_k on a log axis
        line = spec["layer"][0]
        assert line["encoding"]["x"]["field"] == "d_k" and line["encoding"]["x"]["scale"]["type"] == "log"
    # the defaults: 4,096 queries, 16 keys, seed 123, histogram at d_k = 64
    rows = {r["scores"]: r for r in experiments.measure(64, 4096, 16, 123)}
    shown = metrics(at)
    assert shown["largest weight · unscaled"] == f"{rows[UNSCALED]['largest weight']:.4f}"
    assert shown["entropy · scaled"] == f"{rows[SCALED]['entropy (nats)']:.4f}"
    # written as everywhere in the app: "1.49 × 10⁻²", not "1.49e-02"
    assert shown["median gradient · unscaled · d_k = 64"] == numbers.scientific(rows[UNSCALED]['gradient (median)'], 2)
    assert "×" in shown["median gradient · unscaled · d_k = 64"]
    saturation, table = at.table[0].value, at.dataframe[-1].value  # section 5's table (static), then all the numbers
    assert len(table) == 2 * len(experiments.POWERS)
    assert list(saturation.columns) == [f"{i} inputs, {w} weights" for i, w in experiments.SATURATION_SETUPS]
    assert saturation.loc["largest weight, scaled"].iloc[0] == "1.0000"  # torch.rand everywhere: one-hot when scaled
    assert len(saturation.columns) == 4  # a setup per column: the table fits a slide (ten columns did not)
    assert not saturation.isin(["-0.0000"]).any().any()  # a tiny negative entropy rounds to 0.0000, unsigned
    rand = experiments.saturation(seed=123)[0]
    # 4 significant digits, not "18,911.6121" (issue 35): the spread is in the thousands, whole numbers say it
    assert saturation.loc["spread in a row"].iloc[0] == f"{round(rand['spread in a row']):,}"
    assert "," in saturation.loc["spread in a row"].iloc[0]  # thousands, with their separator
    text = page_text(at)
    assert "4,096 queries per d_k, each scoring 16 keys" in text
    assert "def sample_scores" not in text  # the code is a folded section: it runs only when open
    code = page_text(open_screen("why-scaling", sections=["code"]))
    assert "def sample_scores" in code and "def softmax_gradient_norm" in code  # the code, read with inspect
    assert "variance is about d_k" in text and "saturated softmax" in text  # the charts are explained in words


def test_every_control_changes_the_screen():
    at = open_screen("why-scaling")
    before = (page_text(at), chart_specs(at), metrics(at))
    for change, expect in ((lambda: at.select_slider(key="why_samples").set_value(1024), "1,024 queries per d_k"),
                           (lambda: at.slider(key="why_tokens").set_value(32), "entropy ln 32 = 3.4657"),
                           (lambda: at.number_input(key="why_seed").set_value(7), "seeded from (7, d_k)"),
                           (lambda: at.select_slider(key="why_dk").set_value(1024), "the scores at d_k = 1,024")):
        change().run()
        assert not at.exception, [e.value for e in at.exception]
        after = (page_text(at), chart_specs(at), metrics(at))
        assert after != before
        assert expect in after[0], expect
        before = after


def test_results_are_cached_and_d_k_only_recomputes_the_histogram(monkeypatch):
    calls = {"sweep": 0, "histogram": 0}
    for name in calls:
        original = getattr(experiments, name)

        def counted(*args, _original=original, _name=name, **kwargs):
            calls[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(experiments, name, counted)
    at = open_screen("why-scaling")
    assert calls == {"sweep": 1, "histogram": 1}
    at.run()  # a rerun with the same controls
    assert calls == {"sweep": 1, "histogram": 1}
    at.select_slider(key="why_dk").set_value(256).run()
    assert calls == {"sweep": 1, "histogram": 2}
    at.select_slider(key="why_dk").set_value(64).run()  # back to a value seen before
    assert calls == {"sweep": 1, "histogram": 2}


@pytest.mark.parametrize("params, why", [({"tokens": "abc"}, "`tokens="), ({"d_out": "-5"}, "`d_out="),
                                         ({"seed": "nan"}, "`seed="), ({"why_dk": "7"}, "`why_dk`")])
def test_bad_url_values_show_a_note_and_the_screen_renders(params, why):
    at = open_screen("why-scaling", **params)
    assert any(why in w.value for w in at.warning), [w.value for w in at.warning]
    assert [s.get("title") for s in chart_specs(at)] == TITLES
    assert "4,096 queries per d_k" in page_text(at)
