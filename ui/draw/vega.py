"""Vega-Lite specs and matrix images, built once and shared by every session.

Building and serialising an Altair chart costs tens of milliseconds; a slider that only moves a
selection then costs a dict copy. A cached spec holds its datasets already as Arrow bytes (what
Streamlit sends; converting 4,096 cells costs about 7 ms a chart on every rerun otherwise), and its
dataset names do not depend on the numbers (charts.to_spec), so the browser keeps its Vega view and
swaps the data. Both caches are Streamlit's own (`st.cache_resource`), keyed on plain values: the
leading underscore of `_build` keeps the builder out of the key.
"""
import functools
import hashlib
import threading
import weakref

import numpy as np
import pyarrow as pa
import streamlit as st
import torch
from streamlit import dataframe_util

from attention_core.drawing import charts
from ui.byte_cache import one_at_a_time
from ui.draw.export import download_buttons
from ui.settings import this_run


def font_scale() -> float:
    """Presenter mode enlarges chart fonts and cells for a projector."""
    return 1.6 if this_run().presenter else 1.0


def digest(values: np.ndarray) -> str:
    """A short fingerprint of a matrix: cache keys hold this, never the matrix."""
    return hashlib.blake2b(np.ascontiguousarray(values), digest_size=16).hexdigest()


# Hashing a 1,024 x 1,024 map costs about 5 ms, and a GPT-2-sized heads screen shows a dozen on every
# rerun. Maps usually are views of a cached trace's tensor, which nobody mutates: their fingerprint is
# remembered per base tensor (and forgotten with it), keyed also on torch's version counter of in-place changes.
_FINGERPRINTS: dict[int, tuple] = {}  # id(base tensor) -> (weak reference to it, {view: digest})
_FINGERPRINTS_LOCK = threading.Lock()


def _forget(base_id: int) -> None:
    with _FINGERPRINTS_LOCK:
        _FINGERPRINTS.pop(base_id, None)


def labels_key(labels) -> str:
    """Axis labels as one short cache-key string: Streamlit's cache hashes a tuple element by element,
    about 1 ms for 64 labels, a dozen charts a rerun."""
    return hashlib.blake2b("\x1f".join(labels).encode(), digest_size=16).hexdigest()


def fingerprint(matrix) -> str:
    """digest() of a tensor or array, remembered for views of the same tensor while it lives.

    Keyed by id() with an identity check, not by the tensor: weak-keyed dicts compare keys with ==,
    which for tensors is elementwise."""
    if not isinstance(matrix, torch.Tensor):
        return digest(np.asarray(matrix))
    base = matrix._base if matrix._base is not None else matrix
    where = (matrix.storage_offset(), tuple(matrix.shape), matrix.stride(), matrix.dtype, base._version)
    with _FINGERPRINTS_LOCK:
        ref, known = _FINGERPRINTS.get(id(base), (None, {}))
        if ref is None or ref() is not base:  # first time, or an old entry for a dead tensor with the same id
            ref, known = weakref.ref(base, lambda _, i=id(base): _forget(i)), {}
            _FINGERPRINTS[id(base)] = (ref, known)
        found = known.get(where)
    if found is None:
        found = digest(np.asarray(matrix.detach().float().cpu()))
        with _FINGERPRINTS_LOCK:
            known[where] = found
    return found


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


def arrow_bytes(records: list[dict]) -> bytes:
    """Records as the Arrow stream Streamlit sends (straight from pyarrow: via pandas costs about 2 ms)."""
    table = pa.Table.from_pylist(records)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


# RGB overviews of large matrices: at most 512 x 512 x 3 bytes (0.8 MB) each, 38 MB in all. Building one
# at 1,024 tokens holds tens of MB of float64 shares and blocks: a class asking for many at once queues.
@st.cache_resource(max_entries=48, show_spinner=False)
def _image(key: tuple, _build):
    return one_at_a_time(_build)


def cached_image(key: tuple, build):
    """`build()` (an image and its caption parts) once per key, shared by all sessions."""
    return _image(key, build)


@functools.lru_cache(maxsize=1024)
def _records_bytes(records: tuple) -> bytes:
    return arrow_bytes([dict(record) for record in records])


def _datasets_as_bytes(spec: dict) -> dict:
    """A spec whose datasets are all Arrow bytes: a selection (charts.select) adds a few records, which
    Streamlit would convert through pandas on every rerun (about 1 ms a chart, six charts on /mask)."""
    datasets = spec.get("datasets") or {}
    if not any(isinstance(records, list) for records in datasets.values()):
        return spec
    return dict(spec, datasets={name: _records_bytes(tuple(tuple(r.items()) for r in records))
                                if isinstance(records, list) else records for name, records in datasets.items()})


def draw_spec(spec: dict, name: str, table=None, data=None, **kwargs):
    """A ready Vega-Lite dict on screen, with its download buttons: the one place a chart is drawn.

    st.vega_lite_chart with a dict skips Streamlit's Altair conversion, which validates the chart
    again and holds a process-wide lock: with a class of users that lock is a queue. data: a table
    for a spec that holds none (the same spec with new data keeps the browser's Vega view).
    """
    spec = _datasets_as_bytes(spec)
    event = st.vega_lite_chart(data, spec=spec, **kwargs)
    if data is not None and this_run().downloads:  # a PNG or SVG needs the data inside the spec
        spec = dict(spec, data={"values": data.to_dict("records")})
    download_buttons(name, spec=spec, table=table)
    return event


def draw_image(png: bytes, name: str, caption: str, table=None, **kwargs) -> None:
    """Encoded PNG bytes on screen, with a PNG (and CSV of `table()`) download: the one place an image is drawn.
    PNG stated: with "auto", Streamlit would decode the bytes and re-encode them as JPEG on every rerun."""
    st.image(png, output_format="PNG", caption=caption, **kwargs)
    download_buttons(name, image=png, table=table)


def chart(drawn, name: str, table=None, **kwargs):
    """An Altair chart drawn with presenter-mode fonts and Download (PNG, SVG, CSV) buttons under it."""
    return draw_spec(charts.finished(drawn, font_scale()), name, table, **kwargs)


def cached_chart(key: tuple, build, name: str, table=None, **kwargs):
    """Like `chart`, but the Altair chart `build()` is built once per key (plain values that determine it)."""
    scale = font_scale()
    return draw_spec(cached_spec(key + (scale,), lambda: charts.finished(build(), scale)), name, table, **kwargs)
