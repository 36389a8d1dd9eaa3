"""Floats as cells: a tensor's elements (or its flat storage) coloured by head and token.

Plain Altair, no Streamlit. The hue says the head a float belongs to, the shade its token (light
for the first token, dark for the last), so a run of one colour is one head and a change of shade
inside it is a new token. The picked element gets a thick black outline in every picture. Indices are
PyTorch's, 0-based, everywhere: token 0, head 0, dim 0 are the first of each.
"""
import altair as alt
import pandas as pd

from attention_core.drawing.colour import CATEGORICAL_HEX, rgb_of

# The heads' hues: the first four of colour.CATEGORICAL_HEX (blue, vermilion, green, purple), apart under colour blindness
HEAD_HUES = [rgb_of(hex_colour) for hex_colour in CATEGORICAL_HEX[:4]]


def cell_colour(head: int, token: int, tokens: int) -> str:
    """The head's hue, mixed with white less and less along the tokens."""
    r, g, b = HEAD_HUES[head % len(HEAD_HUES)]
    white = 0.65 * (1 - token / max(1, tokens - 1))  # token 0: 65 % white; the last token: the pure hue
    mix = [round(c + (255 - c) * white) for c in (r, g, b)]
    return "#{:02x}{:02x}{:02x}".format(*mix)


def _ink(fill: str) -> str:
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return "#111827" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"


def cell_frame(cells: list[dict], tokens: int, text: str = "offset") -> pd.DataFrame:
    """cells from memory_layout (panel, row, col, offset, token, head, value, picked), with colours and the
    text printed in each cell: its storage offset, or 't<token>' for the flat storage, counted from 1 as on every
    screen (t1 is the first token). The columns token and head keep PyTorch's 0-based index."""
    frame = pd.DataFrame(cells)
    frame["fill"] = [cell_colour(h, t, tokens) for h, t in zip(frame["head"], frame["token"])]
    frame["ink"] = [_ink(f) for f in frame["fill"]]
    frame["label"] = frame["offset"].astype(str) if text == "offset" else "t" + (frame["token"] + 1).astype(str)
    return frame


def from_one(frame: pd.DataFrame) -> pd.DataFrame:
    """A split's cells with its rows (tokens) and columns (dims) numbered from 1 on the axes, as on every screen;
    a storage picture's axes are offset arithmetic (÷, mod) and stay from 0."""
    return frame.assign(row=frame["row"] + 1, col=frame["col"] + 1)


CELL_PX = 36  # a cell's side at font scale 1: two or three digits at a readable size
FIT_PX = {"full": 1000, "half": 470}  # the width one picture may take of a normal main column, at font scale 1
FIT_ROWS_PX = 520  # and its height: at presenter scale (1.6) about 830 px, one slide with its title


def cell_size(columns: int, font_scale: float = 1.0, room: str = "full", rows: int = 1) -> int:
    """The side of a cell: CELL_PX grown with the font scale (presenter mode), shrunk so that `columns` × `rows`
    cells fit the picture's room ("full" width or "half" of two side by side), never below 22 px."""
    wide, tall = FIT_PX[room] * font_scale // max(1, columns), FIT_ROWS_PX * font_scale // max(1, rows)
    return int(max(22, min(round(CELL_PX * font_scale), wide, tall)))


def memory_cells(frame: pd.DataFrame, title: str, panel: str | None = None, row: str = "row",
                 col: str = "col", cell: int = CELL_PX) -> alt.Chart:
    """One square per float, `cell` pixels a side, its text scaled with it; `panel` names the facets (e.g.
    'head', numbered from 1), None for one picture."""
    axis = dict(labelFontSize=round(cell * 0.36), titleFontSize=round(cell * 0.38))  # the room's size, as the cells
    base = alt.Chart().encode(
        x=alt.X("col:O", title=col, axis=alt.Axis(labelAngle=0, **axis)),
        y=alt.Y("row:O", title=row, axis=alt.Axis(**axis)),
        tooltip=[alt.Tooltip("offset:Q", title="storage offset"),
                 alt.Tooltip("token:Q", title="token index (PyTorch, from 0)"),
                 alt.Tooltip("head:Q", title="head index (PyTorch, from 0)"), alt.Tooltip("value:Q", format=".4f")],
    )
    rects = base.mark_rect().encode(
        color=alt.Color("fill:N", scale=None),
        stroke=alt.condition("datum.picked", alt.value("#000000"), alt.value("#ffffff")),
        strokeWidth=alt.condition("datum.picked", alt.value(max(3, cell // 9)), alt.value(1)),
    )
    text = base.mark_text(fontSize=round(cell * 0.4)).encode(text="label:N", color=alt.Color("ink:N", scale=None))
    width = height = alt.Step(cell)  # a fixed size per cell, as the heatmaps do
    if panel is None:
        return alt.layer(rects, text, data=frame).properties(width=width, height=height, title=title)
    frame = frame.assign(panel_name=[f"{panel} {p + 1}" for p in frame["panel"]])  # head 1 is the first head
    layered = alt.layer(rects, text).properties(width=width, height=height)
    header = alt.Header(labelFontSize=round(cell * 0.45), labelColor="#111827")
    return layered.facet(column=alt.Column("panel_name:N", title=None, sort=None, header=header),
                         data=frame, spacing=max(8, cell // 3)).properties(title=title)
