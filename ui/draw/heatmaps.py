"""Static matrices on screen: Altair cells up to 64 tokens, an image with a zoom window above. A matrix
whose query and key the visitor moves is drawn by the attention view instead (view_route.show_view).

One route: tensor → numpy → colours (attention_core.drawing: colour, charts, matrix_images) → a cached
spec or PNG → ui.draw.vega's draw_spec / draw_image, which also add the downloads. What a map is
(`kind`: weights, scores or mask) and how weights are coloured (`weight_scale`: "absolute" or "share",
resolved once from settings.colour by colour.weight_scale) travel together under those two names.
"""
import functools

import numpy as np
import pandas as pd
import streamlit as st
import torch

from attention_core.drawing import charts, colour, matrix_images
from ui.draw.export import png_bytes
from ui.draw.vega import (cached_image, cached_spec, draw_image, draw_spec, fingerprint, font_scale,
                          labels_key)
from ui.settings import Settings
from ui.state import clamp, control, fragment, set_value


def as_numpy(matrix) -> np.ndarray:
    """A tensor (any device) or array as a float32 numpy array on the CPU."""
    return np.asarray(torch.as_tensor(matrix).detach().float().cpu())


def show_matrix(matrix, settings: Settings, kind: str = "weights", title: str = "",
                selected_row: int | None = None, selected_cell=None, row_labels=None, col_labels=None,
                zoom: bool = False, clickable: bool = False, legend: bool = True,
                mask_labels: tuple[str, str] | None = None):
    """A heatmap that stays quick at every size.

    Up to 64 tokens: one Altair cell per value, tooltips, and (clickable) a click picks the query
    and key. Above: an image of block maxima (block means for scores) with a colour bar, and
    (zoom, once per screen) a 32-64 token window of exact values. mask_labels: what a mask's 0 and 1 mean.
    """
    values, key = as_numpy(matrix), fingerprint(matrix)
    rows = row_labels or settings.labels[: values.shape[0]]
    cols = col_labels or settings.labels[: values.shape[1]]
    weight_scale = colour.weight_scale(settings.colour, max(values.shape)) if kind == "weights" else "absolute"

    def frame():
        return pd.DataFrame(values, index=rows, columns=cols)

    if max(values.shape) <= charts.ALTAIR_MAX:
        scale = font_scale()
        spec = cached_spec(("heatmap", key, labels_key(rows), labels_key(cols), kind, weight_scale, title, clickable,
                            mask_labels, scale),
                           lambda: charts.finished(charts.heatmap(values, rows, cols, kind, title, clickable=clickable,
                                                                  font_scale=scale, weight_scale=weight_scale,
                                                                  mask_labels=mask_labels), scale))
        spec = charts.select(spec, rows, cols, selected_row, selected_cell)
        if clickable:
            key = f"click:{title}"
            draw_spec(spec, title, frame, width="content", key=key,
                      on_select=functools.partial(_pick_cell, key), selection_mode="cell")
        else:
            draw_spec(spec, title, frame, width="content")
        if legend and weight_scale == "share" and kind == "weights":
            st.caption(colour.SHARE_WORDS)
        return
    png, blocks, (low, high) = cached_image(("image", key, kind, weight_scale),
                                            lambda: overview_png(values, kind, weight_scale))
    draw_image(png, title, f"{title}: {values.shape[0]} × {values.shape[1]} drawn as an image ({blocks})"
               + ("." if kind == "mask" else "; hatched grey = masked."), table=frame)
    if legend:
        st.image(_colour_bar_png(kind, weight_scale, low >= 0, high <= 0), output_format="PNG",
                 caption=_legend(kind, weight_scale, low, high, mask_labels), width=256)
    if zoom:
        zoom_window(values, key, rows, cols, kind, title, weight_scale)


def _pick_cell(chart_key: str) -> None:
    """A click on a heatmap cell selects that query and key (runs before the rerun)."""
    picked = st.session_state[chart_key].selection.get("cell") or []
    if picked:
        set_value("query", int(picked[0]["i"]) + 1)
        set_value("key", int(picked[0]["j"]) + 1)


@fragment
def zoom_window(values: np.ndarray, key: str, rows, cols, kind: str, title: str, weight_scale: str = "absolute") -> None:
    """A window of exact values of a large map (key: its fingerprint); moving it reruns only this fragment."""
    n_rows, n_cols = values.shape
    size = control(st.select_slider, "Zoom: window size", "window_size", options=[32, 40, 48, 56, 64])
    left, right = st.columns(2)
    with left:
        clamp("window", low=1, high=n_rows - size + 1)
        r0 = control(st.slider, "Zoom: queries from", "window", min_value=1, max_value=n_rows - size + 1)
    with right:
        clamp("window_key", low=1, high=n_cols - size + 1)
        c0 = control(st.slider, "Zoom: keys from", "window_key", min_value=1, max_value=n_cols - size + 1)
    part = matrix_images.window(values, r0 - 1, c0 - 1, size)
    context = None
    if kind == "weights":  # masked cells and shares are those of the whole map, not of the window
        masked, shares, share_range = _share_context(key, values)
        context = (matrix_images.window(masked, r0 - 1, c0 - 1, size), matrix_images.window(shares, r0 - 1, c0 - 1, size),
                   share_range)
    name = f"{title}: queries {r0}–{r0 + size - 1}, keys {c0}–{c0 + size - 1}"
    rows_in, cols_in = rows[r0 - 1: r0 - 1 + size], cols[c0 - 1: c0 - 1 + size]
    scale = font_scale()
    spec = cached_spec(("window", key, r0, c0, size, labels_key(rows_in), labels_key(cols_in), kind, weight_scale,
                        name, scale),
                       lambda: charts.finished(charts.heatmap(part, rows_in, cols_in, kind, name, size=480,
                                                              font_scale=scale, weight_scale=weight_scale,
                                                              context=context), scale))
    draw_spec(charts.select(spec, rows_in, cols_in), name, lambda: pd.DataFrame(part, index=rows_in, columns=cols_in),
              width="content")


def overview_png(values: np.ndarray, kind: str, weight_scale: str):
    """The overview as PNG bytes, encoded once: st.image would encode a 512 x 512 array on every rerun
    (tens of ms each), and the same bytes are stored once by Streamlit's media manager for every session."""
    image, blocks, value_range = matrix_images.overview(values, kind, weight_scale)
    return png_bytes(image), blocks, value_range


@functools.cache
def _colour_bar_png(kind: str, weight_scale: str, no_negative: bool = False, no_positive: bool = False) -> bytes:
    """The legend strip; for scores, only the half of the palette a one-sided range uses."""
    if kind == "weights" and weight_scale == "share":
        return png_bytes(colour.colour_bar("share"))
    return png_bytes(colour.colour_bar(kind, low=0.0 if no_negative else -1.0, high=0.0 if no_positive else 1.0))


# One zoomed map at a time per student, 5 MB each at 1,024 tokens: a few are plenty.
@st.cache_resource(max_entries=4, show_spinner=False)
def _share_context(key: str, _values: np.ndarray):
    """colour.share_context of a whole map (key: its fingerprint), for the windows cut from it."""
    return colour.share_context(_values, np.float32)


def _legend(kind: str, weight_scale: str, low: float, high: float, mask_labels: tuple[str, str] | None = None) -> str:
    """The colour bar's caption in plain words."""
    if kind == "weights" and weight_scale == "share":
        return (f"colour: each weight against an even share of its query's visible keys (1/n), log scale: "
                f"pale = {colour.times_even(low)} or less, dark = {colour.times_even(high)} or more "
                "(this map's 2nd to 98th percentile); hatched grey = masked (future tokens)")
    if kind == "weights":
        return "colour: weight 0 (pale) … 1 (dark); hatched grey = masked (future tokens)"
    if kind == "mask":
        return "colour: " + colour.mask_legend(mask_labels)
    return ("colour: " + colour.score_legend(low, high) + f" or beyond (the {matrix_images.SCORE_PERCENTILE}th "
            "percentile of this map's |block means|); hatched grey = masked (−∞)")
