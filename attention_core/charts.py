"""Chart builders: plain functions from numbers to Altair charts (or an RGB image).

No Streamlit here, so the same charts can be saved from a notebook. Colour scales mean the same
thing everywhere: weights (0..1) are sequential blues, scores diverge around 0 (red above,
blue below), masks and dropout keep-masks are two-tone.
"""
import math
import warnings

import altair as alt
import numpy as np
import pandas as pd

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


def _fmt(value: float, decimals: int = 4) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    return f"{value:.{decimals}f}"


def matrix_frame(matrix, row_labels, col_labels, decimals: int = 4) -> pd.DataFrame:
    """Long format, one row per cell; infinities become missing colours but keep their text."""
    values = np.asarray(matrix, dtype=np.float64)
    rows, cols = values.shape
    frame = pd.DataFrame({
        "query": np.repeat(row_labels, cols),
        "key": np.tile(col_labels, rows),
        "i": np.repeat(np.arange(rows), cols),
        "j": np.tile(np.arange(cols), rows),
        "text": [_fmt(v, decimals) for v in values.ravel()],
    })
    finite = np.where(np.isfinite(values), values, np.nan).ravel()
    frame["value"] = finite
    return frame


def heatmap(matrix, row_labels, col_labels, kind: str = "weights", title: str = "",
            selected_row: int | None = None, selected_cell: tuple[int, int] | None = None,
            size: int = 360, clickable: bool = False, font_scale: float = 1.0) -> alt.Chart:
    """A matrix as coloured cells with a legend and tooltips; values printed when small.

    kind: "weights", "scores" or "mask" (picks the colour scale). The selected query row and the
    selected cell get an outline. clickable: a click selects a cell (selection "cell", fields i, j).
    """
    frame = matrix_frame(matrix, row_labels, col_labels, decimals=0 if kind == "mask" else 4)
    rows, cols = np.asarray(matrix).shape
    x = alt.X("key:N", sort=list(col_labels), title="key (attended to)",
              axis=alt.Axis(labelAngle=-45, labelOverlap=cols > CELL_TEXT_MAX))
    y = alt.Y("query:N", sort=list(row_labels), title="query (attending)")
    base = alt.Chart(frame).encode(x=x, y=y)
    rect = base.mark_rect().encode(
        color=alt.Color("value:Q", scale=SCALES.get(kind, SCALES["scores"]), title=kind),
        tooltip=[alt.Tooltip("query:N"), alt.Tooltip("key:N"), alt.Tooltip("text:N", title="value")],
    )
    if clickable:
        rect = rect.add_params(alt.selection_point(name="cell", fields=["i", "j"], on="click"))
    layers = [rect]
    if rows <= CELL_TEXT_MAX and cols <= CELL_TEXT_MAX:
        layers.append(base.mark_text(fontSize=(13 if cols <= 8 else 10) * font_scale).encode(
            text="text:N",
            color=alt.condition(alt.datum.value > _contrast_threshold(frame, kind),
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


def overview_factor(size: int, max_pixels: int = 256) -> int:
    """How many cells one pixel of the overview image covers along each axis (1 up to 256)."""
    return max(1, -(-size // max_pixels))


def block_reduce(matrix, factor: int, how: str = "max") -> np.ndarray:
    """Aggregate factor x factor blocks of cells into one: "max" (keeps peaks), "mean" or "sum".

    Edges that do not fill a whole block are reduced over the cells they have. Infinite cells
    (masked scores) are ignored; a block with no finite cell becomes nan (drawn grey).
    """
    values = np.asarray(matrix, dtype=np.float64)
    rows, cols = values.shape
    if factor == 1:
        return values
    padded = np.full((-(-rows // factor) * factor, -(-cols // factor) * factor), np.nan)
    padded[:rows, :cols] = np.where(np.isfinite(values), values, np.nan)
    blocks = padded.reshape(padded.shape[0] // factor, factor, padded.shape[1] // factor, factor)
    reducer = {"max": np.nanmax, "mean": np.nanmean, "sum": np.nansum}[how]
    with warnings.catch_warnings():  # all-nan blocks are expected (fully masked)
        warnings.simplefilter("ignore", RuntimeWarning)
        reduced = reducer(blocks, axis=(1, 3))
    if how == "sum":  # nansum of an all-nan block is 0; keep it missing like the others
        reduced[np.isnan(blocks).all(axis=(1, 3))] = np.nan
    return reduced


def window(matrix, row_start: int, col_start: int, size: int) -> np.ndarray:
    """The exact values of a size x size region (clipped at the matrix's edges)."""
    values = np.asarray(matrix)
    return values[row_start: row_start + size, col_start: col_start + size]


def colour_range(matrix, kind: str) -> tuple[float, float]:
    """The values at the two ends of the colour bar, as the heatmaps use them."""
    if kind in ("weights", "mask"):
        return 0.0, 1.0
    values = np.asarray(matrix, dtype=np.float64)
    finite = values[np.isfinite(values)]
    spread = float(np.abs(finite).max()) if finite.size else 1.0
    return -spread, spread


def colour_bar(kind: str, width: int = 256, height: int = 14) -> np.ndarray:
    """A horizontal legend strip (RGB) with the same colours as matrix_image."""
    ramp = np.linspace(0, 1, width)
    values = ramp if kind != "scores" else ramp * 2 - 1
    return matrix_image(np.tile(values, (height, 1)), kind if kind != "scores" else "scores_unit")


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


_BLUES = np.array([[247, 251, 255], [198, 219, 239], [107, 174, 214], [33, 113, 181], [8, 48, 107]], float)
_REDBLUE = np.array([[5, 48, 97], [67, 147, 195], [247, 247, 247], [214, 96, 77], [103, 0, 31]], float)


def matrix_image(matrix, kind: str = "weights", cell_px: int = 1) -> np.ndarray:
    """A large matrix as an RGB image (uint8, one pixel per cell times cell_px), same colours.

    Used above ALTAIR_MAX tokens, where one Altair rect per cell would take seconds to draw.
    Infinite or missing cells (masked scores) are drawn light grey.
    """
    values = np.asarray(matrix, dtype=np.float64)
    finite = np.isfinite(values)
    if kind in ("scores", "scores_unit"):
        spread = 1.0 if kind == "scores_unit" else (np.abs(values[finite]).max() if finite.any() else 1.0)
        t = (values / (spread or 1.0) + 1) / 2
        palette = _REDBLUE
    else:
        t = values
        palette = _BLUES
    t = np.clip(np.where(finite, t, 0), 0, 1) * (len(palette) - 1)
    low = np.floor(t).astype(int).clip(0, len(palette) - 2)
    frac = (t - low)[..., None]
    rgb = palette[low] * (1 - frac) + palette[low + 1] * frac
    rgb[~finite] = (229, 231, 235)
    image = rgb.round().astype(np.uint8)
    if cell_px > 1:
        image = image.repeat(cell_px, axis=0).repeat(cell_px, axis=1)
    return image


# --- What heads learn (screens/trained.py) --------------------------------------------------------

def head_grid(labels: list[str], layers: int, heads: int, cell: int = 6) -> alt.FacetChart:
    """Every head's weights at once: one small map per head, a row of maps per layer.

    The data (columns layer, head, query, key, weight) is left out: pass it to st.vega_lite_chart
    as `data`, so that scrubbing the training step sends new data to the same Vega view (cheap)
    instead of a new spec.
    """
    x = alt.X("key:N", sort=labels, title="key", axis=alt.Axis(labelFontSize=8, labelAngle=-90))
    y = alt.Y("query:N", sort=labels, title="query", axis=alt.Axis(labelFontSize=8))
    rect = alt.Chart(alt.Data(name="heads")).mark_rect().encode(
        x=x, y=y, color=alt.Color("weight:Q", scale=SCALES["weights"], title="weight"),
        tooltip=["layer:N", "head:N", "query:N", "key:N", alt.Tooltip("weight:Q", format=".3f")])
    size = alt.Step(cell)
    return rect.properties(width=size, height=size).facet(
        row=alt.Row("layer:N", title=None, header=alt.Header(labelExpr="'layer ' + datum.value")),
        column=alt.Column("head:N", title=None, header=alt.Header(labelExpr="'head ' + datum.value")),
        spacing=8)


def head_grid_spec(labels: list[str], layers: int, heads: int) -> dict:
    """head_grid as a Vega-Lite dict without data: st.vega_lite_chart(frame, spec=...) supplies it."""
    spec = to_spec(head_grid(labels, layers, heads))
    spec.pop("data", None)
    return spec


def head_grid_frame(weights, labels: list[str]) -> pd.DataFrame:
    """(layers, heads, T, T) weights as the long table head_grid draws (future cells left out)."""
    values = np.asarray(weights, dtype=np.float32)
    L, H, T, _ = values.shape
    layer, head, query, key = np.meshgrid(np.arange(L), np.arange(H), np.arange(T), np.arange(T), indexing="ij")
    seen = (key <= query).ravel()
    names = np.asarray(labels[:T], dtype=object)
    return pd.DataFrame({"layer": (layer.ravel() + 1)[seen], "head": (head.ravel() + 1)[seen],
                         "query": names[query.ravel()[seen]], "key": names[key.ravel()[seen]],
                         "weight": values.ravel()[seen]})


def training_curves(frame: pd.DataFrame, step: int | None = None, title: str = "") -> alt.FacetChart:
    """Loss and accuracy against the training step, side by side (frame: step, measure, value),
    with a rule at `step`."""
    base = alt.Chart(frame)
    lines = base.mark_line().encode(x=alt.X("step:Q", title="training step"), y=alt.Y("value:Q", title=None),
                                    color=alt.Color("measure:N", legend=None))
    marker = base.mark_rule(color="#f59e0b", strokeWidth=2).encode(x=alt.datum(-1 if step is None else step))
    return alt.layer(lines, marker).properties(width=340, height=160).facet(
        column=alt.Column("measure:N", title=title or None)).resolve_scale(y="independent")
