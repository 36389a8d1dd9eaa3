"""The grouped-query screen's pictures and sub-lessons: the view's frames, which key/value head each query head meets,
the heads of one group side by side, the cache and the parameters, the checks, the book's issue #922 and the
mistake `repeat`.

screens/gqa.py keeps the outline (the controls, the view, the prose, the sections) and calls each of these with one
line. record is gqa.gqa_trace's: (len(heads), T, T) weights of the heads it was asked for, CPU tensors.
"""
import pandas as pd
import streamlit as st

from attention_core.book.variants.gpt_with_kv_gqa import kv_head_of
from attention_core.drawing.numbers import listing
from attention_core.lessons import claims, gqa
from ui.compute.cache import head_distance, stage_call
from ui.draw.checks import agreement, pitfall
from ui.draw.heatmaps import show_matrix
from ui.state.settings import Settings

# Streamlit's markdown colours, one per key/value head (cycled past seven; the head's number is always written too,
# so the colour is never the only cue).
COLOURS = ("blue", "orange", "green", "violet", "red", "gray", "rainbow")
GROUP_DRAWN = 4  # query heads of one group drawn side by side; more are counted


def kv_heads(count: int) -> str:
    """"1 key/value head", "4 key/value heads"."""
    return f"{count:,} key/value head" + ("" if count == 1 else "s")


def kv_label(kv: int) -> str:
    """Key/value head kv (0-based) as coloured markdown: ":blue[K1]"."""
    return f":{COLOURS[kv % len(COLOURS)]}[**K{kv + 1}**]"


def grid_frames(num_heads: int, num_kv_groups: int, head: int) -> dict:
    """The view's frames for gqa.every_setting: num_kv_groups (num_heads down to 1), then the query head. head: 0-based."""
    options = gqa.kv_options(num_heads)
    return {"dims": [{"name": "num_kv_groups", "param": "kv_groups", "values": options,
                      "labels": [f"{g} (group_size {num_heads // g})" for g in options]},
                     {"name": "Query head", "param": "head", "values": list(range(1, num_heads + 1)),
                      "labels": [str(n) for n in range(1, num_heads + 1)]}],
            "initial": gqa.frame_of(num_heads, num_kv_groups, head)}


def head_frames(heads: tuple, head: int) -> dict:
    """The view's frames for the heads the server computed (one group at 1,024 tokens): a Query head slider."""
    return {"name": "Query head", "param": "head", "values": [h + 1 for h in heads],
            "labels": [str(h + 1) for h in heads], "initial": heads.index(head)}


def pairing_lines(num_heads: int, num_kv_groups: int) -> None:
    """Which key/value head each query head meets, in colour: repeat_interleave (the book's) and repeat."""
    shown = min(num_heads, 16)
    for expand, verdict in (("repeat_interleave", "the book's"), ("repeat", "the mistake")):
        heads = " ".join(f"{i + 1}→{kv_label(kv)}" for i, kv in enumerate(gqa.pairing(num_heads, num_kv_groups, expand)[:shown]))
        st.markdown(f"`{expand}` ({verdict}): query head→key/value head " + heads + (" …" if shown < num_heads else ""))
    same = not gqa.orders_differ(num_heads, num_kv_groups)
    st.caption("With one key/value head, or one per query head, both orders give the same list." if same else
               "Same number of keys, different partners: `repeat` gives query head 2 the second key/value head, "
               "which belongs to another group.")


def group_maps(record: dict, settings: Settings, num_heads: int, num_kv_groups: int, head: int, q: int) -> None:
    """The query heads sharing head `head`'s key/value head, side by side: same keys, different queries."""
    kv = kv_head_of(head, num_heads, num_kv_groups)
    members = [i for i in range(num_heads) if kv_head_of(i, num_heads, num_kv_groups) == kv]
    drawn = [i for i in members if i in record["heads"]][:GROUP_DRAWN]
    st.markdown(f"**The group of {kv_label(kv)}**: query heads {', '.join(str(i + 1) for i in members)} read the "
                "same keys and values; each scores them with its own queries, so each has its own map."
                + (f" Drawn: the first {len(drawn)}." if len(drawn) < len(members) else ""))
    for col, i in zip(st.columns(max(len(drawn), 2)), drawn):
        with col:  # the map's own title names its key/value head (a label above it said it twice)
            show_matrix(record["weights"][record["heads"].index(i)], settings, "weights",
                        f"query head {i + 1} · K{kv + 1}", selected_row=q, legend=i == drawn[0])
    if len(drawn) > 1:  # what to look for, measured: at GPT-2's size random maps look alike as noise
        distance = head_distance(*(record["weights"][record["heads"].index(i)] for i in drawn))  # (T, T) maps
        st.caption(claims.heads_claim(distance, len(drawn), trained=False))


def cache_and_parameters(record: dict, num_tokens: int, d_out: int, num_heads: int, num_kv_groups: int) -> None:
    """What this layer's cache holds against multi-head attention, and W_key / W_value counted."""
    cache, params = gqa.cache_at(num_tokens, d_out, num_heads, num_kv_groups), record["params"]
    smaller = (f"{cache['ratio']:g} times smaller" if cache["ratio"] > 1 else "the same size (multi-head attention)")
    fewer = (f"{params['shrink']} times fewer" if params["shrink"] > 1 else "as many (one key/value head a query head)")
    left, middle, right = st.columns(3)
    left.metric("K/V cache, this layer (float32)", f"{cache['gqa']:,} bytes")
    middle.metric("multi-head attention's cache", f"{cache['mha']:,} bytes")
    right.metric("W_key parameters (counted)", f"{params['W_key']:,}", help=f"MultiHeadAttention: {params['mha_key']:,}")
    st.caption(f"The cache keeps each token's keys and values: 2 × {num_tokens:,} tokens × {kv_heads(num_kv_groups)} "
               f"× head_dim {cache['head_dim']} × 4 bytes, {smaller} than with {num_heads} key/value heads, as many "
               f"as the query heads (num_heads / num_kv_groups = {num_heads}/{num_kv_groups}). W_key and W_value have "
               f"{params['W_key']:,} parameters each against MultiHeadAttention's {params['mha_key']:,}: {fewer}; W_query and out_proj keep theirs.")


def readme_example() -> None:
    """The book's README example, computed with the same function as the numbers above."""
    book = gqa.readme_example()
    rows = [("multi-head attention", 32, gqa.book_gb(book["mha"])),
            (f"grouped-query, num_kv_groups = {book['class_num_kv_groups']}", book["kv_heads"], gqa.book_gb(book["gqa"]))]
    st.markdown("**The book's README example** (ch04/04_gqa): 4,096 dims, 32 heads, 32 layers, 32,768 tokens, bf16, "
                "batch 1, computed with the formula above:")
    st.table(pd.DataFrame(rows, columns=["attention", "key/value heads", "KV cache"]), hide_index=True, width="content")
    st.caption(f"{book['mha'] / book['gqa']:g} times smaller: the book's memory_estimator_gqa.py prints the same "
               f"{gqa.book_gb(book['mha'])} and {gqa.book_gb(book['gqa'])} when run with `--n_kv_groups "
               f"{32 // book['kv_heads']}` (it takes a group's size, not the number of key/value heads: Readers' "
               "questions below).")


def agreement_checks(settings: Settings, num_heads: int, num_kv_groups: int) -> None:
    found = stage_call(gqa.checks, settings, "gqa", num_heads=num_heads, num_kv_groups=num_kv_groups)
    agreement([("heads vs F.scaled_dot_product_attention(enable_gqa=True)", found["sdpa"]),
               (f"num_kv_groups = {num_heads} vs the chapter's MultiHeadAttention", found["mha"]),
               ("use_cache, one token at a time vs all at once", found["cache"])])
    st.caption("PyTorch's own grouped-query attention gets the same queries and the key/value heads before "
               "repeat_interleave. With as many key/value heads as query heads the class is the chapter's "
               "MultiHeadAttention given the same weights (out_proj's bias 0: this class has none). The cache check "
               "runs the first 64 tokens at most.")


def issue_922(num_heads: int, num_kv_groups: int) -> None:
    """Readers' question (the book's issue #922): num_kv_groups in the class and n_kv_groups in the estimator."""
    book = gqa.readme_example()
    st.markdown("**Is num_kv_groups the number of groups or the size of a group?** (the book's issue #922) In "
                "`GroupedQueryAttention` it is the number of key/value heads: W_key makes num_kv_groups · head_dim "
                "columns. `memory_estimator_gqa.py` divides by its `--n_kv_groups`: n_kv_heads = n_heads // n_kv_groups, "
                "a group's size.")
    here = num_heads // num_kv_groups
    st.markdown(f"Here: `GroupedQueryAttention(..., num_heads={num_heads}, num_kv_groups={num_kv_groups})` has "
                f"{kv_heads(num_kv_groups)}; the estimator's `--n_heads {num_heads} --n_kv_groups {num_kv_groups}` "
                f"counts {here}. For the same model it needs `--n_kv_groups {here}`.")
    pitfall("The README's model, handed the class's number", f"--n_kv_groups {book['class_num_kv_groups']}  "
            "# the class's num_kv_groups", f"--n_kv_groups {32 // book['kv_heads']}  # 32 // 8 key/value heads",
            f"{kv_heads(book['confused_kv_heads'])}: {gqa.book_gb(book['confused'])}",
            f"{kv_heads(book['kv_heads'])}: {gqa.book_gb(book['gqa'])}", wrong_box=st.warning)


def repeat_mistake(settings: Settings, num_heads: int, num_kv_groups: int, q: int) -> None:
    """`repeat` in place of `repeat_interleave`: the partners and the outputs of both."""
    found = stage_call(gqa.repeat_mistake, settings, "gqa", num_heads=num_heads, num_kv_groups=num_kv_groups)
    h, g, row = found["num_heads"], found["num_kv_groups"], min(q, found["right"].shape[0] - 1)
    if (h, g) != (num_heads, num_kv_groups):
        st.caption(f"At num_heads = {num_heads}, num_kv_groups = {num_kv_groups} both orders give the same partners, so "
                   f"the mistake is shown with {h} heads, {g} key/value heads and d_out = {found['d_out']} on the same "
                   "tokens and seed.")
    differ = float((found["wrong"] - found["right"]).abs().max())
    pitfall("`repeat` in place of `repeat_interleave`", "keys = keys_base.repeat(1, self.group_size, 1, 1)",
            "keys = keys_base.repeat_interleave(self.group_size, dim=1)",
            f"partners {[k + 1 for k in found['wrong_pairs']]}; context_vec of token {row + 1}: "
            f"{listing(found['wrong'][row])}; over every token and all {found['wrong'].shape[-1]:,} dimensions the "
            f"two differ by up to {differ:.4f}.",
            f"partners {[k + 1 for k in found['right_pairs']]}; context_vec of token {row + 1}: "
            f"{listing(found['right'][row])}.")
    st.caption("No error warns: the shapes are the same, and each query head still attends. It reads another group's "
               "keys and values, which in a trained model were learned for other query heads.")
