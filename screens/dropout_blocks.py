"""The dropout screen's sub-lessons that stand on their own: what this draw did, one cell by hand, and the
average of many draws; and the byte budget that decides whether the view scrubs every rate.

screens/dropout.py keeps the outline (the controls, the view of the weights before and after, the prose, the
folded sections) and calls each of these with one line. weights are the causal attention weights (T, T), zero above the
diagonal; keep the 0/1 keep mask and dropped the weights after dropout, both (T, T).
"""
import pandas as pd
import streamlit as st
import torch

from attention_core.drawing import charts
from attention_core.drawing.text import short
from attention_core.lessons import pitfalls
from attention_core.lessons import reader_questions as rq
from ui.compute.cache import dropout_convergence
from ui.compute.built import once
from ui.draw.checks import pitfall
from ui.draw.display import data_table, table, window
from ui.draw.vega import cached_chart
from ui.state.settings import Settings
from attention_core.drawing.numbers import scientific

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
    st.caption(f"One cell by hand: α is the causal weight of query “{labels[q]}” for key “{labels[k]}”, m the keep "
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
    scope = f"the rows of the first {n} queries (of {num_tokens:,}, to keep it fast)" if n < num_tokens else "all rows"
    if p >= 1:
        st.caption(f"Over {scope}: with p = 1 nothing ever survives, so the average stays 0 and never approaches "
                   "the weights.")
    else:
        st.caption(f"Training-mode draws with seeds {seed} … {seed} + N − 1 over {scope}. One draw breaks the row "
                   f"sums, but the average of {DRAWS[-1]:,} draws has row sums between {float(mean_sums.min()):.4f} "
                   f"and {float(mean_sums.max()):.4f}: dropout keeps every weight's expected value, and the "
                   "error shrinks roughly like 1/√N." + (" With p = 0 every draw equals the weights." if p == 0 else ""))


# --- the "mistakes" section: each mistake of this step, wrong and right, with its numbers ---------


def mistakes(settings: Settings, p: float) -> None:
    """Dropout left on at inference: two predictions of the same input differ."""
    rate = p if 0 < p < 1 else 0.5  # p = 0 or 1 would show no randomness: the book's 0.5 instead
    runs = pitfalls.causal_dropout_at_inference(settings.x, settings.d_out, rate, settings.seed_for("dropout"))
    pitfall(f"Dropout left on at inference (p = {rate:g})", "model(x)  # still in model.train() mode",
            "model.eval()\nwith torch.no_grad():\n    model(x)",
            f"Two predictions for the same input differ by up to {runs['train_diff']:.4f}: "
            "the model's answers are random.",
            f"Two predictions differ by {runs['eval_diff']:.4f}: eval mode switches dropout off.")


# --- the "questions" section: readers' questions from the book's issue tracker, computed ------------


def reader_questions(settings: Settings, **inputs) -> None:
    """The questions readers ask at this step, each answered with the right and the wrong version."""
    for demo in (_scale_demo, _placement_demo, _platform_demo):
        demo(settings, **inputs)


def _scale_demo(settings, **_) -> None:
    frame = once(("dropout scale",), lambda: pd.DataFrame(rq.dropout_scale()))
    st.markdown("**1/p or 1/(1 − p)?** (the book's issues 428 and 431) 100,000 ones through PyTorch's own "
                "`nn.Dropout(p)` after `torch.manual_seed(123)`:")
    data_table(frame, hide_index=True, width="content")
    low = frame.iloc[0]
    st.caption(f"nn.Dropout's survivors hold 1/(1 − p): {low['nn.Dropout survivor value']:.4f} at p = {low['p']:g}. Only "
               f"that keeps the average at 1 ({low['mean with 1/(1-p)']:.4f}); 1/p would make it "
               f"{low['mean with 1/p']:.4f}. At the book's p = 0.5 both are 2, which hides the difference.")


def _placement_demo(settings, record, p, seed, q, **_) -> None:
    rate = p if 0 < p < 1 else 0.5
    out = rq.dropout_placement(record["attn_scores"], rate, seed, record["keys"].shape[-1])
    row = pd.DataFrame({"keep mask": out["keep"][q], "dropout on the weights (book)": out["right"][q],
                        "dropout on the scores": out["wrong"][q]}, index=settings.labels).T
    got = ", ".join(f"{float(v):.4f}" for v in out["wrong"][q][out["dropped"][q]][:6])
    still = (f"the dropped keys still get weight: {got} in query {q + 1}'s row" if got else
             f"a dropped key still gets weight (none of query {q + 1}'s keys was dropped in this draw)")
    pitfall(f"Dropout on the scores instead of the weights (issue 280; p = {rate:g})",
            "attn_scores = dropout(attn_scores)  # on the scores, before the mask\n"
            "masked = attn_scores.masked_fill(mask_bool, -torch.inf)\n"
            "attn_weights = torch.softmax(masked / d_k**0.5, dim=-1)",
            "attn_weights = torch.softmax(masked / d_k**0.5, dim=-1)\nattn_weights = dropout(attn_weights)",
            f"A dropped score becomes 0, not −∞, so {still}; softmax still makes every row sum to "
            f"{float(out['wrong_row_sums'].min()):.4f}, so no link was switched off. Dropout on the scores after the "
            f"mask is worse: −∞ × 0 = nan spoils {out['nan_rows_if_after_mask']:,} of {len(settings.labels):,} rows.",
            f"Dropped keys get exactly 0, survivors × {1 / (1 - rate):.4f}; query {q + 1}'s row sums to "
            f"{float(out['right_row_sums'][q]):.4f} in this draw.", wrong_box=st.warning)
    keys = window(*row.shape)[1]  # the keys a slide shows whole
    data_table(row.iloc[:, :keys], width="content")
    if keys < row.shape[1]:
        st.caption(f"Showing the first {keys} of {row.shape[1]:,} keys.")


def _platform_demo(settings, record, p, seed, **_) -> None:
    weights = record["attn_weights"][:64, :64].contiguous()
    out = rq.platform_dropout(weights, p if 0 < p < 1 else 0.5, seed)
    st.markdown("**Why do my dropout numbers differ from the book's?** `torch.manual_seed` seeds one global "
                "generator per device, and `nn.Dropout` draws from it:")
    cols = st.columns(3)
    cols[0].metric("book's call vs the app's private generator", scientific(out['book_vs_app']))
    cols[1].metric("cells changed by one extra draw after the seed", f"{out['cells_changed_by_one_extra_draw']:,} "
                                                                      f"of {out['cells']:,}")
    cols[2].metric("app's generator after someone else's draw", scientific(out['app_repeatable']))
    gpus = ", ".join(f"{d}: {n:,} of {out['cells']:,} cells differ from the CPU's mask"
                     for d, n in out["accelerator_cells_differing"].items())
    st.caption(f"torch {out['torch_version']}. " + (f"Same seed on {gpus}. " if gpus else
               "No GPU here, so the GPU's own generator (a different algorithm) was not compared. ")
               + "The app draws every keep mask on the CPU from its own torch.Generator, so the book's CPU numbers "
                 "come back on every device and for every visitor of the shared server.")


def what_the_view_shows(p: float, train: bool) -> str:
    """What to look for in the view, true at every rate the browser may scrub to (it names no rate's numbers); ""
    where draw_summary's box already says it (eval mode, p = 0, p = 1)."""
    if not train or p <= 0 or p >= 1:
        return ""
    return ("Fuchsia cells are the weights this draw dropped to 0; every other weight is multiplied by 1/(1 − p), "
            "so a row's sum is no longer 1 in general: only its average over many draws is.")
