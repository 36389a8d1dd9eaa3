"""Screen 3: the causal mask (section 3.5.1) and CausalAttention's buffer (section 3.5.3)."""

import streamlit as st

from attention_core.book import stages
from attention_core.drawing import numbers
from attention_core.lessons import agreement, initialisation
import ui
from screens import mask_blocks as blocks
from attention_core.drawing.text import causal_softmax_latex, renormalised_latex
from attention_core.drawing.numbers import scientific

settings = ui.current()
T = len(settings.tokens)
st.title("3 · Causal mask")
st.markdown(
    "A language model learns by guessing the next token, so while it reads token *i* it must not peek at "
    "tokens *i + 1, i + 2, …*. The **causal mask** removes every weight above the diagonal: each query "
    "may only attend to itself and to the tokens before it."
)


@ui.fragment
def screen():
    """The lesson and its sections: a commit from the view reruns only this part, not the sidebar."""
    q, k = ui.committed(T)
    ui.valid_context_length(T)  # a bad ?context_length= gets its note here, with the buffer's section closed
    # The lesson follows CausalAttention built at context_length = T: a longer buffer gives the same weights
    # (the buffer section below shows it), so its slider need not rerun the lesson.
    record, used, device_note = ui.causal(settings, "mask", T)
    if not ui.predict_first("mask", settings, record=record, q=q, k=k):
        st.stop()
    ui.device_badge(used, device_note or settings.device_note)
    st.caption(initialisation.weights_line("causal", settings.seed_for("mask"), True))
    weights, raw, scaled = record["attn_weights"], record["masked_scores"], record["scaled_scores"]  # (T, T) each
    d_k = record["keys"].shape[-1]
    who = ui.md_escape(settings.labels[q])

    st.markdown("Pick a query and a key in the view (sliders, arrow keys or a click): its bars put the causal "
                "weights beside the masked scores and beside the weights without a mask, where the future leaks in.")
    ui.show_view(weights, settings, "weights", "attn_weights = softmax(masked_scores / √d_k)", view_key="causal",
                 commit=True, row_title="causal weights α", also=[("masked scores ω (−∞ not drawn)", raw, "scores"),
                                                                ("no mask: softmax over every key", record["unmasked_weights"], "weights")])
    st.markdown(f"The softmax of the query and key the lesson follows, {q + 1} and {k + 1} (pick another in the view):")
    for line in causal_softmax_latex(raw[q], scaled[q], float(weights[q, k]), q, k, d_k):
        st.latex(line)
    st.caption(f"After `masked_fill` the future scores are −∞, and exp(−∞) = 0: they add nothing to the sum, so "
               f"the visible weights of {who} ({q + 1} of {T:,}) already sum to 1. "
               f"(ω is divided by √d_k = √{d_k} first.)")

    with ui.section("buffer", "The mask and its buffer (context_length)", icon=":material/grid_on:") as shown:
        if shown:
            buffer_lesson()
    with ui.section("variants", "The book's two ways, side by side", icon=":material/compare:") as shown:
        if shown:
            two_variants(record, q, k)
    with ui.section("wrong", "What goes wrong without the mask", icon=":material/report:") as shown:
        if shown:
            blocks.what_goes_wrong(record, settings, q, [ui.md_escape(t) for t in settings.tokens], who)
    with ui.section("tensors", "The tensors", icon=":material/table:") as shown:
        if shown:
            labels = settings.labels
            with ui.table_grid():
                ui.table(raw, "masked_scores (attn_scores.masked_fill(mask_bool, -inf))", labels, labels)
                ui.table(weights, "attn_weights", labels, labels)
                ui.table(record["masked_simple"], "masked_simple", labels, labels)
                ui.table(record["masked_simple_norm"], "masked_simple_norm", labels, labels)
                ui.table(record["unmasked_weights"], "unmasked attn_weights", labels, labels)
                ui.table(record["context_vec"], "context_vec", labels)
    ui.show_code(stages.mask_simple, stages.mask_after_softmax, stages.causal_mask, stages.mask_scores,
                 stages.attend, book="mask")
    ui.explain(
        "**Why mask at all?** During training the model sees a whole sentence at once and, at every position, "
        "is asked for the next token. If position *i* could attend to position *i + 1*, the answer would be "
        "sitting in its input; the mask makes training match generation, where the future does not exist yet.\n\n"
        "**Why −∞ before softmax?** Zeroing after softmax needs a second pass to fix the row sums. Filling the "
        "future scores with −∞ lets softmax itself give them exp(−∞) = 0 and spread the whole unit of weight over "
        "the visible keys: one step, same numbers. (Pitfall: `triu(...) * float('-inf')` turns the 0 cells into "
        "0 · −∞ = nan; use `masked_fill` with a boolean mask.) The buffer is registered once at "
        "`context_length` and moves with the module to the GPU; each call slices the corner it needs."
    )
    with ui.section("checks", "Agreement with PyTorch", icon=":material/check_circle:") as shown:
        if shown:
            ui.agreement([("context vectors vs F.scaled_dot_product_attention(is_causal=True)",
                           ui.checked(agreement.causal_vs_sdpa, record)),
                          ("variant 1 vs variant 2", record["variants_max_abs_diff"])])
    with ui.section("questions", "Readers' questions", icon=":material/forum:") as shown:
        if shown:
            blocks.reader_questions(settings, record=record)
    with ui.section("mistakes", "Common mistakes", icon=":material/error:") as shown:
        if shown:
            blocks.mistakes(record, record["unmasked_weights"], T)


@ui.fragment
def buffer_lesson():
    """context_length and the buffer: its own fragment, so the slider reruns only this section."""
    context_length = ui.context_length_picker(T)
    record, _, _ = ui.causal(settings, "mask", context_length)
    blocks.mask_and_buffer(record, settings, context_length)


def two_variants(record: dict, q: int, k: int) -> None:
    """Variant 1 (softmax, zero with tril, renormalise) beside variant 2 (−∞, then softmax)."""
    simple, simple_norm, unmasked = record["masked_simple"], record["masked_simple_norm"], record["unmasked_weights"]
    c1, c2 = st.columns(2)
    with c1:
        first = ui.show_matrix(simple_norm, settings, "weights", "1: softmax, zero with tril, renormalise",
                               selected_row=q, legend=False)
    with c2:
        second = ui.show_matrix(record["attn_weights"], settings, "weights", "2: −∞ above the diagonal, then softmax",
                                selected_row=q, legend=False)
    if first == second:  # drawn on the same colours: one legend under both
        ui.draw_legend(first)
    else:
        for column, legend in ((c1, first), (c2, second)):
            with column:
                ui.draw_legend(legend)
    gap = record["variants_max_abs_diff"]
    # The difference beside its explanation, not above it: under the two maps the four lines ran onto a slide alone.
    number, words = st.columns([1, 3])
    # One way of writing this difference on the screen: as the agreement panel and the buffer's note write it
    number.metric("max |variant 1 − variant 2|", scientific(gap))
    agree = "agree to float rounding" if gap <= numbers.TOLERANCE else "differ by more than float rounding"
    # The why in the same paragraph as the result: as a caption under the formula it made the topic too tall to
    # share one slide with the two maps at GPT-2's size.
    words.markdown(f"The two matrices {agree} (max difference {scientific(gap)} {numbers.within_tolerance(gap)}). In exact "
                   "arithmetic they are equal: renormalising cancels the full softmax's denominator, and variant 2 gets "
                   "there with one softmax and no second division. Variant 1 for the same cell:")
    words.latex(renormalised_latex(float(simple[q, k]), unmasked[q], float(simple_norm[q, k]), q, k))


screen()
