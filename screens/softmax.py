"""Screen 2: from scores to weights: softmax and the 1/sqrt(d_k) scaling (3.3.1, 3.4.1), then its sections."""
import math

import streamlit as st

from attention_core.book import stages
from attention_core.drawing import numbers
from attention_core.lessons import initialisation
import ui
from screens import softmax_blocks as blocks
from attention_core.lessons.experiments import POWERS

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
    """The lesson and its sections: a commit from a view reruns only this part, not the sidebar."""
    record, used, device_note = ui.projection(settings, "v1", "softmax")
    q, k = ui.committed(len(settings.tokens))
    scale = bool(ui.value("scale"))
    temperature = ui.clamp("temperature", options=blocks.TEMPERATURES, fallback_note="Temperature {old} is not offered; using {new}.")
    if not ui.predict_first("softmax", settings, record=record, q=q, temperature=temperature):
        st.stop()
    ui.device_badge(used, device_note or settings.device_note)

    d_k, scores = record["keys"].shape[-1], record["attn_scores"]  # scores: (T, T) ω = q · k
    st.header(f"Scaling q · k by √d_k (SelfAttention_v1, d_k = {d_k})")
    st.caption(initialisation.weights_line("v1", settings.seed_for("softmax"), initialisation.book_weights(settings.input_kind))
               + f" d_k = keys.shape[-1] = d_out = {d_k}.")
    both = [(f"softmax(ω / √{d_k})", record["attn_weights"]), ("softmax(ω), unscaled", record["unscaled_weights"])]
    # The switch reads left to right as off, on: frame 0 is unscaled (scale=0 in the URL), frame 1 scaled (scale=1).
    # Scaling keeps each row's order, so both frames' bars list the keys with the largest scores (order=scores).
    ui.show_view(ui.stacked(both[1][1], both[0][1]), settings, "weights", "attention weights α", view_key="scaled",
                 commit=True, worked=(record["queries"], record["keys"], scores), order=scores, order_name="scores ω",
                 frames={"name": "Divide the scores by √d_k", "param": "scale", "values": [0, 1], "initial": int(scale),
                         "labels": [f"no: {both[1][0]}", f"yes: {both[0][0]}"]})
    if settings.input_kind == "random" and len(settings.tokens) > 16:  # GPT-2's size: what to look for in the noise
        T, row_scaled, row_raw = len(settings.tokens), both[0][1][q], both[1][1][q]
        st.markdown(f"**What to look for:** the inputs are random vectors, so the map has no pattern to find: its "
                    f"colours compare each weight with the even share 1/{T:,} = {1 / T:.4f}. Read query {q + 1}'s "
                    f"bars instead: its largest weight is {float(row_scaled.max()):.4f} divided by √{d_k} and "
                    f"{float(row_raw.max()):.4f} without; switch the division off and on to watch the row change.")
    blocks.sharpness_metrics(both, scores)
    blocks.one_weight_by_hand(record, both[0][1] if scale else both[1][1], q, k, scale)

    with ui.section("normalise", "Three ways to normalise (ω = x · x, §3.3.1)", icon=":material/functions:") as shown:
        if shown:
            three_normalisations(q)
    with ui.section("d-k", "Why √d_k: softmax sharpens as d_k grows", icon=":material/science:") as shown:
        if shown:
            why_sqrt_d_k()
    with ui.section("temperature", "Temperature: one more divisor before softmax", icon=":material/thermostat:") as shown:
        if shown:
            blocks.show_temperature(record["scaled_scores"], temperature, settings)
    with ui.section("overflow", "Large scores: naive softmax overflows", icon=":material/warning:") as shown:
        if shown:
            blocks.overflow_demo(ui.projection(settings, "none", "softmax")[0]["attn_scores"][q], q)
    with ui.section("tensors", "The tensors", icon=":material/table:") as shown:
        if shown:
            tensors(record, scale)
    ui.show_code(stages.normalize_by_sum, stages.softmax_naive, stages.softmax, stages.scale_scores, stages.entropy,
                 book="softmax")
    ui.explain(
        "**Why softmax and not a division by the sum?** Dividing by the sum keeps the proportions of the scores, "
        "but a negative score gives a negative “weight”. exp makes every score positive and keeps their order, "
        "so the best-matching key gets the largest share.\n\n"
        "**Why divide by √d_k?** The size of q · k grows like √d_k; dividing by it keeps softmax from saturating "
        "into a one-hot at large d_k, where its gradient vanishes (the “Why √d_k” section measures it).\n\n"
        "**Why not the book's `torch.rand` weights at every size?** All-positive inputs and weights make every "
        "score large and positive, and turn softmax one-hot even after dividing by √d_k: the “Why √d_k” screen "
        "measures it (section 5)."
    )
    with ui.section("checks", "Agreement with PyTorch", icon=":material/check_circle:") as shown:
        if shown:
            blocks.softmax_agreement(ui.projection(settings, "none", "softmax")[0]["attn_scores"], record)
    with ui.section("mistakes", "Common mistakes", icon=":material/error:") as shown:
        if shown:
            blocks.mistakes(scores, d_k)  # the lesson's scaled scores: only the axis is wrong
            blocks.precedence_pitfall(scores[q], q, d_k)  # the bug from the notes, computed next to the fix


def three_normalisations(q: int) -> None:
    """Divide by the sum, naive exp / sum and torch.softmax of the simplified scores ω = x · x, every query."""
    all_rows = ui.projection(settings, "none", "softmax")[0]["attn_scores"]  # (T, T): the browser scrubs the queries
    normalised, drawable = ui.normalisations(all_rows)  # {name: (T, T)}; {name: its colours} of those without nan
    st.markdown(f"Scores of query {q + 1}: `{numbers.listing(all_rows[q])}`. Move the query in the view: the bars "
                "show its scores and their three normalisations side by side.")
    ui.show_view(all_rows, settings, "scores", "one query's scores, three ways to normalise them", view_key="normalise",
                 parts=("row", "cell"), row_title="scores ω = x · x", commit=True, order_name="scores ω",
                 also=[(name, normalised[name], kind) for name, kind in drawable.items()])
    blocks.normalisation_readout(all_rows, normalised, q, settings.labels, overflowed=len(drawable) < len(normalised))


def why_sqrt_d_k() -> None:
    """The d_k experiment, every d_k computed at once: the view's d_k slider only selects (nothing reruns)."""
    chosen = ui.clamp("d_k", options=POWERS, fallback_note="d_k = {old} is not a power of two from 1 to 1,024; using {new}.")
    tokens = min(len(settings.tokens), CURVE_TOKENS)
    curve = ui.why_scaling_sweep(CURVE_SAMPLES, tokens, settings.seed)  # the same experiment as /why-scaling
    stack = ui.why_scaling_stack(CURVE_SAMPLES, tokens, settings.seed)  # one map of its draws at every d_k
    st.markdown(f"An experiment separate from the sidebar's d_out: random q and k with unit-variance entries, "
                f"{tokens:,} keys per query, {CURVE_SAMPLES:,} queries per d_k (more on the “Why √d_k” screen). "
                f"The map is {tokens:,} of those queries against their {tokens:,} keys; move **d_k** in it and watch "
                f"the unscaled bars turn one-hot while the scaled ones stay spread. Uniform attention has largest "
                f"weight 1/{tokens:,} = {1 / tokens:.4f} and entropy ÷ uniform 1; a one-hot has 1 and 0. The curves "
                f"below average all {CURVE_SAMPLES} queries (entropy in nats: ln {tokens} = {math.log(tokens):.4f} is uniform).")
    ui.sharpness_against_d_k(curve, stack, chosen, settings, key=(tokens, settings.seed))
    # Inline, not ui.explain: a section inside this section would nest expanders.
    st.markdown(
        "Each entry of q · k adds one product of two unit-variance numbers, so the score's variance grows like d_k "
        "and its typical size like √d_k. Unscaled, a large d_k hands softmax scores dozens of units apart: it "
        "saturates into a one-hot, and its gradient (≈ α(1 − α)) is nearly zero, so training stalls. Dividing by "
        "√d_k brings the variance back to about 1 whatever d_k is, and the curves stay flat."
    )


def tensors(record: dict, scale: bool) -> None:
    """The step's tensors as tables: the simplified and the trainable scores, scaled, and the weights."""
    labels, d_k = settings.labels, record["keys"].shape[-1]
    with ui.table_grid():
        ui.table(ui.projection(settings, "none", "softmax")[0]["attn_scores"], "attn_scores (x · x)", labels, labels)
        ui.table(record["attn_scores"], "attn_scores (q · k)", labels, labels)
        ui.table(record["scaled_scores"], f"attn_scores / d_k**0.5 (d_k = {d_k})", labels, labels)
        ui.table(record["attn_weights"] if scale else record["unscaled_weights"],
                 "attn_weights" + ("" if scale else " (unscaled)"), labels, labels)


screen()
