"""A matrix with its selected query and key, drawn by the browser-side attention view.

The same route as ui.draw.heatmaps (tensor → numbers and colours in attention_core.drawing → one draw
call), ending in the view instead of Vega: Python sends the numbers once (view_data.view_payload, cached
per map and per starting selection) and every query, key or zoom move is drawn in the browser with no
rerun. Python learns the selection when the visitor commits it (Enter or the view's button): the screen's
own lines below the view follow the committed query and key.
"""
import numpy as np
import pandas as pd
import streamlit as st

from attention_core.drawing import charts, colour, view_data
from attention_core.lessons.presets import PARAMS
from ui.compute.built import payload
from ui.draw.export import download_buttons
from ui.draw.heatmaps import as_numpy, overview_png
from ui.compute.keys import fingerprint, labels_key
from ui.draw.vega import font_scale
from ui.state.settings import Settings, this_run
from ui.state.controls import committed
from ui.state.session import set_value, value
from ui.view.view import attention_view

SELECTION = ("query", "key", "window", "window_key", "window_size")

def _commit(view_key: str, frames: dict | None) -> None:
    """The view's Enter: its selection becomes the app's query, key, zoom window and frame (and so the URL's)."""
    selection = st.session_state[view_key].get("selection") or {}
    for name in SELECTION:
        if isinstance(selection.get(name), int):
            set_value(name, selection[name])
    dims = (frames or {}).get("dims", [frames] if frames else [])
    for n, dim in enumerate(dims):
        allowed = dim["values"]
        if "lengths" in dim:  # ragged (num_heads × head): only the values under the committed value of the dim before
            before = dims[n - 1]["values"]
            allowed = allowed[:dim["lengths"][before.index(selection[dims[n - 1]["param"]])]] \
                if selection.get(dims[n - 1]["param"]) in before else []
        if selection.get(dim["param"]) in allowed:
            set_value(dim["param"], PARAMS[dim["param"]].kind(selection[dim["param"]]))

def show_view(matrix, settings: Settings, kind: str = "weights", title: str = "", *, view_key: str,
              worked=None, names=("q", "k"), also=(), vectors=(), row_title: str = "",
              parts=("matrix", "row", "cell", "arithmetic"), commit: bool = False, frames: dict | None = None,
              dropped_from: int | None = None, labels=None, selection: tuple[int, int] | None = None,
              order=None, order_name: str = "", first: int = 1, hatched: str = "masked") -> tuple[int, int]:
    """Draw `matrix` (T, T) in the view; returns the committed (query, key), 0-based. With `frames`
    (view_data.view_payload's), matrix is a stack (F, T, T) and the browser scrubs it.

    worked: (q, k, scores) with q, k (T, d) and scores (T, T), for the worked arithmetic of the selected
    cell, whose rows are called `names`. also: (title, matrix, kind) whose selected row is drawn as more bars; vectors: (name, (T, d))
    printed for the selected query. view_key: one per view on a page. commit: the lesson below uses the
    returned query and key, so the view offers a button (and Enter) to send them. labels: the tokens'
    names (default: the sidebar's). dropped_from: the
    `also` row (1 = the first) holding the weights before dropout: the main row marks the ones dropped.
    selection: the (query, key) to open at, 0-based, for a map that is not of the sidebar's tokens (an
    experiment's): such a view neither reads nor moves the app's query and key. order, order_name: what ranks
    every bar list of the view (view_data.view_payload's), e.g. the scores under weights that round to 0.0000.
    first: the number the view gives its first row and column (0 for positions counted from 0). hatched: what
    the legend says a hatched cell is (a KV cache's also holds the rows of tokens not fed yet)."""
    values = as_numpy(matrix)  # (T, T) or (F, T, T)
    count = values.shape[-1]
    labels = list(labels or settings.labels[:count])
    query, key = committed(count) if selection is None else selection
    scale = colour.scale_for(kind, settings.colour, count)
    extras = tuple((name, as_numpy(m), k, colour.scale_for(k, settings.colour, count)) for name, m, k in also)
    vecs = tuple((name, as_numpy(v), *fields) for name, v, *fields in vectors)
    worked_in, worked = worked, None if worked is None else tuple(as_numpy(t) for t in worked)
    window = (value("window"), value("window_key"), value("window_size"))
    font = font_scale()
    # Fingerprints of the tensors as passed: views of a cached trace remember theirs (ui/compute/keys.py).
    cache_key = (fingerprint(matrix), tuple(fingerprint(m) for _, m, *_ in also), tuple(fingerprint(v) for _, v, *_ in vectors),
                 None if worked is None else tuple(fingerprint(t) for t in worked_in), labels_key(map(str, labels)),
                 kind, scale, title, row_title, query, key, window, font, tuple(parts),
                 tuple((name, extra_scale) for name, _, _, extra_scale in extras),
                 tuple((name, *fields) for name, _, *fields in vecs), tuple(names), commit,
                 None if frames is None else repr(sorted(frames.items())), dropped_from, selection,
                 None if order is None else fingerprint(order), order_name, first, hatched)

    def build():
        q, k, scores = worked if worked is not None else (None, None, None)
        data = view_data.view_payload(values, labels, kind, scale, title, query + 1, key + 1,
                                      *window, q=q, k=k, scores=scores, font_scale=font, parts=tuple(parts),
                                      row_title=row_title, also=extras, vectors=vecs, names=tuple(names), commit=commit,
                                      frames=frames, dropped_from=dropped_from, url_selection=selection is None,
                                      order=None if order is None else as_numpy(order), order_name=order_name,
                                      first=first)
        data["meta"]["hatched"] = hatched
        return data

    attention_view(payload(cache_key, _build=build), key=view_key, on_commit=lambda: _commit(view_key, frames))
    if scale.words and "matrix" in parts:  # bars alone show no colour scale
        st.caption(scale.words)
    if this_run().downloads:
        shown = values if frames is None else values.reshape(-1, count, count)[frames["initial"]]  # the frame Python knows of
        _downloads(shown, labels, kind, scale, title)
    return query, key

def _downloads(values: np.ndarray, labels: list, kind: str, scale: colour.ColourScale, title: str) -> None:
    """PNG (and SVG below 64 tokens) of the whole map and its CSV, as under every other chart."""
    table = lambda: pd.DataFrame(values, index=labels, columns=labels)  # noqa: E731
    if max(values.shape) <= charts.ALTAIR_MAX:
        spec = charts.finished(charts.heatmap(values, labels, labels, kind, title, scale=scale), 1.0)
        download_buttons(title, spec=spec, table=table)
    else:
        download_buttons(title, image=overview_png(values, kind, scale)[0], table=table)
