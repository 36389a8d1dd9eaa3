"""The trained-heads screen's "Train it yourself": pick a configuration, train it live, see its heads.

A fragment of its own: moving its sliders reruns this section only, never the shipped model's views above it.
Everyone who picks the same configuration watches one shared run (ui/trained_models.py's job pool).
"""
import pandas as pd
import streamlit as st

from attention_core.drawing.training_charts import probe_labels
from attention_core.models import head_scores
from attention_core.models.toy_tasks import TASKS
from ui.draw.training import curves, head_grid
from ui.settings import Settings
from ui.state import clamp, control, fragment
from ui.trained_models import job_progress, training_job, training_step_options

LR_OPTIONS = [1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2]
STEP_OPTIONS = [50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000]


@fragment
def train_yourself(task: str, settings: Settings):
    """The configuration's pickers and Train button, then the shared run's progress or its result."""
    spec = TASKS[task]
    st.subheader("Train it yourself")
    st.markdown(f"Train the **{task}** task from scratch with your own settings (AdamW, batches of 64). Everyone "
                "who picks the same settings shares one run, so a class trains each configuration once.")
    c = st.columns(5)
    layers = control(c[0].select_slider, "layers", "train_layers", options=[1, 2, 3])
    heads = control(c[1].select_slider, "heads", "train_heads", options=list(range(1, 9)))
    allowed, bound = training_step_options(STEP_OPTIONS, layers)
    clamp("train_steps", options=allowed, fallback_note="Training steps {old} is not offered here; using {new}.")
    steps = control(c[2].select_slider, "steps", "train_steps", options=allowed, format_func=lambda n: f"{n:,}")
    seed = control(c[3].number_input, "seed", "train_seed", min_value=0, max_value=2**31 - 1, step=1)
    clamp("train_lr", options=LR_OPTIONS, fallback_note="Learning rate {old} is not offered; using {new}.")
    lr = control(c[4].select_slider, "learning rate", "train_lr", options=LR_OPTIONS, format_func=lambda v: f"{v:g}")
    d_model = heads * round(64 / heads)  # the heads must split d_model evenly: 64, or 63 for 3 and 7 heads
    st.caption(f"d_model = {d_model} ({heads} head{'s' if heads > 1 else ''} of {d_model // heads}); "
               f"computed on {settings.device}; {bound}. A run nobody watches for 20 s stops.")
    key = (task, layers, heads, d_model, steps, int(seed), float(lr), settings.device)
    job = training_job(key, start=st.button("Train", icon=":material/play_arrow:", type="primary"))
    if job is None:
        return
    if not job.done:  # every session watching this configuration sees the same run grow
        return job_progress(job)
    if job.error or job.result is None:
        st.error(f"Training failed: {job.error}" if job.error else
                 "This run stopped because nobody watched it for 20 s. Press **Train** to start it again.")
        return
    st.progress(1.0, text=f"done: {job.steps:,} steps")
    curves(job.result.history, "training curves (your run)", key=("your curves",) + key)
    st.metric("accuracy on a fresh batch", f"{job.accuracy:.3f}")
    head_grid(job.result.snapshots[max(job.result.snapshots)].float(),
              probe_labels(spec.symbols, job.result.probe), "every head of your model")
    st.dataframe(pd.DataFrame(head_scores.score_table(job.scores)), hide_index=True, width="content")
    if task == "repeat" and layers == 1:
        st.info("**Why one layer fails at repeat.** An induction head must find *the token after an earlier copy "
                "of the current token*. Its key has to carry \"the token before me\", and only a head in an earlier "
                "layer can move that into a position. With one layer every key knows only its own token and "
                "position, so the model can at best guess from token frequencies. Two layers make the circuit: a "
                "previous-token head in layer 1, an induction head in layer 2.", icon=":material/lightbulb:")
