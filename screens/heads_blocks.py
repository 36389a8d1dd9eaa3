"""The multi-head screen's pictures and sub-lessons that stand on their own: every head count for the view,
every head's map, how d_out is cut into heads, the wrapper beside the weight split, out_proj, the parameter
counts and the checks.

screens/heads.py keeps the outline (the controls, the one-head view, the prose, the sections) and calls each of
these with one line. h is heads_trace's record: "mha" and "wrapper" traces with (1, h, T, …) tensors.
"""
import pandas as pd
import streamlit as st

from attention_core.book import stages
from attention_core.book.modules import mha_parameter_count, out_proj_parameter_count, wrapper_parameter_count
from attention_core.drawing.text import head_split_latex, query_in_heads_latex
from attention_core.lessons import agreement as agreement_checks
from attention_core.lessons import claims, exercises, head_counts, pitfalls, traces
from attention_core.lessons import reader_questions as rq
from ui.compute.built import once
from ui.compute.cache import mha_agreement
from ui.draw.checks import agreement, checked, pitfall
from ui.draw.display import data_table, table
from ui.draw.heatmaps import show_matrix
from ui.state.settings import Settings

MAX_DRAWN = 12  # heads drawn as heatmaps; more heads are counted, not drawn
# The book has no merge_heads: wherever the app's name appears, this says what it stands for.
MERGE_HEADS = ("this app's name for the book's `context_vec.transpose(1, 2).contiguous().view(b, num_tokens, "
               "self.d_out)`, which the book writes inline in `forward`; the book has no such function")


EXERCISE_3_3 = "exercise 3.3"  # what a count that is that exercise's answer shows instead of its number
EXERCISE_3_3_NOTE = ("At d_in = d_out = 768 (GPT-2 small's layer) the parameter count is exercise 3.3's answer, "
                     "whatever num_heads is: try the exercise at the bottom of the screen, whose worked solution gives "
                     "it. Every other size shows its count here.")


def count_text(count: int) -> str:
    """A parameter count as the screen prints it, or EXERCISE_3_3 where exercise 3.3's worked solution gives that
    number (GPT-2 small's layer): the exercise comes last on the screen, so nothing above it gives it away."""
    return EXERCISE_3_3 if count in exercises.solution_counts() else f"{count:,}"


def mha_count_text(d_in: int, d_out: int, num_heads: int) -> str:
    """MultiHeadAttention's parameter count as count_text prints it."""
    return count_text(mha_parameter_count(d_in, d_out, num_heads))


def count_frames(d_out: int, num_heads: int, head: int) -> dict:
    """The view's frames for every_head_count: num_heads, then a Head slider as long as that count (ragged:
    head 3 of 2 heads does not exist, so it is neither computed nor sent). head: 0-based."""
    return {"dims": head_counts.count_dims(stages.divisors(d_out), d_out),
            "initial": head_counts.frame_of(d_out, num_heads, head)}


def head_frames(num_heads: int, head: int) -> dict:
    """The view's frames for one head count (the server computed only it): a Head slider. head: 0-based."""
    return {"name": "Head", "param": "head", "values": list(range(1, num_heads + 1)),
            "labels": [str(n) for n in range(1, num_heads + 1)], "initial": head}


def head_maps(attn_weights, settings: Settings, q: int, trained: bool) -> None:
    """One heatmap per head (the first MAX_DRAWN), two or four to a row, then how much they differ;
    attn_weights: (h, T, T)."""
    num_heads, T = attn_weights.shape[0], len(settings.tokens)
    per_row = 2 if T <= 64 else 4  # past 64 tokens a map is a texture: smaller maps, more to a row
    # Untrained heads past 64 tokens are the same texture by chance: one row of them shows it, twelve filled three
    # slides with alike noise (the sentence below gives how much they differ, in numbers).
    shown = min(num_heads, MAX_DRAWN if T <= 64 or trained else per_row)
    distance = checked(claims.head_distance, attn_weights)
    if shown < num_heads:
        alike = "look alike" if distance < claims.HEADS_ALIKE else "differ, but only by chance"
        st.caption(f"Drawing heads 1–{shown} of {num_heads}" + ("." if shown == MAX_DRAWN else
                   f": untrained heads at this size {alike}; the numbers below compare all of them."))
    for start in range(0, shown, per_row):
        for col, i in zip(st.columns(per_row), range(start, min(start + per_row, shown))):
            with col:
                show_matrix(attn_weights[i], settings, "weights", f"head {i + 1}", selected_row=q, legend=i == 0)
    if T > 64 and not trained:
        st.caption(f"The last row of head 1 {claims.evenness_claim(attn_weights[0, -1])}. On a 0 … 1 scale every cell would be the colour of zero, so the "
                   "maps colour each weight against an even share; the speckle is each query liking some keys a "
                   "little more or less than the even share, by chance (no head has learned a pattern yet).")
    st.markdown(claims.heads_claim(distance, num_heads, trained))


def split_lesson(mha: dict | None, T: int, d_out: int, num_heads: int, q: int) -> None:
    """How `view` and `transpose` cut every token's d_out-wide query into heads; mha: MultiHeadAttention's trace
    ((1, h, T, head_dim) queries), or None when it was too large to compute (the shapes still hold)."""
    head_dim, plural = d_out // num_heads, "head" if num_heads == 1 else "heads"
    st.markdown(f"**d_out = {d_out} split into {num_heads} {plural} of head_dim {head_dim}** "
                f"({num_heads} × {head_dim} = {d_out}). One `W_query` makes every token's {d_out}-d query; "
                f"`view` cuts its last dimension into {num_heads} pieces, `transpose(1, 2)` moves the head axis "
                "in front of the tokens so each head is a separate (T × head_dim) matrix.")
    for line in head_split_latex(T, d_out, num_heads, head_dim):
        st.latex(line)
    if mha is None:
        return
    st.latex(query_in_heads_latex(mha["queries"], q))
    columns = "column i" if head_dim == 1 else f"columns (i−1)·{head_dim}+1 … i·{head_dim}"
    st.caption(f"The query of token {q + 1}, cut into heads: head i gets {columns}.")
    if num_heads > 1 and T > 1:
        wrong = stages.merge_heads(mha["queries"]).view(1, num_heads, T, head_dim)  # the pitfall: no transpose
        st.caption(f"Pitfall: `queries.view(b, h, T, head_dim)` without the transpose has the same shape but hands "
                   f"pieces of other tokens to each head: it differs from the right split by up to "
                   f"{stages.max_abs_diff(wrong, mha['queries']):.4f}.")


def wrapper_vs_split(h: dict, settings: Settings, d_in: int, d_out: int, num_heads: int) -> None:
    """The two classes' context vectors side by side, then every tensor's shape in each."""
    head_dim, plural = d_out // num_heads, "head" if num_heads == 1 else "heads"
    left, right = st.columns(2)
    with left:
        st.markdown(f"**MultiHeadAttentionWrapper**: {num_heads} separate `CausalAttention` modules, each with its "
                    f"own {d_in}→{d_out} projections; their outputs are concatenated: {num_heads} × {d_out} = "
                    f"{num_heads * d_out:,} columns.")
        table(h["wrapper"]["context_vec"], "context_vecs (wrapper)", settings.labels,
              [f"h{i + 1}·{j + 1}" for i in range(num_heads) for j in range(d_out)])
    with right:
        st.markdown(f"**MultiHeadAttention**: one {d_in}→{d_out} projection each for Q, K, V, cut into {num_heads} "
                    f"{plural} of head_dim {head_dim}, merged back and mixed by `out_proj`: {d_out:,} columns.")
        table(h["mha"]["context_vec"], "context_vecs (MultiHeadAttention)", settings.labels)
    # st.table, not st.dataframe: a static table wraps its text, so no shape is cut off at a column's edge.
    st.table(pd.DataFrame(traces.shape_rows(h, len(settings.tokens), d_in, num_heads),
                          columns=["tensor", "MultiHeadAttentionWrapper", "MultiHeadAttention"]),
             hide_index=True, width="content")
    st.caption(f"`merge_heads`: {MERGE_HEADS}.")


def out_proj_lesson(h: dict, settings: Settings, d_out: int, num_heads: int) -> None:
    """merge_heads leaves each head in its own columns; out_proj's d_out × d_out weights mix them."""
    mha, head_dim = h["mha"], d_out // num_heads
    block = "each column" if head_dim == 1 else f"each block of {head_dim} columns"
    st.markdown(f"After `merge_heads` ({MERGE_HEADS}), {block} still holds one head's result only. "
                f"`out_proj` is an `nn.Linear({d_out}, {d_out})`, so every output column draws on all heads: "
                f"{d_out} × {d_out} weights + {d_out} biases = **{h['out_proj_params']:,} parameters**.")
    left, right = st.columns(2)
    with left:
        table(mha["merged"], "merged (before out_proj)", settings.labels,
              [f"h{i + 1}·{j + 1}" for i in range(num_heads) for j in range(head_dim)])
    with right:
        table(mha["context_vec"], "context_vec = out_proj(merged)", settings.labels)


def parameter_counts(d_in: int, d_out: int, num_heads: int) -> None:
    """The two classes' parameter counts at this screen's sizes, and why only the wrapper's grows with the heads."""
    plural = "head" if num_heads == 1 else "heads"
    # GPT-2 small's counts are exercise 3.3's answer: its worked solution shows them, not this table. At those sizes
    # (the GPT-2 preset's own) a note says so instead of a row of "exercise 3.3" cells, whose out_proj count beside
    # the formula below would give the answer away.
    wrapper, mha = count_text(wrapper_parameter_count(d_in, d_out, num_heads)), mha_count_text(d_in, d_out, num_heads)
    if EXERCISE_3_3 in (wrapper, mha):
        st.caption(EXERCISE_3_3_NOTE)
    else:
        counts = pd.DataFrame([
            (f"this screen: d_in {d_in}, d_out {d_out}, {num_heads} {plural}", wrapper, mha,
             f"{out_proj_parameter_count(d_out):,}"),
        ], columns=["setting", "MultiHeadAttentionWrapper", "MultiHeadAttention", "of which out_proj"])
        st.table(counts, hide_index=True, width="content")
    st.caption("The wrapper gives every head a full d_out-wide projection, so its count grows with the number of "
               "heads; MultiHeadAttention's does not: 3 · d_in · d_out for Q, K, V plus d_out · d_out + d_out for "
               "out_proj, whatever num_heads is. The context length adds no parameters (only the mask buffer). "
               "GPT-2 small's layer is exercise 3.3 below.")


def heads_agreement(mha: dict, settings: Settings, d_in: int, d_out: int, num_heads: int, trained: bool) -> None:
    """Every head against PyTorch's fused causal attention and, where its shapes allow, nn.MultiheadAttention."""
    checks = [("each head vs F.scaled_dot_product_attention(is_causal=True)", checked(agreement_checks.causal_vs_sdpa, mha))]
    if d_in == d_out and not trained:
        torch_mha = mha_agreement(settings, num_heads)
        checks += [("output vs nn.MultiheadAttention", torch_mha["output"]),
                   ("weights vs nn.MultiheadAttention", torch_mha["weights"])]
    else:
        st.caption("nn.MultiheadAttention needs d_in = d_out (its queries have embed_dim features), so that "
                   "comparison appears when the two are equal.")
    agreement(checks)


# --- the "mistakes" section: each mistake of this step, wrong and right, with its numbers ---------


def mistakes(mha: dict, d_out: int, num_heads: int, q: int) -> None:
    """Scaling every head by √d_out instead of √head_dim; mha: MultiHeadAttention's trace, (1, h, T, …) tensors.
    Computed on the lesson's own masked scores: the right version is the head-1 map above."""
    T = mha["queries"].shape[-2]
    causal = stages.causal_mask(T, mha["queries"].device).bool()  # (T, T): the lesson's mask
    flat = pitfalls.scale_by_model_dim(mha["queries"], mha["keys"], d_out, causal)  # (1, h, T, T) each
    wrong, right = flat["wrong"][0, 0, q], flat["right"][0, 0, q]  # (T,): head 1, query q (masked keys 0)

    def row(weights):
        return (f"head 1, query {q + 1} ({q + 1} key{'s' if q else ''}): largest weight {float(weights.max()):.4f}, "
                f"entropy {float(stages.entropy(weights)):.4f}")
    pitfall("Scaling by √d_out instead of √head_dim", "attn_scores / d_out**0.5",
            "attn_scores / head_dim**0.5  # keys.shape[-1]",
            f"{row(wrong)}: {claims.sharpness_verdict(right, wrong)} (every score divided by √{num_heads} more).",
            f"{row(right)}.")


# --- the "questions" section: readers' questions from the book's issue tracker, computed ------------


def reader_questions(settings: Settings, **inputs) -> None:
    """The questions readers ask at this step, each answered with the right and the wrong version."""
    for demo in (_split_demo, _d_out_demo):
        demo(settings, **inputs)


def _split_demo(settings, num_heads, **_) -> None:
    d_out, heads = (settings.d_out, num_heads) if 1 < num_heads and settings.d_out <= 12 else (4, 2)
    out = rq.head_split(min(len(settings.tokens), 6), d_out, heads)

    def table(rows):
        """One column per head, one row per row of it: which token's columns fill it."""
        return pd.DataFrame({f"head {i + 1}": [f"token {t} · " + (f"col {a}" if a == b else f"cols {a}–{b}")
                                               for t, a, b in head] for i, head in enumerate(rows)},
                            index=[f"row {t + 1}" for t in range(len(rows[0]))])
    st.markdown(f"**Splitting into heads** (d_out = {d_out}, {heads} heads, head_dim {out['head_dim']}): which "
                "token's numbers fill each head's rows.")
    left, right = st.columns(2)
    left.markdown("`view(b, T, h, d).transpose(1, 2)` (right)")
    data_table(table(out["right"]), where=left, width="content")
    right.markdown("`view(b, h, T, d)` (wrong, same shape)")
    data_table(table(out["wrong"]), where=right, width="content")
    st.caption("Tokens in each head: right " + "; ".join(f"head {i + 1}: {t}" for i, t in enumerate(out["right_tokens"]))
               + " · wrong " + "; ".join(f"head {i + 1}: {t}" for i, t in enumerate(out["wrong_tokens"])) + ".")


def _d_out_demo(settings, num_heads, **_) -> None:
    seed = settings.seed_for("heads")
    x = settings.x[:6]  # (T, d_in): the first tokens
    # The wrapper has num_heads full-width heads: at 1,024 heads of 1,024 dims, 3.2 billion parameters (12.9 GB).
    # Past heads_trace's bound it is counted from its arguments, never built.
    too_large = traces.heads_too_large(num_heads, x.shape[0], x.shape[1], settings.d_out)
    same = (rq.d_out_meaning_counted(x.shape[0], x.shape[1], settings.d_out, num_heads) if too_large else
            once(("d_out meaning", settings.inputs_id, settings.d_out, num_heads, seed),
                 lambda: rq.d_out_meaning(x, settings.d_out, num_heads, seed)))
    st.markdown(f"**What d_out means** (the book's pull request #859): the same `d_out = {settings.d_out}, num_heads = {num_heads}` "
                "in both classes, on the first tokens of this input.")
    data_table(pd.DataFrame({
        # GPT-2 small's counts are exercise 3.3's answer, further down the screen: count_text names the exercise
        "MultiHeadAttentionWrapper": [str(same["wrapper_head_width"]), str(same["wrapper_shape"]), count_text(same["wrapper_params"])],
        "MultiHeadAttention": [str(same["mha_head_dim"]), str(same["mha_shape"]), count_text(same["mha_params"])]},
        index=["width of each head", "output shape", "parameters"]), width="content")
    st.caption(f"In the wrapper d_out is each head's width; in MultiHeadAttention it is the total, cut into heads. "
               f"The wrapper gives MultiHeadAttention's width with d_out = {same['wrapper_d_out_for_same_width']}: "
               f"output {same['wrapper_shape_for_same_width']}."
               + (" At these sizes the wrapper is too large to build here: its column is counted from the "
                  "constructor's arguments." if too_large else ""))
