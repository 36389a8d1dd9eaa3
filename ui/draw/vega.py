"""The one route that puts a chart or an image on screen (draw_spec, draw_image), with its downloads.

Building and serialising an Altair chart costs tens of milliseconds; a slider that only moves a
selection then costs a dict copy. A spec is built once per key (ui/compute/built.py: its datasets already as
Arrow bytes, what Streamlit sends), and its dataset names do not depend on the numbers (charts.to_spec), so
the browser keeps its Vega view and swaps the data.
"""
import functools

import pyarrow as pa
import streamlit as st

from attention_core.drawing import charts
from ui.compute.built import cached_spec
from ui.draw.export import download_buttons
from ui.state.settings import this_run


def font_scale() -> float:
    """Presenter mode enlarges chart fonts and cells for a projector."""
    return 1.6 if this_run().presenter else 1.0


def arrow_bytes(records: list[dict]) -> bytes:
    """Records as the Arrow stream Streamlit sends (straight from pyarrow: via pandas costs about 2 ms)."""
    table = pa.Table.from_pylist(records)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


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


def draw_image(picture: bytes | str, name: str, caption: str, table=None, **kwargs) -> None:
    """Encoded PNG bytes, or an SVG document (text), on screen, with a PNG or SVG (and CSV of `table()`) download:
    the one place an image is drawn. PNG stated: with "auto", Streamlit would decode the bytes and re-encode them as
    JPEG on every rerun."""
    # alt: a screen reader's name for the picture (WCAG 1.1.1); Streamlit writes none from the caption
    if isinstance(picture, str):  # SVG markup: Streamlit shows it as an image
        st.image(picture, caption=caption, **{"alt": caption} | kwargs)
    else:
        st.image(picture, output_format="PNG", caption=caption, **{"alt": caption} | kwargs)
    download_buttons(name, image=picture, table=table)


def chart(drawn, name: str, table=None, **kwargs):
    """An Altair chart drawn with presenter-mode fonts and Download (PNG, SVG, CSV) buttons under it."""
    return draw_spec(charts.finished(drawn, font_scale()), name, table, **kwargs)


def cached_chart(key: tuple, build, name: str, table=None, **kwargs):
    """Like `chart`, but the Altair chart `build()` is built once per key (plain values that determine it)."""
    scale = font_scale()
    return draw_spec(cached_spec(key + (scale,), lambda: charts.finished(build(), scale)), name, table, **kwargs)
