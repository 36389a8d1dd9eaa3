"""The KV-cache screen's blocks: the committed step worked out, every step's cost, the memory and speed figures,
the checks and the common mistakes. screens/kv_cache.py keeps the outline and calls each with one line.

record is attention_core.lessons.kv_cache.generation_trace's: rows are tokens (0-based), calls (start, stop).
"""
import pandas as pd
import streamlit as st
import torch

from attention_core.book.modules import MultiHeadAttention as ChapterThreeMHA
from attention_core.book.seeding import build_seeded
from attention_core.drawing import numbers
from attention_core.lessons import kv_cache as lesson
from attention_core.lessons.head_counts import STACK_WEIGHTS, count_dims
from attention_core.lessons.traces import head_counts_within
from ui.compute.cache import stage_call
from ui.draw.checks import agreement, checked, pitfall
from ui.draw.display import data_table, device_badge, table, table_grid
from ui.state.settings import Settings
from attention_core.drawing.numbers import scientific

GENERATE = """module.reset_cache()                              # a new text: empty cache, pointer at 0
out = module(x[:, :prompt], use_cache=True)       # step 1: the prompt at once (ptr 0 -> prompt)
for t in range(prompt, num_tokens):               # then one token a step
    out = module(x[:, t:t + 1], use_cache=True)   # 1 new key row; mask row ptr_current_pos
"""


def step_label(calls, f: int) -> str:
    """The view's slider text for call f (0-based): which tokens it feeds, 1-based."""
    start, stop = calls[f]
    return f"{f + 1} · token{'s' if stop - start > 1 else ''} {start + 1}{f'–{stop}' if stop - start > 1 else ''}"


SLICE_ENDS = 6  # a mask slice wider than 12 keys shows its first 6 and last 6


def heads_fit(run: int, prompt: int, num_heads: int) -> bool:
    """Whether every head's steps go to the browser, so that Head moves in the view; GPT-2 small's 12 heads of 33
    steps of 64 x 64 would not (the /heads stack's budget), one is drawn."""
    steps = len(lesson.calls_of(run, prompt))
    return num_heads > 1 and steps * num_heads * run * run <= STACK_WEIGHTS


def counts_in_view(d_out: int, run: int, prompt: int, num_tokens: int) -> list[int]:
    """The head counts the view moves through as well (num_heads becomes a browser move, as on /heads): every head
    of every count, at every step, within the /heads stack's budget. The book's d_out = 2: counts 1 and 2, 5 steps,
    15 maps of 6 x 6. [] where they would not fit, or d_out has one divisor."""
    counts = head_counts_within(d_out, num_tokens)
    steps = len(lesson.calls_of(run, prompt))
    return counts if len(counts) > 1 and steps * sum(counts) * run * run <= STACK_WEIGHTS else []


def view_frames(records: dict, num_heads: int, step: int, head: int, heads_in_view: bool) -> dict:
    """The view's maps with and without the cache, the layer's outputs, and its frames. records: {head count:
    generation_trace} of every count the view moves through (num_heads alone unless counts_in_view). The maps are
    (F · maps, n, n), step after step, within a step count after count and head after head (the order of the view's
    dims), or (F, n, n) of `head` alone; step 1-based, head 0-based. A map alone, and frames None, for a one-step
    generation of one head."""
    record = records[num_heads]
    calls, counts = record["calls"], list(records)
    scrubbed = heads_in_view or len(counts) > 1  # every head goes to the browser
    maps = [(c, h) for c in counts for h in (range(c) if scrubbed else [head])]
    framed = lambda name: torch.stack([lesson.frames_of(records[c][name][h], calls) for c, h in maps],  # noqa: E731
                                      dim=1).flatten(0, 1)
    dims = [] if len(calls) == 1 else [{"name": "Step", "param": "kv_step", "values": list(range(1, len(calls) + 1)),
                                        "labels": [step_label(calls, f) for f in range(len(calls))]}]
    if len(counts) > 1:  # num_heads, then a Head slider as long as that count
        dims += count_dims(counts, record["d_out"])
    elif heads_in_view:
        dims.append({"name": "Head", "param": "head", "values": list(range(1, num_heads + 1)),
                     "labels": [str(h) for h in range(1, num_heads + 1)]})
    outputs = {name: record[name] for name in ("context_cached", "context_uncached")}  # (n, d_out): every frame's
    if not dims:
        return {"cached": record["weights_cached"][head], "uncached": record["weights_uncached"][head],
                "frames": None, **outputs}
    if len(counts) > 1:  # the layer's output depends on the count: one (n, d_out) a frame
        outputs = {name: torch.stack([records[c][name] for c, _ in maps]).repeat(len(calls), 1, 1)
                   for name in outputs}  # (F · maps, n, d_out)
    initial = (step - 1) * len(maps) + maps.index((num_heads, head))
    return {"cached": framed("weights_cached"), "uncached": framed("weights_uncached"),
            "frames": {"dims": dims, "initial": initial}, **outputs}


def mask_slice(record: dict, step: int, labels: list) -> None:
    """The slice of the causal mask the committed step took at ptr_current_pos (step 1-based; every head shares it)."""
    start, stop = record["calls"][step - 1]
    ptr, mask = record["ptrs"][step - 1], record["masks"][step - 1]  # (new, stop) bool
    rows = [f"{labels[t]} (new)" for t in range(start, stop)]
    keys = [str(label) for label in labels[:stop]]
    st.markdown(f"**The mask at step {step}.** `ptr_current_pos` was {ptr}, so the mask slice is "
                f"`mask[{ptr}:{ptr + stop - start}, :{stop}]`: {stop - start} query row{'s' if stop - start > 1 else ''} "
                f"× {stop} keys (True = masked"
                + (f"; the first and last {SLICE_ENDS} keys shown)." if stop > 2 * SLICE_ENDS else ")."))
    shown = [["True" if masked else "False" for masked in row] for row in mask.tolist()]  # as PyTorch prints a bool
    if stop > 2 * SLICE_ENDS:  # the first and last keys, as PyTorch abridges a long tensor: 34 columns ran off a slide
        keep = [*range(SLICE_ENDS), *range(stop - SLICE_ENDS, stop)]
        shown = [[row[j] for j in keep[:SLICE_ENDS]] + ["…"] + [row[j] for j in keep[SLICE_ENDS:]] for row in shown]
        keys = [keys[j] for j in keep[:SLICE_ENDS]] + ["…"] + [keys[j] for j in keep[SLICE_ENDS:]]
    data_table(pd.DataFrame(shown, index=rows, columns=keys), width="content", static=True)  # redrawn every move


def step_tensors(record: dict, step: int, head: int, labels: list) -> None:
    """The committed step's tensors of one head: its new queries, the cache after it, its weights."""
    start, stop = record["calls"][step - 1]
    rows = [f"{labels[t]} (new)" for t in range(start, stop)]
    keys = [str(label) for label in labels[:stop]]
    st.caption(f"Step {step}, head {head + 1}: the cache holds {stop} key and value rows, the last "
               f"{stop - start} added by this step.")
    with table_grid():
        # named by the book's own indexing: cache_k is (b, T_cached, num_heads, head_dim), queries (b, num_heads, new, head_dim)
        table(record["queries"][head, start:stop], f"queries[0, {head}] (this step's new rows)", rows)
        table(record["cache_k"][head, :stop], f"cache_k[0, :{stop}, {head}] after this step", keys)
        table(record["cache_v"][head, :stop], f"cache_v[0, :{stop}, {head}] after this step", keys)
        table(record["weights_cached"][head, start:stop, :stop], f"attn_weights[0, {head}] (new rows × every cached key)",
              rows, keys)


def every_step(record: dict) -> None:
    """Each call's work with and without the cache (multiply-adds counted from its shapes), and the difference of
    their outputs."""
    frame = pd.DataFrame({
        "step": range(1, len(record["calls"]) + 1),
        "tokens fed (cached)": [stop - start for start, stop in record["calls"]],
        "keys attended": [stop for _, stop in record["calls"]],
        "multiply-adds, cached": record["macs_cached"], "multiply-adds, uncached": record["macs_uncached"],
        "largest |cached − uncached|": [lesson.difference_text(d) for d in record["difference"]]})
    data_table(frame, hide_index=True, width="content")
    cached, uncached = sum(record["macs_cached"]), sum(record["macs_uncached"])
    st.caption(f"In all: {cached:,} multiply-adds with the cache, {uncached:,} without "
               f"({uncached / cached:.1f}×). A cached step projects only its new token and scores one query against "
               "every cached key, so its work grows with the number of keys; an uncached step projects every token "
               "again and scores every query against every key, so the whole generation grows with its square. "
               "Counted as 3·new·d_in·d_out (projections) + 2·new·keys·d_out (q·k and weights·v) + new·d_out² "
               "(out_proj).")


def memory(record: dict, n: int) -> None:
    """Bytes per token and after the sidebar's n tokens (all of them, not only the steps the lesson runs)."""
    heads, head_dim = record["num_heads"], record["d_out"] // record["num_heads"]
    rows = lesson.memory_rows(heads, head_dim, n)
    frame = pd.DataFrame({
        "model": [r["model"] for r in rows], "layers": [r["layers"] for r in rows],
        "K/V heads": [r["kv_heads"] for r in rows], "head_dim": [r["head_dim"] for r in rows],
        "dtype": [r["dtype"] for r in rows], "bytes per token": [f"{r['per_token']:,}" for r in rows],
        f"after {n:,} tokens": [numbers.size_in_bytes(r["after_tokens"]) for r in rows],
        "after its context": [f"{numbers.size_in_bytes(r['after_context'])} ({r['context']:,} tokens)" for r in rows]})
    data_table(frame, hide_index=True, width="content")
    big = rows[-1]
    st.caption("Bytes per token = 2 (keys and values) × layers × K/V heads × head_dim × bytes per number "
               f"(the formula of the book's memory estimators). {big['model']} adds "
               f"{big['per_token']:,} bytes a token, so a full context of {big['context']:,} tokens holds "
               f"{numbers.size_in_bytes(big['after_context'])} per sequence; the cache grows linearly with the text, "
               "which is what the sliding window and grouped-query attention cut.")


def speed(settings: Settings) -> None:
    """Tokens per second with and without the cache on the settings' device (measured once per settings and
    server, bounded by lesson.SPEED_BUDGET_S)."""
    result = stage_call(lesson.speed_trace, settings, "kv-cache")
    device_badge(result["device"], result["note"] or settings.device_note)
    frame = pd.DataFrame({
        "layer": [f"{r['sizes']} ({r['d_in']} → {r['d_out']}, {r['num_heads']} heads)" for r in result["rows"]],
        "tokens/s with the cache": [_rate(r, "cached") for r in result["rows"]],
        "tokens/s without": [_rate(r, "uncached") for r in result["rows"]],
        "verdict": [lesson.speed_verdict(r) for r in result["rows"]]})
    data_table(frame, hide_index=True, width="content")
    stopped = lesson.cut_short_note(result["rows"])
    if stopped:
        st.caption(stopped)
    st.caption(f"One attention layer alone, random weights and inputs, a {lesson.SPEED_PROMPT}-token prompt and up to "
               f"{lesson.SPEED_NEW} new tokens, the best of the runs that fit in {lesson.SPEED_BUDGET_S:g} s in all; "
               "measured once on this server (a busy server measures slower). The cache saves arithmetic, but each "
               "cached step still pays Python's and "
               "PyTorch's fixed cost per call, and `torch.cat` copies the whole cache every step: at tiny sizes, and "
               "on a GPU where the arithmetic is cheap, that fixed cost is most of the time (the book's README says "
               "the same of its GPU runs).")


def _rate(row: dict, name: str) -> str:
    tokens = row[f"{name}_tokens"]
    return lesson.rate_text(row[name]) + (f" ({tokens} of {lesson.SPEED_NEW} tokens)" if tokens < lesson.SPEED_NEW else "")


def checks(record: dict, settings: Settings, seed: int) -> None:
    """Cached against uncached over every step, and the class without its cache against chapter 3's."""
    gap = max(record["difference"])
    x = settings.x[:record["run"]].unsqueeze(0)  # (1, n, d_in)
    agreement([("every step: cached vs uncached outputs", gap),
               ("use_cache=False vs chapter 3's MultiHeadAttention", checked(_chapter_three_gap, x, record["d_out"],
                                                                              record["num_heads"], seed))])


def _chapter_three_gap(x: torch.Tensor, d_out: int, num_heads: int, seed: int) -> float:
    n = x.shape[1]
    with torch.no_grad():
        mine = build_seeded(lesson.MultiHeadAttention, seed, x.shape[-1], d_out, n, 0.0, num_heads)(x)
        book = build_seeded(ChapterThreeMHA, seed, x.shape[-1], d_out, n, 0.0, num_heads)(x)
    return float((mine - book).abs().max())


def mistakes(settings: Settings, num_heads: int, prompt: int) -> None:
    record = stage_call(lesson.mistakes_trace, settings, "kv-cache", rows=lesson.run_length(len(settings.tokens)),
                        num_heads=num_heads, prompt=prompt)
    right, n = record["right"], record["run"]
    stale = lesson.largest_difference(record["no_reset"], right)
    again = lesson.largest_difference(record["reset"], right)
    pitfall("Forgetting reset_cache() between two texts",
            "module(x_prompt, use_cache=True)   # text 1 ...\n# no reset_cache()\nmodule(x_prompt, use_cache=True)   "
            "# text 2 sees text 1's keys",
            "module.reset_cache()               # empty cache, pointer 0\nmodule(x_prompt, use_cache=True)",
            f"The same {n} tokens generated a second time without a reset: the cache still holds the first run's "
            f"keys and the pointer ran on to {record['ptr_no_reset']}. The outputs differ from the first run's by up to "
            f"{stale:.4f}." if stale >= lesson.SAME else f"Without a reset the outputs differ by only {scientific(stale)}.",
            f"With reset_cache() the second run repeats the first: largest difference {lesson.difference_text(again)}.")
    wrong = lesson.largest_difference(record["mask_from_0"], right)
    pitfall("Slicing the mask from its first row instead of ptr_current_pos (the book's pull request #697)",
            "mask_bool = self.mask.bool()[:num_tokens_Q, :num_tokens_K]",
            "mask_bool = self.mask.bool()[\n    self.ptr_current_pos:self.ptr_current_pos + num_tokens_Q, :num_tokens_K]",
            f"A lone new query gets row 1 of the causal mask, which hides every key but the first: the outputs of the "
            f"one-token steps are off by up to {wrong:.4f}." if wrong >= lesson.SAME else
            f"Here every step fed the prompt from position 0, so the two slices agree (largest difference {scientific(wrong)}); "
            "a one-token step after the prompt is where they part.",
            "The slice starts at the new token's own position: its row lets it see every cached key, as an uncached "
            "forward would.")
    st.caption("PR #697 first reported the older slice `mask[:num_tokens, :num_tokens]`, a 1 × 1 mask with the "
               "cache; slicing from 0 to num_tokens_K was the first fix proposed, and it broke the cached outputs. "
               "The book's code now slices at the pointer.")
