"""Chart builders: plain functions from numbers to Altair charts (or an RGB image).

No Streamlit here, so the same charts can be saved from a notebook. A matrix's colours are its
colour.ColourScale's, as in every image and in the attention view.
"""
import json
import math

import altair as alt
import numpy as np
import pandas as pd

from attention_core.drawing import colour
from attention_core.drawing.numbers import fixed
from attention_core.drawing.shares import share_context

# Validating every chart against the Vega-Lite schema as it is built costs tens of milliseconds a
# chart on every slider move; these builders are tested instead.
alt.utils.schemapi.disable_debug_mode()

CELL_TEXT_MAX = 12  # up to 12 x 12 the values are printed in the cells
ALTAIR_MAX = 64  # above 64 x 64 a matrix is drawn as an image (one rect per cell gets slow)

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
            size: int = 360, clickable: bool = False, font_scale: float = 1.0,
            scale: colour.ColourScale | str = "absolute", context: tuple | None = None,
            mask_labels: tuple[str, str] | None = None, mask_dark: int = 1) -> alt.Chart:
    """A matrix as coloured cells with a legend and tooltips; values printed when small.

    kind: "weights", "scores" or "mask"; scale: its colours (colour.scale_for(kind, scale): weights take
    colour.WEIGHTS, 0..1, or colour.SHARE, each weight against an even split). Masked cells (the future in a
    causal weights map, -inf scores) are grey whatever the scale. The selected query row and cell
    are outlined from a separate one-row dataset, "selection" (see `select`), so a new selection
    changes neither the spec nor the cells: the browser keeps its Vega view and swaps one tiny
    dataset. clickable: a click selects a cell (selection "cell", fields i, j).
    context: for a window of a larger weights map, (masked, log2 shares, share range) of the window's
    cells as computed on the whole map (a share counts the keys of the whole row).
    mask_labels: for a mask, what 0 and 1 mean, e.g. ("may see", "blocked"): a legend of two swatches, each
    named with its value ("0 = may see"). mask_dark: which value is drawn dark, so that two masks holding opposite
    values (torch.tril's 1 = may see, the buffer's 1 = blocked) can be drawn with one meaning per colour.
    """
    frame = matrix_frame(matrix, row_labels, col_labels, decimals=0 if kind == "mask" else 4)
    values = np.asarray(matrix, dtype=np.float64)
    rows, cols = values.shape
    scale = colour.scale_for(kind, scale)
    if context is None and kind == "weights":
        context = share_context(values)
    masked = context[0] if context is not None else ~np.isfinite(values)
    frame["masked"] = masked.ravel()
    tooltip = [alt.Tooltip("query:N"), alt.Tooltip("key:N"), alt.Tooltip("text:N", title="value")]
    if scale.relative:
        shade, (low, high), shown = _share_column(*context)
        frame["shade"], frame["share"] = np.where(np.isnan(shade), low, shade).ravel(), shown.ravel()
        fill = alt.Color("shade:Q", scale=alt.Scale(**scale.vega((low, high))), title=scale.unit,
                         legend=alt.Legend(labelExpr="format(pow(2, datum.value), '.2~g') + '×'"))
        tooltip.append(alt.Tooltip("share:N", title="against an even share"))
        dark = low + 0.6 * (high - low)
    elif scale.two_tone:  # two values with a meaning each, not a 0..1 ramp
        zero, one = (f"0 = {mask_labels[0]}", f"1 = {mask_labels[1]}") if mask_labels else ("0", "1")
        value = frame["value"].fillna(0.0)
        frame["meaning"] = np.where(value >= 0.5, one, zero)
        frame["shade"] = value if mask_dark == 1 else 1 - value  # 1 = drawn dark (white text on it)
        light_first = [zero, one] if mask_dark == 1 else [one, zero]  # the palette is (light, dark)
        # Under the map: at the right its labels ("1 = future, blocked") widened the chart past a half-width column.
        fill = alt.Color("meaning:N", scale=alt.Scale(domain=light_first, range=scale.stops()), title="mask",
                         legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=0))
        dark = 0.5
    else:
        # Masked cells take their grey from the condition; a finite shade keeps Vega from dropping them. The scale
        # clamps: survivors of dropout exceed 1 and get the darkest blue.
        frame["shade"] = frame["value"].fillna(0.0)
        fill = alt.Color("shade:Q", scale=alt.Scale(**scale.vega(scale.domain(values))), title=kind)
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
    # The outlines draw from the "selection" dataset: a rect with only a y encoding spans the row.
    picked = alt.Chart(alt.NamedData(SELECTION)).mark_rect(fill=None, stroke="#f59e0b")
    layers.append(picked.encode(y=alt.Y("query:N", sort=list(row_labels)), strokeWidth=alt.value(2))
                  .transform_filter("datum.outline == 'row'"))
    layers.append(picked.encode(x=alt.X("key:N", sort=list(col_labels)), y=alt.Y("query:N", sort=list(row_labels)),
                                strokeWidth=alt.value(4)).transform_filter("datum.outline == 'cell'"))
    # Cells keep a readable size: wide enough for "0.1234" when values are printed.
    if max(rows, cols) <= CELL_TEXT_MAX:
        # On a slide (font_scale 1.6) cells of 93 px hold "0.1234" at 21 px, and a 6 × 6 map with its axis and legend
        # fits a half-width column (816 px): at 102 px it ran 34 px past it.
        width, height = alt.Step(64 * min(font_scale, 1.45)), alt.Step(40 * font_scale)
    else:
        width = height = alt.Step(max(4, size // max(rows, cols)))
    return alt.layer(*layers).properties(title=title, width=width, height=height)


def _share_column(masked: np.ndarray, shares: np.ndarray, share_range: tuple[float, float]):
    """Shades (log2 shares clipped to their range, nan where masked), the range, and the share as text."""
    low, high = share_range
    shade = np.clip(np.where(shares == -np.inf, low, shares), low, high)
    with np.errstate(over="ignore"):
        text = np.where(np.isnan(shares), "masked", np.char.add(np.char.mod("%.2g", np.exp2(shares)), "× even"))
    return shade, (low, high), text


SELECTION = "selection"  # the dataset of a heatmap's outlines


def select(spec: dict, rows, cols, selected_row: int | None = None,
           selected_cell: tuple[int, int] | None = None) -> dict:
    """A copy of a heatmap's spec with a selection: only its small "selection" dataset differs."""
    chosen = []
    if selected_row is not None:
        chosen.append({"query": rows[selected_row], "key": cols[0], "outline": "row"})
    if selected_cell is not None:
        chosen.append({"query": rows[selected_cell[0]], "key": cols[selected_cell[1]], "outline": "cell"})
    return dict(spec, datasets=dict(spec.get("datasets", {}), **{SELECTION: chosen}))


def _contrast_threshold(frame: pd.DataFrame, kind: str) -> float:
    """Above this value the cell is dark, so its text is printed in white."""
    if kind == "weights":
        return 0.6
    if kind == "mask":
        return 0.5
    spread = np.nanmax(np.abs(frame["value"].to_numpy())) if frame["value"].notna().any() else 0.0
    return 0.6 * spread if spread > 0 else math.inf


def line_chart(frame: pd.DataFrame, x: str, y: str, color: str, title: str = "",
               log_x: bool = False, y_title: str | None = None, mark_x: float | None = None,
               log_y: bool = False) -> alt.Chart:
    """Lines with points, one per `color` group (e.g. scaled vs unscaled against d_k).

    mark_x draws a vertical rule at the chosen x (e.g. the d_k picked with a slider).
    """
    # x spans its data, not a rounded-out domain: 1,024 queries drawn on an axis to 1,100 read as more tokens
    scale = alt.Scale(type="log", base=2) if log_x else alt.Scale(nice=False, zero=False)
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


def finished(chart, font_scale: float = 1.0) -> dict:
    """What a builder hands the UI layer: the chart styled for the font scale, as a Vega-Lite dict."""
    return to_spec(styled(chart, font_scale))


def to_spec(chart) -> dict:
    """The chart as a Vega-Lite dict with its data inline, without schema validation (fast).

    Altair names each dataset after a hash of its content, so new numbers would make a new spec and
    cost the browser a fresh Vega view (20-60 ms). Renamed "chart_data_0", ... by order of
    appearance, the same chart with other numbers keeps its spec: the browser swaps the data.
    """
    spec = chart.to_dict(validate=False)
    if spec.get("datasets"):
        text = json.dumps(spec)
        for n, name in enumerate(list(spec["datasets"])):
            text = text.replace(f'"{name}"', f'"chart_data_{n}"')  # Vega's own names are data_N
        spec = json.loads(text)
    view = spec.get("config", {}).get("view", {})
    for default in ("continuousWidth", "continuousHeight"):  # Altair's theme defaults, not ours
        view.pop(default, None)
    return accessible(spec)


def accessible(spec: dict) -> dict:
    """A chart that a screen reader reads as one picture with a name (WCAG 1.1.1): its title as the description, and
    no ARIA roles on the marks and axes. Vega gives every mark group a role; a layered chart's empty or unnamed
    layers then became nameless "graphics-symbol" groups (axe's svg-img-alt), which tell a listener nothing."""
    if "description" not in spec:
        spec["description"] = title_text(spec) or "A chart"
    _no_mark_roles(spec)
    return spec


def _no_mark_roles(part: dict) -> None:
    """aria: false on every mark of the spec, its layers and concatenated views (Vega then leaves their groups
    without a role: the chart's description names the whole picture)."""
    mark = part.get("mark")
    if isinstance(mark, str):
        part["mark"] = {"type": mark, "aria": False}
    elif isinstance(mark, dict):
        mark["aria"] = False
    for key in ("layer", "hconcat", "vconcat", "concat"):
        for child in part.get(key, []):
            _no_mark_roles(child)
    if isinstance(part.get("spec"), dict):  # a facet's or a repeat's inner view
        _no_mark_roles(part["spec"])


def title_text(spec: dict) -> str:
    """The chart's title as plain text (a string, a list of lines, or {"text": ...}), else its first layer's."""
    title = spec.get("title")
    if isinstance(title, dict):
        title = title.get("text")
    if isinstance(title, list):
        title = " ".join(map(str, title))
    if title:
        return str(title)
    for part in spec.get("layer", []) + spec.get("hconcat", []) + spec.get("vconcat", []) + spec.get("concat", []):
        if found := title_text(part):
            return found
    return ""


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


LINE_DASHES = ([1, 0], [6, 3], [2, 2], [8, 3, 2, 3], [12, 4], [4, 4, 1, 4], [1, 3], [10, 2, 2, 2, 2, 2])
POINT_SHAPES = ("circle", "square", "triangle-up", "diamond", "cross", "triangle-down", "triangle-right", "stroke")


def loglog(frame: pd.DataFrame, y: str, title: str, y_title: str, colours: dict[str, str]) -> alt.Chart:
    """Lines over sequence length, both axes logarithmic: a power law T^k is a straight line of slope k.
    frame: tokens, label, y; colours: label -> colour, in legend order (labels absent from frame are left out)."""
    shown = [label for label in colours if label in set(frame["label"])]
    scale = alt.Scale(domain=shown, range=[colours[label] for label in shown])
    # A second cue beside colour (WCAG 1.4.1): each line its own dash and point shape, in the same legend
    dashes = alt.Scale(domain=shown, range=[LINE_DASHES[n % len(LINE_DASHES)] for n in range(len(shown))])
    shapes = alt.Scale(domain=shown, range=[POINT_SHAPES[n % len(POINT_SHAPES)] for n in range(len(shown))])
    return alt.Chart(frame).mark_line(point=alt.OverlayMarkDef(size=60, filled=True)).encode(
        x=alt.X("tokens:Q", scale=alt.Scale(type="log", base=2), title="sequence length T (tokens)",
                axis=alt.Axis(values=sorted(frame["tokens"].unique().tolist()), format=",d")),
        y=alt.Y(f"{y}:Q", scale=alt.Scale(type="log"), title=y_title),
        # one legend: the same field and title on the three channels merge into one entry per line
        color=alt.Color("label:N", scale=scale, title=None, legend=alt.Legend(labelLimit=0, symbolStrokeWidth=3)),
        strokeDash=alt.StrokeDash("label:N", scale=dashes, title=None, legend=alt.Legend(labelLimit=0)),
        shape=alt.Shape("label:N", scale=shapes, title=None, legend=alt.Legend(labelLimit=0)),
        tooltip=["tokens:Q", "label:N", alt.Tooltip(f"{y}:Q", format=",.3f")],
    ).properties(title=title, height=320)
