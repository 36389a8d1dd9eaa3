"""Shared keys: grouped-query attention (the book's ch04/04_gqa): fewer key/value heads than query heads."""
import streamlit as st

import ui
from attention_core.book.variants.gpt_with_kv_gqa import GroupedQueryAttention, kv_head_of
from attention_core.lessons import gqa
from screens import gqa_blocks as blocks

settings = ui.current()
st.title("Shared keys: grouped-query attention")
st.markdown(
    "At generation time a model keeps every past token's keys and values (the KV cache), and that cache, not the "
    "weights, fills a GPU's memory on long texts. **Grouped-query attention** keeps all the query heads but gives "
    "them fewer key/value heads: a group of query heads reads the same keys and values, anywhere between multi-head "
    "attention (as in chapter 3: a key/value head for every query head) and multi-query attention (one key/value head "
    "shared by all of them)."
)
d_in, d_out, T = settings.x.shape[1], settings.d_out, len(settings.tokens)


@ui.fragment
def screen():
    """The lesson and its sections: a commit from the view reruns only this part, not the sidebar."""
    num_heads = ui.heads_picker(d_out, T)
    options, in_browser = gqa.kv_options(num_heads), gqa.stack_fits(num_heads, T)
    kv = ui.clamp("kv_groups", options=options, fallback_note=f"num_kv_groups {{old}} does not divide num_heads = "
                  f"{num_heads}; showing {{new}} instead.")
    head = ui.clamp("head", low=1, high=num_heads, fallback_note=f"Head {{old}} does not exist ({num_heads} heads); "
                    "showing head {new}.") - 1
    if not in_browser:  # one setting at a time: a server move (every setting's maps would not fit the browser)
        kv = ui.control(st.select_slider, "num_kv_groups (key/value heads), from num_heads down to 1", "kv_groups",
                        options=options)
        head = ui.control(st.select_slider, "Query head", "head", options=list(range(1, num_heads + 1))) - 1
    q, _ = ui.committed(T)
    if not ui.predict_first("gqa", settings, num_heads=num_heads, num_kv_groups=kv, d_in=d_in, d_out=d_out,
                            num_tokens=T):
        st.stop()
    group = [i for i in range(num_heads) if kv_head_of(i, num_heads, kv) == kv_head_of(head, num_heads, kv)]
    # Every head's map while they are small; at 1,024 tokens the committed head's group (the view flips through it)
    every = in_browser or num_heads * T * T <= gqa.STACK_WEIGHTS
    heads = None if every else tuple(sorted(set(group[:blocks.GROUP_DRAWN]) | {head}))
    record = ui.stage_call(gqa.gqa_trace, settings, "gqa", num_heads=num_heads, num_kv_groups=kv, heads=heads)
    ui.device_badge(record["device"], record["note"] or settings.device_note)
    for col, (label, shown) in zip(st.columns(3), [("query heads (num_heads)", num_heads),
                                                   ("key/value heads (num_kv_groups)", kv),
                                                   ("query heads per key/value head", num_heads // kv)]):
        col.metric(label, shown)
    if in_browser:
        stack = ui.stage_call(gqa.every_setting, settings, "gqa", num_heads=num_heads)  # (d(H)·H, T, T)
        frames = blocks.grid_frames(num_heads, kv, head)
    else:
        stack, frames = record["weights"], blocks.head_frames(record["heads"], head)
    st.markdown("Move **num_kv_groups** and **Query head** in the view: every setting is already there. Enter (or the "
                "button) makes the lesson below follow them." if in_browser else
                "The view flips through the query heads computed for this setting; the sliders at the top of the screen compute another.")
    ui.show_view(stack, settings, "weights", "attn_weights of one query head", view_key="gqa_view", commit=True,
                 parts=("matrix", "row", "cell") if T <= 64 else ("row", "cell"), frames=frames)
    blocks.pairing_lines(num_heads, kv)
    blocks.group_maps(record, settings, num_heads, kv, head, q)
    blocks.cache_and_parameters(record, T, d_out, num_heads, kv)
    sections(record, num_heads, kv, q)


def sections(record: dict, num_heads: int, kv: int, q: int) -> None:
    """Everything past the lesson, folded: each computes only while it is open."""
    with ui.section("cache", "The cache at a real model's size", icon=":material/memory:") as shown:
        if shown:
            blocks.readme_example()
    with ui.section("tensors", "The tensors", icon=":material/table:") as shown:
        if shown:
            st.caption(f"What the cache holds: keys_new and values_new, (b, num_kv_groups, T, head_dim) = (1, {kv}, T, "
                       "head_dim) before repeat_interleave (tables show key/value head 1).")
            with ui.table_grid():  # [None]: the batch axis of one text, as the book's tensors carry it
                ui.table(record["keys_new"][None], "keys_new", settings.labels)
                ui.table(record["values_new"][None], "values_new", settings.labels)
                ui.table(record["context_vec"][None], "context_vec", settings.labels)
    ui.show_code(GroupedQueryAttention, title="The book's code: ch04/04_gqa/gpt_with_kv_gqa.py")
    ui.explain(
        "**Why share keys and values?** At generation the model reads the whole cache for every new token, so "
        "its size sets both the memory and the time per token. Query heads stay many: they are computed fresh for "
        "the new token only. **Why repeat_interleave?** The key/value heads are laid out group by group, and "
        "neighbouring query heads form a group: [K1, K1, K2, K2] lines up with query heads 1-2 and 3-4. "
        "**What does it cost?** The GQA paper and Llama 2 report quality close to multi-head attention with a well "
        "chosen num_kv_groups; one key/value head (multi-query) saves the most and can cost quality."
    )
    with ui.section("checks", "Agreement with PyTorch", icon=":material/check_circle:") as shown:
        if shown:
            blocks.agreement_checks(settings, num_heads, kv)
    with ui.section("questions", "Readers' questions", icon=":material/forum:") as shown:
        if shown:
            blocks.issue_922(num_heads, kv)
    with ui.section("mistakes", "Common mistakes", icon=":material/error:") as shown:
        if shown:
            blocks.repeat_mistake(settings, num_heads, kv, q)


screen()
