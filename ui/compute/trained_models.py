"""The trained toy models for the screens: shipped runs, their scores, and live training jobs.

One copy of each model per server process (cache_resource: never mutate what these return).
A live training run is a job of the process's pool (ui/server/jobs.py) keyed on its whole configuration,
so a class that presses "Train" sixty times with the same settings trains once and everyone
watches the same run.
"""
import dataclasses

import streamlit as st
import torch

from attention_core.book.modules import out_proj_parameter_count
from attention_core.drawing.training_charts import probe_labels
from attention_core.models import head_scores, training
from attention_core.lessons.presets import PARAMS, PUBLIC_TRAIN_LAYER_STEPS
from attention_core.models.toy_tasks import TASKS, from_text, repeated_segment
from ui.server import jobs
from ui.server.public import public_mode
from ui.state.session import note, value


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


_POOL: list = []  # this server process's training pool, made on first use


def pool() -> jobs.Pool:
    """One pool per server process: 1 run at a time on a public server, 2 for a teacher's own machine."""
    if not _POOL:
        _POOL.append(jobs.Pool(size=1 if public_mode() else 2))
    return _POOL[0]


def training_job(key: tuple, start: bool) -> jobs.Job | None:
    """The job of a configuration (task, layers, heads, d_model, steps, seed, lr, device): asked for
    when `start`, else only if someone already asked. Either way this session now watches it."""
    task, layers, heads, d_model, steps, seed, lr, device = key
    if start:
        return pool().submit(key, task, dict(layers=layers, heads=heads, d_model=d_model, steps=steps, seed=seed,
                                             lr=lr, device=device))
    job = pool().get(key)
    if job is not None:
        job.watch()
    return job


def training_step_options(options: list[int], layers: int) -> tuple[list[int], str]:
    """The step counts this server allows at `layers` layers, and a sentence saying the bound."""
    if not public_mode():
        return options, f"at most {max(options):,} steps"
    allowed = [s for s in options if s * layers <= PUBLIC_TRAIN_LAYER_STEPS] or options[:1]
    return allowed, (f"on this public server a run is at most {PUBLIC_TRAIN_LAYER_STEPS:,} steps × layers "
                     f"({max(allowed):,} steps at {layers} layer{'s' if layers > 1 else ''}), and runs "
                     f"{pool().size} at a time")


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
                                labels=probe_labels(TASKS[task].symbols, run.probe), d_out=d)
    return shown, {"mha": record, "wrapper": None, "device": "cpu", "note": None, "out_proj_params": out_proj_parameter_count(d)}


def opening_cell(task: str, ids, weights) -> tuple[int, int] | None:
    """The (query, key), 0-based, Look closer opens on, unless the URL or a commit chose a query and key (None):
    in a repeat probe the copy's first token, where an induction head has something to find; in the other tasks
    the last token, which sees every key. The key is the one the opening head weighs most there.
    weights: (T, T), the map the view opens on."""
    if value("query") != PARAMS["query"].default or value("key") != PARAMS["key"].default:
        return None
    found = repeated_segment(ids) if task == "repeat" else None
    query = found[1] if found else len(ids) - 1
    return query, int(torch.as_tensor(weights)[query, :query + 1].argmax())


def look_closer_frames(layers: int, heads: int, steps, layer: int, head: int) -> dict:
    """The attention view's frames for Look closer: every (training step,) layer and head at once, so the
    browser scrubs them. steps: (the snapshots' steps, the step shown) or None for a typed probe."""
    dims = [{"name": "Layer", "param": "layer", "values": list(range(1, layers + 1)),
             "labels": [str(n) for n in range(1, layers + 1)]},
            {"name": "Head", "param": "head", "values": list(range(1, heads + 1)), "labels": [str(n) for n in range(1, heads + 1)]}]
    start = (layer - 1) * heads + head - 1
    if steps is not None:
        every, shown = steps
        values = every[:-1] + [-1]  # -1 = the last step, as the step slider's URL value
        dims.insert(0, {"name": "Training step", "param": "step", "values": values, "labels": [f"{s:,}" for s in every]})
        start += every.index(shown) * layers * heads
    return {"dims": dims, "initial": start}


