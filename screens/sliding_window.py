"""Sliding window (ch04/06_swa): MultiHeadAttentionWithSWA, its band mask, the cached prefill's W + T − 1 keys (the
book's fix #1013), and what the cache holds."""
import streamlit as st

import ui
from attention_core.book.variants.gpt_with_kv_swa import MultiHeadAttentionWithSWA
from attention_core.lessons import sliding_window as swa
from attention_core.lessons.traces import head_counts_within
from screens import sliding_window_blocks as blocks

STAGE = blocks.STAGE
settings = ui.current()
T, d_out = len(settings.tokens), settings.d_out
st.title("Sliding window")
st.markdown(
    "Chapter 3's causal mask lets every token attend to all the tokens before it, so a model writing its "
    "10,000th token keeps the keys and values of all 10,000 in its cache. A **sliding window** caps that: each "
    "query attends only to the most recent **W** keys, itself among them. `MultiHeadAttentionWithSWA`, from the "
    "book's chapter-4 bonus material, does it with one more condition in the causal mask."
)


@ui.fragment
def screen():
    """The lesson and its sections: a commit from the view reruns only this part, not the sidebar."""
    counts = swa.counts_in_stack(head_counts_within(d_out, T), T)  # every count's windows fit: num_heads moves
    num_heads = ui.heads_picker(d_out, T, in_view=bool(counts))      # in the view too
    scrubbed = swa.stack_fits(T, num_heads)  # every W's maps travel at once: W moves in the browser
    window = blocks.window_control(T, scrubbed)
    head = blocks.head_control(num_heads, T)
    q, _ = ui.committed(T)
    drawn = 0 if blocks.heads_fit(T, num_heads) else head  # every head kept, or the one drawn
    found, used, device_note = ui.stage_call(swa.window_part, settings, STAGE, num_heads=num_heads, window=window,
                                             head=drawn)
    record = swa.combine(found, ui.stage_call(swa.causal_part, settings, STAGE, num_heads=num_heads)[0])
    chunk = swa.default_chunk(T)
    if not ui.predict_first(STAGE, settings, record=record, window=window, chunk=chunk,
                            chunk_keys=swa.last_chunk_keys(T, window, chunk)):
        st.stop()
    ui.device_badge(used, device_note or settings.device_note)
    blocks.masks_side_by_side(record, settings, window)
    stack = ui.stage_call(swa.window_stack, settings, STAGE, num_heads=num_heads) if scrubbed else None
    if counts:  # every count's stack, one after another in the view's order (W, num_heads, Head)
        stack = swa.merge_stacks({c: ui.stage_call(swa.window_stack, settings, STAGE, num_heads=c) for c in counts},
                                 {c: ui.stage_call(swa.causal_part, settings, STAGE, num_heads=c)[0]["causal_context"]
                                  for c in counts})
    st.markdown(("Move **Window W**" + (", **num_heads**" if counts else "") + " and **Head** in the view (or PageUp "
                 f"/ PageDown): every window from 1 to {T:,} is already there; Enter makes the sections below follow."
                 if scrubbed else
                 "The view flips through the heads at this W in the browser; W itself is the slider at the top of the screen."
                 if blocks.heads_fit(T, num_heads) else
                 f"The view draws head {head + 1} at this W; W and the head are the sliders at the top of the screen.")
                + " A key outside the window has its score set to −∞, so softmax gives it exactly 0: "
                + ("the view hatches the future and prints 0.0000 for keys too far back." if blocks.view_draws_map(T) else
                   "the view's first bars list only the keys inside the window."))
    ui.show_view(**blocks.view_arguments(record, stack, settings, num_heads, window, head, counts))
    st.markdown(blocks.keys_sentence(record, q, window) + " " + swa.window_sentence(window, T, record["window_vs_causal"]))
    sections(record, num_heads, window)


@ui.fragment
def prefill_lesson(num_heads: int, window: int) -> None:
    """The cached prefill in its own fragment: the chunk slider reruns this section, not the screen above it."""
    blocks.prefill(settings, num_heads, window)


@ui.fragment
def gemma_lesson() -> None:
    """Gemma 3's schedule in its own fragment: its K slider reruns this part alone (it depends on no setting)."""
    blocks.gemma_schedule()


def sections(record: dict, num_heads: int, window: int) -> None:
    """Everything past the lesson, folded: each computes only while it is open."""
    with ui.section("sweep", "As W shrinks: the context vectors", icon=":material/stacked_line_chart:") as shown:
        if shown:
            blocks.sweep(settings, num_heads)
    with ui.section("causal", "W ≥ T is the causal layer", icon=":material/join:") as shown:
        if shown:
            blocks.equals_causal(record, settings)
    with ui.section("prefill", "The cached prefill: W + C − 1 keys (the book's fix #1013)",
                    icon=":material/fast_forward:") as shown:
        if shown:
            prefill_lesson(num_heads, window)
    with ui.section("generation", "One token at a time: the cache holds W", icon=":material/cached:") as shown:
        if shown:
            blocks.generation(settings, num_heads, window)
    with ui.section("memory", "Memory: W tokens a layer, and Gemma 3's 5 : 1", icon=":material/memory:") as shown:
        if shown:
            blocks.memory(settings, num_heads, window)
            gemma_lesson()
    with ui.section("tensors", "The tensors", icon=":material/table:") as shown:
        if shown:
            blocks.tensors(record, settings)
    ui.show_code(MultiHeadAttentionWithSWA, title="The book's code: ch04/06_swa/gpt_with_kv_swa.py")
    ui.explain(
        "**Why a window?** With the KV cache, every layer keeps the keys and values of every token so far: memory "
        "grows with the text. A window layer keeps only the last W, whatever the length. Information from further "
        "back still arrives, indirectly: a query sees keys whose own vectors were computed, one layer down, from "
        "their last W keys, so L window layers reach back up to L × (W − 1) tokens. Models such as Gemma 3 also "
        "keep a few full layers (one in six) for direct long-range lookups.\n\n"
        "**Why W + C − 1 keys for a chunk?** The first query of a chunk of C tokens needs the W − 1 keys before it; "
        "the last query needs the chunk's own keys. The cache after the call needs only the last W, for the next "
        "token. Before #1013 the book's code cut the keys to the cache's W before attending, so the chunk's first "
        "queries lost keys they should see."
    )
    with ui.section("checks", "Agreement with PyTorch", icon=":material/check_circle:") as shown:
        if shown:
            blocks.checks(ui.stage_call(swa.window_part, settings, STAGE, num_heads=num_heads, window=window,
                                        head=record["heads_kept"][0], check=True)[0])
    with ui.section("mistakes", "Common mistakes", icon=":material/error:") as shown:
        if shown:
            blocks.mistakes(settings, num_heads, window)


screen()
