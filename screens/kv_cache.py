"""Attention as LLMs run it: the KV cache (rasbt/LLMs-from-scratch, ch04/03_kv-cache/gpt_with_kv_cache.py)."""
import streamlit as st

import ui
from screens import kv_cache_blocks as blocks
from attention_core.book.variants.gpt_with_kv_cache import MultiHeadAttention
from attention_core.lessons import kv_cache as lesson

settings = ui.current()
st.title("KV cache")
st.markdown(
    "A language model writes one token at a time, and each new token needs attention over every token before it. "
    "Run as in chapter 3, every step feeds the whole text again and recomputes every key and value. The book's "
    "chapter-4 bonus code keeps them instead: `MultiHeadAttention(..., use_cache=True)` keeps the keys and values in "
    "`cache_k` and `cache_v` from one call to the next, so a step feeds the layer only what is new. Here the "
    "sidebar's tokens stand in for the text a model would generate: the first step feeds the prompt, each later "
    "step the token that follows."
)


def _count(n: int) -> str:
    """A count short enough for a metric: 38, 74,112, 2.37 M (the table of every step has the exact counts)."""
    return f"{n:,}" if n < 1_000_000 else f"{n / 1e6:.2f} M"


@ui.fragment
def screen():
    """The lesson and its sections: a commit from the view (a step) reruns only this part."""
    num_tokens = len(settings.tokens)
    run = lesson.run_length(num_tokens)
    columns = st.columns(3)
    with columns[1]:
        ui.clamp("kv_prompt", low=1, high=run, fallback_note=f"A prompt of {{old}} tokens is longer than the {run} "
                                                             "tokens generated here; using {new}.")
        prompt = int(ui.control(st.number_input, "Prompt: tokens fed at once by step 1", "kv_prompt", min_value=1,
                                max_value=run, step=1))
    counts = blocks.counts_in_view(settings.d_out, run, prompt, num_tokens)  # num_heads moves in the browser too
    with columns[0]:
        num_heads = ui.heads_picker(settings.d_out, num_tokens, in_view=bool(counts))
    heads_in_view = bool(counts) or blocks.heads_fit(run, prompt, num_heads)  # every head's steps: Head moves in the view
    with columns[2]:
        head = ui.clamp("head", low=1, high=num_heads,
                        fallback_note=f"Head {{old}} does not exist ({num_heads} heads); showing head {{new}}.") - 1
        if num_heads > 1 and not heads_in_view:
            head = ui.control(st.select_slider, "Head drawn", "head", options=list(range(1, num_heads + 1))) - 1
    ui.committed(num_tokens)  # the app's query and key stay inside the tokens (a note when the URL's do not)
    trace = lambda heads: ui.stage_call(lesson.generation_trace, settings, "kv-cache", rows=run,  # noqa: E731
                                        num_heads=heads, prompt=prompt)
    record = trace(num_heads)
    calls = record["calls"]
    step = ui.clamp("kv_step", low=1, high=len(calls),
                    fallback_note=f"Step {{old}} does not exist ({len(calls)} steps); showing step {{new}}.")
    if not ui.predict_first("kv-cache", settings, record=record, step=step):
        st.stop()
    ui.device_badge(record["device"], record["note"] or settings.device_note)
    if run < num_tokens:
        st.caption(f"The generation steps through the first {run} of the {num_tokens:,} tokens: each step is a "
                   "frame of the view, and each uncached step recomputes the whole prefix. The memory below counts "
                   "every token.")
    start, stop = calls[step - 1]
    largest = max(record["difference"])
    for column, (label, shown) in zip(st.columns(4), [
            (f"keys cached after step {step}", f"{stop:,}"),
            ("mask slice (rows from ptr_current_pos)", f"{stop - start} × {stop}"),
            (f"multiply-adds at step {step}: cached / uncached",
             f"{_count(record['macs_cached'][step - 1])} / {_count(record['macs_uncached'][step - 1])}"),
            ("largest |cached − uncached|, every step", lesson.difference_text(largest))]):
        column.metric(label, shown)

    labels = settings.labels[:run]
    view = blocks.view_frames({heads: record if heads == num_heads else trace(heads) for heads in counts or [num_heads]},
                               num_heads, step, head, heads_in_view)  # maps (frames, n, n), outputs (frames, n, d_out)
    st.markdown(
        ("**Step by step.** Move **Step**, **num_heads** and **Head** in the view" if counts else
         "**Step by step.** Move **Step** and **Head** in the view" if heads_in_view else
         f"**Step by step, head {head + 1}.** Move **Step** in the view")
        + " (or PageUp / PageDown): each step adds the "
        "newest token's row, its weights over every key cached so far; the rows of tokens not fed yet are empty, and "
        "the cells right of the diagonal never exist in the cache (both hatched). The view opens on the newest row: "
        "its bars with the cache, then the same row computed without it. Enter (or the button) brings the step"
        + (" and num_heads" if counts else "") + " to the numbers above and below.")
    ui.show_view(view["cached"], settings, "weights", "attn_weights, cached", view_key="kv_view",
                 labels=labels, commit=True, frames=view["frames"], row_title="with the cache",
                 also=[("without the cache", view["uncached"], "weights")],
                 # the layer's output (every head, after out_proj), not the drawn head's weights × values; the view
                 # prints "z(4) = [...]", the book's z^(4)
                 vectors=[("layer output (every head, after out_proj) with the cache: z", view["context_cached"]),
                          ("the same without the cache: z", view["context_uncached"])],
                 parts=("matrix", "row", "cell"), selection=(stop - 1, 0),  # opens on the step's newest row
                 hatched="not in the cache (a token not fed yet, or the future)")
    blocks.mask_slice(record, step, labels)
    sections(record, num_heads, prompt, step, head, labels)


def sections(record: dict, num_heads: int, prompt: int, step: int, head: int, labels: list) -> None:
    """Past the lesson, folded: each runs only while open (the speed test is measured only there)."""
    with ui.section("tensors", "The tensors of this step", icon=":material/table:") as shown:
        if shown:
            blocks.step_tensors(record, step, head, labels)
    with ui.section("steps", "Every step: work and agreement", icon=":material/table_rows:") as shown:
        if shown:
            blocks.every_step(record)
    with ui.section("memory", "Memory: bytes per token", icon=":material/memory:") as shown:
        if shown:
            blocks.memory(record, len(settings.tokens))
    with ui.section("speed", "Speed: tokens per second with and without the cache", icon=":material/speed:") as shown:
        if shown:
            blocks.speed(settings)
    ui.show_code(MultiHeadAttention, blocks.GENERATE,
                 title="The book's code: ch04/03_kv-cache/gpt_with_kv_cache.py (MultiHeadAttention), and a generation")
    ui.explain(
        "**Why is the cache exact?** An uncached step recomputes the keys and values of every earlier token from the "
        "same inputs and weights, so it gets the rows the cache already holds; the newest query's row of the causal "
        "mask hides nothing (every cached key is in its past). Only the arithmetic is saved, never an answer changed, "
        "up to float32 rounding: a processor may sum a (1 × keys) product in another order than a (keys × keys) one, "
        "so some give 0, bit for bit, and others a rounding difference; the lesson's largest |cached − uncached| "
        "gives it on this machine."
        "\n\n**Why the pointer?** With the cache, the scores of a step are (new queries × every cached key). Its mask "
        "must be the rows of the full causal mask for the new tokens' positions: `mask[ptr:ptr + new, :keys]`. "
        "`ptr_current_pos` remembers where the text has got to; `reset_cache()` puts it back to 0 for a new text."
        "\n\n**Why not always?** The cache costs memory that grows with every token (the *Memory* section), it only "
        "helps when generating (training sees whole texts at once), and each step still has a fixed cost, so a tiny "
        "model can run as fast without it (the *Speed* section).")
    with ui.section("checks", "Agreement", icon=":material/check_circle:") as shown:
        if shown:
            blocks.checks(record, settings, settings.seed_for("kv-cache"))
    with ui.section("mistakes", "Common mistakes", icon=":material/error:") as shown:
        if shown:
            blocks.mistakes(settings, num_heads, prompt)


screen()
