"""Showing tensors: heatmaps that stay quick at any size, bars, tables, code, the device badge."""
import collections
import functools
import hashlib
import inspect
import threading

import numpy as np
import pandas as pd
import streamlit as st
import torch

from attention_core import charts
from attention_core.device import describe
from attention_core.ui.sidebar import Settings
from attention_core.ui.export import download_buttons
from attention_core.ui.state import _set, clamp, control, fragment, note, value

TABLE_MAX = 64  # tables show at most 64 x 64 cells


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
    def frame():
        return pd.DataFrame(values, index=rows, columns=cols)

    if max(values.shape) <= charts.ALTAIR_MAX:
        scale = font_scale()
        spec = cached_spec(("heatmap", _digest(values), tuple(rows), tuple(cols), kind, title, clickable, scale),
                           lambda: charts.heatmap(values, rows, cols, kind, title, clickable=clickable,
                                                  font_scale=scale))
        spec = charts.select(spec, selected_row, selected_cell)
        if clickable:
            key = f"click:{title}"
            draw_spec(spec, title, frame, width="content", key=key,
                      on_select=functools.partial(_pick_cell, key), selection_mode="cell")
        else:
            draw_spec(spec, title, frame, width="content")
        return
    image, blocks = _IMAGES.get(("image", _digest(values), kind), lambda: _overview(values, kind))
    st.image(image, caption=f"{title}: {values.shape[0]} × {values.shape[1]} drawn as an image ({blocks}); "
                            f"grey = masked (−∞).")
    download_buttons(title, image=image, table=frame)
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


@fragment
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
    name = f"{title}: queries {r0}–{r0 + size - 1}, keys {c0}–{c0 + size - 1}"
    rows_in, cols_in = rows[r0 - 1: r0 - 1 + size], cols[c0 - 1: c0 - 1 + size]
    scale = font_scale()
    spec = cached_spec(("window", _digest(part), tuple(rows_in), tuple(cols_in), kind, name, scale),
                       lambda: charts.heatmap(part, rows_in, cols_in, kind, name, size=480, font_scale=scale))
    st.vega_lite_chart(spec=spec, width="content")


def show_row(values, settings: Settings, title: str, kind: str = "weights", highlight=None, row: int | None = None):
    """Bars of one query's row. With `row`, `values` is the whole (T, T) matrix: the chart is built
    once per matrix and a new query only changes a parameter (so keep `title` free of the query)."""
    values = np.atleast_2d(np.asarray(torch.as_tensor(values).detach().float().cpu()))
    if row is None:
        row = 0
    if values.shape[1] > charts.ALTAIR_MAX:
        st.caption(f"{title}: {values.shape[1]} values; the bar chart shows the first {charts.ALTAIR_MAX}.")
        values, row = values[row: row + 1, : charts.ALTAIR_MAX], 0  # only this row: the rest is not drawn
    labels = settings.labels[: values.shape[1]]
    scale = font_scale()
    spec = cached_spec(("bars", _digest(values), tuple(labels), title, kind, scale),
                       lambda: charts.row_bars(values, labels, title, kind, font_scale=scale))
    shown = values[row]
    draw_spec(charts.select(spec, highlight=highlight, selected_row=row), title,
              lambda: pd.DataFrame({"key": labels, kind: shown}).set_index("key"), width="stretch")


def font_scale() -> float:
    """Presenter mode enlarges chart fonts and cells for a projector."""
    return 1.6 if value("presenter") else 1.0


def chart(drawn, name: str, table=None, **kwargs):
    """An Altair chart drawn with presenter-mode fonts and Download (PNG, SVG, CSV) buttons under it."""
    return draw_spec(charts.to_spec(charts.styled(drawn, font_scale())), name, table, **kwargs)


def cached_chart(key: tuple, build, name: str, table=None, **kwargs):
    """Like `chart`, but the Altair chart is built once per key (plain values that determine it)."""
    return draw_spec(cached_spec(key + (font_scale(),), build), name, table, **kwargs)


def draw_spec(spec: dict, name: str, table=None, **kwargs):
    """A ready Vega-Lite dict on screen, with its download buttons.

    st.vega_lite_chart with a dict skips Streamlit's Altair conversion, which validates the chart
    again and holds a process-wide lock: with a class of users that lock is a queue.
    """
    event = st.vega_lite_chart(spec=spec, **kwargs)
    download_buttons(name, spec=spec, table=table)
    return event


class _Memo:
    """A small least-recently-used store shared by all sessions (never mutate what it returns)."""

    def __init__(self, size: int):
        self.size, self.items, self.lock = size, collections.OrderedDict(), threading.Lock()

    def get(self, key: tuple, build):
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        made = build()
        with self.lock:
            self.items[key] = made
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return made


_SPECS = _Memo(256)  # Vega-Lite dicts of at most 64 x 64 cells: a few MB in all
_IMAGES = _Memo(48)  # RGB overviews of large matrices, at most 512 x 512 x 3 bytes each


def _digest(values: np.ndarray) -> str:
    return hashlib.blake2b(np.ascontiguousarray(values).tobytes(), digest_size=16).hexdigest()


def cached_spec(key: tuple, build) -> dict:
    """The Vega-Lite dict of `build()` (an Altair chart), built once per key (its last item: the font scale).

    Building and serialising an Altair chart costs tens of milliseconds; a slider that only moves
    the selection then costs a dict copy.
    """
    return _SPECS.get(key, lambda: charts.to_spec(charts.styled(build(), key[-1])))


def _overview(values: np.ndarray, kind: str) -> tuple[np.ndarray, str]:
    """The image of a large matrix (block maxima, or means for scores) and how it was reduced."""
    factor = charts.overview_factor(max(values.shape))
    how = "mean" if kind == "scores" else "max"
    reduced = charts.block_reduce(values, factor, how)
    blocks = (f"each pixel is the {how} of a {factor} × {factor} block of cells" if factor > 1
              else "one pixel per cell")
    return charts.matrix_image(reduced, kind, max(1, 512 // max(reduced.shape))), blocks


def explain(markdown: str, title: str = "Why it works") -> None:
    """A screen's longer explanation; presenter mode folds it away so the picture stays big."""
    if value("presenter"):
        with st.expander(title, icon=":material/school:"):
            st.markdown(markdown)
    else:
        st.markdown(markdown)


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
    # column_config formats in the browser; a pandas Styler would be rendered in Python on every run.
    st.dataframe(frame, width="content",
                 column_config={str(c): st.column_config.NumberColumn(format="%.4f") for c in frame.columns})


_SOURCE_LOCK = threading.Lock()


@functools.cache
def _source_once(obj) -> str:
    return inspect.getsource(obj)


def source(obj) -> str:
    """An object's source, read once and one thread at a time: Python 3.11's parser is not safe to
    run from many sessions at once (the load test hit "AST constructor recursion depth mismatch")."""
    with _SOURCE_LOCK:
        return _source_once(obj)


def show_code(*objects, title: str = "The PyTorch code of this step") -> None:
    """The exact source that computed what the screen shows (read with inspect, never retyped)."""
    with st.expander(title, icon=":material/code:"):
        for obj in objects:
            st.code(obj if isinstance(obj, str) else source(obj), language="python")


def agreement(checks: list[tuple[str, float]], tolerance: float = 1e-5) -> None:
    """This screen's result next to PyTorch's own: one metric per check, max |difference|."""
    st.subheader("Agreement with PyTorch")
    for column, (label, diff) in zip(st.columns(len(checks)), checks):
        column.metric(label, f"{diff:.1e}", delta="agrees" if diff <= tolerance else "differs",
                      delta_color="normal" if diff <= tolerance else "inverse", delta_arrow="off")
    st.caption(f"Max absolute difference; agreement means ≤ {tolerance:g} (float32 rounding).")


def pitfalls_toggle() -> bool:
    """One switch per screen that reveals the mistakes people make at this step."""
    return control(st.toggle, "Show common mistakes", "pitfalls",
                   help="The wrong code next to the right one, with the numbers each gives.")


def pitfall(title: str, wrong_code: str, right_code: str, wrong, right) -> None:
    """A mistake and its fix side by side: the code, then what each one gives."""
    st.markdown(f"**{title}**")
    left, right_col = st.columns(2)
    with left:
        st.code(wrong_code, language="python")
        st.error(wrong, icon=":material/close:")
    with right_col:
        st.code(right_code, language="python")
        st.success(right, icon=":material/check:")
