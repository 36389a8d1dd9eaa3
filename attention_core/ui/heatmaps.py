"""Matrices and rows on screen: Altair cells up to 64 tokens, an image with a zoom window above."""
import functools

import numpy as np
import pandas as pd
import streamlit as st
import torch

from attention_core import charts
from attention_core.ui.export import download_buttons
from attention_core.ui.settings import Settings
from attention_core.ui.state import clamp, control, fragment, set_value
from attention_core.ui.vega import cached_image, cached_spec, digest, draw_spec, font_scale


def _numpy(matrix) -> np.ndarray:
    return np.asarray(torch.as_tensor(matrix).detach().float().cpu())


def show_matrix(matrix, settings: Settings, kind: str = "weights", title: str = "",
                selected_row: int | None = None, selected_cell=None, row_labels=None, col_labels=None,
                zoom: bool = False, clickable: bool = False, legend: bool = True):
    """A heatmap that stays quick at every size.

    Up to 64 tokens: one Altair cell per value, tooltips, and (clickable) a click picks the query
    and key. Above: an image of block maxima (block means for scores) with a colour bar, and
    (zoom, once per screen) a 32-64 token window of exact values.
    """
    values = _numpy(matrix)
    rows = row_labels or settings.labels[: values.shape[0]]
    cols = col_labels or settings.labels[: values.shape[1]]

    def frame():
        return pd.DataFrame(values, index=rows, columns=cols)

    if max(values.shape) <= charts.ALTAIR_MAX:
        scale = font_scale()
        spec = cached_spec(("heatmap", digest(values), tuple(rows), tuple(cols), kind, title, clickable, scale),
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
    image, blocks = cached_image(("image", digest(values), kind), lambda: _overview(values, kind))
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
    values = _numpy(matrix)
    if max(values.shape) > charts.ALTAIR_MAX:
        _zoom(values, settings.labels[: values.shape[0]], settings.labels[: values.shape[1]], kind, title)


def _pick_cell(chart_key: str) -> None:
    """A click on a heatmap cell selects that query and key (runs before the rerun)."""
    picked = st.session_state[chart_key].selection.get("cell") or []
    if picked:
        set_value("query", int(picked[0]["i"]) + 1)
        set_value("key", int(picked[0]["j"]) + 1)


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
    spec = cached_spec(("window", digest(part), tuple(rows_in), tuple(cols_in), kind, name, scale),
                       lambda: charts.heatmap(part, rows_in, cols_in, kind, name, size=480, font_scale=scale))
    st.vega_lite_chart(spec=spec, width="content")


def show_row(values, settings: Settings, title: str, kind: str = "weights", highlight=None, row: int | None = None):
    """Bars of one query's row. With `row`, `values` is the whole (T, T) matrix: the chart is built
    once per matrix and a new query only changes a parameter (so keep `title` free of the query)."""
    values = np.atleast_2d(_numpy(values))
    if row is None:
        row = 0
    if values.shape[1] > charts.ALTAIR_MAX:
        st.caption(f"{title}: {values.shape[1]} values; the bar chart shows the first {charts.ALTAIR_MAX}.")
        values, row = values[row: row + 1, : charts.ALTAIR_MAX], 0  # only this row: the rest is not drawn
    labels = settings.labels[: values.shape[1]]
    scale = font_scale()
    spec = cached_spec(("bars", digest(values), tuple(labels), title, kind, scale),
                       lambda: charts.row_bars(values, labels, title, kind, font_scale=scale))
    shown = values[row]
    draw_spec(charts.select(spec, highlight=highlight, selected_row=row), title,
              lambda: pd.DataFrame({"key": labels, kind: shown}).set_index("key"), width="stretch")


def _overview(values: np.ndarray, kind: str) -> tuple[np.ndarray, str]:
    """The image of a large matrix (block maxima, or means for scores) and how it was reduced."""
    factor = charts.overview_factor(max(values.shape))
    how = "mean" if kind == "scores" else "max"
    reduced = charts.block_reduce(values, factor, how)
    blocks = (f"each pixel is the {how} of a {factor} × {factor} block of cells" if factor > 1
              else "one pixel per cell")
    return charts.matrix_image(reduced, kind, max(1, 512 // max(reduced.shape))), blocks
