"""Small blocks every screen uses: the device badge, folded explanations, tensors as tables."""
import pandas as pd
import pyarrow as pa
import streamlit as st
import torch

from attention_core.book.device import describe, unused_gpu_note
from attention_core.drawing.numbers import fixed
from ui.settings import this_run
from ui.sections import section
from ui.state import note
from ui.draw.vega import fingerprint, labels_key

TABLE_MAX = 64  # tables show at most 64 x 64 cells
PRESENTER_ROWS = 32  # presenter mode: tables up to this many rows are drawn whole, without a scroll box


def device_badge(device_used: str, device_note: str | None = None) -> None:
    """Where the numbers on this screen were computed."""
    st.badge(f"Computed on {describe(device_used)}", icon=":material/memory:",
             color="green" if device_used != "cpu" else "gray")
    if device_note:
        note(device_note)
    if device_used == "cpu" and (gpu_note := unused_gpu_note()):
        st.info(gpu_note, icon=":material/memory:")


def explain(markdown: str, title: str = "Why it works", name: str = "why") -> None:
    """A screen's longer explanation, folded in a section: the lesson above it stays short and big."""
    with section(name, title, icon=":material/school:") as shown:
        if shown:
            st.markdown(markdown)


def table_height(rows: int) -> str:
    """st.dataframe's height: whole tables in presenter mode (a projector, a slide: nothing hidden
    behind a scroll bar), Streamlit's ten-row box otherwise and for tables too long for a slide."""
    return "content" if this_run().presenter and rows <= PRESENTER_ROWS else "auto"


def table(tensor, name: str, row_labels=None, col_labels=None) -> None:
    """A tensor as a table with its shape, 4 decimals; big ones cut to the first 64 x 64."""
    t = torch.as_tensor(tensor).detach().float().cpu()
    shape = tuple(t.shape)
    while t.dim() > 2:
        t = t[0]
    if t.dim() == 1:
        t = t.unsqueeze(0)
    cut = t[:TABLE_MAX, :TABLE_MAX]
    rows = (row_labels or list(range(1, cut.shape[0] + 1)))[: cut.shape[0]]
    cols = (col_labels or [str(j + 1) for j in range(cut.shape[1])])[: cut.shape[1]]
    wide = len(cols) > 16
    finite = bool(torch.isfinite(cut).all())  # nan and ±inf as text: a number column would show nan as "None"
    frame = _arrow_table((fingerprint(cut), labels_key(map(str, rows)), labels_key(map(str, cols)), wide, finite),
                         lambda: pd.DataFrame(cut.numpy(), index=rows, columns=cols).round(4 if wide else 12) if finite
                         else pd.DataFrame([[fixed(float(v)) for v in r] for r in cut], index=rows, columns=cols))
    first = " (first item of the batch/head)" if len(shape) > 2 else ""
    more = f"; showing the first {cut.shape[0]} × {cut.shape[1]}" if cut.shape != t.shape else ""
    with st.container():  # one block: a slide never puts the label on one page and its table on the next
        st.markdown(f"**`{name}`** · shape `{shape}`{first}{more}")
        # column_config formats in the browser (a pandas Styler would render in Python on every run), but
        # Streamlit deep-copies it per column on every run: wide tables are rounded instead.
        st.dataframe(frame, width="content", height=table_height(len(rows)), column_config=None if wide or not finite
                     else {str(c): st.column_config.NumberColumn(format="%.4f") for c in cols})


# Tables as Arrow, converted once: pandas -> Arrow costs 2-8 ms a table, a dozen tables a rerun, and a
# slider that moves only the query leaves them unchanged. Up to 64 x 64 values (about 40 kB) each; a class
# across five screens, eight d_out and the head counts keeps several hundred (20 MB at most).
@st.cache_resource(max_entries=512, show_spinner=False)
def _arrow_table(key: tuple, _build) -> pa.Table:
    return pa.Table.from_pandas(_build(), preserve_index=True)

