"""How sharp softmax gets as d_k grows: the /softmax screen's experiment, one map at every d_k and the curves."""
from attention_core.drawing import charts
from attention_core.lessons.experiments import POWERS
from ui.draw.vega import cached_chart
from ui.draw.view_route import show_view
from ui.state.settings import Settings

SHARPNESS_FIELDS = ("largest weight, ω / √d_k", "entropy ÷ uniform, ω / √d_k",
                    "largest weight, unscaled", "entropy ÷ uniform, unscaled")


def sharpness_against_d_k(curve, stack: dict, chosen: int, settings: Settings, key: tuple) -> None:
    """The experiment's map at every d_k as a stack the browser scrubs (its d_k slider selects, nothing reruns),
    then the largest weight and entropy against d_k, averaged over all the queries (scaled and unscaled lines).

    curve: experiments.sweep as a table; stack: experiments.d_k_stack of the same draws; chosen: the d_k the
    view opens at (the URL's); key: what besides d_k determines the curves (tokens, seed)."""
    tokens = stack["scaled"].shape[-1]
    show_view(stack["scaled"], settings, "weights", "softmax(ω / √d_k) of random unit-variance q and k",
              view_key="d_k", parts=("matrix", "row", "cell"), labels=[f"{j + 1} random" for j in range(tokens)], selection=(0, 0),
              row_title="scaled: softmax(ω / √d_k)", also=[("unscaled: softmax(ω)", stack["unscaled"], "weights")],
              vectors=[("this query's row", stack["sharpness"], SHARPNESS_FIELDS)],
              frames={"name": "d_k (key dimension)", "param": "d_k", "values": list(POWERS),
                      "labels": [str(d) for d in POWERS], "initial": POWERS.index(chosen)})
    for metric in ("largest weight", "entropy (nats)"):
        cached_chart(("sharpness", metric) + key,
                     lambda metric=metric: charts.line_chart(curve, "d_k", metric, "scores", f"{metric} vs d_k (mean over queries)",
                                                             log_x=True),
                     f"{metric} vs d_k", lambda: curve, width="stretch")
