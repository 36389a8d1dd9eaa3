"""The dropout screen's own pictures: one query's row before and after on one axis, and where
dropout struck in a map too large to draw cell by cell."""
import numpy as np
import pandas as pd
import streamlit as st

from attention_core.drawing import charts, colour, matrix_images
from ui.draw.heatmaps import as_numpy, zoom_window
from ui.draw.export import png_bytes
from ui.settings import Settings
from ui.draw.vega import (arrow_bytes, cached_image, cached_spec, draw_image, draw_spec, fingerprint, font_scale,
                          labels_key)


def key_window(num_keys: int, query: int, size: int = charts.ALTAIR_MAX) -> slice:
    """The keys a long row shows: the `size` keys that end at the query (a causal row sees no later
    key), or the first `size` when the query is among them."""
    end = min(num_keys, max(query + 1, size))
    return slice(max(0, end - size), end)


def show_dropout_rows(weights, dropped, settings: Settings, q: int, k: int) -> None:
    """Query q's weights before and after dropout, two bar charts on one 0-to-max axis, the dropped
    weights outlined where they stood."""
    before, after = as_numpy(weights)[q], as_numpy(dropped)[q]
    keys = key_window(len(before), q)
    labels = settings.labels[keys]
    if len(before) > charts.ALTAIR_MAX:
        st.caption(f"Query {settings.labels[q]} sees {q + 1:,} keys; the bars show keys {keys.start + 1:,}–{keys.stop:,}.")
    before, after = before[keys], after[keys]
    top = float(max(before.max(initial=0.0), after.max(initial=0.0))) or 1.0  # both charts end here
    highlight = k - keys.start if keys.start <= k < keys.stop else None
    scale = font_scale()
    for title, values, was in (("weights of the selected query", before, before),
                               ("after dropout, the selected query", after, before)):
        spec = cached_spec(("dropout bars", labels_key(labels), title, scale),
                           lambda: charts.finished(charts.dropout_bars(labels, title, font_scale=scale), scale))
        spec = dict(spec, datasets={charts.ROW: arrow_bytes(charts.dropout_row_data(values, was, labels, top,
                                                                                      highlight))})
        draw_spec(spec, title, lambda v=values: pd.DataFrame({"key": labels, "weight": v}).set_index("key"),
                  width="stretch")
    n_dropped = int(((before > 0) & (after == 0)).sum())
    st.caption(f"Both charts share one axis, 0 to {top:.4f}. Dashed red outline: a weight dropout removed "
               f"({n_dropped} of the {int((before > 0).sum())} shown), drawn at its height before dropout.")


def show_where_dropped(keep, visible, dropped, settings: Settings, title: str) -> None:
    """A large map: where dropout struck (the share dropped per block), then a window of exact values."""
    keep_np = as_numpy(keep)
    png, blocks, top = cached_image(("dropped share", fingerprint(keep), fingerprint(visible)),
                                    lambda: _dropped_png(keep_np, as_numpy(visible)))
    draw_image(png, f"{title}: where dropout struck",
               f"Where dropout struck: {keep_np.shape[0]:,} × {keep_np.shape[1]:,}, {blocks} (pale = none "
               f"dropped, dark = {top:.0%} of the block's visible weights or more); hatched grey = masked "
               "(future tokens). A map of the weights themselves would hide a few zeros among their neighbours.",
               width=512)
    values = as_numpy(dropped)
    # The window in the screen's colours (shares at this size): a dropped weight takes the palest colour.
    zoom_window(values, fingerprint(dropped), settings.labels[: values.shape[0]], settings.labels[: values.shape[1]],
                "weights", title, colour.weight_scale(settings.colour, values.shape[0]))
    st.caption("The window shows the exact weights after dropout: a dropped weight is 0.0000, drawn in the "
               "palest colour.")


def _dropped_png(keep: np.ndarray, visible: np.ndarray):
    image, blocks, top = matrix_images.dropped_overview(keep, visible)
    return png_bytes(image), blocks, top
