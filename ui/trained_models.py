"""The trained toy models for the screens: shipped runs, their scores, and live training jobs.

One copy of each model per server process (cache_resource: never mutate what these return).
A live training run is a job of the process's pool (ui/jobs.py) keyed on its whole configuration,
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
from ui import gate, jobs
from ui.public import public_mode
from attention_core.models.toy_tasks import TASKS, from_text, repeated_segment
from attention_core.drawing.text import md_escape
from ui.draw.training import curves
from ui.state import KEEP, clamp, note, set_value, value


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


def job_progress(job: jobs.Job) -> None:
    """The place in the queue, or the bar and the growing curve, polled every 2 s while this session
    watches (a poll is a small rerun; 2 s keeps a class's polls cheap and well inside the 20 s a job
    waits for a watcher); each poll counts as watching. A full rerun when the job is over shows its result."""
    @st.fragment(run_every=2.0)
    @gate.one_at_a_time()
    def poll():
        job.watch()
        if job.done:
            st.rerun()
        place = pool().place(job)
        if place:
            st.progress(0.0, text=f"waiting: number {place} in the queue ({pool().size} run at a time on this "
                                  "server); it starts by itself")
            return
        st.progress(job.step / job.steps, text=f"step {job.step:,} of {job.steps:,}")
        curves(job.history, "training curves (live)", every=1)
    poll()


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


def look_closer(task: str, layers: int, heads: int) -> tuple[int, int]:
    """The layer and head Look closer opens on (1-based), first the task's strongest head.

    A first look at a task opens on its most striking head, not on 1.1, unless the URL or the student
    already picked one. Says in a caption which head that is and why."""
    layer_0, head_0, kind, strength = head_scores.strongest_head(batch_scores(task), task)
    opened = f"look-closer-opened:{task}"
    if opened not in st.session_state:
        st.session_state[opened] = True
        if value("layer") == 1 and value("head") == 1:
            set_value("layer", layer_0 + 1)
            set_value("head", head_0 + 1)
    name = head_scores.SCORE_NAMES[kind]
    st.caption(f"Head {layer_0 + 1}.{head_0 + 1} is this model's strongest {name} head ({name} score "
               f"{strength:.2f} on a fresh batch of 256 sequences); the screen opens on it.")
    layer = clamp("layer", low=1, high=layers, fallback_note=f"Layer {{old}} does not exist ({layers} layers); showing layer {{new}}.")
    head = clamp("head", low=1, high=heads, fallback_note=f"Head {{old}} does not exist ({heads} heads); showing head {{new}}.")
    return layer, head


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


def show_repeated_probe(ids, symbols: str) -> None:
    """The probe with its repeated segment highlighted: where an induction head has work to do."""
    found = repeated_segment(ids)
    text = [symbols[int(t)] for t in ids]
    if found is None:
        st.caption("This probe repeats no token, so an induction head has nothing to copy.")
        return
    first, second, length = found
    cuts = [0, first, first + length, second, second + length, len(text)]  # plain, copy, plain, copy, plain
    parts = [md_escape("".join(text[a:b])) for a, b in zip(cuts, cuts[1:])]
    line = "".join(f":orange-background[**{part}**]" if i % 2 else part for i, part in enumerate(parts))
    st.markdown(f"Probe: {line}")
    st.caption(f"Tokens {first + 1}–{first + length} come back as tokens {second + 1}–{second + length} "
               f"({length} tokens). From token {second + 1}, the copy's first, each next token can be copied: an "
               f"induction head's row there puts its weight on the key just after the earlier copy of the current "
               f"token, a stripe {second - first - 1} keys left of the diagonal.")
