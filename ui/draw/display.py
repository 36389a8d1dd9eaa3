"""Small blocks every screen uses: the device badge, folded explanations, tensors as tables."""
import re
from contextlib import contextmanager
from contextvars import ContextVar

import pandas as pd
import streamlit as st
import torch

from attention_core.book.device import describe, unused_gpu_note
from attention_core.drawing.numbers import fixed, plain, whole
from ui.state.settings import this_run
from ui.state.sections import section
from ui.state.session import note
from ui.compute.built import arrow_table
from ui.compute.keys import fingerprint, labels_key

# A table a class can read whole, on a 1280-wide screen or a slide, even two side by side (/heads): at most
# WINDOW x WINDOW cells at 4 decimals, the book's 6 tokens whole. GPT-2's 1,024 tokens gave a 64 x 64 scroll box
# of which a slide showed about 10 x 20 cells and half a row. The heatmaps and views show every cell.
WINDOW = 8
PRESENTER_ROWS = 32  # presenter mode: tables up to this many rows are drawn whole, without a scroll box
# table_grid: a row of tables holds at most this many units (a column of numbers is one, the row labels 1.5):
# two 6-column tables side by side on a 1,280-px screen, four narrow ones, one 8-column GPT-2 window; on a
# projector's 1,920-px page (presenter mode) two GPT-2 windows.
ROW_UNITS, PRESENTER_ROW_UNITS = 16, 20
ROW_TABLES = 4
_grid: ContextVar[list | None] = ContextVar("table_grid", default=None)  # the tables a table_grid collects


def device_badge(device_used: str, device_note: str | None = None, inline: bool = False) -> str | None:
    """Where the numbers on this screen were computed. inline: the badge's Markdown is returned, for the paragraph
    that follows to begin with (one element fewer on a lesson held to 30), instead of drawn on a line of its own."""
    colour = "green" if device_used != "cpu" else "gray"
    words = f"Computed on {describe(device_used)}"
    if not inline:
        st.badge(words, icon=":material/memory:", color=colour)
    if device_note:
        note(device_note)
    if device_used == "cpu" and (gpu_note := unused_gpu_note()):
        st.info(gpu_note, icon=":material/memory:")
    return f":{colour}-badge[:material/memory: {words}]" if inline else None


def explain(markdown: str, title: str = "Why it works", name: str = "why") -> None:
    """A screen's longer explanation, folded in a section: the lesson above it stays short and big."""
    with section(name, title, icon=":material/school:") as shown:
        if shown:
            st.markdown(markdown)


def table_height(rows: int) -> str:
    """st.dataframe's height: whole tables in presenter mode (a projector, a slide: nothing hidden
    behind a scroll bar), Streamlit's ten-row box otherwise and for tables too long for a slide."""
    return "content" if this_run().presenter and rows <= PRESENTER_ROWS else "auto"


def window(rows: int, cols: int) -> tuple[int, int]:
    """How many rows and columns of a rows x cols matrix a table shows: its first WINDOW of each, or all."""
    return min(rows, WINDOW), min(cols, WINDOW)


def window_note(shown: tuple[int, int], full: tuple[int, int]) -> str:
    """Which part of the matrix a table shows, in words ("" when all of it): "first 8 of 1,024 rows and first 8
    of 1,024 columns"."""
    parts = [f"first {whole(n)} of {whole(total)} {side}" for n, total, side in zip(shown, full, ("rows", "columns"))
             if n < total]
    return " and ".join(parts)


def table_units(tensor) -> float:
    """How wide a table of this tensor is drawn, in ROW_UNITS (its window of columns and its row labels)."""
    shape = tuple(torch.as_tensor(tensor).shape) or (1,)
    return 1.5 + window(1, shape[-1] if len(shape) > 1 else shape[0])[1]


def grid_rows(units: list[float], room: float = ROW_UNITS) -> list[list[int]]:
    """The tables (by index, in order) on each row of a table_grid: as many as fit `room` units and ROW_TABLES."""
    rows: list[list[int]] = []
    for k, width in enumerate(units):
        if rows and len(rows[-1]) < ROW_TABLES and sum(units[j] for j in rows[-1]) + width <= room:
            rows[-1].append(k)
        else:
            rows.append([k])
    return rows


@contextmanager
def table_grid():
    """The tables drawn inside sit side by side, as many as a row holds: a slide or a wide screen shows a
    step's small tensors together, not one narrow table under another (a phone stacks the columns)."""
    pending: list[tuple] = []
    token = _grid.set(pending)
    try:
        yield
    finally:
        _grid.reset(token)
    room = PRESENTER_ROW_UNITS if this_run().presenter else ROW_UNITS
    for row in grid_rows([table_units(entry[0]) for entry in pending], room):
        if len(row) == 1:
            table(*pending[row[0]])
            continue
        for column, k in zip(st.columns([table_units(pending[k][0]) for k in row], gap="medium"), row):
            with column:
                table(*pending[k])


def table(tensor, name: str, row_labels=None, col_labels=None) -> None:
    """A tensor as a table with its shape, 4 decimals; a big one cut to a window a slide shows whole (`window`).
    Inside a table_grid it is drawn when the grid closes, beside its neighbours."""
    if (pending := _grid.get()) is not None:
        pending.append((tensor, name, row_labels, col_labels))
        return
    t = torch.as_tensor(tensor).detach().float().cpu()
    shape = tuple(t.shape)
    while t.dim() > 2:
        t = t[0]
    if t.dim() == 1:
        t = t.unsqueeze(0)
    n_rows, n_cols = window(*t.shape)
    cut = t[:n_rows, :n_cols]
    rows = (row_labels or list(range(1, cut.shape[0] + 1)))[: cut.shape[0]]
    cols = (col_labels or [str(j + 1) for j in range(cut.shape[1])])[: cut.shape[1]]
    finite = bool(torch.isfinite(cut).all())  # nan and ±inf as text: a number column would show nan as "None"
    # which slice a table of a 3-D or 4-D tensor shows, in the code's own indexing (attn_weights[0, 0]), named by the
    # variable that starts `name` ("context_vecs (wrapper)"; not "dropout(attn_weights)", a call)
    index = f"[{', '.join('0' * (len(shape) - 2))}]" if len(shape) > 2 else ""
    variable = re.match(r"([A-Za-z_]\w*)(?=$| )", name)
    sliced = (f"`{variable.group(1)}{index}`" if variable else f"index {index}") if index else ""
    part = window_note(tuple(cut.shape), tuple(t.shape))
    showing = (f" · showing {sliced}" + (f", its {part}" if part else "")) if sliced else (
        f"; showing its {part}" if part else "")
    with st.container():  # one block: a slide never puts the label on one page and its table on the next
        tuple_text = str(shape).replace(", ", ",\u00a0")  # no line break inside (1, 2, 6, 6) on a slide
        st.markdown(f"**`{name}`** · shape `{tuple_text}`{showing}")
        mask = finite and bool(((cut == 0) | (cut == 1)).all())  # a keep or causal mask: 1 and 0, not 1.0000
        if this_run().presenter:  # a projector: a static table in the app's big font (a data grid stays at 14 px)
            plain = pd.DataFrame([[fixed(float(v), 0 if mask else 4) for v in r] for r in cut], index=rows,
                                 columns=cols)
            st.table(plain, width="content")
            return
        frame = arrow_table((fingerprint(cut), labels_key(map(str, rows)), labels_key(map(str, cols)), finite),
                            lambda: pd.DataFrame(cut.numpy(), index=rows, columns=cols) if finite
                            else pd.DataFrame([[fixed(float(v)) for v in r] for r in cut], index=rows, columns=cols))
        # column_config formats in the browser (a pandas Styler would render in Python on every run).
        st.dataframe(frame, width="content", height=table_height(len(rows)), column_config=None if not finite
                     else {str(c): st.column_config.NumberColumn(format="%d" if mask else "%.4f") for c in cols})



def data_table(data, *, where=None, hide_index: bool | None = None, width="content", height="auto",
               column_config=None, static: bool = False) -> None:
    """A summary table (a DataFrame or a Styler): st.dataframe's sortable grid on a screen; in presenter mode a
    static st.table, whose cells take the app's big font (a data grid's canvas stays at 14 px on a projector).
    static: a st.table everywhere, for a short table a slider redraws: a changed data grid repaints its canvas
    about 200 ms after the run ends (/sliding-window's chunk slider: 315 ms a move with two grids, 69 ms without)."""
    where = where or st
    if static or this_run().presenter:
        where.table(_as_static(data, column_config or {}), hide_index=hide_index,
                    width="content" if width == "content" else "stretch")
    else:
        where.dataframe(data, hide_index=hide_index, width=width, height=height, column_config=column_config)


def _float_text(value: float) -> str:
    """A table's float as the app prints one: 4 decimals, or "3.0 × 10⁻⁸" where 4 decimals would say 0.0000."""
    if pd.isna(value):
        return ""
    return f"{value:,.4f}" if value == 0 or abs(value) >= 1e-4 else plain(value)


def _whole(column: pd.Series) -> bool:
    """A float column of whole numbers (bytes, counts): 6,291,456, not 6,291,456.0000."""
    finite = column[column.notna() & (column.abs() != float("inf"))]
    return len(finite) > 0 and bool((finite == finite.round()).all()) and bool((finite.abs() >= 1).any())


def _as_static(data, column_config: dict):
    """What st.dataframe's column_config says, for a static table that ignores it: its labels and number formats
    (a deck showed "fastest_ms" and 121.230032 where the screen shows "fastest ms" and 121.23)."""
    if not isinstance(data, pd.DataFrame):
        return data  # a Styler formats itself
    formats = {c: "{:,}" for c in data.columns if pd.api.types.is_integer_dtype(data[c])}  # 4724736 -> 4,724,736
    # a float column as the app prints numbers, 4 decimals: st.table wrote 0.100000 and 10.000000 (/dropout's p table)
    formats |= {c: "{:,.0f}" if _whole(data[c]) else _float_text for c in data.columns
                if pd.api.types.is_float_dtype(data[c])}
    labels = {}
    for column, config in column_config.items():
        config = {"label": config} if isinstance(config, str) else dict(config or {})
        printf = (config.get("type_config") or {}).get("format")
        if printf and column in data.columns:
            formats[column] = lambda v, printf=printf: "" if pd.isna(v) else printf % v
        if config.get("label"):
            labels[column] = config["label"]
    if not formats:  # text only (/kv-cache's True/False mask slice): a Styler would render HTML in Python every run
        return data.rename(columns=labels)
    # Renamed, not relabelled: st.table draws a Styler's formats but not its relabel_index (checked in Chromium).
    return data.rename(columns=labels).style.format({labels.get(c, c): f for c, f in formats.items()})


def for_the_teacher(name: str, whole_screen: bool = False):
    """A container for what is administration, not the lesson (a download command, a file this server lacks,
    a backend's "not implemented"): on screen as usual, left out of the slides, which name it in their
    left-out file (scripts/deck/check_js.py reads the key). whole_screen: nothing else on the screen is worth
    a slide without it, so the slides leave the whole screen out."""
    return st.container(key=f"slides-skip{'-screen' if whole_screen else ''}-{name}")
