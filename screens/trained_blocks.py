"""/trained's blocks: "Train it yourself" (pick a configuration, train it live, see its heads), and the shipped
models' pickers: the heads switched off, the head to look closer at, the repeated probe.

"Train it yourself" is a fragment of its own: moving its sliders reruns this section only, never the shipped
model's views above it. Everyone who picks the same configuration watches one shared run (ui/server/jobs.py's pool,
ui/compute/trained_models.py).
"""
import pandas as pd
import streamlit as st

from attention_core.book.device import describe
from attention_core.drawing.training_charts import probe_labels
from attention_core.models import head_scores
from attention_core.drawing.text import md_escape
from attention_core.models.toy_tasks import TASKS, repeated_segment
from ui.compute.trained_models import batch_scores, pool, training_job, training_step_options
from ui.draw.training_plots import curves, head_grid
from ui.server import jobs, run_gate
from ui.state.session import KEEP, clamp, control, fragment, note, set_value, value
from ui.state.settings import Settings
from ui.draw.display import data_table, for_the_teacher

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
               f"computed on the {describe(settings.device)}; {bound}.")  # "the CPU", not "cpu"
    with for_the_teacher("unwatched-run"):
        st.caption("A run nobody watches for 20 s stops.")
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
    data_table(pd.DataFrame(head_scores.score_table(job.scores)), hide_index=True, width="content")
    if task == "repeat" and layers == 1:
        st.info("**Why one layer fails at repeat.** An induction head must find *the token after an earlier copy "
                "of the current token*. Its key has to carry \"the token before me\", and only a head in an earlier "
                "layer can move that into a position. With one layer every key knows only its own token and "
                "position, so the model can at best guess from token frequencies. Two layers make the circuit: a "
                "previous-token head in layer 1, an induction head in layer 2.", icon=":material/lightbulb:")


# --- the shipped models' views: the heads switched off, the head to look closer at, the probe ---------


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


def job_progress(job: jobs.Job) -> None:
    """The place in the queue, or the bar and the growing curve, polled every 2 s while this session
    watches (a poll is a small rerun; 2 s keeps a class's polls cheap and well inside the 20 s a job
    waits for a watcher); each poll counts as watching. A full rerun when the job is over shows its result."""
    @st.fragment(run_every=2.0)
    @run_gate.one_script_run()
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


def previous_scores(run, task: str) -> list:
    """(layers, heads) previous-token scores of the final model on the probe recorded in training."""
    final = run.snapshots[max(run.snapshots)].float()  # (layers, heads, T, T)
    return head_scores.scores_of(list(final.unsqueeze(1)), task, run.probe[None])["previous"].tolist()
