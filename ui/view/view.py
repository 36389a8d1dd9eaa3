"""The browser-side attention view: a Streamlit components v2 element, inline JS and CSS, no iframe.

Python computes every number (attention_core.drawing.view_data.view_payload); the browser selects,
formats and colours them. Query, key and zoom moves are drawn in the browser and never reach the
server; Enter in the view commits the selection, which Python reads as `result.selection`.
"""
from pathlib import Path

import streamlit as st

HERE = Path(__file__).resolve().parent


def _source() -> tuple[str, str]:
    """One ES module: the pure functions (which node --test imports on their own), then drawing, then input."""
    parts = ("view_core.mjs", "attention_view.js", "view_input.js")
    js = "\n".join((HERE / name).read_text(encoding="utf-8") for name in parts)
    return js, (HERE / "attention_view.css").read_text(encoding="utf-8")


_JS, _CSS = _source()
# Registered once at import: a second registration under the same name would replace this one.
_COMPONENT = st.components.v2.component("attention_view", js=_JS, css=_CSS, isolate_styles=True)


def attention_view(payload: dict, key: str, on_commit=None):
    """Mount the view with a payload from view_payload. Returns the component's result:
    `result.selection` is the last committed {query, key, window, window_key, window_size} (1-based),
    or None. on_commit runs (before the rerun) when the visitor presses Enter in the view."""
    return _COMPONENT(data=payload, key=key, on_selection_change=on_commit or (lambda: None))
