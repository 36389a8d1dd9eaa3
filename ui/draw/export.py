"""Download buttons under every chart: PNG and SVG (rendered offline by vl-convert), CSV of the data.

The files are produced only when a button is clicked (callables), so a rerun stays cheap.
"""
import numpy as np
import streamlit as st

from attention_core.drawing.matrix_images import png_bytes  # the one PNG encoder, re-exported for ui
from ui.state.settings import this_run


def _slug(name: str) -> str:
    keep = "".join(c if c.isalnum() else "-" for c in name.lower())
    return "-".join(part for part in keep.split("-") if part)[:60] or "chart"


def inline(spec: dict) -> dict:
    """The spec with every dataset as records (cached specs hold Arrow bytes, which vl-convert cannot read)."""
    import pyarrow as pa
    datasets = {name: pa.ipc.open_stream(data).read_all().to_pylist() if isinstance(data, bytes) else data
                for name, data in spec.get("datasets", {}).items()}
    return dict(spec, datasets=datasets) if datasets else spec


def _vega_png(spec: dict) -> bytes:
    import vl_convert  # imported on click: the app starts without paying for it
    return vl_convert.vegalite_to_png(inline(spec), scale=2)


def _vega_svg(spec: dict) -> str:
    import vl_convert
    return vl_convert.vegalite_to_svg(inline(spec))


def download_buttons(name: str, spec: dict | None = None, image: np.ndarray | bytes | str | None = None,
                     table=None) -> None:
    """PNG + SVG of a Vega-Lite chart (or PNG of an image, SVG of an SVG document) and CSV of its numbers, in a
    popover.

    table: a function returning the DataFrame to save (called on click only).
    """
    if not this_run().downloads:  # off by default: a dozen buttons cost 100-300 ms on every slider move
        return
    slug = _slug(name)
    used = st.session_state.setdefault("export:names", set())
    while slug in used:  # two charts with the same title on one screen
        slug += "-2"
    used.add(slug)
    with st.popover("Download", icon=":material/download:"):
        if spec is not None:
            st.download_button("PNG (2×)", lambda: _vega_png(spec), f"{slug}.png", "image/png", key=f"png:{slug}")
            st.download_button("SVG", lambda: _vega_svg(spec), f"{slug}.svg", "image/svg+xml", key=f"svg:{slug}")
        if isinstance(image, str):
            st.download_button("SVG", image.encode(), f"{slug}.svg", "image/svg+xml", key=f"svg:{slug}")
        elif image is not None:
            st.download_button("PNG", image if isinstance(image, bytes) else lambda: png_bytes(image), f"{slug}.png",
                               "image/png", key=f"png:{slug}")
        if table is not None:
            st.download_button("CSV", lambda: table().to_csv(index=True).encode(), f"{slug}.csv", "text/csv",
                               key=f"csv:{slug}")


def new_run() -> None:
    """Forget the names used by the previous run (called by main.py before the page runs)."""
    st.session_state["export:names"] = set()
