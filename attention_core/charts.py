"""Chart builders: plain functions from numbers to Altair charts (or an RGB image).

No Streamlit here, so the same charts can be saved from a notebook. Colour scales mean the same
thing everywhere: weights (0..1) are sequential blues, scores diverge around 0 (red above,
blue below), masks and dropout keep-masks are two-tone.
"""
import math

import altair as alt
import numpy as np
import pandas as pd

from attention_core import colour
from attention_core.numbers import fixed

# Validating every chart against the Vega-Lite schema as it is built costs tens of milliseconds a
# chart on every slider move; these builders are tested instead.
alt.utils.schemapi.disable_debug_mode()

CELL_TEXT_MAX = 12  # up to 12 x 12 the values are printed in the cells
ALTAIR_MAX = 64  # above 64 x 64 a matrix is drawn as an image (one rect per cell gets slow)

SCALES = {
    # clamp: survivors of dropout exceed 1 and get the darkest blue rather than black.
    "weights": alt.Scale(scheme="blues", domain=[0, 1], clamp=True),
    "scores": alt.Scale(scheme="redblue", domainMid=0, reverse=True),
    "mask": alt.Scale(domain=[0, 1], range=["#f3f4f6", "#1f2937"]),
}


def axis_labels(tokens: list[str]) -> list[str]:
    """Unique axis labels: a sentence can repeat a word, so prefix the position (1-based)."""
    return [f"{i + 1} {tok}" for i, tok in enumerate(tokens)]


def matrix_frame(matrix, row_labels, col_labels, decimals: int = 4) -> pd.DataFrame:
    """Long format, one row per cell; infinities become missing colours but keep their text."""
    values = np.asarray(matrix, dtype=np.float64)
    rows, cols = values.shape
    frame = pd.DataFrame({
        "query": np.repeat(row_labels, cols),
        "key": np.tile(col_labels, rows),
        "i": np.repeat(np.arange(rows), cols),
        "j": np.tile(np.arange(cols), rows),
        "text": [fixed(v, decimals) for v in values.ravel()],
    })
    finite = np.where(np.isfinite(values), values, np.nan).ravel()
    frame["value"] = finite
    return frame


def heatmap(matrix, row_labels, col_labels, kind: str = "weights", title: str = "",
            selected_row: int | None = None, selected_cell: tuple[int, int] | None = None,
            size: int = 360, clickable: bool = False, font_scale: float = 1.0,
            weight_scale: str = "absolute", context: tuple | None = None) -> alt.Chart:
    """A matrix as coloured cells with a legend and tooltips; values printed when small.

    kind: "weights", "scores" or "mask" (picks the colour scale). weight_scale: "absolute" (0..1)
    or "share" (each weight against an even split, see colour.py). Masked cells (the future in a
    causal weights map, -inf scores) are grey whatever the scale. The selected query row and the
    selected cell get an outline. clickable: a click selects a cell (selection "cell", fields i, j).
    context: for a window of a larger weights map, (masked, log2 shares, share range) of the window's
    cells as computed on the whole map (a share counts the keys of the whole row).
    """
    frame = matrix_frame(matrix, row_labels, col_labels, decimals=0 if kind == "mask" else 4)
    values = np.asarray(matrix, dtype=np.float64)
    rows, cols = values.shape
    if context is not None:
        masked, shares, share_range = context
    else:
        masked = colour.masked_cells(values) if kind == "weights" else ~np.isfinite(values)
        shares = share_range = None
    frame["masked"] = masked.ravel()
    tooltip = [alt.Tooltip("query:N"), alt.Tooltip("key:N"), alt.Tooltip("text:N", title="value")]
    if kind == "weights" and weight_scale == "share":
        shade, (low, high), shown = _share_column(values, masked, shares, share_range)
        frame["shade"], frame["share"] = np.where(np.isnan(shade), low, shade).ravel(), shown.ravel()
        fill = alt.Color("shade:Q", scale=alt.Scale(domain=[low, high], range=colour.SHARES_HEX),
                         title="× even share", legend=alt.Legend(labelExpr="format(pow(2, datum.value), '.2~g') + '×'"))
        tooltip.append(alt.Tooltip("share:N", title="against an even share"))
        dark = low + 0.6 * (high - low)
    else:
        # Masked cells take their grey from the condition; a finite shade keeps Vega from dropping them.
        frame["shade"] = frame["value"].fillna(0.0)
        fill = alt.Color("shade:Q", scale=SCALES.get(kind, SCALES["scores"]), title=kind)
        dark = None
    x = alt.X("key:N", sort=list(col_labels), title="key (attended to)",
              axis=alt.Axis(labelAngle=-45, labelOverlap=cols > CELL_TEXT_MAX))
    y = alt.Y("query:N", sort=list(row_labels), title="query (attending)")
    base = alt.Chart(frame).encode(x=x, y=y)
    rect = base.mark_rect().encode(color=alt.condition("datum.masked", alt.value(colour.MASKED_HEX), fill),
                                   tooltip=tooltip)
    if clickable:
        rect = rect.add_params(alt.selection_point(name="cell", fields=["i", "j"], on="click"))
    layers = [rect]
    if rows <= CELL_TEXT_MAX and cols <= CELL_TEXT_MAX:
        layers.append(base.mark_text(fontSize=(13 if cols <= 8 else 10) * font_scale).encode(
            text="text:N",
            color=alt.condition(alt.datum.shade > dark if dark is not None
                                else alt.datum.value > _contrast_threshold(frame, kind),
                                alt.value("white"), alt.value("black")),
        ))
    # The selection is a pair of parameters rather than part of the data, so a cached spec can be
    # re-used for every selection (see `select`): moving the query slider re-builds nothing.
    layers.append(base.mark_rect(fill=None, stroke="#f59e0b").encode(
        strokeWidth=alt.condition("datum.i == selected_row", alt.value(2), alt.value(0))))
    layers.append(base.mark_rect(fill=None, stroke="#f59e0b").encode(
        strokeWidth=alt.condition("datum.i == selected_i && datum.j == selected_j", alt.value(4), alt.value(0))))
    # Cells keep a readable size: wide enough for "0.1234" when values are printed.
    if max(rows, cols) <= CELL_TEXT_MAX:
        width, height = alt.Step(64 * font_scale), alt.Step(40 * font_scale)
    else:
        width = height = alt.Step(max(4, size // max(rows, cols)))
    picked_i, picked_j = selected_cell if selected_cell is not None else (-1, -1)
    return alt.layer(*layers).properties(title=title, width=width, height=height).add_params(
        alt.param(name="selected_row", value=-1 if selected_row is None else int(selected_row)),
        alt.param(name="selected_i", value=int(picked_i)), alt.param(name="selected_j", value=int(picked_j)))


def _share_column(values: np.ndarray, masked: np.ndarray, shares=None, share_range=None):
    """Shades (log2 shares clipped to their range, nan where masked), the range, and the share as text."""
    shares = colour.shares(values, masked) if shares is None else shares
    low, high = colour.share_range(shares) if share_range is None else share_range
    shade = np.clip(np.where(shares == -np.inf, low, shares), low, high)
    with np.errstate(over="ignore"):
        text = np.where(np.isnan(shares), "masked", np.char.add(np.char.mod("%.2g", np.exp2(shares)), "× even"))
    return shade, (low, high), text


def select(spec: dict, selected_row: int | None = None, selected_cell: tuple[int, int] | None = None,
           highlight: int | None = None) -> dict:
    """A copy of a heatmap's (or row_bars') spec with another selection; the data is shared."""
    values = {"selected_row": selected_row, "highlight": highlight,
              "selected_i": None if selected_cell is None else selected_cell[0],
              "selected_j": None if selected_cell is None else selected_cell[1]}
    spec = dict(spec)
    spec["params"] = [dict(p, value=-1 if values[p["name"]] is None else int(values[p["name"]]))
                      if p.get("name") in values else p for p in spec.get("params", [])]
    return spec


def _contrast_threshold(frame: pd.DataFrame, kind: str) -> float:
    """Above this value the cell is dark, so its text is printed in white."""
    if kind == "weights":
        return 0.6
    if kind == "mask":
        return 0.5
    spread = np.nanmax(np.abs(frame["value"].to_numpy())) if frame["value"].notna().any() else 0.0
    return 0.6 * spread if spread > 0 else math.inf


def row_bars(matrix, labels, title: str = "", kind: str = "weights", highlight: int | None = None,
             selected_row: int = 0, font_scale: float = 1.0) -> alt.Chart:
    """One query's row as bars, its exact value on each bar.

    matrix: one row (T,) or all rows (Q, T); the row shown is the parameter `selected_row`, so one
    spec serves every query (see `select`).
    """
    values = np.atleast_2d(np.asarray(matrix, dtype=np.float64))
    frame = matrix_frame(values, list(range(values.shape[0])), list(labels))
    bars = alt.Chart(frame).transform_filter("datum.i == selected_row").mark_bar().encode(
        x=alt.X("key:N", sort=list(labels), title="key", axis=alt.Axis(labelAngle=-45)),
        y=alt.Y("value:Q", title=kind, scale=alt.Scale(domain=[0, 1]) if kind == "weights" else alt.Undefined),
        color=alt.condition("datum.j == highlight", alt.value("#f59e0b"), alt.value("#2563eb")),
        tooltip=["key:N", alt.Tooltip("text:N", title="value")],
    )
    chart = bars
    if values.shape[1] <= 16:
        chart = bars + bars.mark_text(dy=-8 * font_scale, fontSize=12 * font_scale).encode(
            text="text:N", color=alt.value("black"))
    return chart.properties(title=title, height=260 * font_scale).add_params(
        alt.param(name="highlight", value=-1 if highlight is None else int(highlight)),
        alt.param(name="selected_row", value=int(selected_row)))


def line_chart(frame: pd.DataFrame, x: str, y: str, color: str, title: str = "",
               log_x: bool = False, y_title: str | None = None, mark_x: float | None = None,
               log_y: bool = False) -> alt.Chart:
    """Lines with points, one per `color` group (e.g. scaled vs unscaled against d_k).

    mark_x draws a vertical rule at the chosen x (e.g. the d_k picked with a slider).
    """
    scale = alt.Scale(type="log", base=2) if log_x else alt.Undefined
    lines = alt.Chart(frame).mark_line(point=True).encode(
        x=alt.X(f"{x}:Q", scale=scale, title=x),
        y=alt.Y(f"{y}:Q", title=y_title or y, scale=alt.Scale(type="log") if log_y else alt.Undefined),
        color=alt.Color(f"{color}:N", title=color, scale=_pair_scale(frame[color])),
        tooltip=[f"{x}:Q", alt.Tooltip(f"{y}:Q", format=".4g"), f"{color}:N"],
    )
    if mark_x is not None:
        rule = alt.Chart(pd.DataFrame({x: [mark_x]})).mark_rule(color="#f59e0b", strokeWidth=2).encode(x=f"{x}:Q")
        lines = lines + rule
    return lines.properties(title=title, height=300)


def to_spec(chart) -> dict:
    """The chart as a Vega-Lite dict with its data inline, without schema validation (fast)."""
    spec = chart.to_dict(validate=False)
    view = spec.get("config", {}).get("view", {})
    for default in ("continuousWidth", "continuousHeight"):  # Altair's theme defaults, not ours
        view.pop(default, None)
    return spec


def styled(chart, font_scale: float = 1.0):
    """Axis, legend and title fonts scaled together (presenter mode uses about 1.6)."""
    if font_scale == 1.0:
        return chart
    return (chart.configure_axis(labelFontSize=11 * font_scale, titleFontSize=12 * font_scale)
            .configure_legend(labelFontSize=11 * font_scale, titleFontSize=12 * font_scale)
            .configure_title(fontSize=14 * font_scale))


def histogram(frame: pd.DataFrame, title: str = "", group: str = "scores") -> alt.FacetChart:
    """Pre-binned density bars (bin_start, bin_end, density), one panel per `group`, shared x axis."""
    return alt.Chart(frame).mark_rect(opacity=0.85).encode(
        x=alt.X("bin_start:Q", title="score"), x2="bin_end:Q", y=alt.Y("density:Q", title="density"),
        y2=alt.datum(0), color=alt.Color(f"{group}:N", legend=None, scale=_pair_scale(frame[group])),
        tooltip=[f"{group}:N", alt.Tooltip("bin_start:Q", format=".3f"), alt.Tooltip("bin_end:Q", format=".3f"),
                 alt.Tooltip("density:Q", format=".4f")],
    ).properties(width=320, height=240).facet(column=alt.Column(f"{group}:N", title=None)).resolve_scale(
        y="independent").properties(title=title)


# Scaled vs unscaled appear on several screens: always the same two clearly different colours.
PAIR_COLOURS = {"ω / √d_k": "#2563eb", "ω (unscaled)": "#dc2626"}


def _pair_scale(values) -> alt.Scale:
    names = sorted(set(values))
    if set(names) <= set(PAIR_COLOURS):
        return alt.Scale(domain=names, range=[PAIR_COLOURS[n] for n in names])
    return alt.Undefined
