"""The dropout screen's sub-lessons that stand on their own: what this draw did, one cell by hand, and the
average of many draws; and the byte budget that decides whether the view scrubs every rate.

screens/dropout.py keeps the outline (the controls, the view of the weights before and after, the prose, the
folded sections) and calls each of these with one line. weights are the causal attention weights (T, T), zero above the
diagonal; keep the 0/1 keep mask and dropped the weights after dropout, both (T, T).
"""
import streamlit as st
import torch

from attention_core.drawing import charts
from attention_core.drawing.text import short
from ui.cache import dropout_convergence
from ui.display import table
from ui.draw.vega import cached_chart

CONVERGE_TOKENS = 64  # the many-draws average runs on the rows of the first 64 queries at most
DRAWS = [2**i for i in range(11)]  # N = 1, 2, 4, ..., 1024 draws
RATES = [round(0.05 * i, 2) for i in range(21)]  # the dropout rate's steps: the view scrubs all of them at once ...
STACK_BUDGET = 2_000_000  # ... while the stack of their maps' cells fits in this many bytes (2 MB)
# What one stored cell of that stack costs at most (attention_core/drawing/view_data.py): a causal map sends only
# its lower triangle, each cell a uint8 shade and a fixed-point code, int32 when a survivor times 1 / (1 − p)
# passes uint16's 6.5535 at the large rates (query 1's weight is 1: × 20 at p = 0.95). Above view_data's
# EXACT_MAX tokens a cell sends only its shade and each row its 32 largest codes: fewer bytes, so this bounds both.
# The marks of the dropped cells (view_data.dropped_bits: 1 bit a cell of the grid, 99 kB at 194 tokens) come on
# top, with the overview and the rows, inside the whole view's 3 MB (tests/test_dropout_budget.py).
CELL_BYTES = 4 + 1


def stack_bytes(num_tokens: int) -> int:
    """The bytes of every rate's weights map after dropout, as the view's cells: rates × T(T + 1)/2 × 5."""
    return len(RATES) * num_tokens * (num_tokens + 1) // 2 * CELL_BYTES


def every_rate_fits(num_tokens: int) -> bool:
    """Whether the 21 rates' maps travel at once (the view scrubs p, nothing reruns): up to 194 tokens. Above,
    the rate is a server slider and one map travels. The overview (above 64 tokens), the weights before and the
    row sums come on top (tests/test_dropout_budget.py keeps the whole view under 3 MB at 194 tokens)."""
    return stack_bytes(num_tokens) <= STACK_BUDGET


def draw_summary(columns: list, p: float, train: bool, num_tokens: int, n_visible: int, n_dropped: int) -> None:
    """The edge cases said out loud (eval mode, p = 1, p = 0), then the scale factor and how much was dropped,
    one metric under each of the three controls (`columns`)."""
    if not train:
        st.info("Eval mode (`model.eval()`): dropout is the identity, so the weights pass through unchanged. "
                "Dropout is only active in training (`model.train()`).")
    elif p >= 1:
        st.warning("p = 1: all weights dropped: the context vectors are all zero. PyTorch returns zeros here "
                   "rather than dividing by 1 − p = 0.")
    elif p == 0:
        st.info("p = 0: nothing is dropped and the scale factor is 1: the weights are unchanged.")
    factor = ("× 1 (dropout off)" if not train else "none: all dropped" if p >= 1 else f"× {1 / (1 - p):.4f}")
    columns[0].metric("Scale factor 1 / (1 − p)", factor)
    columns[1].metric("Visible weights dropped", f"{n_dropped:,} of {n_visible:,}")
    columns[2].metric("Future cells (causal mask, already 0)", f"{num_tokens * num_tokens - n_visible:,}")


def one_cell_by_hand(weights, keep, dropped, q: int, k: int, p: float, train: bool, labels: list) -> None:
    """dropout(α_{q,k}) worked out with its numbers, and why the cell came out as it did."""
    w, m, d = float(weights[q, k]), float(keep[q, k]), float(dropped[q, k])
    cell = rf"_{{{q + 1},{k + 1}}}"
    if not train:
        st.latex(rf"\operatorname{{dropout}}(\alpha{cell}) = \alpha{cell} = {w:.4f} \quad \text{{(eval mode)}}")
    elif p >= 1:
        st.latex(rf"\operatorname{{dropout}}(\alpha{cell}) = 0 \quad \text{{(p = 1: every weight is dropped)}}")
    else:
        st.latex(rf"\operatorname{{dropout}}(\alpha{cell}) = \frac{{\alpha{cell} \cdot m{cell}}}{{1 - p}} = "
                 rf"{w:.4f} \times {m:.0f} / {short(1 - p)} = {d:.4f}")
    why = ("it is in the future of the query, so the causal mask had already set it to 0" if k > q
           else "eval mode keeps every weight" if not train
           else "dropout removed it" if m == 0 else f"it survived and was scaled by 1/(1 − p) = {1 / (1 - p):.4f}")
    st.caption(f"One cell by hand: α is the causal weight of query {labels[q]} for key {labels[k]}, m the keep "
               f"mask (1 kept, 0 dropped): {why}.")


def many_draws(weights: torch.Tensor, dropped: torch.Tensor, p: float, seed: int, labels: list) -> None:
    """This draw's row sums, then how the average of N draws closes in on the weights as N grows."""
    num_tokens = len(labels)
    table(torch.stack([weights.sum(dim=-1), dropped.sum(dim=-1)], dim=1), "row_sums", labels,
          ["attn_weights", "after dropout"])
    n = min(num_tokens, CONVERGE_TOKENS)
    frame, mean_sums = dropout_convergence(weights[:n, :n].contiguous(), p, tuple(DRAWS), seed)  # causal: these rows end at column n
    cached_chart(("dropout convergence", *frame.itertuples(index=False)),  # a few rows: the chart once per set
                 lambda: charts.line_chart(frame, "draws", "difference", "measure",
                                           "average of N dropout draws vs the weights", log_x=True,
                                           y_title="largest |difference|"),
                 "dropout average convergence", lambda: frame, width="stretch")
    scope = f"the rows of the first {n} queries (of {num_tokens}, to keep it fast)" if n < num_tokens else "all rows"
    if p >= 1:
        st.caption(f"Over {scope}: with p = 1 nothing ever survives, so the average stays 0 and never approaches "
                   "the weights.")
    else:
        st.caption(f"Training-mode draws with seeds {seed} … {seed} + N − 1 over {scope}. One draw breaks the row "
                   f"sums, but the average of {DRAWS[-1]} draws has row sums between {float(mean_sums.min()):.4f} "
                   f"and {float(mean_sums.max()):.4f}: dropout keeps every weight's expected value, and the "
                   "error shrinks roughly like 1/√N." + (" With p = 0 every draw equals the weights." if p == 0 else ""))
