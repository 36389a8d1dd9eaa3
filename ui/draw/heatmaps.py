"""Static matrices on screen: Altair cells up to 64 tokens, an image above. A matrix whose query, key or
zoom window the visitor moves is drawn by the attention view instead (view_route.show_view).

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


def as_numpy(matrix) -> np.ndarray:
    """A tensor (any device) or array as a float32 numpy array on the CPU."""
    return np.asarray(torch.as_tensor(matrix).detach().float().cpu())


def show_matrix(matrix, settings: Settings, kind: str = "weights", title: str = "",
                selected_row: int | None = None, selected_cell=None, row_labels=None, col_labels=None,
                legend: bool = True, mask_labels: tuple[str, str] | None = None, mask_dark: int = 1):
    """A heatmap that stays quick at every size.

    Up to 64 tokens: one Altair cell per value, with tooltips. Above: an image of block maxima (block
    means for scores) with a colour bar; exact values of a window of a large map are the attention
    view's (view_route.show_view). mask_labels: what a mask's 0 and 1 mean; mask_dark: the value drawn dark
    (0 draws a mask whose 0 means what another's 1 means in that one's colours; its numbers stay its own).
    """
    values, key = as_numpy(matrix), fingerprint(matrix)
    rows = row_labels or settings.labels[: values.shape[0]]
    cols = col_labels or settings.labels[: values.shape[1]]
    weight_scale = colour.weight_scale(settings.colour, max(values.shape)) if kind == "weights" else "absolute"

    def frame():
        return pd.DataFrame(values, index=rows, columns=cols)

    if max(values.shape) <= charts.ALTAIR_MAX:
        scale = font_scale()
        spec = cached_spec(("heatmap", key, labels_key(rows), labels_key(cols), kind, weight_scale, title,
                            mask_labels, mask_dark, scale),
                           lambda: charts.finished(charts.heatmap(values, rows, cols, kind, title, font_scale=scale,
                                                                  weight_scale=weight_scale, mask_labels=mask_labels,
                                                                  mask_dark=mask_dark),
                                                   scale))
        draw_spec(charts.select(spec, rows, cols, selected_row, selected_cell), title, frame, width="content")
        if legend and weight_scale == "share" and kind == "weights":
            st.caption(colour.SHARE_WORDS)
        return
    flipped = kind == "mask" and mask_dark == 0  # the picture only: its table keeps the mask's own values
    png, blocks, (low, high) = cached_image(("image", key, kind, weight_scale, flipped),
                                            lambda: overview_png(1 - values if flipped else values, kind, weight_scale))
    draw_image(png, title, f"{title}: {values.shape[0]} × {values.shape[1]} drawn as an image ({blocks})"
               + ("." if kind == "mask" else "; hatched grey = masked."), table=frame)
    if legend:
        st.image(_colour_bar_png(kind, weight_scale, low >= 0, high <= 0), output_format="PNG",
                 caption=_legend(kind, weight_scale, low, high, mask_labels, mask_dark), width=256)


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


def _legend(kind: str, weight_scale: str, low: float, high: float, mask_labels: tuple[str, str] | None = None,
            mask_dark: int = 1) -> str:
    """The colour bar's caption in plain words."""
    if kind == "weights" and weight_scale == "share":
        return (f"colour: each weight against an even share of its query's visible keys (1/n), log scale: "
                f"pale = {colour.times_even(low)} or less, dark = {colour.times_even(high)} or more "
                "(this map's 2nd to 98th percentile); hatched grey = masked (future tokens)")
    if kind == "weights":
        return "colour: weight 0 (pale) … 1 (dark); hatched grey = masked (future tokens)"
    if kind == "mask":
        return "colour: " + colour.mask_legend(mask_labels, mask_dark)
    return ("colour: " + colour.score_legend(low, high) + f" or beyond (the {matrix_images.SCORE_PERCENTILE}th "
            "percentile of this map's |block means|); hatched grey = masked (−∞)")
