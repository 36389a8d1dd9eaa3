"""The trained toy models for the screens: shipped runs, their scores, and live training jobs.

One copy of each model per server process (cache_resource: never mutate what these return).
A live training run is a TrainingJob keyed on its whole configuration, so a class that presses
"Train" sixty times with the same settings trains once and everyone watches the same run.
"""
import dataclasses
import threading

import pandas as pd
import streamlit as st
import torch

from attention_core import charts, head_scores, training
from attention_core.toy_tasks import TASKS, from_text
from attention_core.ui.state import KEEP, note, value


SCREEN_BATCH = 256  # sequences per accuracy on the screen: about 1,800 counted tokens, quick to open


@st.cache_resource(max_entries=3, show_spinner="Loading the trained model…")
def trained_run(task: str) -> training.TrainResult:
    """The shipped run of a task (model, history, snapshots), from attention_core/checkpoints."""
    return training.load_run(task)


def trained_model(task: str = "repeat"):
    return trained_run(task).model


@st.cache_data(max_entries=6, show_spinner=False)
def batch_scores(task: str) -> dict:
    """The shipped model's head scores on a fresh batch: {name: (layers, heads) list}."""
    return {k: v.tolist() for k, v in head_scores.batch_scores(trained_model(task), task).items()}


@st.cache_data(max_entries=6, show_spinner="Switching each head off in turn…")
def ablation(task: str) -> tuple[float, list]:
    """(accuracy with every head on, accuracy with each head off alone as (layers, heads))."""
    model = trained_model(task)
    return head_scores.accuracy(model, task, SCREEN_BATCH), head_scores.ablation(model, task, SCREEN_BATCH).tolist()


@st.cache_data(max_entries=64, show_spinner=False)
def accuracy_with_off(task: str, off: tuple) -> float:
    return head_scores.accuracy(head_scores.with_heads_off(trained_model(task), off), task, SCREEN_BATCH)


@st.cache_data(max_entries=32, show_spinner=False)
def probe_weights(task: str, ids: tuple) -> torch.Tensor:
    """The final model's (layers, heads, T, T) weights on a typed probe."""
    with torch.no_grad():
        return torch.cat(trained_model(task).attention_weights(torch.tensor([ids]))).float()


def probe_ids(task: str) -> tuple[torch.Tensor, bool]:
    """The probe to show: the typed one (value "probe") when valid, else the recorded one, and whether typed."""
    typed = value("probe").strip()
    if typed:
        ids, why = from_text(task, typed)
        if ids is not None:
            return ids, True
        note(f"Probe: {why}; showing the probe recorded during training.")
    return trained_run(task).probe, False


def heads_off_picker(layers: int, heads: int) -> list[tuple[int, int]]:
    """Pick heads to switch off ("off" in the URL: "1.2,2.1" = layer.head); returns 0-based pairs."""
    names = [f"{l}.{h}" for l in range(1, layers + 1) for h in range(1, heads + 1)]
    wanted = [part.strip() for part in value("off").split(",") if part.strip()]
    bad = [w for w in wanted if w not in names]
    if bad:
        note(f"Heads {', '.join(bad)[:80]} do not exist here (write layer.head, e.g. 2.1, up to "
             f"{layers}.{heads}); they were left on.")
    kept = [n for n in names if n in wanted]
    if st.session_state.get("off_pick") != kept:
        st.session_state["off_pick"] = kept

    def store():
        st.session_state[KEEP + "off"] = ",".join(st.session_state["off_pick"])

    st.session_state[KEEP + "off"] = ",".join(kept)
    picked = st.multiselect("Switch heads off (layer.head)", names, key="off_pick", on_change=store,
                            placeholder="every head on")
    return [tuple(int(p) - 1 for p in n.split(".")) for n in picked]


def history_frame(history: dict, every: int = 10) -> pd.DataFrame:
    """Loss and accuracy for a line chart, averaged over windows of `every` steps (less noise, fewer points)."""
    frame = pd.DataFrame(history)
    if frame.empty:
        return pd.DataFrame(columns=["step", "measure", "value"])
    frame = frame.groupby((frame["step"] - 1) // every).agg({"step": "max", "loss": "mean", "accuracy": "mean"})
    return frame.melt(id_vars="step", var_name="measure", value_name="value")


class TrainingJob:
    """training.train in a background thread; any session can read its progress while it runs."""

    def __init__(self, task: str, **config):
        self.task, self.config = task, config
        self.step, self.steps, self.history = 0, config["steps"], {"step": [], "loss": [], "accuracy": []}
        self.result, self.error = None, None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _progress(self, step, steps, loss, accuracy, model):
        for name, number in (("step", step), ("loss", loss), ("accuracy", accuracy)):
            self.history[name].append(number)  # every 10th step: enough for the growing curve
        self.step = step

    def _run(self):
        try:
            self.result = training.train(self.task, progress=self._progress, **self.config)
        except Exception as error:  # shown on the screen; never kills the server
            self.error = f"{type(error).__name__}: {error}"

    @property
    def done(self) -> bool:
        return self.result is not None or self.error is not None


_STARTED: set = set()  # configurations someone has trained in this server process


@st.cache_resource(max_entries=8, show_spinner=False)
def _job(task, layers, heads, d_model, steps, seed, lr, device) -> TrainingJob:
    return TrainingJob(task, layers=layers, heads=heads, d_model=d_model, steps=steps, seed=seed, lr=lr,
                       device=device)


def training_job(key: tuple, start: bool) -> TrainingJob | None:
    """The job of a configuration (task, layers, heads, d_model, steps, seed, lr, device): started
    when `start`, else only if someone already started it."""
    if start:
        _STARTED.add(key)
    return _job(*key) if key in _STARTED else None


@st.cache_resource(max_entries=4, show_spinner=False)
def _trained_layer_trace(task: str, layer: int) -> dict:
    """The book's trace of one layer's MultiHeadAttention of the shipped model on its probe."""
    run = trained_run(task)
    with torch.no_grad():
        inputs = run.model.attention_inputs(run.probe[None])[layer]  # (1, T, d_model)
        return run.model.attention_modules[layer].trace(inputs) | {"inputs": inputs}


def trained_heads(settings, layer: int, task: str = "repeat"):
    """(settings, h) for the heads screen with weights=trained: the shipped model's layer `layer`
    (0-based) on its probe; settings carries the probe's tokens, h looks like ui.heads' result
    (without the wrapper, which a trained model does not have)."""
    run = trained_run(task)
    record = _trained_layer_trace(task, layer)
    tokens = [TASKS[task].symbols[t] for t in run.probe.tolist()]
    d = record["inputs"].shape[-1]
    shown = dataclasses.replace(settings, x=record["inputs"][0], inputs_id=("trained", task, layer), tokens=tokens,
                                labels=charts.axis_labels(tokens), d_out=d)
    return shown, {"mha": record, "wrapper": None, "device": "cpu", "note": None, "out_proj_params": d * d + d}
