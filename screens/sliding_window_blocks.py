"""The sliding-window screen's blocks: the W control, the two masks, the view of every window, and the bodies of its
folded sections (the sweep over W, W ≥ T, the cached prefill, generation, memory, the tensors, the mistakes).

screens/sliding_window.py keeps the outline; the numbers come from attention_core/lessons/sliding_window.py.
"""
import pandas as pd
import streamlit as st

from attention_core.drawing import numbers
from attention_core.drawing.view_data import CELLS_MAX
from attention_core.drawing.text import md_escape
from attention_core.lessons import cache_bytes
from attention_core.lessons import sliding_window as swa
from ui.compute.cache import stage_call
from ui.draw.checks import agreement, pitfall
from ui.draw.code import source
from ui.draw.display import data_table, table, table_grid, table_height
from ui.draw.heatmaps import show_matrix
from ui.state.session import clamp, control, note, set_value, value
from ui.state.settings import Settings

STAGE = "sliding-window"
GENERATION_STEPS = 64  # tokens generated one at a time in the check (the cache's work; 1,024 would take seconds)


def window_control(num_tokens: int, scrubbed: bool) -> int:
    """W, from 1 to the number of tokens (a longer window is the same mask: the screen says so once). In the view's
    frames when every window fits the browser, else a slider here."""
    asked = value("sliding_window")
    if asked > num_tokens:  # a longer window hides nothing more than W = T: the nearest, not the default
        set_value("sliding_window", num_tokens)
        note(f"W = {asked:,} is more than the {num_tokens:,} tokens, and no window longer than the input hides "
             f"anything W = {num_tokens:,} does not; showing W = {num_tokens:,}.")
    window = clamp("sliding_window", low=1, high=num_tokens, fallback_note="W = {old} hides every key; showing W = {new}.")
    if scrubbed or num_tokens == 1:
        return window
    return control(st.slider, "Window W (the keys each query sees, itself included)", "sliding_window",
                   min_value=1, max_value=num_tokens)


def view_draws_map(num_tokens: int) -> bool:
    """Up to CELLS_MAX tokens the view draws the windowed map; above, its bars alone (the masks above are the map)."""
    return num_tokens <= CELLS_MAX


def heads_fit(num_tokens: int, num_heads: int) -> bool:
    """Whether the record keeps every head's map (swa.heads_kept), so the view flips through the heads in the
    browser: at GPT-2's 1,024 tokens twelve pairs of 1,024 × 1,024 maps cost ~1.5 s a W move to build."""
    return len(swa.heads_kept(num_tokens, num_heads, 0)) == num_heads


def head_control(num_heads: int, num_tokens: int) -> int:
    """The head drawn, 0-based (the URL's head, kept inside the count): the view's own Head where every head fits
    (heads_fit), else a control here, and a move of it reruns."""
    head = clamp("head", low=1, high=num_heads,
                 fallback_note=f"Head {{old}} does not exist ({num_heads} heads); showing head {{new}}.") - 1
    if num_heads > 1 and not heads_fit(num_tokens, num_heads):
        head = control(st.select_slider, "Head drawn", "head", options=list(range(1, num_heads + 1))) - 1
    return head


def masks_side_by_side(record: dict, settings: Settings, window: int) -> None:
    """The causal mask and the band mask, dark = may see in both."""
    left, right = st.columns(2)
    labels = ("may see", "hidden")
    with left:
        show_matrix(record["causal_mask"], settings, "mask", "causal: diff < 0 (1 = hidden)", mask_labels=labels,
                    mask_dark=0)
    with right:
        show_matrix(record["mask_bool"], settings, "mask", f"sliding window W = {window:,}: diff < 0 | diff >= W",
                    mask_labels=labels, mask_dark=0)
    st.caption("diff = query position − key position. Both masks hide the future (diff < 0); the window also hides "
               f"every key W = {window:,} or more tokens back, which leaves a band of width W along the diagonal.")


def view_arguments(record: dict, stack: dict | None, settings: Settings, num_heads: int, window: int,
                   head: int, counts: list[int]) -> dict:
    """ui.show_view's arguments: the weights of one head at W beside the causal layer's; with `stack` (every
    window) W moves in the browser, and with `counts` (swa.merge_stacks' of every head count) num_heads too, else
    the heads of the server's W."""
    num_tokens = len(settings.tokens)
    causal_context = record["causal_context"]  # (T, d_out), or (F, T, d_out) with counts
    if stack is not None:
        frames = swa.stack_frames(num_tokens, settings.d_out, num_heads, window, head, counts)
        causal_context = stack["causal_context"] if counts else causal_context
        weights, causal, context = stack["weights"], stack["causal_weights"], stack["context_vec"]  # (F, T, ·)
        scores = stack["masked_scores"]
    elif heads_fit(num_tokens, num_heads):  # one window (the server's), every head
        frames = {"name": "Head", "param": "head", "values": list(range(1, num_heads + 1)),
                  "labels": [str(h) for h in range(1, num_heads + 1)], "initial": head}
        weights, causal, context = record["attn_weights"], record["causal_weights"], record["context_vec"]
        scores = record["masked_scores"]
    else:  # one window, one head (head_control's, the one the record kept): a W or head move builds one map
        frames, at = None, record["heads_kept"].index(head)
        weights, causal = record["attn_weights"][at], record["causal_weights"][at]  # (T, T) each
        context, scores = record["context_vec"], record["masked_scores"][at]  # context: (T, d_out), every head
    # order: the masked scores rank the bars, and their −inf (outside the window) leaves those keys out of the list:
    # a narrow band's map is mostly zeros, which the view would otherwise list as weights of 0.0000
    return dict(matrix=weights, settings=settings, kind="weights", title="attn_weights with a sliding window, one head at a time",
                view_key="swa_view", parts=("matrix", "row", "cell") if view_draws_map(num_tokens) else ("row", "cell"),
                commit=True, frames=frames, row_title="weights inside the window",
                # the future is hatched; a key too far back is a weight of exactly 0 (a teacher read "masked" as both)
                hatched="the future (a key outside the window is drawn with its weight, 0.0000)",
                also=[("causal: no window", causal, "weights")],
                # the layer's output (every head, after out_proj); the view prints "z(4) = [...]", the book's z^(4)
                vectors=[("layer output (every head, after out_proj) with the window: z", context),
                         ("the same without the window (causal): z", causal_context)],
                order=scores, order_name="masked scores")


def keys_sentence(record: dict, q: int, window: int) -> str:
    """Which keys the committed query sees, and how many the causal mask would give it."""
    seen = int(record["visible"][q])
    first = q + 1 - seen + 1
    said = (f"Query {q + 1} sees key{'s' if seen > 1 else ''} {first}" + (f" … {q + 1}" if seen > 1 else "")
            + f": {seen} of the {q + 1} a causal layer gives it (min(W, {q + 1}) with W = {window:,}); every other "
            "key gets weight exactly 0.")
    last = len(record["visible"])
    if seen == q + 1 and last > window:  # the view opens on a query the window does not reach: say where it does
        kept = int(record["visible"][-1])
        said += (f" The window changes nothing for this query; it does for a later one: query {last:,} sees "
                 f"{last - kept + 1:,} … {last:,}, {kept:,} of its {last:,}.")
    return said


def sweep(settings: Settings, num_heads: int) -> None:
    """The last query's context vector as W shrinks (it loses keys first), and how far each W moves any query."""
    num_tokens = len(settings.tokens)
    q = num_tokens - 1
    windows = swa.sweep_windows(num_tokens)
    found, _, _ = stage_call(swa.context_by_window, settings, STAGE, num_heads=num_heads, windows=windows)
    shown = min(settings.d_out, 4)
    rows = {f"W = {w:,}": [numbers.fixed(float(v)) for v in found["context_vec"][n, q, :shown]]
            + [numbers.fixed(found["vs_causal"][n])] for n, w in enumerate(windows)}
    columns = [f"dim {i + 1}" for i in range(shown)] + ["max |Δ| vs causal, any query"]
    data_table(pd.DataFrame.from_dict(rows, orient="index", columns=columns), width="content",
                 height=table_height(len(rows)))
    st.caption(f"The context vector of the last query, “{md_escape(settings.labels[q])}” ("
               + (f"its {shown} dims" if shown == settings.d_out else f"the first {shown} of its {settings.d_out:,} dims")
               + "), at each W: it is the first to lose keys as W shrinks. "
               + swa.sweep_sentence(windows, found["vs_causal"], num_tokens))


def equals_causal(record: dict, settings: Settings) -> None:
    """W ≥ T against the causal layer, with the numbers."""
    num_tokens, gap = len(settings.tokens), record["full_vs_causal"]
    st.metric(f"max |context(W = {num_tokens:,}) − context(causal)|", numbers.scientific(gap))
    said = "are equal" if gap <= swa.SAME else "differ"
    st.markdown(f"At W = T = {num_tokens:,} the two layers' context vectors {said} (largest difference "
                f"{numbers.scientific(gap)}). The query at position i and a key at position j give diff = i − j ≤ "
                f"T − 1 = {num_tokens - 1:,} < W, so `diff >= W` hides nothing and the band is the causal mask. The "
                "book's class uses the same fact for `sliding_window_size=None`: it sets W = num_tokens_K + 1.")


def prefill(settings: Settings, num_heads: int, window: int) -> None:
    """The prompt prefilled in chunks with the cache: the book's W + C − 1 keys against the W of the code before
    #1013, and both against one uncached forward."""
    num_tokens = len(settings.tokens)
    if num_tokens < 2:
        st.caption("With one token there is one chunk of one token: nothing to prefill in pieces.")
        return
    chunk = st.slider("Chunk size C (tokens fed per cached call)", 1, num_tokens, swa.default_chunk(num_tokens),
                      key="swa_chunk")
    found, _, _ = stage_call(swa.prefill_trace, settings, STAGE, num_heads=num_heads, window=window, chunk=chunk)
    span = lambda keys: f"{keys[0] + 1:,} … {keys[-1] + 1:,} ({len(keys):,})" if keys else "none"  # noqa: E731
    rows = [{"chunk": f"{c['start'] + 1:,} … {c['end']:,}", "keys: the book": span(c["right_keys"]),
             "keys before #1013": span(c["wrong_keys"]), "cache after": f"{c['cache_len']:,}"}
            for c in found["chunks"][:12]]
    data_table(pd.DataFrame(rows), hide_index=True, static=True)
    if len(found["chunks"]) > 12:
        st.caption(f"The first 12 of {len(found['chunks']):,} chunks.")
    st.markdown(f"A chunk of C new tokens starts at some position p. Its first query needs the W − 1 = {window - 1:,} "
                "keys before p, and its last query the chunk itself: W + C − 1 keys. The cache then keeps only the "
                f"last W = {window:,}, all that the next token needs. " + swa.prefill_sentence(found))
    second = found["chunks"][1] if len(found["chunks"]) > 1 else {"start": 0, "end": num_tokens}
    prefill_rows(found, settings.labels, second["start"], second["end"])


def prefill_rows(found: dict, labels: list, start: int, end: int, count: int = 12) -> None:
    """The context vectors row by row: uncached, the book's prefill, the one before #1013 (their first 2 dims), and
    each row's largest |before − uncached| (nan where it came out nan), for swa.prefill_rows_shown's tokens."""
    num_tokens, dims = found["uncached"].shape  # (T, d_out)
    shown = swa.prefill_rows_shown(num_tokens, start, end, count)
    fmt = lambda row: ", ".join(numbers.fixed(float(v)) for v in row[:2])  # noqa: E731
    columns = ("token", "uncached", "the book's prefill", "before #1013", "|before − uncached|")
    rows = [dict.fromkeys(columns, "…") if i is None else
            dict(zip(columns, (labels[i], fmt(found["uncached"][i]), fmt(found["right"][i]), fmt(found["wrong"][i]),
                               numbers.fixed(float((found["wrong"][i] - found["uncached"][i]).abs().max())))))
            for i in shown]
    data_table(pd.DataFrame(rows), hide_index=True, static=True)
    span = lambda run: f"{run[0] + 1:,} … {run[-1] + 1:,}"  # noqa: E731
    cut = shown.index(None) if None in shown else len(shown)
    which = (f", tokens {span(shown[:cut])}" + (f" and {span(shown[cut + 1:])}" if cut < len(shown) else "")
             + f" of {num_tokens:,} (the second chunk's first rows" + (" and its last)" if cut < len(shown) else ")")
             if num_tokens > count else "")
    st.caption("context_vec" + (" (first 2 dims)" if dims > 2 else "") + " of each query" + which + ".")


def generation(settings: Settings, num_heads: int, window: int) -> None:
    """One token at a time with the cache, against the uncached layer, at every step."""
    steps = min(len(settings.tokens), GENERATION_STEPS)
    found, _, _ = stage_call(swa.generation_check, settings, STAGE, num_heads=num_heads, window=window, steps=steps)
    worst = max(found["gaps"])
    agreement([(f"cached vs uncached, worst of {steps:,} steps", worst)])
    lengths = found["cache_lengths"]
    st.markdown(f"Fed one token at a time, the cache grows to W = {window:,} tokens and stays there: after step "
                f"{steps:,} it holds {lengths[-1]:,}" + (f" (not {steps:,})" if lengths[-1] < steps else "")
                + ". Each step's output " + ("equals" if worst <= numbers.TOLERANCE else "differs from")
                + f" the uncached layer's row (largest difference {numbers.scientific(worst)})."
                + (f" The first {steps} of the {len(settings.tokens):,} tokens are checked."
                   if steps < len(settings.tokens) else ""))


def memory(settings: Settings, num_heads: int, window: int) -> None:
    """What the cache holds: this layer, and GPT-2 small with every layer a window."""
    num_tokens, head_dim = len(settings.tokens), settings.d_out // num_heads
    full, windowed = swa.layer_bytes(num_tokens, window, num_heads, head_dim)
    gpt2 = swa.schedule_bytes(cache_bytes.GPT2_SMALL, window, swa_per_full=cache_bytes.GPT2_SMALL.layers)
    rows = [("this layer, after the {:,} tokens (float32)".format(num_tokens), full, windowed),
            (f"GPT-2 small, 12 layers, all W = {min(window, 1024):,}, at 1,024 tokens", gpt2["all_full"], gpt2["mixed"])]
    data_table(pd.DataFrame([{"cache": name, "no window": f"{a:,} bytes", "window": f"{b:,} bytes",
                                "window / full": f"{b / a:.4f}" if a else "—"} for name, a, b in rows]),
                 width="content", hide_index=True, height=table_height(len(rows)))
    st.caption("Bytes = tokens × layers × 2 (K and V) × kv_heads × head_dim × bytes per element "
               "(the formula of the book's memory_estimator_swa.py). A window layer holds "
               "min(W, tokens) tokens however long the text grows; a full layer holds them all.")


def gemma_schedule() -> None:
    """Gemma 3's K : 1 schedule of window and full layers, and what it saves (the screen runs it as a fragment of its
    own: the K slider reruns only this)."""
    model = swa.GEMMA3
    k = st.slider("Sliding-window layers per full layer (K : 1)", 0, 11, swa.GEMMA3_SWA_PER_FULL, key="swa_ratio")
    mixed = swa.schedule_bytes(model, swa.GEMMA3_WINDOW, k)
    gb = lambda n: f"{n / 1e9:,.2f} GB"  # noqa: E731 (the book's estimator prints GB of 1000³ bytes)
    cols = st.columns(3)
    cols[0].metric(f"{model.name}, every layer full", gb(mixed["all_full"]))
    cols[1].metric(f"{k} : 1, window {swa.GEMMA3_WINDOW:,}", gb(mixed["mixed"]))
    cols[2].metric("saved", f"{mixed['saved']:.1%}")
    said = (f"{model.name} at its {model.context:,}-token context, {model.layers} layers of {model.kv_heads} key/value "
            f"heads × {model.head_dim} in bf16: with {k} : 1, {mixed['swa_layers']} layers keep {swa.GEMMA3_WINDOW:,} "
            f"tokens and {mixed['full_layers']} keep all {model.context:,}"
            + (", as Gemma 3 does." if k == swa.GEMMA3_SWA_PER_FULL else ". Gemma 3 uses 5 : 1."))
    if mixed["full_layers"] and mixed["swa_layers"]:
        held = mixed["full_layers"] * model.context
        share = held / (held + mixed["swa_layers"] * swa.GEMMA3_WINDOW)
        said += f" The {mixed['full_layers']} full layers now hold {share:.1%} of the cached tokens."
    st.markdown(said)


def tensors(record: dict, settings: Settings) -> None:
    labels = settings.labels
    with table_grid():
        table(record["mask_bool"].int(), "mask_bool = (diff < 0) | (diff >= W)", labels, labels)
        first = record["heads_kept"][0] + 1  # head 1, or the one drawn where only it was kept
        table(record["masked_scores"][0], f"attn_scores[0, {first - 1}] after masked_fill (head {first})", labels, labels)
        table(record["attn_weights"][0], f"attn_weights[0, {first - 1}] (head {first})", labels, labels)
        table(record["context_vec"], "context_vec", labels)
        table(record["causal_context"], "causal context_vec (sliding_window_size=None)", labels)


def checks(record: dict) -> None:
    agreement([("context vectors vs F.scaled_dot_product_attention(attn_mask=~mask_bool)", record["vs_sdpa"])])


def mistakes(settings: Settings, num_heads: int, window: int) -> None:
    """Each wrong mask's numbers beside the right ones, on the lesson's own inputs."""
    found, _, _ = stage_call(swa.mistakes, settings, STAGE, num_heads=num_heads, window=window)
    right = found["right"]
    seen = lambda r: ", ".join(str(int(n)) for n in r["visible"][:12]) + (  # noqa: E731
        f", … ({len(r['visible']):,} queries)" if len(r["visible"]) > 12 else "")
    off = found["off_by_one"]
    pitfall("The band one key too wide: `diff > W`",
            "mask_bool = (diff < 0) | (diff > W)", "mask_bool = (diff < 0) | (diff >= W)",
            f"Keys seen per query: {seen(off)}: W + 1 = {window + 1:,} where there are enough; the context vectors move by "
            f"{off['vs_right']:.4f}." if off["vs_right"] > swa.SAME else
            f"Keys seen per query: {seen(off)}; here nothing changes (W ≥ T or too few tokens to tell).",
            f"Keys seen per query: {seen(right)}: at most W = {window:,}, the query itself included.",
            wrong_box=st.warning if off["vs_right"] <= swa.SAME else st.error)
    leak = found["no_causal"]
    pitfall("The window without the causal half: `diff >= W` alone",
            "mask_bool = diff >= W", "mask_bool = (diff < 0) | (diff >= W)",
            f"Query 1 puts {leak['future_weight']:.4f} of its weight on later tokens (the future leaks in); "
            f"the context vectors move by {leak['vs_right']:.4f}." if leak["future_weight"] > 0 else
            "With one token there is no future to leak.",
            f"Query 1 puts {right['future_weight']:.4f} on later tokens.",
            wrong_box=st.error if leak["future_weight"] > 0 else st.warning)
    chunk = swa.default_chunk(len(settings.tokens))
    before, _, _ = stage_call(swa.prefill_trace, settings, STAGE, num_heads=num_heads, window=window, chunk=chunk)
    broken = before["wrong_nan_rows"] > 0 or before["wrong_vs_uncached"] > swa.SAME
    pitfall(f"The cached prefill that attends over the cache's W keys only (the book's code before #1013), "
            f"chunks of {chunk:,}",
            "keys = combined_k[:, -W:]  # the trimmed cache", "attn_keep = min(keys.size(1), W + num_tokens - 1)",
            swa.before_fix_sentence(before), swa.fixed_prefill_sentence(before),
            wrong_box=st.error if broken else st.warning)
    st.caption("What the code before the fix computed, as this app rewrites it (checked against that commit's file):")
    st.code(source(swa.prefill_before_fix), language="python", wrap_lines=True)
