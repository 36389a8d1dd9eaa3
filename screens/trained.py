"""What heads learn: a tiny model made of the book's MultiHeadAttention, trained on toy tasks."""
import pandas as pd
import streamlit as st
import torch

import ui
from screens import trained_blocks as blocks
from attention_core.drawing import training_charts
from attention_core.drawing.training_charts import probe_labels
from attention_core.lessons import claims
from attention_core.models import head_scores
from attention_core.models.head_scores import MEANINGS, SCORE_NAMES
from attention_core.models.toy_tasks import TASKS, to_text
from attention_core.models.training import AttentionOnlyTransformer

settings = ui.current()
st.title("What heads learn")
st.markdown(
    "Every other screen uses random weights, as the chapter does. Here the same `MultiHeadAttention` is trained: "
    "a tiny model of token and position embeddings, two layers of four heads with a residual around each, and an "
    "output layer. No MLP, so whatever the model learns, its heads do. Scrub through training and watch them form.")
TASK_LABELS = {"repeat": "repeat (induction)", "sort": "sort digits", "reverse": "reverse letters"}
task = ui.control(st.segmented_control, "Task", "task", options=list(TASKS), format_func=TASK_LABELS.get,
                  required=True)
spec = TASKS[task]
st.caption(f"**{task}**: {spec.summary}. Tokens are drawn as symbols: {spec.symbols}.")
run = ui.trained_run(task)
L, H = run.config["layers"], run.config["heads"]
lookup = spec.lookup


@ui.fragment
def trained_view():
    steps = sorted(run.snapshots)
    options = steps[:-1] + [-1]  # -1 = the last step (the URL leaves it out)
    ui.clamp("step", options=options,
             fallback_note=f"There is no snapshot at step {{old}} (one every {run.config['snapshot_every']} steps "
                           f"up to {steps[-1]}); showing the last step.")
    shown = ui.control(st.select_slider, "Training step", "step", options=options,
                       format_func=lambda s: f"{steps[-1] if s == -1 else s:,}")
    step = steps[-1] if shown == -1 else shown
    ui.curves(run.history, "training curves", step, "loss and accuracy of the training batches",
              key=("curves", task, step))
    # The metrics are the curves' own point at this step (the mean of its CURVE_EVERY batches): a 50-batch accuracy
    # beside one batch's loss read as contradicting the curves (0.966 and 0.138 against about 0.98 and 0.04).
    every = training_charts.CURVE_EVERY
    batches = [k for k, s in enumerate(run.history["step"]) if step - every < s <= step]
    mean = lambda name: f"{sum(run.history[name][k] for k in batches) / len(batches):.3f}" if batches else "—"  # noqa: E731
    cols = st.columns(3)
    cols[0].metric("step", f"{step:,} of {steps[-1]:,}")
    cols[1].metric(f"training accuracy here (last {every} batches, as plotted)", mean("accuracy"))
    cols[2].metric(f"loss here (last {every} batches, as plotted)", mean("loss"))

    ui.control(st.text_input, "Probe sequence (type symbols; empty = the one recorded during training)", "probe",
               placeholder=to_text(task, run.probe), max_chars=200)
    ids, typed = ui.probe_ids(task)
    if typed:
        weights = ui.probe_weights(task, tuple(ids.tolist()))
        st.caption("A typed probe is read by the final model; the training-step slider scrubs the recorded probe.")
    else:
        weights = run.snapshots[step].float()
    labels = probe_labels(spec.symbols, ids)
    if task == "repeat":
        blocks.show_repeated_probe(ids, spec.symbols)
    st.subheader(f"Every head on the probe {'(final model)' if typed else f'at step {step:,}'}")
    ui.head_grid(weights, labels, f"every head of the {task} model")
    st.caption("Rows: layers; columns: heads. Each map: query (row) → key (column), darker = more weight.")

    scores = head_scores.scores_of(list(weights.unsqueeze(1)), task, ids[None])
    ablated_all, ablated = ui.ablation(task)
    if not ui.predict_first("trained", settings, round_of=(task, 0, 0), task=task, ablated=ablated,
                            accuracy=ablated_all, induction=scores.get("induction")):
        return
    st.subheader("What each head does, in numbers")
    score_formats = {SCORE_NAMES[k]: st.column_config.NumberColumn(format="%.2f") for k in scores}
    ui.data_table(pd.DataFrame(head_scores.score_table(scores, ablated)), hide_index=True, width="content",
                 column_config=score_formats | {"accuracy with it off (final model)":
                                                st.column_config.NumberColumn(format="%.3f")})
    st.markdown("\n".join(f"- **{SCORE_NAMES[k]} score**: {MEANINGS[k]}." for k in scores))
    st.caption(f"Scores on the probe shown above; accuracy (final model, a fresh batch of 256 sequences) with every head on: "
               f"{ablated_all:.3f}.")

    with st.container():  # one block: a slide shows the heading, the pickers and the map together
        st.subheader("Look closer: one head")
        layer, head = blocks.look_closer(task, L, H)
        opening = ui.opening_cell(task, ids, weights[layer - 1, head - 1])  # (T, T): the map the view opens on
        ui.show_view(weights.reshape(-1, *weights.shape[-2:]) if typed else
                     torch.stack([run.snapshots[s].float() for s in steps]).reshape(-1, *weights.shape[-2:]),
                     settings, "weights", f"the {task} model on the probe", view_key="trained_view", commit=True,
                     labels=labels, frames=ui.look_closer_frames(L, H, None if typed else (steps, step), layer, head),
                     selection=opening)

    if task == "repeat":
        with ui.for_the_teacher("trained-heads-link"):  # a link to follow live, not a slide's content
            st.caption("The same heads through the multi-head screen's own trace (queries, keys, shapes, code): "
                       "[/heads?weights=trained](heads?weights=trained).")
    st.subheader("Switch heads off")
    off = blocks.heads_off_picker(L, H)
    now = ui.accuracy_with_off(task, tuple(off)) if off else ablated_all
    a, b = st.columns(2)
    a.metric("accuracy, every head on", f"{ablated_all:.3f}")
    if off:  # the change, in the same units as the accuracies; none is shown as no change, without an arrow
        change = round(round(now, 3) - round(ablated_all, 3), 3)  # the difference of the two numbers shown
        b.metric(f"accuracy, {len(off)} head{'s' if len(off) != 1 else ''} off", f"{now:.3f}", delta=f"{change:+.3f}",
                 delta_color="normal" if change else "off", delta_arrow="auto" if change else "off")
    else:
        b.caption("Pick heads above to switch them off; their accuracy appears here beside the full model's.")
    st.caption("Switching a head off zeroes its columns of `out_proj`: the model then runs as if that head's "
               "context vectors were all zero. Accuracy is on a fresh batch of 256 sequences.")


trained_view()
blocks.train_yourself(task, settings)
ui.explain(
    "**The induction circuit.** In `repeat`, a layer-1 head learns to look one token back: each position now also "
    "holds its predecessor. A layer-2 head then matches the current token against those predecessors: the key "
    "whose predecessor equals me is the token that followed me last time, and copying it predicts the repeat. "
    "Training shows it as a sudden jump in accuracy, when both heads click together (Olsson et al., 2022). Several "
    "layer-2 heads can become induction heads and back each other up, while the previous-token head they all rely "
    f"on may have no backup. Measured on this screen's {task} model, on a fresh batch of 256 sequences. "
    + claims.ablation_claim(*ui.ablation(task), blocks.previous_scores(run, task) if task == "repeat" else None) + " "
    "**Sort** needs a head that finds the smallest list digit not yet written; **reverse** a head that reads the "
    "mirror position, an anti-diagonal stripe.")
ui.show_code(AttentionOnlyTransformer, head_scores.induction_score, head_scores.with_heads_off)
