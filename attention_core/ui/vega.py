"""Vega-Lite specs and matrix images, built once and shared by every session.

Building and serialising an Altair chart costs tens of milliseconds; a slider that only moves a
selection then costs a dict copy. Both caches are Streamlit's own (`st.cache_resource`), keyed on
plain values: the leading underscore of `_build` keeps the builder out of the key.
"""
import hashlib

import numpy as np
import streamlit as st

from attention_core import charts
from attention_core.ui.export import download_buttons
from attention_core.ui.state import value


def font_scale() -> float:
    """Presenter mode enlarges chart fonts and cells for a projector."""
    return 1.6 if value("presenter") else 1.0


def digest(values: np.ndarray) -> str:
    """A short fingerprint of a matrix: cache keys hold this, never the matrix."""
    return hashlib.blake2b(np.ascontiguousarray(values).tobytes(), digest_size=16).hexdigest()


# Vega-Lite dicts of at most 64 x 64 cells (about 100 kB each at most): a few MB in all.
@st.cache_resource(max_entries=256, show_spinner=False)
def _spec(key: tuple, _build) -> dict:
    return charts.to_spec(charts.styled(_build(), key[-1]))


def cached_spec(key: tuple, build) -> dict:
    """The Vega-Lite dict of `build()` (an Altair chart), built once per key (its last item: the font
    scale). Shared by all sessions: never mutate it (charts.select returns a copy)."""
    return _spec(key, build)


# RGB overviews of large matrices: at most 512 x 512 x 3 bytes (0.8 MB) each, 38 MB in all.
@st.cache_resource(max_entries=48, show_spinner=False)
def _image(key: tuple, _build):
    return _build()


def cached_image(key: tuple, build):
    """`build()` (an image and its caption parts) once per key, shared by all sessions."""
    return _image(key, build)


def draw_spec(spec: dict, name: str, table=None, **kwargs):
    """A ready Vega-Lite dict on screen, with its download buttons.

    st.vega_lite_chart with a dict skips Streamlit's Altair conversion, which validates the chart
    again and holds a process-wide lock: with a class of users that lock is a queue.
    """
    event = st.vega_lite_chart(spec=spec, **kwargs)
    download_buttons(name, spec=spec, table=table)
    return event


def chart(drawn, name: str, table=None, **kwargs):
    """An Altair chart drawn with presenter-mode fonts and Download (PNG, SVG, CSV) buttons under it."""
    return draw_spec(charts.to_spec(charts.styled(drawn, font_scale())), name, table, **kwargs)


def cached_chart(key: tuple, build, name: str, table=None, **kwargs):
    """Like `chart`, but the Altair chart is built once per key (plain values that determine it)."""
    return draw_spec(cached_spec(key + (font_scale(),), build), name, table, **kwargs)
