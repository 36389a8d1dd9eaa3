"""Screen 5: multi-head attention (section 3.6): a wrapper of CausalAttention heads vs the weight split."""
import pandas as pd
import streamlit as st

import ui
from attention_core.book import stages
from attention_core.book.modules import (MultiHeadAttention, MultiHeadAttentionWrapper, mha_parameter_count,
                                         out_proj_parameter_count, wrapper_parameter_count)
from attention_core.drawing.text import head_split_latex, query_in_heads_latex
from attention_core.lessons import agreement, claims, initialisation, pitfalls, traces

MAX_DRAWN = 12  # heads drawn as heatmaps; more heads are counted, not drawn

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
    wrapper_params = wrapper_parameter_count(d_in, d_out, num_heads)
    for col, (label, shown) in zip(st.columns(4), [("num_heads", num_heads), ("head_dim", head_dim), ("d_out", d_out),
                                                   ("parameters (MultiHeadAttention)", f"{mha_params:,}")]):
        col.metric(label, shown)

    h = None
    if too_large := traces.heads_too_large(num_heads, T, d_in, d_out):
        ui.note(too_large)
    else:
        h = trained_h if trained else ui.heads(settings, num_heads, T)
        mha, wrapper = h["mha"], h["wrapper"]
        ui.device_badge(h["device"], h["note"] or settings.device_note)
        if not trained:
            st.caption(initialisation.weights_line("mha", settings.seed_for("heads"), True))

        st.subheader("What each head attends to")
        shown = min(num_heads, MAX_DRAWN)
        if shown < num_heads:
            st.caption(f"Drawing heads 1–{shown} of {num_heads}.")
        per_row = 2 if T <= 64 else 4
        for start in range(0, shown, per_row):
            for col, i in zip(st.columns(per_row), range(start, min(start + per_row, shown))):
                with col:
                    ui.show_matrix(mha["attn_weights"][0, i], settings, "weights", f"head {i + 1}", selected_row=q,
                                   legend=i == 0)
        if T > 64 and not trained:
            st.caption(f"These untrained heads spread their weight almost evenly: the last row of head 1 gives its "
                       f"largest weight {float(mha['attn_weights'][0, 0, -1].max()):.4f}, where an even spread over {T} "
                       "tokens gives " f"{1 / T:.4f}. On a 0 … 1 scale every cell would be the colour of zero, so the "
                       "maps colour each weight against an even share; the speckle is each query liking some keys a "
                       "little more or less than the even share, by chance (no head has learned a pattern yet).")
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
        st.subheader("Wrapper vs weight split")
        left, right = st.columns(2)
        with left:
            st.markdown(f"**MultiHeadAttentionWrapper**: {num_heads} separate `CausalAttention` modules, each with its "
                        f"own {d_in}→{d_out} projections; their outputs are concatenated: {num_heads} × {d_out} = "
                        f"{num_heads * d_out} columns.")
            ui.table(wrapper["context_vec"], "context_vecs (wrapper)", settings.labels,
                     [f"h{i + 1}·{j + 1}" for i in range(num_heads) for j in range(d_out)])
        with right:
            st.markdown(f"**MultiHeadAttention**: one {d_in}→{d_out} projection each for Q, K, V, cut into {num_heads} "
                        f"{plural} of head_dim {head_dim}, merged back and mixed by `out_proj`: {d_out} columns.")
            ui.table(mha["context_vec"], "context_vecs (MultiHeadAttention)", settings.labels)
        # st.table, not st.dataframe: a static table wraps its text, so no shape is cut off at a column's edge.
        st.table(pd.DataFrame(traces.shape_rows(h, T, d_in, num_heads),
                              columns=["tensor", "MultiHeadAttentionWrapper", "MultiHeadAttention"]),
                 hide_index=True, width="content")
    if h is not None:
        st.caption("MultiHeadAttention's per-head tensors (tables show head 1; the shapes carry the head axis):")
        for key in ("queries", "attn_weights", "heads_context"):
            ui.table(mha[key], key, settings.labels, settings.labels if key == "attn_weights" else None)

        st.subheader("out_proj: mixing the heads")
        block = "each column" if head_dim == 1 else f"each block of {head_dim} columns"
        st.markdown(f"After `merge_heads`, {block} still holds one head's result only. "
                    f"`out_proj` is an `nn.Linear({d_out}, {d_out})`, so every output column draws on all heads: "
                    f"{d_out} × {d_out} weights + {d_out} biases = **{h['out_proj_params']:,} parameters**.")
        left, right = st.columns(2)
        with left:
            ui.table(mha["merged"], "merged (before out_proj)", settings.labels,
                     [f"h{i + 1}·{j + 1}" for i in range(num_heads) for j in range(head_dim)])
        with right:
            ui.table(mha["context_vec"], "context_vec = out_proj(merged)", settings.labels)

    st.subheader("Parameter counts")
    # GPT-2 small's counts are exercise 3.3's answer: its worked solution shows them, not this table.
    counts = pd.DataFrame([
        (f"this screen: d_in {d_in}, d_out {d_out}, {num_heads} {plural}", f"{wrapper_params:,}", f"{mha_params:,}",
         f"{out_proj_parameter_count(d_out):,}"),
    ], columns=["setting", "MultiHeadAttentionWrapper", "MultiHeadAttention", "of which out_proj"])
    st.table(counts, hide_index=True, width="content")
    st.caption("The wrapper gives every head a full d_out-wide projection, so its count grows with the number of "
               "heads; MultiHeadAttention's does not: 3 · d_in · d_out for Q, K, V plus d_out · d_out + d_out for "
               "out_proj, whatever num_heads is. The context length adds no parameters (only the mask buffer). "
               "GPT-2 small's layer is exercise 3.3 below.")

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
        checks = [("each head vs F.scaled_dot_product_attention(is_causal=True)", ui.checked(agreement.causal_vs_sdpa, mha))]
        if d_in == d_out and not trained:
            torch_mha = ui.mha_agreement(settings, num_heads)
            checks += [("output vs nn.MultiheadAttention", torch_mha["output"]),
                       ("weights vs nn.MultiheadAttention", torch_mha["weights"])]
        else:
            st.caption("nn.MultiheadAttention needs d_in = d_out (its queries have embed_dim features), so that "
                       "comparison appears when the two are equal.")
        ui.agreement(checks)
        ui.reader_questions("heads", settings, num_heads=num_heads)
        if ui.pitfalls_toggle():
            flat = pitfalls.scale_by_model_dim(mha["queries"], mha["keys"], d_out)
            ui.pitfall("Scaling by √d_out instead of √head_dim", "attn_scores / d_out**0.5",
                       "attn_scores / head_dim**0.5  # keys.shape[-1]",
                       f"head 1, query {q + 1}: largest weight {float(flat['wrong'][0, 0, q].max()):.4f}, entropy "
                       f"{float(stages.entropy(flat['wrong'][0, 0, q])):.4f}: flatter by a factor √{num_heads} in the "
                       "exponent.",
                       f"head 1, query {q + 1}: largest weight {float(flat['right'][0, 0, q].max()):.4f}, entropy "
                       f"{float(stages.entropy(flat['right'][0, 0, q])):.4f}.")
    ui.exercises(settings, "3.2", "3.3")


screen()
