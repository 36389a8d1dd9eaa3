"""What heads learn, on screen: the every-head grid and the training curves, through the one draw route."""
from attention_core.drawing import training_charts
from ui.compute.built import grid_spec
from ui.draw.vega import cached_chart, chart, draw_spec, font_scale


def head_grid(weights, labels: list[str], name: str) -> None:
    """Every head's map of one model: (layers, heads, T, T) weights. The spec depends only on the labels and
    sizes; a new training step sends new data to the same Vega view (quick)."""
    layers, heads = weights.shape[:2]
    spec = grid_spec(tuple(labels), layers, heads, font_scale())
    frame = training_charts.head_grid_frame(weights, labels)
    draw_spec(spec, name, lambda: frame, data=frame, width="content")


def curves(history: dict, name: str, step: int | None = None, title: str = "", every: int = training_charts.CURVE_EVERY,
           key: tuple | None = None) -> None:
    """Loss and accuracy against the step (a rule at `step`). key: plain values that determine the chart, to
    build it once (a finished run); without, it is built on every call (a run still growing)."""
    scale = font_scale()

    def build():
        return training_charts.training_curves(training_charts.history_frame(history, every), step, title, scale)
    table = lambda: training_charts.history_frame(history, every)  # noqa: E731 (CSV on click only)
    if key is None:
        chart(build(), name, table, width="content")
    else:
        cached_chart(key, build, name, table, width="content")
