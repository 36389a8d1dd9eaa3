"""Screen 2: from scores to weights: three normalisations, softmax, and the 1/sqrt(d_k) scaling (3.3.1, 3.4.1)."""
import math

import streamlit as st
import torch

from attention_core.book import stages
from attention_core.drawing import numbers
from attention_core.lessons import agreement, claims, experiments, initialisation, pitfalls
import ui
from attention_core.drawing.numbers import short
from attention_core.drawing.text import softmax_cell_latex
from attention_core.lessons.experiments import POWERS

TEMPERATURES = [0.25, 0.5, 1.0, 2.0, 4.0]  # τ: the scores are divided by √d_k · τ
CURVE_SAMPLES = 256  # queries per d_k in the sharpness curves
CURVE_TOKENS = 64  # the sharpness experiment uses at most 64 keys (its cost grows with tokens x d_k)

settings = ui.current()
st.title("2 · Softmax and √d_k scaling")
st.markdown(
    "Scores ω can be any size and sign; attention needs **weights** α that are positive and add up to 1 "
    "per query. Softmax does that by exponentiating and normalising. Before softmax, the trainable scores "
    "q · k are divided by **√d_k** so that their size does not depend on the key dimension."
)


@ui.fragment
def screen():
    """Everything below the title: a commit from a view reruns only this part, not the sidebar."""
    simple, used, device_note = ui.projection(settings, "none", "softmax")
    record, used, device_note = ui.projection(settings, "v1", "softmax")
    q, k = ui.committed(len(settings.tokens))
    scale = bool(ui.value("scale"))
    temperature = ui.clamp("temperature", options=TEMPERATURES, fallback_note="Temperature {old} is not offered; using {new}.")
    if not ui.predict_first("softmax", settings, record=record, q=q, temperature=temperature):
        st.stop()
    ui.device_badge(used, device_note or settings.device_note)

    # --- A: three normalisations of the simplified scores ----------------------------------------------
    st.header("Three ways to normalise (ω = x · x, §3.3.1)")
    all_rows = simple["attn_scores"]  # (T, T): every query's row, so the view scrubs the queries in the browser
    normalised = {"divide by the sum": stages.normalize_by_sum(all_rows),
                  "naive exp / sum": stages.softmax_naive(all_rows), "torch.softmax": stages.softmax(all_rows)}
    drawable = {name: m for name, m in normalised.items() if torch.isfinite(m).all()}  # nan has no bar
    st.markdown(f"Scores of query {q + 1}: `{numbers.listing(all_rows[q])}`. Move the query in the view: the bars "
                "show its scores and their three normalisations side by side.")
    ui.show_view(all_rows, settings, "scores", "one query's scores, three ways to normalise them", view_key="normalise",
                 parts=("row", "cell"), row_title="scores ω = x · x", commit=True,
                 also=[(name, m, "weights" if bool(((m >= 0) & (m <= 1)).all()) else "scores") for name, m in drawable.items()])
    if len(drawable) < len(normalised):  # the overflow that section D explains
        st.info("naive exp / sum: exp() overflowed to inf, and inf / inf is nan: no bars to draw.", icon=":material/warning:")
    variants = {name: matrix[q] for name, matrix in normalised.items()}  # (T,) each: the committed query's
    for column, (name, variant) in zip(st.columns(3), variants.items()):
        column.metric(f"row sum · {name}", f"{float(variant.sum()):.4f}", help=f"query {q + 1}, the query the lesson follows")
    ui.table(torch.stack(list(variants.values())), "normalised row", list(variants), settings.labels)
    if bool((variants["divide by the sum"] < 0).any()):
        st.caption("Dividing by the sum gives negative 'weights' here because some scores are negative: "
                   "it only guarantees the sum, not positivity. Softmax is always positive.")
    st.markdown("Dividing by the sum keeps the proportions of the scores. Softmax exaggerates the differences "
                "(exp grows fast), so the best-matching key gets a clearly larger share, and it never goes "
                "negative. " + ("The naive and the PyTorch softmax agree here; they part ways at large scores (below)."
                                if torch.isfinite(variants["naive exp / sum"]).all() else
                                f"The naive softmax already fails here: the largest score of query {q + 1}, "
                                f"{numbers.plain(float(all_rows[q].max()))}, is too large for exp() in float32 (see "
                                "“Large scores” below), while torch.softmax is fine."))

    # --- B: scaling the trainable scores --------------------------------------------------------------
    d_k = record["keys"].shape[-1]
    st.header(f"Scaling q · k by √d_k (SelfAttention_v1, d_k = {d_k})")
    st.caption(initialisation.weights_line("v1", settings.seed_for("softmax"), initialisation.book_weights(settings.input_kind))
               + f" d_k = keys.shape[-1] = d_out = {d_k}.")
    scores = record["attn_scores"]  # (T, T)
    both = [(f"softmax(ω / √{d_k})", record["attn_weights"]), ("softmax(ω), unscaled", record["unscaled_weights"])]
    ui.show_view(torch.stack([m for _, m in both]), settings, "weights", "attention weights α", view_key="scaled",
                 commit=True, worked=(record["queries"], record["keys"], scores),
                 frames={"name": "Divide the scores by √d_k", "param": "scale", "values": [1, 0], "initial": 0 if scale else 1,
                         "labels": [f"yes: {title}" for title, _ in both[:1]] + [f"no: {both[1][0]}"]})
    sharp = {title: ui.checked(experiments.sharpness, matrix) for title, matrix in both}
    for column, (title, metric) in zip(st.columns(4), [(t, m) for m in ("largest weight", "entropy ÷ uniform")
                                                       for t in sharp]):
        column.metric(f"{metric} · {title}", short(sharp[title][metric]),
                      help=f"The median over the queries: {short(1 / scores.shape[-1])} and 1 for an even split, "
                           "1 and 0 for a one-hot.")
    weights = both[0][1] if scale else both[1][1]
    cell, shift = softmax_cell_latex(record["scaled_scores" if scale else "attn_scores"][q], q, k, float(weights[q, k]),
                                     rf"/\sqrt{{{d_k}}}" if scale else "")
    st.markdown(f"The weight of the query and key the lesson follows ({'scaled' if scale else 'unscaled'}; press "
                "Enter in the view to follow another):")
    st.latex(cell)
    if shift:
        st.caption(f"These scores are too large for exp() even in float64, so the formula subtracts the row maximum "
                   f"({numbers.plain(shift)}) first, exactly as torch.softmax does; the weights are unchanged.")
    show_temperature(record["scaled_scores"], temperature)
    st.markdown("Why not the book's `torch.rand` weights at every size? All-positive inputs and weights make every "
                "score large and positive, and turn softmax one-hot even after dividing by √d_k: the “Why √d_k” screen "
                "measures it (section 5).")

    st.subheader("Pitfall: `d_k*0.5` is not `d_k**0.5`")
    precedence = pitfalls.precedence(scores[q], d_k)  # the bug from the notes, computed next to the fix
    st.code(f"torch.softmax(attn_scores_{q + 1} / d_k**0.5, dim=-1)  # correct: / {math.sqrt(d_k):.4f}\n"
            f"# -> [{numbers.listing(precedence['right'])}]\n"
            f"torch.softmax(attn_scores_{q + 1} / d_k*0.5, dim=-1)   # bug: / {d_k} * 0.5\n"
            f"# -> [{numbers.listing(precedence['wrong'])}]", language="python")
    st.markdown(f"Python reads `/ d_k*0.5` as `(ω / d_k) · 0.5`, a division by {2 * d_k} rather than √{d_k}. "
                + claims.precedence_claim(precedence["right"], precedence["wrong"]))



@ui.fragment
def why_sqrt_d_k():
    """The d_k experiment: its slider reruns only this section, never the views above (megabytes at GPT-2 size)."""
    st.header("Why √d_k: softmax sharpens as d_k grows")
    ui.clamp("d_k", options=POWERS, fallback_note="d_k = {old} is not a power of two from 1 to 1024; using {new}.")
    chosen = ui.control(st.select_slider, "d_k (key dimension)", "d_k", options=POWERS)
    tokens = min(len(settings.tokens), CURVE_TOKENS)


    curve = ui.why_scaling_sweep(CURVE_SAMPLES, tokens, settings.seed)  # the same experiment as /why-scaling
    st.markdown(f"An experiment separate from the sidebar's d_out: random q and k with unit-variance entries, "
                f"{tokens} keys per query, {CURVE_SAMPLES} queries per d_k (more on the “Why √d_k” screen). "
                f"Uniform attention has largest weight 1/{tokens} = {1 / tokens:.4f} and entropy ln {tokens} = "
                f"{math.log(tokens):.4f}; a one-hot has 1 and 0.")
    ui.sharpness_against_d_k(curve, chosen, key=(tokens, settings.seed))
    ui.explain(
        "Each entry of q · k adds one product of two unit-variance numbers, so the score's variance grows like d_k "
        "and its typical size like √d_k. Unscaled, a large d_k hands softmax scores dozens of units apart: it "
        "saturates into a one-hot, and its gradient (≈ α(1 − α)) is nearly zero, so training stalls. Dividing by "
        "√d_k brings the variance back to about 1 whatever d_k is, and the curves stay flat."
    )



def overflow_and_checks():
    """Large scores, the tensors, the code and the checks, for the query and scaling the lesson follows."""
    simple, _, _ = ui.projection(settings, "none", "softmax")
    record, _, _ = ui.projection(settings, "v1", "softmax")
    q, _ = ui.committed(len(settings.tokens))
    scale, d_k, scores = bool(ui.value("scale")), record["keys"].shape[-1], record["attn_scores"]
    weights = record["attn_weights"] if scale else record["unscaled_weights"]
    # --- D: overflow ------------------------------------------------------------------------------------
    st.header("Large scores: naive softmax overflows")
    examples = [(f"ω of query {q + 1} × 100", simple["attn_scores"][q] * 100), ("[1000, 999, 998]", torch.tensor([1000.0, 999.0, 998.0]))]
    for label, values in examples:
        naive, stable = stages.softmax_naive(values), stages.softmax(values)
        st.markdown(f"**{label}** · `torch.exp`: `{numbers.listing(torch.exp(values))}`  \n"
                    f"`softmax_naive`: `{numbers.listing(naive)}`  \n`torch.softmax`: `{numbers.listing(stable)}`")
    st.caption("The nan and inf values above are expected: they are what this example demonstrates.")
    st.markdown("In float32, exp(x) overflows to inf once x > 88.7 (exp(89) ≈ 4.5 · 10³⁸). The naive version then "
                "divides inf by inf, which is nan. `torch.softmax` first subtracts the row maximum: the largest "
                "exponent becomes exp(0) = 1, nothing overflows, and the result is mathematically the same.")

    # --- the tensors and the code -------------------------------------------------------------------------
    st.header("The tensors")
    ui.table(simple["attn_scores"], "attn_scores (x · x)", settings.labels, settings.labels)
    ui.table(scores, "attn_scores (q · k)", settings.labels, settings.labels)
    ui.table(record["scaled_scores"], f"attn_scores / d_k**0.5 (d_k = {d_k})", settings.labels, settings.labels)
    ui.table(weights, "attn_weights" + ("" if scale else " (unscaled)"), settings.labels, settings.labels)
    ui.show_code(stages.normalize_by_sum, stages.softmax_naive, stages.softmax, stages.scale_scores, stages.entropy)

    # --- checks and mistakes ------------------------------------------------------------------------
    naive = stages.softmax_naive(simple["attn_scores"])  # (T, T): overflows on large x · x
    checks = [("scaled context vectors vs F.scaled_dot_product_attention", ui.checked(agreement.unmasked_vs_sdpa, record, True))]
    overflow = claims.overflow_claim(naive)
    if overflow is None:
        checks.append(("naive exp/sum vs torch.softmax (x · x scores)",
                       stages.max_abs_diff(naive, stages.softmax(simple["attn_scores"]))))
    ui.agreement(checks)
    if overflow:
        st.caption(overflow)
    if ui.pitfalls_toggle():
        wrong_dim = pitfalls.softmax_wrong_dim(scores)
        ui.pitfall("Softmax over the wrong dimension", "torch.softmax(attn_scores, dim=0)",
                   "torch.softmax(attn_scores, dim=-1)",
                   f"Each key's column sums to 1, so the rows a query mixes with sum to {numbers.listing(wrong_dim['wrong_row_sums'])}.",
                   f"Each query's row sums to {numbers.listing(wrong_dim['right_row_sums'])}.")


def show_temperature(scaled_scores: torch.Tensor, temperature: float) -> None:
    """softmax(ω / (√d_k · τ)) for every τ at once (a batch of five maps the browser scrubs)."""
    st.subheader("Temperature: one more divisor before softmax")
    taus = torch.tensor(TEMPERATURES, dtype=scaled_scores.dtype)
    tempered = stages.softmax(scaled_scores[None] / taus[:, None, None])  # (τ, T, T): softmax(ω / (√d_k · τ))
    ui.show_view(tempered, settings, "weights", "weights α at temperature τ", view_key="temperature",
                 parts=("row", "cell"), commit=True,
                 vectors=[("sharpness", experiments.sharpness_per_row(tempered), ("largest weight", "entropy ÷ uniform"))],
                 frames={"name": "Temperature τ", "param": "temperature", "values": TEMPERATURES,
                         "labels": [f"{t:g}" for t in TEMPERATURES], "initial": TEMPERATURES.index(temperature)})
    tokens = scaled_scores.shape[-1]
    st.markdown(f"Dividing the scores by a temperature τ before softmax, `torch.softmax(attn_scores / (d_k**0.5 * τ), "
                f"dim=-1)`, changes how sharp the weights are and never their order. τ > 1 shrinks the gaps between "
                f"scores, so the weights drift toward the even split 1/{tokens}; τ < 1 widens them toward a "
                "one-hot; τ = 1 is the book's scaled softmax. √d_k is itself a temperature, fixed by the key size so "
                "that the scaled scores q · k / √d_k keep a variance near 1 whatever d_k is: softmax(ω / √d_k) is "
                "softmax at τ = √d_k on the raw scores. Chapter 5 turns the same knob on the logits when it samples the next token.")


screen()
why_sqrt_d_k()
overflow_and_checks()
