"""Streamlit helpers shared by every screen: state, the sidebar, URL sync, caching, display.

The only module of attention_core that imports streamlit. Data flows one way:
URL -> session state -> widgets -> cached calls into attention_core -> charts.
"""
import functools
import inspect
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st
import torch

from attention_core import charts, lesson
from attention_core.device import DEVICE_CHOICES, describe, pick_device
from attention_core.inputs import MAX_SENTENCE_TOKENS, MAX_TEXT_CHARS
from attention_core.presets import BOOK_SEEDS, PARAMS, PRESETS, parse_param, url_params
from attention_core.stages import divisors

KEEP = "keep:"  # values outlive their widgets under these keys (a page's widgets vanish when you leave it)
SHARED = ("input", "text", "positions", "tokens", "d_in", "d_out", "seed")  # changing one leaves the preset
IGNORED_URL_KEYS = {"embed", "embed_options"}  # Streamlit's own
TABLE_MAX = 64  # tables show at most 64 x 64 cells


# --- state -----------------------------------------------------------------------------------

def value(name: str):
    return st.session_state[KEEP + name]


def _set(name: str, new) -> None:
    st.session_state[KEEP + name] = new
    st.session_state[name] = new


def _apply_preset(preset: str) -> None:
    for name, new in PRESETS.get(preset, {}).items():
        _set(name, new)


def _on_preset_change(name: str = "preset") -> None:
    st.session_state[KEEP + name] = st.session_state[name]
    _apply_preset(st.session_state[name])


def _on_shared_change(name: str) -> None:
    st.session_state[KEEP + name] = st.session_state[name]
    if st.session_state.get(KEEP + "preset") != "custom":
        _set("preset", "custom")


def init_state() -> None:
    """Once per browser session: defaults, then the URL's preset, then the URL's own values."""
    if "url_notes" in st.session_state:
        return
    for name, spec in PARAMS.items():
        st.session_state[KEEP + name] = spec.default
    notes, given = [], {}
    for name in st.query_params:
        values = st.query_params.get_all(name)
        if name in IGNORED_URL_KEYS:
            continue
        if name not in PARAMS:
            notes.append(f"URL parameter `{name}` is not one this app knows; it was ignored.")
            continue
        if len(values) > 1:
            notes.append(f"URL parameter `{name}` appears {len(values)} times; the last one is used.")
        parsed, note = parse_param(name, values[-1])
        if note:
            notes.append(note)
        else:
            given[name] = parsed
    preset = given.pop("preset", "book")
    st.session_state[KEEP + "preset"] = preset
    for name, new in PRESETS.get(preset, {}).items():
        st.session_state[KEEP + name] = new
    for name, new in given.items():
        st.session_state[KEEP + name] = new
    if given.keys() & set(SHARED) and preset != "custom":
        differs = any(PRESETS.get(preset, {}).get(n, PARAMS[n].default) != given[n] for n in given.keys() & set(SHARED))
        if differs:
            st.session_state[KEEP + "preset"] = "custom"
    st.session_state["url_notes"] = notes


def note(message: str) -> None:
    """A visible note about input the app had to correct (never an exception)."""
    st.warning(message, icon=":material/info:")


def clamp(name: str, options=None, low=None, high=None, fallback_note: str | None = None):
    """Keep a stored value valid for a widget whose range depends on other controls.

    An invalid value falls back to the preset's value (or the default) when that one is valid
    here, else to the nearest valid value, with a note on screen.
    """
    def valid(v):
        return (options is None or v in options) and (low is None or v >= low) and (high is None or v <= high)

    current = value(name)
    if valid(current):
        return current
    fixed = PRESETS.get(value("preset"), {}).get(name, PARAMS[name].default)
    if not valid(fixed):
        if options is not None:
            fixed = min(options, key=lambda o: abs(o - current))
        else:
            fixed = min(max(current, low if low is not None else current), high if high is not None else current)
    _set(name, fixed)
    if fallback_note:
        note(fallback_note.format(old=current, new=fixed))
    return fixed


def control(widget, label: str, name: str, **kwargs):
    """A widget whose value survives page switches and is written to the URL."""
    if name not in st.session_state or st.session_state[name] != value(name):
        st.session_state[name] = value(name)
    on_change = kwargs.pop("on_change", None) or (_on_shared_change if name in SHARED else _keep)
    result = widget(label, key=name, on_change=on_change, args=(name,), **kwargs)
    st.session_state[KEEP + name] = result
    return result


def _keep(name: str) -> None:
    st.session_state[KEEP + name] = st.session_state[name]


def sync_url() -> None:
    """Write every value that differs from its preset into the query string (shareable links)."""
    wanted = url_params({name: value(name) for name in PARAMS})
    current = {k: st.query_params.get(k) for k in st.query_params if k not in IGNORED_URL_KEYS}
    if current != wanted:
        keep = {k: st.query_params.get_all(k) for k in st.query_params if k in IGNORED_URL_KEYS}
        st.query_params.from_dict(wanted | keep)


# --- the sidebar -----------------------------------------------------------------------------

@dataclass
class Settings:
    preset: str
    x: torch.Tensor  # (T, d_in) on the CPU
    tokens: list[str]
    labels: list[str]  # unique axis labels
    d_out: int
    seed: int
    device: str
    device_note: str | None
    notes: list[str]  # what was wrong with the URL or the typed sentence, shown on every screen

    def seed_for(self, stage: str) -> int:
        """The book preset uses the book's seed for each stage; otherwise the chosen seed."""
        return BOOK_SEEDS[stage] if self.preset == "book" else self.seed


def sidebar() -> Settings:
    init_state()
    with st.sidebar:
        control(st.selectbox, "Preset", "preset", options=list(PARAMS["preset"].choices),
                format_func={"book": "Book example", "gpt2-small": "GPT-2 small (1024 tokens)",
                             "custom": "Custom"}.get,
                help="The book example shows the book's printed numbers on every screen.",
                on_change=_on_preset_change)
        kind = control(st.radio, "Input", "input", options=list(PARAMS["input"].choices),
                       format_func={"book": "The book's six vectors", "sentence": "A sentence",
                                    "random": "Random (size experiments)"}.get)
        if kind == "sentence":
            control(st.text_input, "Sentence", "text", max_chars=MAX_TEXT_CHARS,
                    help=f"Split like the book's chapter 2 tokenizer; up to {MAX_SENTENCE_TOKENS} tokens.")
            control(st.toggle, "Add positional embeddings", "positions")
        if kind == "random":
            control(st.slider, "Tokens", "tokens", min_value=1, max_value=PARAMS["tokens"].high)
        if kind == "book":
            st.caption("d_in = 3: each of the six tokens is a 3-d vector from the book.")
        else:
            control(st.slider, "d_in (embedding size)", "d_in", min_value=1, max_value=PARAMS["d_in"].high)
        control(st.slider, "d_out (query/key/value size)", "d_out", min_value=1, max_value=PARAMS["d_out"].high)
        control(st.number_input, "Seed", "seed", min_value=0, max_value=PARAMS["seed"].high, step=1)
        if value("preset") == "book":
            st.caption("Book preset: each screen uses the book's own seed (123, or 789 where the "
                       "book reuses SelfAttention_v2's weights).")
        control(st.selectbox, "Device", "device", options=DEVICE_CHOICES,
                format_func=lambda d: "auto (GPU if present)" if d == "auto" else d)
    inputs = cached_inputs(value("input"), value("text"), value("positions"), value("tokens"),
                           value("d_in"), value("seed"))
    device, device_note = pick_device(value("device"))
    return Settings(preset=value("preset"), x=inputs.x, tokens=inputs.tokens,
                    labels=charts.axis_labels(inputs.tokens), d_out=value("d_out"),
                    seed=value("seed"), device=device, device_note=device_note,
                    notes=st.session_state["url_notes"] + inputs.notes)


# --- cached computations (keyed on plain values; cache_resource shares one copy, never mutate) ---

@st.cache_resource(max_entries=32, show_spinner=False)
def cached_inputs(kind, text, positions, num_tokens, d_in, seed):
    return lesson.make_inputs(kind, text, positions, num_tokens, d_in, seed)


def _x_key(settings: Settings):
    return (value("input"), value("text"), value("positions"), value("tokens"), value("d_in"), value("seed"))


@st.cache_resource(max_entries=16, show_spinner="Computing…")
def _projection(x_key, which, d_out, seed, device):
    return lesson.projection_trace(cached_inputs(*x_key).x, which, d_out, seed, device)


def projection(settings: Settings, which: str, stage: str):
    """(record, device_used, note) for the unmasked single-head attention of a stage."""
    return _projection(_x_key(settings), which, settings.d_out, settings.seed_for(stage), settings.device)


@st.cache_resource(max_entries=16, show_spinner="Computing…")
def _causal(x_key, d_out, seed, context_length, device):
    return lesson.causal_trace(cached_inputs(*x_key).x, d_out, seed, context_length, device)


def causal(settings: Settings, stage: str, context_length: int):
    """(record, device_used, note): CausalAttention's trace and both masking variants."""
    return _causal(_x_key(settings), settings.d_out, settings.seed_for(stage), context_length, settings.device)


@st.cache_resource(max_entries=8, show_spinner="Computing the heads…")
def _heads(x_key, d_out, num_heads, seed, context_length, device):
    return lesson.heads_trace(cached_inputs(*x_key).x, d_out, num_heads, seed, context_length, device)


def heads(settings: Settings, num_heads: int, context_length: int):
    return _heads(_x_key(settings), settings.d_out, num_heads, settings.seed_for("heads"),
                  context_length, settings.device)


@st.cache_data(max_entries=16, show_spinner=False)
def softmax_sharpness(d_k_values: tuple[int, ...], num_tokens: int, seed: int) -> pd.DataFrame:
    """lesson.softmax_sharpness, scaled and unscaled, as one long table for a line chart."""
    frames = []
    for scaled in (True, False):
        largest, entropy = lesson.softmax_sharpness(list(d_k_values), num_tokens, seed, scaled)
        frames.append(pd.DataFrame({"d_k": list(d_k_values), "largest weight": largest, "entropy (nats)": entropy,
                                    "scores": "ω / √d_k" if scaled else "ω (unscaled)"}))
    return pd.concat(frames, ignore_index=True)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs={torch.Tensor: lambda t: t.numpy().tobytes()})
def dropout_convergence(attn_weights: torch.Tensor, p: float, draws: tuple[int, ...], first_seed: int):
    """lesson.dropout_convergence as a table for a line chart, plus the row sums of the last mean."""
    differences, mean_sums = lesson.dropout_convergence(attn_weights, p, list(draws), first_seed)
    frame = pd.DataFrame({"draws": list(draws), "difference": differences, "measure": "max |mean − weights|"})
    return frame, mean_sums


# --- display ---------------------------------------------------------------------------------

def device_badge(device_used: str, device_note: str | None = None) -> None:
    """Where the numbers on this screen were computed."""
    st.badge(f"Computed on {describe(device_used)}", icon=":material/memory:",
             color="green" if device_used != "cpu" else "gray")
    if device_note:
        note(device_note)


def show_matrix(matrix, settings: Settings, kind: str = "weights", title: str = "",
                selected_row: int | None = None, selected_cell=None, row_labels=None, col_labels=None,
                zoom: bool = False, clickable: bool = False, legend: bool = True):
    """A heatmap that stays quick at every size.

    Up to 64 tokens: one Altair cell per value, tooltips, and (clickable) a click picks the query
    and key. Above: an image of block maxima (block means for scores) with a colour bar, and
    (zoom, once per screen) a 32-64 token window of exact values.
    """
    values = np.asarray(torch.as_tensor(matrix).detach().float().cpu())
    rows = row_labels or settings.labels[: values.shape[0]]
    cols = col_labels or settings.labels[: values.shape[1]]
    if max(values.shape) <= charts.ALTAIR_MAX:
        chart = charts.heatmap(values, rows, cols, kind, title, selected_row, selected_cell, clickable=clickable)
        if clickable:
            key = f"click:{title}"
            st.altair_chart(chart, width="content", key=key, on_select=functools.partial(_pick_cell, key),
                            selection_mode="cell")
        else:
            st.altair_chart(chart, width="content")
        return
    factor = charts.overview_factor(max(values.shape))
    how = "mean" if kind == "scores" else "max"
    reduced = charts.block_reduce(values, factor, how)
    blocks = (f"each pixel is the {how} of a {factor} × {factor} block of cells" if factor > 1
              else "one pixel per cell")
    st.image(charts.matrix_image(reduced, kind, max(1, 512 // max(reduced.shape))),
             caption=f"{title}: {values.shape[0]} × {values.shape[1]} drawn as an image ({blocks}); "
                     f"grey = masked (−∞).")
    if legend:
        low, high = charts.colour_range(values, kind)
        st.image(charts.colour_bar(kind), caption=f"colour scale: {low:.4f} … {high:.4f}", width=256)
    if zoom:
        _zoom(values, rows, cols, kind, title)


def zoom_view(matrix, settings: Settings, kind: str = "weights", title: str = "") -> None:
    """Only the zoom window of a large matrix (when its overview is drawn elsewhere)."""
    values = np.asarray(torch.as_tensor(matrix).detach().float().cpu())
    if max(values.shape) > charts.ALTAIR_MAX:
        _zoom(values, settings.labels[: values.shape[0]], settings.labels[: values.shape[1]], kind, title)


def _pick_cell(chart_key: str) -> None:
    """A click on a heatmap cell selects that query and key (runs before the rerun)."""
    picked = st.session_state[chart_key].selection.get("cell") or []
    if picked:
        _set("query", int(picked[0]["i"]) + 1)
        _set("key", int(picked[0]["j"]) + 1)


@st.fragment
def _zoom(values: np.ndarray, rows, cols, kind: str, title: str) -> None:
    """A window of exact values; moving it reruns only this fragment."""
    n_rows, n_cols = values.shape
    size = control(st.select_slider, "Zoom: window size", "window_size", options=[32, 40, 48, 56, 64])
    left, right = st.columns(2)
    with left:
        clamp("window", low=1, high=n_rows - size + 1)
        r0 = control(st.slider, "Zoom: queries from", "window", min_value=1, max_value=n_rows - size + 1)
    with right:
        clamp("window_key", low=1, high=n_cols - size + 1)
        c0 = control(st.slider, "Zoom: keys from", "window_key", min_value=1, max_value=n_cols - size + 1)
    part = charts.window(values, r0 - 1, c0 - 1, size)
    st.altair_chart(charts.heatmap(part, rows[r0 - 1: r0 - 1 + size], cols[c0 - 1: c0 - 1 + size], kind,
                                   f"{title}: queries {r0}–{r0 + size - 1}, keys {c0}–{c0 + size - 1}"),
                    width="content")
    sync_url()  # a fragment rerun skips app.py, which otherwise keeps the URL up to date


def show_row(values, settings: Settings, title: str, kind: str = "weights", highlight=None):
    values = np.asarray(torch.as_tensor(values).detach().float().cpu())
    if len(values) > charts.ALTAIR_MAX:
        st.caption(f"{title}: {len(values)} values; the bar chart shows the first {charts.ALTAIR_MAX}.")
        values = values[: charts.ALTAIR_MAX]
    st.altair_chart(charts.row_bars(values, settings.labels[: len(values)], title, kind, highlight),
                    width="stretch")


def table(tensor, name: str, row_labels=None, col_labels=None) -> None:
    """A tensor as a table with its shape, 4 decimals; big ones cut to the first 64 x 64."""
    t = torch.as_tensor(tensor).detach().float().cpu()
    shape = tuple(t.shape)
    while t.dim() > 2:
        t = t[0]
    if t.dim() == 1:
        t = t.unsqueeze(0)
    cut = t[:TABLE_MAX, :TABLE_MAX]
    frame = pd.DataFrame(cut.numpy(), index=(row_labels or list(range(1, cut.shape[0] + 1)))[: cut.shape[0]],
                         columns=(col_labels or [str(j + 1) for j in range(cut.shape[1])])[: cut.shape[1]])
    first = " (first item of the batch/head)" if len(shape) > 2 else ""
    more = f"; showing the first {cut.shape[0]} × {cut.shape[1]}" if cut.shape != t.shape else ""
    st.markdown(f"**`{name}`** · shape `{shape}`{first}{more}")
    st.dataframe(frame.style.format("{:.4f}"), width="content")


def show_code(*objects, title: str = "The PyTorch code of this step") -> None:
    """The exact source that computed what the screen shows (read with inspect, never retyped)."""
    with st.expander(title, icon=":material/code:"):
        for obj in objects:
            st.code(obj if isinstance(obj, str) else inspect.getsource(obj), language="python")


def query_picker(settings: Settings, label: str = "Query token") -> int:
    """The query token (1-based in the URL and on screen); returns its 0-based index."""
    count = len(settings.tokens)
    clamp("query", low=1, high=count,
          fallback_note=f"Query token {{old}} does not exist ({count} tokens); using token {{new}}.")
    if count == 1:
        st.caption(f"{label}: {settings.labels[0]} (the only token)")
        return 0
    picked = control(st.select_slider, label, "query", options=list(range(1, count + 1)),
                     format_func=lambda i: settings.labels[i - 1])
    return picked - 1


def key_picker(settings: Settings, label: str = "Key token") -> int:
    """The key token of the selected cell (1-based in the URL); returns its 0-based index."""
    count = len(settings.tokens)
    clamp("key", low=1, high=count,
          fallback_note=f"Key token {{old}} does not exist ({count} tokens); using token {{new}}.")
    if count == 1:
        return 0
    picked = control(st.select_slider, label, "key", options=list(range(1, count + 1)),
                     format_func=lambda i: settings.labels[i - 1])
    return picked - 1


def md_escape(text: str) -> str:
    """User text (typed tokens) made literal inside st.markdown: no bold, links, math or HTML."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|$<>~])", r"\\\1", text)


def short(number: float) -> str:
    """4 decimals without trailing zeros: 0.55 stays 0.55, 0.95440 becomes 0.9544."""
    text = f"{number:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def dot_product_latex(lhs: str, a_name: str, b_name: str, a, b, max_terms: int = 6) -> str:
    """`lhs = a . b = a1*b1 + a2*b2 + ... = total` with the real numbers (long sums abridged)."""
    a, b = torch.as_tensor(a).float().cpu(), torch.as_tensor(b).float().cpu()
    terms = [rf"{short(x)} \cdot {short(y)}" for x, y in zip(a.tolist(), b.tolist())]
    if len(terms) > max_terms:
        terms = terms[: max_terms - 1] + [rf"\dots\ ({len(terms)} \text{{ terms}})"]
    total = float(torch.dot(a, b))
    return rf"{lhs} = {a_name} \cdot {b_name} = " + " + ".join(terms).replace("+ -", "- ") + rf" = {total:.4f}"


def current() -> Settings:
    """The settings app.py read from the sidebar in this run, with their notes shown on top."""
    if "settings" not in st.session_state:
        # app.py never ran in this session: Streamlit's older multipage mode served the page file
        # directly (a fresh server and a path like /home). Build the sidebar here instead.
        st.session_state["settings"] = sidebar()
    settings = st.session_state["settings"]
    for message in settings.notes:
        note(message)
    return settings


def heads_picker(d_out: int) -> int:
    options = divisors(d_out)
    clamp("heads", options=options,
          fallback_note=f"{{old}} heads do not divide d_out = {d_out}; using {{new}} heads.")
    return control(st.select_slider, "num_heads (divisors of d_out only)", "heads", options=options)
