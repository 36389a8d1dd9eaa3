"""What heads learn, drawn: every head of a model as a grid of small maps, and the training curves.

The grid's spec holds no data: scrubbing the training step sends a new table to the same Vega view.
"""
import altair as alt
import numpy as np
import pandas as pd

from attention_core.drawing import colour
from attention_core.drawing.charts import to_spec


def probe_labels(symbols: str, ids) -> list[str]:
    """Axis labels of a probe sequence: each token's position (1-based; a symbol repeats), then its symbol in
    single quotes. Symbols include digits: "2 2" or "1 I" would read as 22 and 11, "2 ‘2’" and "1 ‘I’" cannot. The
    position comes first, as every label of the app's attention view does, which sets labels in double quotes."""
    return [f"{n + 1} ‘{symbols[int(t)]}’" for n, t in enumerate(ids)]


CURVE_EVERY = 10  # the training curves plot the mean of this many steps' batches a point


def history_frame(history: dict, every: int = CURVE_EVERY) -> pd.DataFrame:
    """Loss and accuracy for a line chart, averaged over windows of `every` steps (less noise, fewer points)."""
    frame = pd.DataFrame(history)
    if frame.empty:
        return pd.DataFrame(columns=["step", "measure", "value"])
    frame = frame.groupby((frame["step"] - 1) // every).agg({"step": "max", "loss": "mean", "accuracy": "mean"})
    return frame.melt(id_vars="step", var_name="measure", value_name="value")


def head_grid(labels: list[str], layers: int, heads: int, cell: int = 6, font_scale: float = 1.0) -> alt.FacetChart:
    """Every head's weights at once: one small map per head, a row of maps per layer.

    The data (columns layer, head, query, key, weight) is left out: pass it to st.vega_lite_chart
    as `data`, so that scrubbing the training step sends new data to the same Vega view (cheap)
    instead of a new spec.
    """
    # Presenter mode: labels that read on a projector (16 px at the slides' 1.6, not 12.8), cells as tall as a label
    # where a row of maps still fits a slide (1,400 px); where it does not, every other label is left out (parity).
    labels_px, titles_px = (8 if font_scale == 1 else 10) * font_scale, 11 * font_scale
    cell = round(cell * min(font_scale, 4 / 3)) if font_scale == 1 else max(
        round(cell * 4 / 3), min(round(labels_px) + 2, 1400 // max(1, heads * len(labels))))
    overlap = "parity" if cell < labels_px else False
    x = alt.X("key:N", sort=labels, title="key", axis=alt.Axis(labelFontSize=labels_px, titleFontSize=titles_px,
                                                               labelAngle=-90, labelOverlap=overlap))
    y = alt.Y("query:N", sort=labels, title="query", axis=alt.Axis(labelFontSize=labels_px, titleFontSize=titles_px,
                                                                   labelOverlap=overlap))
    rect = alt.Chart(alt.Data(name="heads")).mark_rect().encode(
        x=x, y=y, color=alt.Color("weight:Q", scale=alt.Scale(**colour.WEIGHTS.vega()), title="weight",
                                   legend=alt.Legend(labelFontSize=max(labels_px, 11 * font_scale),
                                                     titleFontSize=titles_px)),  # Vega's 10 px default: 14 on a slide
        tooltip=["layer:N", "head:N", "query:N", "key:N", alt.Tooltip("weight:Q", format=".3f")])
    size = alt.Step(cell)
    return rect.properties(width=size, height=size).facet(
        row=alt.Row("layer:N", title=None, header=alt.Header(labelExpr="'layer ' + datum.value", labelFontSize=titles_px)),
        column=alt.Column("head:N", title=None, header=alt.Header(labelExpr="'head ' + datum.value", labelFontSize=titles_px)),
        spacing=8)


def head_grid_spec(labels: list[str], layers: int, heads: int, font_scale: float = 1.0) -> dict:
    """head_grid as a Vega-Lite dict without data: st.vega_lite_chart(frame, spec=...) supplies it."""
    spec = to_spec(head_grid(labels, layers, heads, font_scale=font_scale))
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


def training_curves(frame: pd.DataFrame, step: int | None = None, title: str = "",
                    font_scale: float = 1.0) -> alt.FacetChart:
    """Loss and accuracy against the training step, side by side (frame: step, measure, value), with a rule at
    `step`. Big enough for a room, every font set here (a live run and a finished one look the same), all of it
    growing with the font scale (presenter mode)."""
    labels, titles = 13 * font_scale, 14 * font_scale
    axis = dict(labelFontSize=labels, titleFontSize=titles)
    base = alt.Chart(frame)
    lines = base.mark_line(strokeWidth=2 * min(font_scale, 1.5)).encode(
        x=alt.X("step:Q", title="training step", axis=alt.Axis(format=",d", **axis)),
        y=alt.Y("value:Q", title=None, axis=alt.Axis(**axis)), color=alt.Color("measure:N", legend=None))
    marker = base.mark_rule(color="#f59e0b", strokeWidth=2).encode(x=alt.datum(-1 if step is None else step))
    header = alt.Header(labelFontSize=titles, titleFontSize=titles, labelFontWeight="bold")
    return alt.layer(lines, marker).properties(width=round(440 * font_scale), height=round(170 * font_scale)).facet(
        column=alt.Column("measure:N", title=title or None, header=header)).resolve_scale(y="independent")
