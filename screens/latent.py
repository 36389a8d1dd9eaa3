"""A latent cache: multi-head latent attention (the book's ch04/05_mla), one small vector cached a token."""
import streamlit as st

import ui
from attention_core.book.variants.gpt_with_kv_mla import MultiHeadLatentAttention
from attention_core.lessons import latent
from attention_core.lessons.head_counts import STACK_WEIGHTS
from screens import latent_blocks as blocks

settings = ui.current()
st.title("A latent cache")
st.markdown(
    "Grouped-query attention shrinks the cache by sharing key/value heads. **Multi-head latent attention** (DeepSeek-V2 "
    "and V3) keeps every head but caches something smaller than keys and values: a latent vector of `latent_dim` "
    "numbers a token, `W_DKV(x)`. At every step `W_UK` and `W_UV` rebuild the keys and values from it."
)
d_in, d_out, T = settings.x.shape[1], settings.d_out, len(settings.tokens)


@ui.fragment
def screen():
    """The lesson and its sections: a commit from the view reruns only this part, not the sidebar."""
    num_heads, groups = blocks.heads_and_groups(d_out, T)
    latent_dim = blocks.latent_picker(d_out)
    head = ui.clamp("head", low=1, high=num_heads, fallback_note=f"Head {{old}} does not exist ({num_heads} heads); "
                    "showing head {new}.") - 1
    every = num_heads * T * T <= STACK_WEIGHTS  # every head's map to the browser; at 1,024 tokens the first four
    if not every:
        head = ui.control(st.select_slider, "Head", "head", options=list(range(1, num_heads + 1))) - 1
    q, _ = ui.committed(T)
    if not ui.predict_first("latent", settings, d_out=d_out, num_heads=num_heads, latent_dim=latent_dim, num_tokens=T):
        st.stop()
    heads = None if every else tuple(sorted(set(range(min(num_heads, 4))) | {head}))
    record = ui.stage_call(latent.latent_trace, settings, "latent", num_heads=num_heads, latent_dim=latent_dim,
                           heads=heads)
    ui.device_badge(record["device"], record["note"] or settings.device_note)
    cache = latent.cache_at(T, d_out, num_heads, latent_dim, groups)
    for col, (label, shown) in zip(st.columns(3), [("latent_dim: numbers cached a token", f"{latent_dim:,}"),
                                                   ("multi-head attention: 2 · d_out", f"{2 * d_out:,}"),
                                                   ("latent cache, this layer (float32)", f"{cache['mla']:,} bytes")]):
        col.metric(label, shown)
    blocks.rebuilt(record, q, settings.labels)
    computed = record["heads"]
    ui.show_view(record["weights"], settings, "weights", "attn_weights of one head (latent keys)", view_key="latent_view",
                 commit=True, parts=("matrix", "row", "cell") if T <= 64 else ("row", "cell"),
                 frames={"name": "Head", "param": "head", "values": [h + 1 for h in computed],
                         "labels": [str(h + 1) for h in computed], "initial": computed.index(head)})
    blocks.cache_table(cache, T, num_heads)
    sections(record, num_heads, latent_dim, q)


def sections(record: dict, num_heads: int, latent_dim: int, q: int) -> None:
    """Everything past the lesson, folded: each computes only while it is open."""
    with ui.section("close", "How close the outputs stay as latent_dim shrinks", icon=":material/compress:") as shown:
        if shown:
            blocks.closeness(settings, num_heads, latent_dim)
    with ui.section("cache", "The cache at a real model's size", icon=":material/memory:") as shown:
        if shown:
            blocks.readme_examples()
    with ui.section("tensors", "The tensors", icon=":material/table:") as shown:
        if shown:
            st.caption("What the cache holds (latent_new), and the keys and values rebuilt from it:")
            with ui.table_grid():
                for name in ("latent_new", "keys_all", "values_all", "context_vec"):
                    ui.table(record[name], name, settings.labels)
    ui.show_code(MultiHeadLatentAttention, title="The book's code: ch04/05_mla/gpt_with_kv_mla.py")
    ui.explain(
        "**Why a latent?** Keys and values of all heads are 2 · d_out numbers a token, and much of that is redundant "
        "once a model has learned what to keep: a projection down to latent_dim and back can carry it. The cache "
        "then stores latent_dim numbers, and two extra matrix products a step rebuild the keys and values. **Why "
        "not always?** Too small a latent loses information, like too few key/value heads in grouped-query "
        "attention; latent_dim is a choice to test, and DeepSeek's models learn theirs in training. (The book "
        "keeps it simple: DeepSeek also compresses the queries in training and treats positions apart.)"
    )
    with ui.section("checks", "Agreement with PyTorch", icon=":material/check_circle:") as shown:
        if shown:
            blocks.agreement_checks(settings, num_heads, latent_dim)
    with ui.section("mistakes", "Common mistakes", icon=":material/error:") as shown:
        if shown:
            blocks.mistakes(settings, num_heads, latent_dim, q)


screen()
