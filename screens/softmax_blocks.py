"""The softmax screen's worked demos, each one picture or one sub-lesson that stands on its own.

screens/softmax.py keeps the outline (the headers, the views of the weights, the prose that ties them) and calls
each of these with one line, so the screen reads like the lesson and these hold the numbers that back it.
"""
import math

import streamlit as st
import torch

from attention_core.book import stages
from attention_core.drawing import numbers
from attention_core.drawing.numbers import short
from attention_core.drawing.text import md_escape, softmax_cell_latex
from attention_core.lessons import agreement as agreement_checks
from attention_core.lessons import claims, experiments, pitfalls
from ui.compute import cache
from ui.draw.checks import agreement, checked, pitfall
from ui.draw.view_route import show_view
from ui.draw.display import table
from ui.state.settings import Settings

TEMPERATURES = [0.25, 0.5, 1.0, 2.0, 4.0]  # τ: the scores are divided by √d_k · τ
MEDIAN_OF_QUERIES = "median"  # the sharpness metrics' label: not the followed query's number


def normalisation_readout(all_rows: torch.Tensor, normalised: dict, q: int, labels: list, overflowed: bool) -> None:
    """Under the three-normalisations view: the committed query's row sums, its table, and what sets them apart.

    all_rows: (T, T) scores ω = x · x; normalised: name -> (T, T) the three normalisations of them.
    """
    if overflowed:  # the overflow that the "overflow" section explains
        st.info("naive exp / sum: exp() overflowed to inf, and inf / inf is nan: no bars to draw.", icon=":material/warning:")
    variants = {name: matrix[q] for name, matrix in normalised.items()}  # (T,) each: the committed query's
    for column, (name, variant) in zip(st.columns(3), variants.items()):
        column.metric(f"row sum · {name}", f"{float(variant.sum()):.4f}", help=f"query {q + 1}, the query the lesson follows")
    table(torch.stack(list(variants.values())), "normalised row", list(variants), labels)
    if bool((variants["divide by the sum"] < 0).any()):
        st.caption("Dividing by the sum gives negative 'weights' here because some scores are negative: "
                   "it only guarantees the sum, not positivity. Softmax is always positive.")
    st.markdown("Dividing by the sum keeps the proportions of the scores. Softmax works on exp of them, which grows "
                "fast, and is never negative. "
                + claims.softmax_share_claim(variants["divide by the sum"], variants["torch.softmax"],
                                             [md_escape(label) for label in labels]) + " "
                + ("The naive and the PyTorch softmax agree here; they part ways at large scores (below)."
                                if torch.isfinite(variants["naive exp / sum"]).all() else
                                f"The naive softmax already fails here: the largest score of query {q + 1}, "
                                f"{numbers.plain(float(all_rows[q].max()))}, is too large for exp() in float32 (see "
                                "“Large scores” below), while torch.softmax is fine."))


def sharpness_metrics(both: list, scores: torch.Tensor) -> None:
    """Four metrics, the scaled weights' column beside the unscaled ones': the median largest weight and entropy.

    both: [(title, (T, T) weights)], scaled first; scores: (T, T) ω. checked: a rerun that only moves the query
    re-uses the medians.
    """
    sharp = {title: checked(experiments.sharpness, matrix) for title, matrix in both}
    # Medians over every query, and labelled so: the lesson's own query (one weight by hand below) has its own.
    for column, title in zip(st.columns(len(sharp)), sharp):
        for metric in ("largest weight", "entropy ÷ uniform"):
            column.metric(f"{MEDIAN_OF_QUERIES} {metric} · {title}", f"{sharp[title][metric]:.4f}",  # 0.9920, 0.0978
                          help=f"The median over all {scores.shape[0]} queries, not one query's: "
                               f"{short(1 / scores.shape[-1])} and 1 for an even split, 1 and 0 for a one-hot.")


def one_weight_by_hand(record: dict, weights: torch.Tensor, q: int, k: int, scale: bool) -> None:
    """α_{q,k} worked out with its real numbers, scaled or not as the view's frame says; weights: (T, T)."""
    d_k = record["keys"].shape[-1]
    cell, shift = softmax_cell_latex(record["scaled_scores" if scale else "attn_scores"][q], q, k, float(weights[q, k]),
                                     rf"/\sqrt{{{d_k}}}" if scale else "")
    st.markdown(f"The weight of the query and key the lesson follows ({'scaled' if scale else 'unscaled'}; press "
                "Enter in the view to follow another)" +
                (f". These scores are too large for exp() even in float64, so the formula subtracts the row maximum "
                 f"({numbers.plain(shift)}) first, exactly as torch.softmax does; the weights are unchanged:" if shift else ":"))
    st.latex(cell)


def show_temperature(scaled_scores: torch.Tensor, temperature: float, settings: Settings) -> None:
    """softmax(ω / (√d_k · τ)) for every τ at once (a batch of five maps the browser scrubs), drawn inside the
    screen's "temperature" section, whose title names it."""
    tempered, sharpness = cache.tempered(scaled_scores, TEMPERATURES)  # (τ, T, T): softmax(ω / (√d_k · τ)); (τ, T, 2)
    show_view(tempered, settings, "weights", "weights α at temperature τ", view_key="temperature",
              parts=("row", "cell"), commit=True, order=scaled_scores, order_name="scores ω",  # τ keeps the order
              vectors=[("sharpness", sharpness, ("largest weight", "entropy ÷ uniform"))],
              frames={"name": "Temperature τ", "param": "temperature", "values": TEMPERATURES,
                      "labels": [f"{t:g}" for t in TEMPERATURES], "initial": TEMPERATURES.index(temperature)})
    tokens = scaled_scores.shape[-1]
    st.markdown(f"Dividing the scores by a temperature τ before softmax, `torch.softmax(attn_scores / (d_k**0.5 * τ), "
                f"dim=-1)`, changes how sharp the weights are and never their order. τ > 1 shrinks the gaps between "
                f"scores, so the weights drift toward the even split 1/{tokens:,}; τ < 1 widens them toward a "
                "one-hot; τ = 1 is the book's scaled softmax. √d_k is itself a temperature, fixed by the key size so "
                "that the scaled scores q · k / √d_k keep a variance near 1 whatever d_k is: softmax(ω / √d_k) is "
                "softmax at τ = √d_k on the raw scores. Chapter 5 turns the same knob on the logits when it samples the next token.")


def precedence_pitfall(row: torch.Tensor, q: int, d_k: int) -> None:
    """The notes' `/ d_k*0.5` bug, computed next to the fix on the committed query's (T,) scores `row`."""
    st.subheader("Pitfall: `d_k*0.5` is not `d_k**0.5`")
    precedence = pitfalls.precedence(row, d_k)
    st.code(f"torch.softmax(attn_scores_{q + 1} / d_k**0.5, dim=-1)  # correct: / {math.sqrt(d_k):.4f}\n"
            f"# -> [{numbers.listing(precedence['right'])}]\n"
            f"torch.softmax(attn_scores_{q + 1} / d_k*0.5, dim=-1)   # bug: / {d_k} * 0.5\n"
            f"# -> [{numbers.listing(precedence['wrong'])}]", language="python", wrap_lines=True)
    st.markdown(f"Python reads `/ d_k*0.5` as `(ω / d_k) · 0.5`, a division by {2 * d_k:,} rather than √{d_k}. "
                + claims.precedence_claim(precedence["right"], precedence["wrong"]))


def overflow_demo(row: torch.Tensor, q: int) -> None:
    """Naive exp / sum against torch.softmax on scores large enough to overflow float32; row: (T,) ω of query q
    (drawn inside the screen's "overflow" section, whose title names it)."""
    examples = [(f"ω of query {q + 1} × 100", row * 100), ("[1000, 999, 998]", torch.tensor([1000.0, 999.0, 998.0]))]
    for label, values in examples:
        naive, stable = stages.softmax_naive(values), stages.softmax(values)
        st.markdown(f"**{label}** · `torch.exp`: `{numbers.listing(torch.exp(values))}`  \n"
                    f"`softmax_naive`: `{numbers.listing(naive)}`  \n`torch.softmax`: `{numbers.listing(stable)}`")
    st.caption("The nan and inf values above are expected: they are what this example demonstrates.")
    st.markdown("In float32, exp(x) overflows to inf once x > 88.7 (exp(89) ≈ 4.5 · 10³⁸). The naive version then "
                "divides inf by inf, which is nan. `torch.softmax` first subtracts the row maximum: the largest "
                "exponent becomes exp(0) = 1, nothing overflows, and the result is mathematically the same.")


def softmax_agreement(simple_scores: torch.Tensor, record: dict) -> None:
    """The screen's agreement with PyTorch; the naive softmax is compared only where it did not overflow.

    simple_scores: (T, T) ω = x · x; record: SelfAttention_v1's trace.
    """
    normalised, _ = cache.normalisations(simple_scores)
    naive = normalised["naive exp / sum"]  # (T, T): overflows on large x · x
    checks = [("scaled context vectors vs F.scaled_dot_product_attention",
               checked(agreement_checks.unmasked_vs_sdpa, record, True))]
    overflow = claims.overflow_claim(naive)
    if overflow is None:
        checks.append(("naive exp/sum vs torch.softmax (x · x scores)",
                       stages.max_abs_diff(naive, normalised["torch.softmax"])))
    agreement(checks)
    if overflow:
        st.caption(overflow)


# --- the "mistakes" section: each mistake of this step, wrong and right, with its numbers ---------


def mistakes(scores: torch.Tensor, d_k: int | None = None) -> None:
    """Softmax over the wrong axis; scores: (T, T) ω = q · k, divided by √d_k as the lesson's weights are."""
    wrong_dim = pitfalls.softmax_wrong_dim(scores, d_k)
    scaled = "attn_scores" if d_k is None else "attn_scores / d_k**0.5"
    pitfall("Softmax over the wrong dimension", f"torch.softmax({scaled}, dim=0)",
            f"torch.softmax({scaled}, dim=-1)",
            f"Each key's column sums to 1, so the rows a query mixes with sum to {numbers.listing(wrong_dim['wrong_row_sums'])}.",
            f"Each query's row sums to {numbers.listing(wrong_dim['right_row_sums'])}.")
