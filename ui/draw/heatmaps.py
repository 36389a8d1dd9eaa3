"""Static matrices on screen: Altair cells up to 64 tokens, an image above. A matrix whose query, key or
zoom window the visitor moves is drawn by the attention view instead (view_route.show_view).

One route: tensor → numpy → colours (attention_core.drawing: colour, charts, matrix_images) → a cached
spec or PNG → ui.draw.vega's draw_spec / draw_image, which also add the downloads. What a map is
(`kind`: weights, scores or mask) picks its colour.ColourScale, and settings.colour picks a weights map's
(colour.scale_for, once per map): the scale object then travels to every drawing call.
"""
import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st
import torch

from attention_core.drawing import charts, colour, matrix_images
from ui.draw.export import png_bytes
from ui.compute.built import cached_image, cached_spec
from ui.compute.keys import fingerprint, labels_key
from ui.draw.vega import draw_image, draw_spec, font_scale
from ui.state.settings import Settings


BAR_WIDTH = matrix_images.OVERVIEW_PX  # an image map's colour bar: as wide as the map


def as_numpy(matrix) -> np.ndarray:
    """A tensor (any device) or array as a float32 numpy array on the CPU."""
    return np.asarray(torch.as_tensor(matrix).detach().float().cpu())


@dataclass(frozen=True)
class Legend:
    """What a map's colours mean: words, and the colour bar of an image map (None under an Altair map)."""
    words: str
    bar: bytes | None = None


def draw_legend(legend: "Legend | None") -> None:
    if legend is None:
        return
    if legend.bar is None:
        st.caption(legend.words)
        return
    # As wide as the map above it (512 px, or its column where narrower: width="content"; an int width ran past a
    # 397 px column): a caption is as narrow as its image, and under a 256 px strip the words ran to 7 lines. One
    # element, not a strip and a caption: a screen's lesson keeps few (test_sections_browser).
    st.image(legend.bar, output_format="PNG", caption=legend.words, alt=f"colour scale: {legend.words}")


def show_matrix(matrix, settings: Settings, kind: str = "weights", title: str = "",
                selected_row: int | None = None, selected_cell=None, row_labels=None, col_labels=None,
                legend: bool = True, mask_labels: tuple[str, str] | None = None, mask_dark: int = 1) -> Legend | None:
    """A heatmap that stays quick at every size.

    Up to 64 tokens: one Altair cell per value, with tooltips. Above: an image of block maxima (block
    means for scores) with a colour bar; exact values of a window of a large map are the attention
    view's (view_route.show_view). mask_labels: what a mask's 0 and 1 mean; mask_dark: the value drawn dark
    (0 draws a mask whose 0 means what another's 1 means in that one's colours; its numbers stay its own).
    Returns the map's legend (None: it has none), drawn under it unless legend=False: maps side by side on
    one scale then share one (draw_legend once for each different legend).
    """
    values, key = as_numpy(matrix), fingerprint(matrix)
    rows = row_labels or settings.labels[: values.shape[0]]
    cols = col_labels or settings.labels[: values.shape[1]]
    scale = colour.scale_for(kind, settings.colour, max(values.shape))

    def frame():
        return pd.DataFrame(values, index=rows, columns=cols)

    if max(values.shape) <= charts.ALTAIR_MAX:
        font = font_scale()
        spec = cached_spec(("heatmap", key, labels_key(rows), labels_key(cols), kind, scale, title,
                            mask_labels, mask_dark, font),
                           lambda: charts.finished(charts.heatmap(values, rows, cols, kind, title, font_scale=font,
                                                                  scale=scale, mask_labels=mask_labels,
                                                                  mask_dark=mask_dark),
                                                   font))
        draw_spec(charts.select(spec, rows, cols, selected_row, selected_cell), title, frame, width="content")
        found = Legend(scale.words) if scale.words else None
    else:
        found = _image_map(values, key, kind, scale, title, frame, mask_labels, mask_dark)
    if legend:
        draw_legend(found)
    return found


def _image_map(values, key, kind, scale, title, frame, mask_labels, mask_dark) -> Legend:
    """A large map as a PNG of blocks, captioned with how it was reduced; its legend is returned."""
    flipped = kind == "mask" and mask_dark == 0  # the picture only: its table keeps the mask's own values
    png, blocks, (low, high) = cached_image(("image", key, kind, scale, flipped),
                                            lambda: overview_png(values, kind, scale, inverted=flipped))
    draw_image(png, title, f"{title}: {values.shape[0]:,} × {values.shape[1]:,} drawn as an image ({blocks})"
               + ("." if kind == "mask" else "; hatched grey = masked."), table=frame)
    return Legend(_legend(scale, low, high, mask_labels, mask_dark), _colour_bar_png(scale, low >= 0, high <= 0))


def overview_png(values: np.ndarray, kind: str, scale: colour.ColourScale, inverted: bool = False):
    """The overview as PNG bytes, encoded once: st.image would encode a 512 x 512 array on every rerun
    (tens of ms each), and the same bytes are stored once by Streamlit's media manager for every session.
    inverted: 1 − values drawn, its caption's words about values (matrix_images.overview_blocks)."""
    image, blocks, value_range = matrix_images.overview(values, kind, scale, inverted)
    return png_bytes(image), blocks, value_range


@functools.cache
def _colour_bar_png(scale: colour.ColourScale, no_negative: bool = False, no_positive: bool = False) -> bytes:
    """The legend strip; around zero (scores), only the half of the palette a one-sided range uses."""
    signs = (0.0 if no_negative else -1.0, 0.0 if no_positive else 1.0)
    return png_bytes(scale.bar(signs if scale.around_zero else None, width=BAR_WIDTH, height=12))


def _legend(scale: colour.ColourScale, low: float, high: float, mask_labels: tuple[str, str] | None = None,
            mask_dark: int = 1) -> str:
    """The colour bar's caption in plain words (the picture's own caption says what hatched grey is)."""
    if scale.relative:
        return (f"colour: each weight against an even share of its query's visible keys (1/n), log scale: "
                f"pale = {colour.times_even(low)} or less, dark = {colour.times_even(high)} or more "
                "(this map's 2nd to 98th percentile)")
    if scale.two_tone:
        return "colour: " + colour.mask_legend(mask_labels, mask_dark)
    if scale.around_zero:
        return ("colour: " + colour.score_legend(low, high) + f" or beyond (the {matrix_images.SCORE_PERCENTILE}th "
                "percentile of this map's |block means|); hatched grey = masked (−∞)")
    return "colour: weight 0 (pale) … 1 (dark)"
