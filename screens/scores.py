"""Screen 1: attention scores, omega = x . x (section 3.3) or q . k (section 3.4)."""
import streamlit as st

from attention_core.book import stages
from attention_core.lessons import agreement, claims, initialisation, pitfalls
import ui
from attention_core.book.modules import SelfAttention_v1

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
    st.markdown(
        f"Pick a query and a key with the sliders, the arrow keys, or a click on a cell: the view shows the "
        f"query's scores, the cell **worked by hand**, then the query's weights α (softmax of its scores, next "
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
            tensors(record, proj)
    ui.show_code(stages.dot_product_terms, stages.attn_scores_loop, stages.attn_scores,
                 stages.context_vector_loop, *([SelfAttention_v1] if proj == "v1" else []))
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
            transpose_pitfall(record["keys"])
    with ui.section("exercises", "Exercises", icon=":material/edit_note:") as shown:
        if shown:
            ui.exercises(settings, "3.1")


def tensors(record: dict, proj: str) -> None:
    """Every tensor of the step as a table, the projections' only with q · k."""
    labels = settings.labels
    ui.table(settings.x, "inputs", labels)
    if proj == "v1":
        ui.table(record["W_query"], "W_query")
        ui.table(record["W_key"], "W_key")
        ui.table(record["queries"], "queries", labels)
        ui.table(record["keys"], "keys", labels)
    ui.table(record["attn_scores"], "attn_scores", labels, labels)
    ui.table(record["attn_weights"], "attn_weights", labels, labels)
    ui.table(record["context_vec"], "context_vecs", labels)


def transpose_pitfall(keys) -> None:
    """`keys.T` on a batch reverses every dimension; keys: (T, d) of this screen, batched as (2, T, d)."""
    keys = keys[None].expand(2, -1, -1)  # (2, T, d): a batch of two, as the book's CausalAttention gets
    shapes = pitfalls.transpose_batched(keys, keys)
    ui.pitfall("`keys.T` on a batch", "attn_scores = queries @ keys.T",
               "attn_scores = queries @ keys.transpose(1, 2)",
               f"keys {tuple(keys.shape)} → keys.T {shapes['keys_T_shape']}: every dimension reversed, the batch "
               f"too. " + (f"PyTorch stops: {shapes['error']}" if shapes["error"] else
                           f"No error, but the result has shape {shapes['wrong_result_shape']}."),
               f"keys.transpose(1, 2) {shapes['right_shape']} → scores {shapes['right_result_shape']}, "
               "one T × T matrix per sequence.")


screen()
