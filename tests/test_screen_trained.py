"""AppTest: /trained opens from the shipped checkpoints, scrubs, switches heads off, trains live,
and bad URL values get notes; /heads?weights=trained shows the trained model's heads."""
import json
import time

import pytest

from ui.compute import trained_models as models
from conftest import chart_specs, charts_drawn, open_screen, page_text, view_row, views
from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df


def is_grid(spec: dict) -> bool:
    return spec.get("facet", {}).get("row", {}).get("field") == "layer"


def grid(at):
    """The data of the first every-head chart (a facet of one map per head; its data comes apart from the spec)."""
    chart = next(c for c in at.get("vega_lite_chart") if is_grid(json.loads(c.proto.spec)))
    return convert_arrow_bytes_to_pandas_df(chart.proto.data.data)


def test_opens_with_curves_every_head_and_the_scores():
    at = open_screen("trained")
    text = page_text(at)
    assert "What heads learn" in text and "previous-token" in text and "induction" in text
    data = grid(at)
    assert sorted(set(data["layer"])) == [1, 2] and sorted(set(data["head"])) == [1, 2, 3, 4]
    assert len(data) == 8 * 32 * 33 // 2  # every head, every visible cell of 32 tokens
    assert data["query"].iloc[0].split(" ")[1].strip("‘’") in "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"  # tokens as symbols
    table = at.dataframe[0].value
    assert list(table["head"]) == [f"{l}.{h}" for l in (1, 2) for h in (1, 2, 3, 4)]
    assert table["previous-token"][:4].max() >= 0.5 and table["induction"][4:].max() >= 0.5
    assert table["accuracy with it off (final model)"].min() < 0.6  # the bottleneck head
    assert any("loss" in str(s) and "accuracy" in str(s) for s in chart_specs(at))


def test_the_metrics_at_a_step_are_the_curves_own_point_there():
    # A teacher's read: "accuracy 0.966, loss 0.138" beside curves ending near 0.98 and 0.04 (a 50-batch mean beside
    # one batch's loss). Both are now the mean the curve plots at the step.
    at = open_screen("trained")
    spec, frames = next((spec, frames) for spec, frames in charts_drawn(at) if "loss" in json.dumps(spec))
    points = [r for frame in frames for r in frame if "measure" in r]
    last = max(r["step"] for r in points)
    plotted = {r["measure"]: r["value"] for r in points if r["step"] == last}
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["training accuracy here (last 10 batches, as plotted)"] == f"{plotted['accuracy']:.3f}", metrics
    assert metrics["loss here (last 10 batches, as plotted)"] == f"{plotted['loss']:.3f}", metrics


def test_scrubbing_to_step_0_shows_the_untrained_heads():
    at = open_screen("trained")
    final = grid(at)
    at.select_slider(key="step").set_value(0).run()
    assert not at.exception
    start = grid(at)
    assert (start["query"] == final["query"]).all() and not (start["weight"] == final["weight"]).all()
    position = lambda labels: labels.str.split().str[0].astype(int)  # noqa: E731  "29 ‘K’" -> 29
    sharp = lambda data: (data["weight"][position(data["query"]) > 4] > 0.8).mean()  # noqa: E731
    assert sharp(start) < 0.01 < sharp(final)  # untrained heads spread their weight; trained ones pick a key
    table = at.dataframe[0].value
    assert table["induction"].max() < 0.3 and table["previous-token"].max() < 0.5 and "step 0" in page_text(at)


def test_switching_off_the_previous_token_head_costs_accuracy():
    at = open_screen("trained")
    table = at.dataframe[0].value
    worst = table["head"][table["accuracy with it off (final model)"].idxmin()]
    at = open_screen("trained", off=worst)
    metrics = {m.label: m for m in at.metric}
    on, off = float(metrics["accuracy, every head on"].value), float(metrics["accuracy, 1 head off"].value)
    assert on >= 0.95 and on - off >= 0.3


def test_other_tasks_and_a_typed_probe():
    at = open_screen("trained", task="reverse")
    assert "mirror" in page_text(at) and len(grid(at)) == 8 * 20 * 21 // 2
    at = open_screen("trained", probe="ABCDEFABCDEF")
    assert len(grid(at)) == 8 * 12 * 13 // 2 and "final model" in page_text(at)


def test_bad_url_values_fall_back_with_notes():
    at = open_screen("trained", task="juggle", step="7", layer="9", head="9", off="9.9,x", probe="AB!",
                     train_lr="0.005", train_steps="77")
    notes = " ".join(w.value for w in at.warning)
    for expected in ("task='juggle'", "no snapshot at step 7", "Layer 9 does not exist", "Head 9 does not exist",
                     "9.9, x do not exist", "not symbols of the repeat task", "Learning rate 0.005",
                     "Training steps 77"):
        assert expected in notes, expected
    assert len(grid(at)) == 8 * 32 * 33 // 2


def rerun_until(at, condition, seconds: float = 120):
    """Rerun the screen (each rerun watches the job, as the browser's poll does) until condition(at)."""
    deadline = time.monotonic() + seconds
    while not condition(at):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.5)
        at.run()
    return at


def test_train_it_yourself_runs_live_and_one_layer_repeat_says_why():
    at = open_screen("trained", train_layers=1, train_steps=50)
    assert "Why one layer fails" not in page_text(at)
    at.button[0].click().run()
    assert not at.exception
    assert "of 50" in str(at.get("progress")[0].proto) and "done" not in str(at.get("progress")[0].proto)
    rerun_until(at, lambda at: "accuracy on a fresh batch" in {m.label for m in at.metric})
    mine = {m.label: m.value for m in at.metric}["accuracy on a fresh batch"]
    assert float(mine) < 0.5 and "Why one layer fails" in page_text(at)
    assert "done: 50 steps" in str(at.get("progress")[0].proto)
    assert len([s for s in chart_specs(at) if is_grid(s)]) == 2  # the shipped model's heads and yours


def test_a_full_pool_shows_the_place_in_the_queue():
    pool = models.pool()
    busy = [pool.submit(("repeat", "busy", seed), "repeat", dict(layers=1, heads=1, d_model=64, steps=5000,
                                                                 seed=seed, lr=3e-3, device="cpu"))
            for seed in range(pool.size)]
    try:
        at = open_screen("trained", train_layers=1, train_steps=50, train_seed=7)
        at.button[0].click().run()
        assert f"number 1 in the queue ({pool.size} run at a time" in str(at.get("progress")[0].proto)
    finally:
        for job in busy + [pool.get(("repeat", 1, 4, 64, 50, 7, 3e-3, "cpu"))]:
            pool._cancel(job)


def test_a_public_server_bounds_steps_times_layers_and_says_so(monkeypatch):
    local = open_screen("trained", train_layers=3)
    assert local.select_slider(key="train_steps").options[-1] == "5,000"
    monkeypatch.setenv("ATTENTION_PUBLIC", "1")
    at = open_screen("trained", train_layers=3, train_steps=5000)
    assert at.select_slider(key="train_steps").options[-1] == "1,000"
    assert any("Training steps 5000 is not offered here" in w.value for w in at.warning)
    assert "at most 3,000 steps × layers (1,000 steps at 3 layers)" in page_text(at)
    at = open_screen("trained", train_layers=1)
    assert at.select_slider(key="train_steps").options[-1] == "3,000"


def test_heads_screen_with_trained_weights():
    at = open_screen("heads", weights="trained", sections=["maps", "tensors"])
    text = page_text(at)
    assert "Trained weights: layer 1" in text and "(1, 4, 32, 32)" in text and "(1, 4, 32, 16)" in text
    layer_1 = chart_specs(at)
    assert len(layer_1) == 4  # four head maps; their rows are in the view
    assert views(at)["heads_view"]["meta"]["frames"]["dims"][0]["values"] == [1, 2, 3, 4]
    assert "32 ‘S’" in str(layer_1[0])  # the probe's 32nd token, a symbol of the repeat task
    at.select_slider(key="layer").set_value(2).run()
    assert "Trained weights: layer 2" in page_text(at) and chart_specs(at)[0] != layer_1[0]
    bad = open_screen("heads", weights="trained", layer="5")
    assert any("Layer 5 does not exist" in w.value for w in bad.warning)


def test_look_closer_opens_on_the_strongest_head_and_a_chosen_head_stays():
    from attention_core.models import head_scores, training
    expected = head_scores.strongest_head(head_scores.batch_scores(training.load_run("repeat").model, "repeat"),
                                          "repeat")
    assert (expected[0], expected[1]) != (0, 0) and expected[2] in ("induction", "previous")
    at = open_screen("trained")
    assert opened_on(at) == (expected[0] + 1, expected[1] + 1)
    assert f"Head {expected[0] + 1}.{expected[1] + 1} is this model's strongest" in page_text(at)
    at.session_state["keep:layer"], at.session_state["keep:head"] = 1, 1  # the student commits 1.1 in the view
    at.run()
    assert opened_on(at) == (1, 1)  # it stays
    chosen = open_screen("trained", head=3)  # a head named in the URL wins
    assert opened_on(chosen) == (1, 3)


def opened_on(at) -> tuple[int, int]:
    """The (layer, head) the Look closer view opens on, from its frames (training step × layer × head)."""
    frames = views(at)["trained_view"]["meta"]["frames"]
    layers, heads = (len(d["values"]) for d in frames["dims"][1:])
    flat = frames["initial"] % (layers * heads)
    return flat // heads + 1, flat % heads + 1


def test_look_closer_scrubs_every_snapshot_of_every_head_in_the_browser():
    from attention_core.models import training
    run = training.load_run("repeat")
    view = views(open_screen("trained"))["trained_view"]
    steps = sorted(run.snapshots)
    dims = view["meta"]["frames"]["dims"]
    assert [d["param"] for d in dims] == ["step", "layer", "head"] and dims[0]["values"][-1] == -1
    assert view["meta"]["frames"]["initial"] // 8 == len(steps) - 1  # opens on the last step
    for at_step, layer, head in ((0, 0, 0), (len(steps) // 2, 1, 2), (len(steps) - 1, 1, 3)):
        snapshot = run.snapshots[steps[at_step]].float()  # (layers, heads, T, T)
        frame = (at_step * 2 + layer) * 4 + head
        for query in (0, 17, 31):
            expected = [f"{w:.4f}" for w in snapshot[layer, head, query, :query + 1].tolist()]
            assert list(view_row(view, query, frame=frame).values()) == expected


def test_strongest_head_takes_the_highest_previous_token_or_lookup_score():
    import torch
    from attention_core.models.head_scores import strongest_head
    scores = {"previous": torch.tensor([[0.1, 0.9], [0.2, 0.1]]), "self": torch.ones(2, 2),  # self never counts
              "induction": torch.tensor([[0.0, 0.1], [0.3, 0.95]])}
    assert strongest_head(scores, "repeat") == (1, 1, "induction", pytest.approx(0.95))
    scores["previous"][0, 0] = 0.99
    assert strongest_head(scores, "repeat")[:3] == (0, 0, "previous")
    assert strongest_head({"previous": [[0.1]], "mirror": [[0.7]]}, "reverse")[:3] == (0, 0, "mirror")


def test_the_probe_shows_its_repeated_segment():
    import torch
    from attention_core.models.toy_tasks import make_sequences, repeated_segment
    seq, _, planted = make_sequences("repeat", 64, torch.Generator().manual_seed(5))
    for row, (first, second, length) in zip(seq.tolist(), planted):
        a, b, n = repeated_segment(row)
        assert n >= length and row[a:a + n] == row[b:b + n] and a + n <= b  # at least the planted copy
    assert repeated_segment([1, 2, 3, 4]) is None and repeated_segment([5, 7, 5, 7]) == (0, 2, 2)
    at = open_screen("trained")
    probe = next(m.value for m in at.markdown if m.value.startswith("Probe: "))
    ids = training_probe()
    first, second, length = repeated_segment(ids)
    from attention_core.models.toy_tasks import to_text
    copy = to_text("repeat", ids[first:first + length])
    assert probe.count(f":orange-background[**{copy}**]") == 2 and probe.count(":orange-background[") == 2
    assert f"Tokens {first + 1}–{first + length} come back as tokens {second + 1}–{second + length}" in page_text(at)


def training_probe():
    from attention_core.models import training
    return training.load_run("repeat").probe.tolist()


def test_the_share_scale_is_said_in_words_where_it_colours_a_map():
    from attention_core.drawing.colour import SHARE_WORDS
    assert SHARE_WORDS in page_text(open_screen("trained"))  # 32 tokens: the look-closer map uses shares
    assert SHARE_WORDS not in page_text(open_screen("softmax"))  # the book's 6 tokens: the plain 0 … 1 scale


def test_presenter_mode_enlarges_the_head_grids_labels():
    def label_sizes(at):
        spec = next(s for s in chart_specs(at) if is_grid(s))
        axes = [spec["spec"]["encoding"][c]["axis"] for c in ("x", "y")] + [spec["spec"]["encoding"]["color"]["legend"]]
        return {a["labelFontSize"] for a in axes}, spec["spec"]["width"]["step"]
    assert label_sizes(open_screen("trained")) == ({8, 11}, 6)  # the colour legend's labels too (Vega's 10 px default)
    sizes, cell = label_sizes(open_screen("trained", presenter=1))
    # labels of 16 px instead of 8 (the slides' smallest readable size), cells larger than the 6 px default
    assert min(sizes) >= 16 and cell > 6


def test_no_head_off_shows_no_change_and_a_head_off_shows_its_cost_in_the_same_units():
    """Issue 29: "+0.0 points" in green with an up arrow when no head was switched off."""
    at = open_screen("trained")
    labels = [m.label for m in at.metric]
    assert "accuracy, every head on" in labels and not any("heads off" in l or "head off" in l for l in labels)
    assert not any(m.proto.delta for m in at.metric if m.label.startswith("accuracy"))
    assert "Pick heads above to switch them off" in page_text(at)
    at = open_screen("trained", off="1.1")
    metrics = {m.label: m for m in at.metric}
    on, off = float(metrics["accuracy, every head on"].value), float(metrics["accuracy, 1 head off"].value)
    assert metrics["accuracy, 1 head off"].proto.delta == f"{off - on:+.3f}"  # the two numbers shown, subtracted


def test_probe_labels_put_the_position_in_brackets_so_digits_cannot_run_together():
    from attention_core.drawing.training_charts import probe_labels
    assert probe_labels("I2A", [0, 1, 1]) == ["1 ‘I’", "2 ‘2’", "3 ‘2’"]  # not "1 I", "2 2", "3 2"
    view = views(open_screen("trained"))["trained_view"]
    assert all(label.startswith(f"{n + 1} ‘") and label.endswith("’")  # the view keeps a label that starts
               for n, label in enumerate(view["meta"]["labels"]))  # with its position as it is


def test_look_closer_opens_where_the_probe_has_something_to_show():
    """Issue 29: it opened on query 2, whose row has two keys. The repeat probe opens on the copy's first token, the
    key its head weighs most; a query and key in the URL still win."""
    from attention_core.models.toy_tasks import repeated_segment
    ids = training_probe()
    _, second, _ = repeated_segment(ids)
    view = views(open_screen("trained"))["trained_view"]
    opened = view["meta"]["initial"]
    row = view_row(view, second, frame=view["meta"]["frames"]["initial"])
    assert opened["query"] == second + 1 > 2  # 1-based in the view
    assert opened["key"] == max(row, key=lambda k: float(row[k])) + 1
    assert view["meta"]["url_selection"] is False  # the probe's tokens are not the sidebar's: the app's query stays
    chosen = views(open_screen("trained", query=5, key=3))["trained_view"]["meta"]["initial"]
    assert (chosen["query"], chosen["key"]) == (5, 3)
    reverse = views(open_screen("trained", task="reverse"))["trained_view"]["meta"]["initial"]
    assert reverse["query"] == 20  # the last of the reverse probe's 20 tokens: every key visible


def test_the_training_curves_are_big_and_their_fonts_are_set_in_the_chart():
    def curves_spec(at):
        return next(s for s in chart_specs(at) if "loss" in str(s) and s.get("facet", {}).get("column"))
    for params, scale in (({}, 1.0), ({"presenter": 1}, 1.6)):
        spec = curves_spec(open_screen("trained", **params))
        assert spec["spec"]["width"] == round(440 * scale) and spec["spec"]["height"] == round(170 * scale)
        axis = spec["spec"]["layer"][0]["encoding"]["x"]["axis"]
        assert axis["labelFontSize"] == 13 * scale and axis["format"] == ",d"
        assert spec["facet"]["column"]["header"]["labelFontSize"] == 14 * scale
