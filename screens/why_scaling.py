"""Going further: why attention divides q . k by sqrt(d_k), measured on random queries and keys."""
import math

import pandas as pd
import streamlit as st

from attention_core.drawing import charts, numbers
from attention_core.lessons import experiments
import ui
from attention_core.drawing.numbers import short
from attention_core.lessons.experiments import POWERS, SCALED, UNSCALED

SAMPLE_CHOICES = [256, 512, 1024, 2048, experiments.MAX_SAMPLES]
SHORT = {SCALED: "scaled", UNSCALED: "unscaled"}


def curve(sweep: pd.DataFrame, y: str, title: str, chosen: int, log_y: bool = False) -> None:
    """One measure of the sweep against d_k (log axis), the chosen d_k marked, with download buttons.

    log_y: the variance spans 1 to 1024 and the gradient several powers of ten; equal ratios, equal steps.
    """
    ui.chart(charts.line_chart(sweep, "d_k", y, "scores", title, log_x=True, mark_x=chosen, log_y=log_y),
             f"why scaling {title}", lambda: sweep[["d_k", "scores", y]], width="stretch")


ui.current()  # the sidebar, and notes about bad URL values on top
st.title("Why √d_k: experiments")
st.markdown(
    "Attention divides the scores q · k by √d_k before softmax (§3.4.1). Here you can measure why, on random "
    "queries and keys whose entries have mean 0 and variance 1, as at the start of training. Every number below "
    "is computed on this page from the controls, the same samples scored twice: unscaled (ω = q · k) and scaled "
    "(ω / √d_k)."
)

columns = st.columns(4)
with columns[0]:
    samples = st.select_slider("Queries per d_k", SAMPLE_CHOICES, value=experiments.MAX_SAMPLES, key="why_samples",
                               help="More queries, smoother curves; at most 4,096 so a run stays quick.")
with columns[1]:
    tokens = st.slider("Keys per query", 2, experiments.MAX_TOKENS, 16, key="why_tokens",
                       help="How many keys each query's softmax spreads its weight over.")
with columns[2]:
    seed = st.number_input("Seed", 0, 2**31 - 1, 123, step=1, key="why_seed",
                           help="Seeds a private torch.Generator per d_k; the global RNG is not touched.")
with columns[3]:
    d_k = st.select_slider("d_k for the histogram", list(POWERS), value=64, key="why_dk")

sweep = ui.why_scaling_sweep(int(samples), int(tokens), int(seed))
picked = sweep[sweep["d_k"] == d_k].set_index("scores")  # the two rows at the chosen d_k
groups = math.ceil(samples / tokens)
st.caption(f"{samples:,} queries per d_k, each scoring {tokens} keys ({samples * tokens:,} scores per d_k). Queries "
           f"come in {groups} groups of {tokens} that share their keys, like the rows of one {tokens} × {tokens} "
           f"attention matrix. Computed on the CPU with a private torch.Generator seeded from ({seed}, d_k).")

# --- 1: variance ---------------------------------------------------------------------------------
st.header("1 · The variance of q · k grows like d_k")
curve(sweep, "variance", "variance of the scores vs d_k", d_k, log_y=True)
slope = experiments.loglog_slope(POWERS, sweep[sweep["scores"] == UNSCALED]["variance"])
st.markdown(
    f"q · k adds up d_k products of two independent unit-variance numbers, so its variance is about d_k: on these "
    f"log axes the unscaled line climbs with slope {slope:.2f} (1 would be exactly proportional). Dividing by √d_k "
    f"divides the variance by d_k, and the scaled line stays near 1 at every size."
)

# --- 2: the scores themselves -----------------------------------------------------------------------
st.header(f"2 · The scores at d_k = {d_k}")
bars = ui.why_scaling_histogram(int(d_k), int(samples), int(tokens), int(seed))
ui.chart(charts.histogram(bars, f"scores at d_k = {d_k}"), f"why scaling histogram d_k {d_k}", lambda: bars,
         width="content")
left, right = st.columns(2)
left.metric(f"standard deviation · {SHORT[UNSCALED]}", f"{math.sqrt(picked.loc[UNSCALED, 'variance']):.3f}")
right.metric(f"standard deviation · {SHORT[SCALED]}", f"{math.sqrt(picked.loc[SCALED, 'variance']):.3f}")
st.markdown(
    f"Both panels share the score axis. Unscaled, the scores spread over about ±{3 * math.sqrt(d_k):.0f} "
    f"(three times √{d_k}); scaled, over about ±3 whatever d_k is."
    + (" At d_k = 1 the two are the same numbers, since √1 = 1." if d_k == 1 else "")
)

# --- 3: softmax saturates -------------------------------------------------------------------------
st.header("3 · Unscaled, softmax saturates")
for column, metric in zip(st.columns(2), ("largest weight", "entropy (nats)")):
    with column:
        curve(sweep, metric, f"{metric} vs d_k", d_k)
st.markdown(f"At **d_k = {d_k}**:")
pairs = [(label, metric) for metric in ("largest weight", "entropy (nats)") for label in (SCALED, UNSCALED)]
for cell, (label, metric) in zip(st.columns(4), pairs):
    cell.metric(f"{metric.split(' (')[0]} · {SHORT[label]}", f"{picked.loc[label, metric]:.4f}")
st.markdown(
    f"Softmax turns score differences into weight ratios through exp, so scores that are tens of units apart "
    f"give almost all the weight to one key: unscaled, the largest weight climbs toward 1 and the entropy falls "
    f"toward 0 as d_k grows. Scaled, they stay near their d_k = 1 values. For reference, weights spread evenly over "
    f"{tokens} keys have largest weight {1 / tokens:.4f} and entropy ln {tokens} = {math.log(tokens):.4f}; "
    f"a one-hot has 1 and 0."
)

# --- 4: the gradient vanishes ------------------------------------------------------------------------
st.header("4 · …and its gradient vanishes")
curve(sweep, "gradient (median)", "gradient reaching the scores vs d_k (median over queries)", d_k, log_y=True)
left, right = st.columns(2)
ratio = picked.loc[SCALED, "gradient (median)"] / max(picked.loc[UNSCALED, "gradient (median)"], 1e-300)
left.metric(f"median gradient · {SHORT[UNSCALED]} · d_k = {d_k}", f"{picked.loc[UNSCALED, 'gradient (median)']:.2e}")
right.metric(f"median gradient · {SHORT[SCALED]} · d_k = {d_k}", f"{picked.loc[SCALED, 'gradient (median)']:.2e}",
             help=f"{ratio:,.1f} times the unscaled one")
st.markdown(
    "For each query, autograd measures |d(softmax(s) · g)/ds| for a random unit vector g: how much of a gradient "
    "arriving at the weights gets through softmax to the scores, and on to W_q and W_k. A saturated softmax "
    "barely changes when its scores move, so the unscaled gradient collapses by orders of magnitude at large "
    "d_k, while the scaled one stays level and training keeps learning."
)
st.caption(
    f"The median shows the typical query. The mean falls less (at d_k = {d_k}: "
    f"{picked.loc[UNSCALED, 'gradient (mean)']:.2e} unscaled, {picked.loc[SCALED, 'gradient (mean)']:.2e} scaled) "
    "because the few queries whose two best keys nearly tie keep a sizeable gradient."
)

# --- 5: the mean matters as well as the variance ------------------------------------------------------
st.header("5 · Why zero-mean vectors: the book's torch.rand weights at GPT-2 size")
saturation = ui.saturation(int(seed))
st.markdown(
    f"√d_k undoes the growth of the scores' *variance* when queries and keys have mean 0. `SelfAttention_v1` draws "
    f"its weights with `torch.rand`, all in [0, 1), and random inputs drawn with `torch.rand` are all positive too. "
    f"Then every query and key points roughly the same way: the scores get a large positive *mean* that grows like "
    f"d, not √d, and keys whose vectors are a little longer beat the others by thousands. Below, "
    f"{experiments.SATURATION_TOKENS} random tokens of width d = {experiments.SATURATION_D} (GPT-2 small's), "
    "each setup measured scaled and unscaled, with no mask. This is why the book moves on to `SelfAttention_v2`, "
    "whose `nn.Linear` weights are zero-mean (uniform in ±1/√d_in), and why the app's screens use zero-mean "
    "inputs and nn.Linear's weights beyond the book's six 3-d vectors."
)
worst, real = saturation.iloc[0], saturation.iloc[-1]
left, right = st.columns(2)
left.metric("torch.rand inputs and weights · scaled · largest weight", short(worst["largest weight, scaled"]),
            help=f"score mean {numbers.plain(worst['score mean'])}; spread in a row after scaling "
                 f"{numbers.plain(worst['spread in a row'])}")
right.metric("zero-mean inputs, nn.Linear weights · scaled · largest weight", short(real["largest weight, scaled"]),
             help=f"score mean {numbers.plain(real['score mean'])}; spread in a row after scaling "
                  f"{numbers.plain(real['spread in a row'])}")
shown = saturation.copy()
for column in shown.columns[2:]:  # the scores as they come; weights and shares (0 … 1) to 4 decimals
    shown[column] = shown[column].map(numbers.plain if column in ("score mean", "spread in a row") else short)
st.dataframe(shown, hide_index=True, width="stretch")
st.caption("Score mean: over all q · k. Spread in a row: the median over queries of the standard deviation of "
           "ω / √d across one query's keys (softmax ignores a row's mean, not its spread). Largest weight and "
           f"entropy ÷ uniform: medians over queries (1/{experiments.SATURATION_TOKENS} and 1 for an even split, 1 "
           f"and 0 for a one-hot); one-hot rows: the share whose largest weight exceeds {experiments.ONE_HOT}. "
           "Zero-mean inputs alone are not enough (the weights' positive mean aligns every query), nor are zero-mean "
           "weights alone (all-positive inputs make every key alike, so the rows come out even).")

st.header("All the numbers")
st.dataframe(sweep.style.format({c: "{:.4g}" for c in sweep.columns if c not in ("d_k", "scores")}),
             hide_index=True, width="stretch", height=ui.table_height(len(sweep)))
ui.show_code(experiments.sample_scores, experiments.softmax_gradient_norm, experiments.measure,
             experiments.histogram, experiments.saturation, experiments.sharpness, title="The PyTorch code of these experiments")
