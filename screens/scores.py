"""Screen 1: attention scores, omega = x . x (section 3.3) or q . k (section 3.4)."""
import streamlit as st

from attention_core.book import stages
from attention_core.drawing.view_data import ARITHMETIC_MAX
from attention_core.lessons import agreement, claims, initialisation
import ui
from screens import scores_blocks as blocks

settings = ui.current()
st.title("1 · Attention scores")
st.markdown(
    "A **score** ω says how strongly one token (the *query*) relates to another (the *key*): their dot "
    "product. Big when the vectors point the same way, near zero when they are unrelated, negative when "
    "they point apart. Scores are not yet weights: they do not sum to 1."
)


@ui.fragment
def screen():
    """The lesson and its sections: a commit from the view reruns only this part, not the sidebar."""
    proj = ui.control(st.radio, "Scores from", "proj", options=["none", "v1"], horizontal=True,
                      format_func={"none": "inputs: ω = x · x (no weights, §3.3)",
                                   "v1": "projections: ω = q · k with seeded W_q, W_k (§3.4)"}.get)
    record, used, device_note = ui.projection(settings, proj, "scores")
    scores, weights = record["attn_scores"], record["attn_weights"]  # (T, T) each
    q, k = ui.committed(len(settings.tokens))
    if not ui.predict_first("scores", settings, scores=scores, q=q, proj=proj):
        st.stop()
    ui.device_badge(used, device_note or settings.device_note)
    st.caption(initialisation.weights_line(proj, settings.seed_for("scores"), initialisation.book_weights(settings.input_kind)))

    st.subheader("Scores, one query at a time")
    by = "x" if proj == "none" else "v"
    # Above ARITHMETIC_MAX tokens the view works no cell by hand (a 768-term sum): it prints the selected score.
    worked = ("the cell **worked by hand**" if len(settings.tokens) <= ARITHMETIC_MAX else
              f"the selected cell's score (worked by hand up to {ARITHMETIC_MAX} tokens)")
    st.markdown(
        f"Pick a query and a key with the sliders, the arrow keys, or a click on a cell: the view shows the "
        f"query's scores, {worked}, then the query's weights α (softmax of its scores, next "
        f"screen) and its **context vector** z = Σᵢ αᵢ · {by}⁽ⁱ⁾, an enriched version of the query token."
        + (" Here q⁽ⁱ⁾ = x⁽ⁱ⁾ W_q and k⁽ʲ⁾ = x⁽ʲ⁾ W_k, with the weights named at the top." if proj == "v1" else ""))
    ui.show_view(scores, settings, "scores", "attention scores ω", view_key="scores_view",
                 worked=(record["queries"], record["keys"], scores), names=("x", "x") if proj == "none" else ("q", "k"),
                 also=[("weights α = softmax(" + ("ω / √d_k)" if proj == "v1" else "ω)"), weights, "weights")],
                 vectors=[("z", record["context_vec"])], row_title="scores ω")
    if proj == "none":  # at GPT-2's 768 dimensions x · x is one-hot on the diagonal: say so, with its numbers
        one_hot = claims.self_match_claim(scores, weights, record["values"], record["context_vec"], q)
        if one_hot:
            st.markdown(one_hot)

    with ui.section("tensors", "The tensors", icon=":material/table:") as shown:
        if shown:
            blocks.tensors(record, proj, settings)
    ui.show_code(stages.dot_product_terms, stages.attn_scores_loop, stages.attn_scores,
                 stages.context_vector_loop, book="scores")
    ui.explain(
        "**Why a loop and a matrix product?** The loop computes ω for one query, one key at a time, as you would "
        "by hand. `queries @ keys.transpose(-2, -1)` computes all T × T scores in one matrix multiplication: same "
        "numbers, far faster, and the form every later screen uses."
    )
    with ui.section("checks", "Agreement with PyTorch", icon=":material/check_circle:") as shown:
        if shown:
            ui.agreement([("context vectors vs F.scaled_dot_product_attention" + (" (scale = 1)" if proj == "none" else ""),
                           ui.checked(agreement.unmasked_vs_sdpa, record, proj == "v1")),
                          ("exercise 3.1: v2's weights in v1", ui.exercise_3_1(settings))])
    with ui.section("mistakes", "Common mistakes", icon=":material/error:") as shown:
        if shown:
            blocks.mistakes(record["keys"])
    with ui.section("exercises", "Exercises", icon=":material/edit_note:") as shown:
        if shown:
            ui.exercises(settings, "3.1")


screen()
