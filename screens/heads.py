"""Screen 5: multi-head attention (section 3.6): a wrapper of CausalAttention heads vs the weight split."""
import streamlit as st

import ui
from attention_core.book import stages
from attention_core.book.modules import MultiHeadAttention, MultiHeadAttentionWrapper, mha_parameter_count
from attention_core.drawing.text import head_split_latex, query_in_heads_latex
from attention_core.lessons import claims, initialisation, traces

settings = ui.current()
st.title("5 · Multi-head attention")
st.markdown(
    "One attention head learns one way of relating tokens. Running several heads side by side lets the layer "
    "look for several kinds of relation at once, each in its own small slice of the vector. The book builds this "
    "twice: a wrapper that stacks whole `CausalAttention` modules, and `MultiHeadAttention`, which makes one big "
    "projection and cuts it into heads."
)

settings, trained_h = ui.heads_weights(settings)  # ?weights=trained or gpt2: one layer of a real model
trained = trained_h is not None
d_in, d_out, T = settings.x.shape[1], settings.d_out, len(settings.tokens)


@ui.fragment
def screen():
    """The controls and all they change: moving one reruns only this part, not the sidebar."""
    if trained:
        num_heads = trained_h["mha"]["attn_weights"].shape[1]
        st.caption(f"num_heads: {num_heads} (fixed by the trained model)")
    else:
        num_heads = ui.heads_picker(d_out)
    q, _ = ui.committed(T)
    head_dim = d_out // num_heads
    if not ui.predict_first("heads", settings, d_in=d_in, d_out=d_out, num_heads=num_heads):
        st.stop()
    mha_params = mha_parameter_count(d_in, d_out, num_heads)
    for col, (label, shown) in zip(st.columns(4), [("num_heads", num_heads), ("head_dim", head_dim), ("d_out", d_out),
                                                   ("parameters (MultiHeadAttention)", f"{mha_params:,}")]):
        col.metric(label, shown)

    h = None
    if too_large := traces.heads_too_large(num_heads, T, d_in, d_out):
        ui.note(too_large)
    else:
        h = trained_h if trained else ui.heads(settings, num_heads, T)
        mha = h["mha"]
        ui.device_badge(h["device"], h["note"] or settings.device_note)
        if not trained:
            st.caption(initialisation.weights_line("mha", settings.seed_for("heads"), True))

        ui.head_maps(mha["attn_weights"][0], settings, q, trained)
        head = ui.clamp("head", low=1, high=num_heads, fallback_note=f"Head {{old}} does not exist ({num_heads} heads); "
                        "showing head {new}.") - 1
        st.markdown("**One head up close**: the view flips through every head in the browser (its Head slider, or "
                    "PageUp / PageDown), with the query and key." + (" Above 64 tokens it sends each row's 32 largest "
                                                                     "weights, the ones its bars show." if T > 64 else ""))
        ui.show_view(mha["attn_weights"][0], settings, "weights", "attn_weights of one head", view_key="heads_view",
                     parts=("matrix", "row", "cell") if T <= 64 else ("row", "cell"), commit=True,
                     frames={"name": "Head", "param": "head", "values": list(range(1, num_heads + 1)),
                             "labels": [str(n) for n in range(1, num_heads + 1)], "initial": head})

    st.subheader("Cutting d_out into heads")
    plural = "head" if num_heads == 1 else "heads"
    st.markdown(f"**d_out = {d_out} split into {num_heads} {plural} of head_dim {head_dim}** "
                f"({num_heads} × {head_dim} = {d_out}). One `W_query` makes every token's {d_out}-d query; "
                f"`view` cuts its last dimension into {num_heads} pieces, `transpose(1, 2)` moves the head axis "
                "in front of the tokens so each head is a separate (T × head_dim) matrix.")
    for line in head_split_latex(T, d_out, num_heads, head_dim):
        st.latex(line)
    if h is not None:
        st.latex(query_in_heads_latex(mha["queries"], q))
        columns = "column i" if head_dim == 1 else f"columns (i−1)·{head_dim}+1 … i·{head_dim}"
        st.caption(f"The query of token {q + 1}, cut into heads: head i gets {columns}.")
        if num_heads > 1 and T > 1:
            wrong = stages.merge_heads(mha["queries"]).view(1, num_heads, T, head_dim)  # the pitfall: no transpose
            st.caption(f"Pitfall: `queries.view(b, h, T, head_dim)` without the transpose has the same shape but hands "
                       f"pieces of other tokens to each head: it differs from the right split by up to "
                       f"{stages.max_abs_diff(wrong, mha['queries']):.4f}.")

    if h is not None and not trained:
        ui.wrapper_vs_split(h, settings, d_in, d_out, num_heads)
    if h is not None:
        st.caption("MultiHeadAttention's per-head tensors (tables show head 1; the shapes carry the head axis):")
        for key in ("queries", "attn_weights", "heads_context"):
            ui.table(mha[key], key, settings.labels, settings.labels if key == "attn_weights" else None)

        ui.out_proj_lesson(h, settings, d_out, num_heads)

    ui.parameter_counts(d_in, d_out, num_heads)

    ui.show_code(MultiHeadAttentionWrapper, MultiHeadAttention, stages.split_heads, stages.merge_heads)
    differ = "" if h is None else " " + claims.heads_claim(ui.checked(claims.head_distance, h["mha"]["attn_weights"][0]),
                                                           num_heads, trained)
    ui.explain(
        "**Why several heads?** Each head has its own query and key subspace, so after training one head can track, "
        f"say, the previous word while another follows the subject of the sentence.{differ} **Why the weight split?** The wrapper runs h separate modules, h "
        "projections and h attention passes in a Python loop. `MultiHeadAttention` does one matrix product per Q, K "
        "and V and one batched attention over a head axis, which the GPU runs in parallel. With head_dim = d_out / h "
        "it also keeps the total size, and the cost, of a single head of width d_out."
    )

    # --- checks and mistakes ------------------------------------------------------------------------
    if h is not None:
        ui.heads_agreement(mha, settings, d_in, d_out, num_heads, trained)
        ui.reader_questions("heads", settings, num_heads=num_heads)
        ui.heads_pitfalls(mha, d_out, num_heads, q)
    ui.exercises(settings, "3.2", "3.3")


screen()
