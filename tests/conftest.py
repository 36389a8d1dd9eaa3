"""Shared fixtures: AppTest on the real page script, main.py, with Streamlit's process-wide caches cleared."""
import json
import os
import re
import sys
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "main.py")  # the page; app.py is the server around it
sys.path.insert(0, str(ROOT))  # `screens.registry` and `attention_core`, however pytest is started
# The servers the tests start skip the warm-up (ui/server/warmup.py: both presets' stage screens computed as the server starts), so it
# cannot compete with what a test measures; tests/test_warmup.py runs it on purpose.
os.environ.setdefault("ATTENTION_WARMUP", "0")

from ui.compute import byte_cache  # noqa: E402
from screens.registry import BY_NAME  # noqa: E402


def screen_file(page: str) -> str:
    """The script behind a URL path, as the registry lists it ("" or "home" is the home screen)."""
    return BY_NAME[page or "home"].file


def open_screen(page: str | None = None, *, sections=None, **params) -> AppTest:
    """Run the app with the given URL parameters, then open the screen at URL path <page>.

    Sidebar controls are set through their URL parameters: AppTest (1.67) drops the entry
    script's sidebar from its element tree on every rerun under st.navigation, although the
    browser keeps it, so sidebar widgets cannot be clicked here (the browser tests click them).
    """
    at = AppTest.from_file(APP, default_timeout=120)
    for name, raw in params.items():
        at.query_params[name] = str(raw)
    at.run()
    if page:
        at.switch_page(screen_file(page)).run()
    if sections:
        open_sections(at, page or "home", sections)
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_sections(at: AppTest, page: str, names="all") -> AppTest:
    """Open sections of the screen at URL path <page> ("all", or a list of names) and rerun, as a visitor's
    clicks would (ui/state/sections.py keeps what is open per screen)."""
    opened = dict(at.session_state["sections:open"]) if "sections:open" in at.session_state else {}
    opened[page or "home"] = {"all"} if names == "all" else set(names)
    at.session_state["sections:open"] = opened
    return at.run()


def chart_specs(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]


def charts_drawn(at: AppTest) -> list:
    """Every chart as (spec, its datasets as records): what the browser gets. A spec alone no longer
    changes when only numbers do (the data travels beside it, see charts.to_spec)."""
    return [(spec, [frame.to_dict("records") for frame in frames]) for spec, frames in chart_frames(at)]


def chart_frames(at: AppTest) -> list[tuple[dict, list]]:
    """Each Vega-Lite chart's spec with its data (Streamlit ships the data as Arrow datasets)."""
    import pandas as pd
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df
    result = []
    for c in at.get("vega_lite_chart"):
        spec = json.loads(c.proto.spec)
        frames = [convert_arrow_bytes_to_pandas_df(d.data.data) for d in c.proto.datasets]
        frames += [pd.DataFrame(values) for values in spec.get("datasets", {}).values()]  # inline data
        result.append((spec, frames))
    return result


def views(at: AppTest) -> dict[str, dict]:
    """Each attention view on the page by its key: its data as Python sent it ({"meta": ..., table: DataFrame})."""
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df
    found = {}
    for element in at.get("bidi_component"):
        mixed = element.proto.mixed
        data = json.loads(mixed.json)
        for name, value in data.items():
            if isinstance(value, dict) and "__streamlit_arrow_ref__" in value:
                blob = mixed.arrow_blobs[value["__streamlit_arrow_ref__"]].data
                data[name] = convert_arrow_bytes_to_pandas_df(blob)
        found[element.proto.id.rsplit("-", 1)[-1]] = data
    return found


def code_text(code: int) -> str:
    """A fixed-point code as the view prints it (formatFixed): 1500 -> "0.1500"."""
    return f"{'-' if code < 0 else ''}{abs(code) // 10_000}.{abs(code) % 10_000:04d}"


def view_row(view: dict, query: int, source: str = "cells", frame: int = 0) -> dict[int, str]:
    """The numbers a view's bars can show for a query (0-based): {key: "0.1234"}, decoded as the browser does.
    source: "cells" (the main map) or "also0", "also1", ... (the extra rows)."""
    meta = view["meta"] if source == "cells" else view["meta"]["also"][int(source[4:])]
    table, rows, cols = view[source], meta["rows"], meta["cols"]
    frame = frame if meta["framed"] else 0
    if meta["layout"] == "top" or meta.get("exact") == "top":  # a large matrix sends each row's largest in "top"
        table = table if meta["layout"] == "top" else view["top"]
        part = table.iloc[(frame * rows + query) * meta["top"]:][: meta["top"]]
        found = {int(j): code_text(int(c)) for j, c in zip(part["key"], part["code"]) if j < cols}
        column = view.get("column" if source == "cells" else f"{source}_column")
        if column is not None and meta.get("column") is not None:  # the lesson's key travels in every row
            from attention_core.drawing.view_shades import SHADE_MASKED
            if int(column["shade"].iloc[frame * rows + query]) != SHADE_MASKED:
                found.setdefault(meta["column"], code_text(int(column["code"].iloc[frame * rows + query])))
        return found
    if meta["layout"] == "lower":
        start = frame * rows * (rows + 1) // 2 + query * (query + 1) // 2
        return {j: code_text(int(c)) for j, c in enumerate(table["code"].iloc[start: start + query + 1])}
    start = (frame * rows + query) * cols
    return {j: code_text(int(c)) for j, c in enumerate(table["code"].iloc[start: start + cols])}


def page_text(at: AppTest) -> str:
    """Everything a reader sees as text: markdown, captions, latex, notes, tables, metrics."""
    parts = [e.value for kind in ("markdown", "caption", "latex", "warning", "info", "error", "success",
                                  "title", "header", "subheader", "code") for e in at.get(kind)]
    parts += [str(m.value) for m in at.get("metric")]
    for frame in list(at.dataframe) + list(at.table):
        parts.append(frame.value.to_string(float_format=lambda v: f"{v:.4f}"))
    return "\n".join(str(p) for p in parts).replace("\u00a0", " ")  # a no-break space reads as a space


def table_shapes(at: AppTest) -> dict[str, str]:
    """The shape each ui.table states above its table, by tensor name: {"inputs": "(6, 3)", ...}."""
    found = (re.match(r"\*\*`(\w+)`\*\* · shape `(\([^`]*\))`", e.value.replace("\u00a0", " ")) for e in at.markdown)
    return {m.group(1): m.group(2) for m in found if m}


def table(at: AppTest, first_column: str):
    """The first table (a DataFrame) whose first column is named `first_column`."""
    return next(f.value for f in at.dataframe if str(f.value.columns[0]) == first_column)


@pytest.fixture(autouse=True)
def _fresh_caches():
    st.cache_data.clear()
    st.cache_resource.clear()
    byte_cache.clear_all()
    yield


SCIENTIFIC = re.compile(r"\s*(?:(-?[\d.]+)\s*×\s*)?10([⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)\s*")  # numbers.scientific's form


def plain_number(text: str) -> float:
    """A number as the app writes it, back to a float: "6.0 × 10⁻⁸" (numbers.scientific) -> 6e-08, "10⁻⁵" -> 1e-05,
    "1,024" -> 1024.0, "0" -> 0."""
    found = SCIENTIFIC.fullmatch(text)
    if found is None:
        return float(text.replace(",", ""))
    exponent = int(found[2].translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")))
    return float(found[1] or 1) * 10.0 ** exponent
