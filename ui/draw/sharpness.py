"""How sharp softmax gets as d_k grows: the /softmax screen's experiment, figures and curves as one picture."""
import streamlit as st

from attention_core.drawing import charts
from ui.draw.vega import cached_chart


def sharpness_against_d_k(curve, chosen: int, key: tuple) -> None:
    """The √d_k experiment at the chosen d_k (four figures), then its largest weight and entropy against d_k
    (scaled and unscaled lines, a rule at the chosen d_k). curve: experiments.sweep as a table; key: what
    besides d_k determines it (tokens, seed)."""
    picked = curve[curve["d_k"] == chosen].set_index("scores")
    st.markdown(f"At **d_k = {chosen}**:")
    for column, (label, metric) in zip(st.columns(4), [(s, m) for m in ("largest weight", "entropy (nats)")
                                                       for s in ("ω / √d_k", "ω (unscaled)")]):
        column.metric(f"{metric.split(' (')[0]}, {label}", f"{picked.loc[label, metric]:.4f}")
    for column, metric in zip(st.columns(2), ("largest weight", "entropy (nats)")):
        with column:
            cached_chart(("sharpness", metric, chosen) + key,
                         lambda metric=metric: charts.line_chart(curve, "d_k", metric, "scores", f"{metric} vs d_k",
                                                                 log_x=True, mark_x=chosen),
                         f"{metric} vs d_k", lambda: curve, width="stretch")
