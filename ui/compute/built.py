"""Things built once per key and shared by every session: chart specs, matrix images, the training grid's spec,
and small demo results. Each cache is Streamlit's own (`st.cache_resource`), keyed on plain values; the leading
underscore of `_build` keeps the builder out of the key. Shared by all sessions: never mutate what these return.
"""
import pandas as pd
import pyarrow as pa
import streamlit as st
from streamlit import dataframe_util

from attention_core.drawing import training_charts
from ui.compute.byte_cache import byte_cache, one_build_at_a_time


# Vega-Lite dicts of at most 64 x 64 cells (about 100 kB each at most, a few kB at the book's sizes): a class
# across five screens and eight d_out keeps a few hundred.
@st.cache_resource(max_entries=512, show_spinner=False)
def _spec(key: tuple, _build) -> dict:
    spec = _build()
    if spec.get("datasets"):
        spec["datasets"] = {name: dataframe_util.convert_anything_to_arrow_bytes(records)
                            for name, records in spec["datasets"].items()}
    return spec


def cached_spec(key: tuple, build) -> dict:
    """`build()`, a finished Vega-Lite dict (charts.finished), once per key (plain values that determine
    it, the font scale included), its datasets as Arrow bytes. Shared by all sessions: never mutate it
    (charts.select returns a copy)."""
    return _spec(key, build)


# RGB overviews of large matrices: at most 512 x 512 x 3 bytes (0.8 MB) each, 38 MB in all. Building one
# at 1,024 tokens holds tens of MB of float64 shares and blocks: a class asking for many at once queues.
@st.cache_resource(max_entries=48, show_spinner=False)
def _image(key: tuple, _build):
    return one_build_at_a_time(_build)


def cached_image(key: tuple, build):
    """`build()` (an image and its caption parts) once per key, shared by all sessions."""
    return _image(key, build)


@st.cache_resource(max_entries=16, show_spinner=False)
def grid_spec(labels: tuple, layers: int, heads: int, scale: float) -> dict:
    """The trained models' every-head grid: the spec depends only on the labels and sizes."""
    return training_charts.head_grid_spec(list(labels), layers, heads, scale)


# Small results of the screens' demos (a readers' question's table, a few kB): once per key for the whole server.
@st.cache_resource(max_entries=64, show_spinner=False)
def _once(key: tuple, _build):
    return _build()


def once(key: tuple, build):
    """`build()` once per key (plain values that determine it) for every session."""
    return _once(key, build)


# Bounded in bytes, not entries: a 1,024-token map with its overview is megabytes, a book-sized one a few
# kB, and a class moving d_out and the heads across five screens needs about a hundred of those at once
# (32 entries thrashed: every move rebuilt its payloads). The key is plain values, hashed by Python.
@byte_cache(max_mb=80)
def payload(key: tuple, *, _build) -> dict:
    """An attention view's payload (view_data.view_payload's), its tables as Arrow, once per key."""
    # Its tables as Arrow once: Streamlit converts a pandas table on every rerun that mounts it (4 ms a view).
    return {name: pa.Table.from_pandas(part, preserve_index=False) if isinstance(part, pd.DataFrame) else part
            for name, part in _build().items()}


# Tables as Arrow, converted once: pandas -> Arrow costs 2-8 ms a table, a dozen tables a rerun, and a
# slider that moves only the query leaves them unchanged. Up to 8 x 8 values (a few kB) each; a class
# across five screens, eight d_out and the head counts keeps several hundred.
@st.cache_resource(max_entries=512, show_spinner=False)
def _arrow_table(key: tuple, _build) -> pa.Table:
    return pa.Table.from_pandas(_build(), preserve_index=True)


def arrow_table(key: tuple, build) -> pa.Table:
    """`build()` (a pandas table) as Arrow, once per key (plain values that determine it)."""
    return _arrow_table(key, build)
