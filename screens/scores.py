"""Screen 1: attention scores, omega = x . x (section 3.3) or q . k (section 3.4)."""
import streamlit as st

from attention_core.book import stages
from attention_core.lessons import agreement, initialisation, pitfalls
import ui
from attention_core.book.modules import SelfAttention_v1

settings = ui.current()
st.title("1 · Attention scores")
st.markdown(
    "A **score** ω says how strongly one token (the *query*) relates to another (the *key*): their dot "
    "product. Big when the vectors point the same way, near zero when they are unrelated, negative when "
    "they point apart. Scores are not yet weights: they do not sum to 1."
)

proj = ui.control(st.radio, "Scores from", "proj", options=["none", "v1"], horizontal=True,
                  format_func={"none": "inputs: ω = x · x (no weights, §3.3)",
                               "v1": "projections: ω = q · k with seeded W_q, W_k (§3.4)"}.get)
record, used, device_note = ui.projection(settings, proj, "scores")
ui.device_badge(used, device_note or settings.device_note)
st.caption(initialisation.weights_line(proj, settings.seed_for("scores"), initialisation.book_weights(settings.input_kind)))
scores = record["attn_scores"]  # (T, T)
weights = record["attn_weights"]  # (T, T)


@ui.fragment
def selected_query():
    """Everything that follows the query and key: moving them reruns only this part."""
    left, right = st.columns(2)
    with left:
        q = ui.query_picker(settings)
    with right:
        k = ui.key_picker(settings)
    if not ui.predict_first("scores", settings, scores=scores, q=q, proj=proj):
        st.stop()

    query_name = settings.labels[q]

    left, right = st.columns([3, 2])
    with left:
        ui.show_matrix(scores, settings, "scores", "attention scores ω", selected_row=q, selected_cell=(q, k),
                       zoom=True, clickable=True)
    with right:
        ui.show_row(scores, settings, "scores of the selected query", "scores", highlight=k, row=q)

    st.subheader("One cell, by hand")
    if proj == "none":
        x = record["queries"]
        st.latex(ui.dot_product_latex(rf"\omega_{{{q + 1},{k + 1}}}", rf"x^{{({q + 1})}}", rf"x^{{({k + 1})}}", x[q], x[k]))
    else:
        st.latex(ui.dot_product_latex(rf"\omega_{{{q + 1},{k + 1}}}", rf"q^{{({q + 1})}}", rf"k^{{({k + 1})}}",
                                      record["queries"][q], record["keys"][k]))
        st.caption(f"q⁽{q + 1}⁾ = x⁽{q + 1}⁾ W_q and k⁽{k + 1}⁾ = x⁽{k + 1}⁾ W_k, with the weights named at the top.")

    st.subheader(f"The context vector of {ui.md_escape(query_name)}")
    scaled = "softmax(ω / √d_k)" if proj == "v1" else "softmax(ω)"
    st.markdown(
        f"Normalise the query's scores with {scaled} to get attention **weights** α (next screen), then "
        f"blend the {'value vectors' if proj == 'v1' else 'inputs'} with them: **z = Σᵢ αᵢ · "
        f"{'v' if proj == 'v1' else 'x'}⁽ⁱ⁾**. The context vector is an enriched version of the query token."
    )
    ui.show_row(weights, settings, "weights α of the selected query", "weights", highlight=k, row=q)
    st.latex(rf"z^{{({q + 1})}} = " + " + ".join(
        rf"{float(a):.4f}\, {'v' if proj == 'v1' else 'x'}^{{({i + 1})}}" for i, a in enumerate(weights[q][:6]))
        + (r" + \dots" if weights.shape[1] > 6 else "")
        + r" = [" + r",\ ".join(ui.short(float(v)) for v in record["context_vec"][q][:6])
        + (r",\ \dots" if record["context_vec"].shape[1] > 6 else "") + "]")


selected_query()

st.subheader("The tensors")
ui.table(settings.x, "inputs", settings.labels)
if proj == "v1":
    ui.table(record["W_query"], "W_query")
    ui.table(record["W_key"], "W_key")
    ui.table(record["queries"], "queries", settings.labels)
    ui.table(record["keys"], "keys", settings.labels)
ui.table(scores, "attn_scores", settings.labels, settings.labels)
ui.table(weights, "attn_weights", settings.labels, settings.labels)
ui.table(record["context_vec"], "context_vecs", settings.labels)

ui.show_code(stages.dot_product_terms, stages.attn_scores_loop, stages.attn_scores,
             stages.context_vector_loop, *( [SelfAttention_v1] if proj == "v1" else []))
ui.explain(
    "**Why a loop and a matrix product?** The loop computes ω for one query, one key at a time, as you would by "
    "hand. `queries @ keys.transpose(-2, -1)` computes all T × T scores in one matrix multiplication: same "
    "numbers, far faster, and the form every later screen uses."
)

# --- checks and mistakes ------------------------------------------------------------------------
ui.agreement([("context vectors vs F.scaled_dot_product_attention" + (" (scale = 1)" if proj == "none" else ""),
               ui.checked(agreement.unmasked_vs_sdpa, record, proj == "v1")),
              ("exercise 3.1: v2's weights in v1", ui.exercise_3_1(settings))])
if ui.pitfalls_toggle():
    keys = record["keys"][None].expand(2, -1, -1)  # a batch of two, as the book's CausalAttention gets
    shapes = pitfalls.transpose_batched(keys, keys)
    ui.pitfall("`keys.T` on a batch", "attn_scores = queries @ keys.T",
               "attn_scores = queries @ keys.transpose(1, 2)",
               f"keys {tuple(keys.shape)} → keys.T {shapes['keys_T_shape']}: every dimension reversed, the batch "
               f"too. " + (f"PyTorch stops: {shapes['error']}" if shapes["error"] else
                           f"No error, but the result has shape {shapes['wrong_result_shape']}."),
               f"keys.transpose(1, 2) {shapes['right_shape']} → scores {shapes['right_result_shape']}, "
               "one T × T matrix per sequence.")
ui.exercises(settings, "3.1")
