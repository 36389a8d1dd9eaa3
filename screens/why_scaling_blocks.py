"""The "Why √d_k" screen's shared chart and its closing sub-lesson: why √d_k needs zero-mean vectors.

screens/why_scaling.py keeps the outline (the controls, one section per measure, the prose) and calls these with
one line; the numbers come from attention_core/lessons/experiments.py.
"""
import pandas as pd
import streamlit as st

from attention_core.drawing import charts, numbers
from attention_core.lessons import experiments
from ui.compute.cache import saturation as saturation_table
from ui.draw.vega import chart


def scaling_curve(sweep: pd.DataFrame, y: str, title: str, chosen: int, log_y: bool = False) -> None:
    """One measure of the sweep against d_k (log axis), the chosen d_k marked, with download buttons.

    log_y: the variance spans 1 to 1024 and the gradient several powers of ten; equal ratios, equal steps.
    """
    chart(charts.line_chart(sweep, "d_k", y, "scores", title, log_x=True, mark_x=chosen, log_y=log_y),
          f"why scaling {title}", lambda: sweep[["d_k", "scores", y]], width="stretch")


def saturation_by_measure(saturation: pd.DataFrame) -> pd.DataFrame:
    """experiments.saturation's rows as text, one column per setup and one row per measure (ten measures side by
    side do not fit a slide; four setups do). The scores' mean and spread to 4 significant digits (18,912, 0.4977);
    weights and shares (0 … 1) to 4 decimals, trailing zeros kept so the digits line up."""
    setups = [f"{row['inputs']} inputs, {row['weights']} weights" for _, row in saturation.iterrows()]
    return pd.DataFrame({column: [numbers.significant(v) if column in ("score mean", "spread in a row") else numbers.places(v)
                                  for v in saturation[column]] for column in saturation.columns[2:]}, index=setups).T


def zero_mean_lesson(seed: int) -> None:
    """Section 5: the book's torch.rand weights at GPT-2 size saturate softmax even after dividing by √d."""
    st.header("Step 5: why zero-mean vectors (the book's torch.rand weights at GPT-2 size)")
    saturation = saturation_table(seed)  # a row per (inputs, weights) setup: torch.rand's first, nn.Linear's last
    D = experiments.SATURATION_D
    st.markdown(
        f"√d_k undoes the growth of the scores' *variance* when queries and keys have mean 0. `SelfAttention_v1` draws "
        f"its weights with `torch.rand`, all in [0, 1), and random inputs drawn with `torch.rand` are all positive too. "
        f"Then every query and key points roughly the same way: each of a query's d entries sums d positive products "
        f"(about d/4 each), so a score has a large positive *mean*, about d · (d/4)² = d³/16 "
        f"({numbers.scientific(D ** 3 / 16, 2)} at d = {D:,}; measured below: "
        f"{numbers.scientific(saturation.iloc[0]['score mean'], 2)}), where zero-mean vectors give a spread of about √d "
        f"around 0; and keys whose vectors are a little longer beat the others by thousands. Below, "
        f"{experiments.SATURATION_TOKENS} random tokens of width d = {experiments.SATURATION_D} (GPT-2 small's), "
        "each setup measured scaled and unscaled, with no mask. This is why the book moves on to `SelfAttention_v2`, "
        "whose `nn.Linear` weights are zero-mean (uniform in ±1/√d_in), and why the app's screens use zero-mean "
        "inputs and nn.Linear's weights beyond the book's six 3-d vectors."
    )
    worst, real = saturation.iloc[0], saturation.iloc[-1]
    left, right = st.columns(2)
    left.metric("torch.rand inputs and weights · scaled · largest weight", numbers.places(worst['largest weight, scaled']),
                help=f"score mean {numbers.plain(worst['score mean'])}; spread in a row after scaling "
                     f"{numbers.plain(worst['spread in a row'])}")
    right.metric("zero-mean inputs, nn.Linear weights · scaled · largest weight", numbers.places(real['largest weight, scaled']),
                 help=f"score mean {numbers.plain(real['score mean'])}; spread in a row after scaling "
                      f"{numbers.plain(real['spread in a row'])}")
    # st.table, not st.dataframe: a static table wraps its text, so no measure's name ("one-hot rows, unscaled") or
    # setup is cut off at a column's edge on a narrow screen or a slide.
    st.table(saturation_by_measure(saturation))
    st.caption("Score mean: over all q · k. Spread in a row: the median over queries of the standard deviation of "
               "ω / √d across one query's keys (softmax ignores a row's mean, not its spread). Largest weight and "
               f"entropy ÷ uniform: medians over queries (1/{experiments.SATURATION_TOKENS} and 1 for an even split, 1 "
               f"and 0 for a one-hot); one-hot rows: the share whose largest weight exceeds {experiments.ONE_HOT}. "
               "Zero-mean inputs alone are not enough (the weights' positive mean aligns every query), nor are zero-mean "
               "weights alone (all-positive inputs make every key alike, so the rows come out even).")
