"""Going further: why attention divides q . k by sqrt(d_k), measured on random queries and keys."""
import math

import streamlit as st

from attention_core.drawing import charts, numbers
from attention_core.lessons import experiments
import ui
from screens import why_scaling_blocks as blocks
from attention_core.lessons.experiments import POWERS, SCALED, UNSCALED

SAMPLE_CHOICES = [256, 512, 1024, 2048, experiments.MAX_SAMPLES]
SHORT = {SCALED: "scaled", UNSCALED: "unscaled"}


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
                               format_func=lambda n: f"{n:,}",
                               help="More queries, smoother curves; at most 4,096 so a run stays quick.")
with columns[1]:
    tokens = st.slider("Keys per query", 2, experiments.MAX_TOKENS, 16, key="why_tokens",
                       help="How many keys each query's softmax spreads its weight over.")
with columns[2]:
    seed = st.number_input("Seed", 0, 2**31 - 1, 123, step=1, key="why_seed",
                           help="Seeds a random generator of its own for each d_k; the global RNG is not touched.")
with columns[3]:
    d_k = st.select_slider("d_k for the histogram", list(POWERS), value=64, key="why_dk", format_func=lambda n: f"{n:,}")

sweep = ui.why_scaling_sweep(int(samples), int(tokens), int(seed))
picked = sweep[sweep["d_k"] == d_k].set_index("scores")  # the two rows at the chosen d_k
groups = math.ceil(samples / tokens)
st.caption(f"{samples:,} queries per d_k, each scoring {tokens:,} keys ({samples * tokens:,} scores per d_k). Queries "
           f"come in {groups:,} groups of {tokens:,} that share their keys, like the rows of one {tokens:,} × {tokens:,} "
           f"attention matrix. Computed on the CPU with a random generator of its own, seeded from ({seed}, d_k).")

# --- 1: variance ---------------------------------------------------------------------------------
st.header("Step 1: the variance of q · k grows like d_k")
blocks.scaling_curve(sweep, "variance", "variance of the scores vs d_k", d_k, log_y=True)
slope = experiments.loglog_slope(POWERS, sweep[sweep["scores"] == UNSCALED]["variance"])
st.markdown(
    f"q · k adds up d_k products of two independent unit-variance numbers, so its variance is about d_k: on these "
    f"log axes the unscaled line climbs with slope {slope:.2f} (1 would be exactly proportional). Dividing by √d_k "
    f"divides the variance by d_k, and the scaled line stays near 1 at every size."
)

# --- 2: the scores themselves -----------------------------------------------------------------------
st.header(f"Step 2: the scores at d_k = {d_k:,}")
bars = ui.why_scaling_histogram(int(d_k), int(samples), int(tokens), int(seed))
ui.chart(charts.histogram(bars, f"scores at d_k = {d_k:,}"), f"why scaling histogram d_k {d_k}", lambda: bars,
         width="content")
left, right = st.columns(2)
left.metric(f"standard deviation · {SHORT[UNSCALED]}", f"{math.sqrt(picked.loc[UNSCALED, 'variance']):.3f}")
right.metric(f"standard deviation · {SHORT[SCALED]}", f"{math.sqrt(picked.loc[SCALED, 'variance']):.3f}")
st.markdown(
    f"Both panels share the score axis. Unscaled, the scores spread over about ±{3 * math.sqrt(d_k):.0f} "
    f"(three times √{d_k:,}); scaled, over about ±3 whatever d_k is."
    + (" At d_k = 1 the two are the same numbers, since √1 = 1." if d_k == 1 else "")
)

# --- 3: softmax saturates -------------------------------------------------------------------------
st.header("Step 3: unscaled, softmax saturates")
for column, metric in zip(st.columns(2), ("largest weight", "entropy (nats)")):
    with column:
        blocks.scaling_curve(sweep, metric, f"{metric} vs d_k", d_k)
st.markdown(f"At **d_k = {d_k:,}**:")
pairs = [(label, metric) for metric in ("largest weight", "entropy (nats)") for label in (SCALED, UNSCALED)]
for cell, (label, metric) in zip(st.columns(4), pairs):
    cell.metric(f"{metric.split(' (')[0]} · {SHORT[label]}", f"{picked.loc[label, metric]:.4f}")
st.markdown(
    f"Softmax turns score differences into weight ratios through exp, so scores that are tens of units apart "
    f"give almost all the weight to one key: unscaled, the largest weight climbs toward 1 and the entropy falls "
    f"toward 0 as d_k grows. Scaled, they stay near their d_k = 1 values. For reference, weights spread evenly over "
    f"{tokens:,} keys have largest weight {1 / tokens:.4f} and entropy ln {tokens:,} = {math.log(tokens):.4f}; "
    f"a one-hot has 1 and 0."
)

# --- 4: the gradient vanishes ------------------------------------------------------------------------
st.header("Step 4: and its gradient vanishes")
blocks.scaling_curve(sweep, "gradient (median)", "gradient reaching the scores vs d_k (median over queries)", d_k, log_y=True)
left, right = st.columns(2)
ratio = picked.loc[SCALED, "gradient (median)"] / max(picked.loc[UNSCALED, "gradient (median)"], 1e-300)
left.metric(f"median gradient · {SHORT[UNSCALED]} · d_k = {d_k:,}",
            numbers.scientific(picked.loc[UNSCALED, 'gradient (median)'], 2))
right.metric(f"median gradient · {SHORT[SCALED]} · d_k = {d_k:,}",
             numbers.scientific(picked.loc[SCALED, 'gradient (median)'], 2), help=f"{ratio:,.1f} times the unscaled one")
st.markdown(
    "For each query, autograd measures |d(softmax(s) · g)/ds| for a random unit vector g: how much of a gradient "
    "arriving at the weights gets through softmax to the scores, and on to W_q and W_k. A saturated softmax "
    "barely changes when its scores move, so the unscaled gradient collapses by orders of magnitude at large "
    "d_k, while the scaled one stays level and training keeps learning."
)
st.caption(
    f"The median shows the typical query. The mean falls less (at d_k = {d_k:,}: "
    f"{numbers.scientific(picked.loc[UNSCALED, 'gradient (mean)'], 2)} unscaled, "
    f"{numbers.scientific(picked.loc[SCALED, 'gradient (mean)'], 2)} scaled) "
    "because the few queries whose two best keys nearly tie keep a sizeable gradient."
)

# --- 5: the mean matters as well as the variance ------------------------------------------------------
blocks.zero_mean_lesson(int(seed))

st.header("All the numbers")
# One format per column, trailing zeros kept: "0.2080" beside "0.2295", never "0.208"; gradients span powers of ten
# and are written as everywhere else in the app ("6.31 × 10⁻²", not "6.31e-02").
GRADIENT = lambda v: numbers.scientific(v, 2)  # noqa: E731
COLUMN_FORMATS = {"d_k": "{:,}", "variance": "{:,.3f}", "largest weight": "{:.4f}", "entropy (nats)": "{:.4f}",
                  "gradient (median)": GRADIENT, "gradient (mean)": GRADIENT}
ui.data_table(sweep.style.format({c: f for c, f in COLUMN_FORMATS.items() if c in sweep.columns}),
             hide_index=True, width="stretch", height=ui.table_height(len(sweep)))
ui.show_code(experiments.sample_scores, experiments.softmax_gradient_norm, experiments.measure,
             experiments.histogram, experiments.saturation, experiments.sharpness, title="The PyTorch code of these experiments")
