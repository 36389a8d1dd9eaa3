"""The sliding window (ch04/06_swa): what MultiHeadAttentionWithSWA computes at the sidebar's sizes, every window at
once for the browser, the cached prefill's W + T - 1 keys against the code before the book's fix #1013, what the
cache holds, and the predict-first questions.

Every function builds the book's class under the stage's seed (no dropout) and runs it, on `device` with the CPU as
fallback; tensors come back on the CPU. Positions and windows are 0-based here; the screen counts from 1.
"""
import math

import torch
import torch.nn.functional as F

from attention_core.book.device import run_with_fallback
from attention_core.book.seeding import build_seeded
from attention_core.book.stages import max_abs_diff, merge_heads
from attention_core.book.variants.gpt_with_kv_swa import MultiHeadAttentionWithSWA
from attention_core.lessons import cache_bytes
from attention_core.lessons.head_counts import STACK_WEIGHTS, count_dims
from attention_core.lessons.questions import SAME, Question, _identity, _tok
from attention_core.drawing.numbers import scientific

# Every window W = 1 … T goes to the browser (one map per window and head, and the causal map beside each) while the
# stack's stored cells cost at most this many bytes: a band map is causal, so the view sends its lower triangle, a
# uint8 shade and a uint16 code a cell, and above 128 tokens less (attention_core/drawing/view_data.py). 6 tokens and
# 2 heads: 1,512 bytes; 64 tokens and 2 heads: 1.6 MB.
STACK_BUDGET = 2_000_000
CELL_BYTES = 2 * (1 + 2)  # the window's map and the causal one beside it


def stack_bytes(num_tokens: int, num_heads: int) -> int:
    """Bytes of every window's maps: T windows × h heads × T(T + 1)/2 stored cells, two maps each."""
    return num_tokens * num_heads * num_tokens * (num_tokens + 1) // 2 * CELL_BYTES


def stack_fits(num_tokens: int, num_heads: int) -> bool:
    """Whether every window travels at once, so that moving W is a browser move (64 tokens with 2 heads do)."""
    return stack_bytes(num_tokens, num_heads) <= STACK_BUDGET


def build(d_in: int, d_out: int, num_heads: int, seed: int, window: int | None) -> MultiHeadAttentionWithSWA:
    """torch.manual_seed(seed); MultiHeadAttentionWithSWA(d_in, d_out, 0.0, num_heads, sliding_window_size=window).
    Its parameters are created in chapter 3's order, so every window, and None (causal), gets the same weights."""
    return build_seeded(MultiHeadAttentionWithSWA, seed, d_in, d_out, 0.0, num_heads, sliding_window_size=window)


def band_mask(num_tokens: int, window: int) -> torch.Tensor:
    """(T, T) True where the book's mask hides a key: diff = q - k < 0 (the future) or diff >= W (too far back)."""
    positions = torch.arange(num_tokens)
    diff = positions.unsqueeze(-1) - positions.unsqueeze(0)  # (T, T)
    return (diff < 0) | (diff >= window)


def _cpu(record: dict) -> dict:
    return {k: v.detach().cpu() if isinstance(v, torch.Tensor) else v for k, v in record.items()}


def heads_kept(num_tokens: int, num_heads: int, head: int) -> list[int]:
    """The heads whose maps a record keeps: every head while they fit STACK_WEIGHTS cells, else the one drawn (at
    GPT-2 small's sizes, twelve heads' weights, scores and causal weights are 150 MB a W: two W would not share the
    cache, so every move back would compute again)."""
    return list(range(num_heads)) if num_heads * num_tokens * num_tokens <= STACK_WEIGHTS else [head]


def window_part(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int, window: int,
                head: int = 0, check: bool = False):
    """What changes with W: the layer at window W on x (T, d_in), uncached, and the causal map of the same scores;
    the maps of heads_kept(T, h, head) only ("heads_kept" says which). check: also PyTorch's own attention with the
    band as its mask ("vs_sdpa", the checks section's, so a W move does not pay for it). Returns (record,
    device_used, note); maps (kept, T, T), the context vectors (T, d_out)."""
    num_tokens, d_in = x.shape
    mha = build(d_in, d_out, num_heads, seed, window)
    kept = heads_kept(num_tokens, num_heads, head)

    def compute(dev):
        with torch.no_grad():
            at = mha.to(dev).trace(x.to(dev)[None])
            raw = at["attn_scores"][0, kept]  # (kept, T, T) before any mask
            causal = band_mask(num_tokens, num_tokens + 1).to(dev)  # W > T: the causal mask alone
            found = {"attn_weights": at["attn_weights"][0, kept], "masked_scores": at["masked_scores"][0, kept],
                     "causal_weights": torch.softmax(raw.masked_fill(causal, -torch.inf) / mha.head_dim**0.5, dim=-1),
                     "heads_kept": kept, "mask_bool": at["mask_bool"], "context_vec": at["context_vec"][0],
                     "visible": (~at["mask_bool"]).sum(dim=-1)}  # (T,): keys each query sees
            if check:  # True in attn_mask = may attend, through the same out_proj
                sdpa = mha.out_proj(merge_heads(F.scaled_dot_product_attention(
                    at["queries"], at["keys"], at["values"], attn_mask=~at["mask_bool"])))[0]  # (T, d_out)
                found["vs_sdpa"] = max_abs_diff(found["context_vec"], sdpa)
        return _cpu(found)
    return run_with_fallback(compute, device)


def causal_part(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int):
    """What W is compared with, the same for every W (a W move reuses it): the class without a window
    (sliding_window_size=None), the causal layer's context vectors, and at W = T, which must equal them (the causal
    maps come with window_part, from its own scores). Returns (record, device, note)."""
    num_tokens, d_in = x.shape
    mha = build(d_in, d_out, num_heads, seed, None)

    def compute(dev):
        with torch.no_grad():
            at = mha.to(dev).trace(x.to(dev)[None])
            band = band_mask(num_tokens, num_tokens).to(dev)  # W = T: diff >= T never holds
            full = torch.softmax(at["attn_scores"].masked_fill(band, -torch.inf) / mha.head_dim**0.5, dim=-1)
            full_context = mha.out_proj(merge_heads(full @ at["values"]))[0]  # (T, d_out)
            causal = at["context_vec"][0]  # (T, d_out)
        return _cpu({"causal_mask": band_mask(num_tokens, num_tokens + 1), "causal_context": causal,
                     "full_vs_causal": max_abs_diff(full_context, causal)})
    return run_with_fallback(compute, device)


def combine(window: dict, causal: dict) -> dict:
    """window_part's record with causal_part's, and how far W moved the context vectors from the causal layer's."""
    return window | causal | {"window_vs_causal": max_abs_diff(window["context_vec"], causal["causal_context"])}


def window_trace(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int, window: int):
    """Everything at window W, the check included (notebooks, tests): combine(window_part, causal_part)."""
    found, used, note = window_part(x, d_out=d_out, seed=seed, device=device, num_heads=num_heads, window=window,
                                    check=True)
    causal, _, _ = causal_part(x, d_out=d_out, seed=seed, device=device, num_heads=num_heads)
    return combine(found, causal), used, note


def _project(mha: MultiHeadAttentionWithSWA, x: torch.Tensor) -> tuple:
    """queries, keys, values (1, h, T, head_dim) as the book's forward makes them, and the raw scores (1, h, T, T)."""
    b, num_tokens, _ = x.shape
    split = lambda t: t.view(b, num_tokens, mha.num_heads, mha.head_dim).transpose(1, 2)  # noqa: E731
    queries, keys, values = split(mha.W_query(x)), split(mha.W_key(x)), split(mha.W_value(x))
    return queries, keys, values, queries @ keys.transpose(2, 3)


def _attend(mha, scores, values, mask_bool) -> tuple[torch.Tensor, torch.Tensor]:
    """The book's forward from the scores on: masked_fill, / √head_dim, softmax, @ values, merge, out_proj.
    mask_bool (T, T) or (M, 1, T, T) for M masks at once. Returns (weights (…, h, T, T), context (…, T, d_out))."""
    weights = torch.softmax(scores.masked_fill(mask_bool, -torch.inf) / mha.head_dim**0.5, dim=-1)
    return weights, mha.out_proj(merge_heads(weights @ values))


def window_stack(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int) -> dict:
    """Every window W = 1 … T at once, for the browser: "weights" (T·h, T, T), window-major (frame_of), and
    "context_vec" (T·h, T, d_out), each window's context vectors repeated for its heads; "causal_weights" the causal
    layer's (h, T, T) repeated the same way. The scores are computed once and each window masks them as the book's
    forward does (tests: equal to the class built at each W)."""
    num_tokens, d_in = x.shape
    mha = build(d_in, d_out, num_heads, seed, None)

    def compute(dev):
        with torch.no_grad():
            _, _, values, scores = _project(mha.to(dev), x.to(dev)[None])  # scores (1, h, T, T)
            masks = torch.stack([band_mask(num_tokens, w) for w in range(1, num_tokens + 2)]).to(dev)  # (T + 1, T, T)
            weights, context = _attend(mha, scores, values, masks[:, None])  # (T + 1, h, T, T), (T + 1, T, d_out)
            scores = scores.masked_fill(masks[:-1, None], -torch.inf)  # (T, h, T, T): −inf outside each window
        causal = weights[-1:].expand(num_tokens, -1, -1, -1)  # W = T + 1: the book's W when sliding_window_size=None
        return _cpu({"weights": weights[:-1].reshape(-1, num_tokens, num_tokens),
                     "masked_scores": scores.reshape(-1, num_tokens, num_tokens),
                     "causal_weights": causal.reshape(-1, num_tokens, num_tokens),
                     "context_vec": context[:-1].repeat_interleave(num_heads, dim=0)})
    return run_with_fallback(compute, device)[0]


def context_by_window(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int, windows: tuple):
    """The context vectors at each W of `windows`, one window at a time (at GPT-2 small's sizes a stack of every
    window's weights would be gigabytes): "context_vec" (len(windows), T, d_out), "vs_causal" each one's largest
    |difference| from the causal layer's, "causal" (T, d_out)."""
    num_tokens, d_in = x.shape
    mha = build(d_in, d_out, num_heads, seed, None)

    def compute(dev):
        with torch.no_grad():
            _, _, values, scores = _project(mha.to(dev), x.to(dev)[None])
            causal = _attend(mha, scores, values, band_mask(num_tokens, num_tokens + 1).to(dev))[1][0]  # (T, d_out)
            contexts = torch.stack([_attend(mha, scores, values, band_mask(num_tokens, w).to(dev))[1][0]
                                    for w in windows])  # (len(windows), T, d_out)
        return _cpu({"context_vec": contexts, "causal": causal, "windows": list(windows),
                     "vs_causal": [max_abs_diff(c, causal) for c in contexts]})
    return run_with_fallback(compute, device)


def sweep_windows(num_tokens: int) -> tuple:
    """The windows the sweep shows, largest first: every one up to 12 tokens (6 … 1 at the book's), else seven at
    most (T, T/2, T/4, T/16, 8, 3, 1): each costs a softmax over h × T × T scores."""
    if num_tokens <= 12:
        return tuple(range(num_tokens, 0, -1))
    found = {num_tokens, num_tokens // 2, num_tokens // 4, num_tokens // 16, 8, 3, 1}
    return tuple(sorted((w for w in found if w >= 1), reverse=True))


def mistakes(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int, window: int):
    """Two wrong masks beside the book's on the lesson's matrix: `diff > W` (one key too many) and `diff >= W` alone
    (the causal half forgotten: the future leaks in). Each: its context vectors (T, d_out), its largest |difference|
    from the right ones, the keys each query sees (T,), and the weight query 1 puts on the future."""
    num_tokens, d_in = x.shape
    mha = build(d_in, d_out, num_heads, seed, window)
    positions = torch.arange(num_tokens)
    diff = positions.unsqueeze(-1) - positions.unsqueeze(0)  # (T, T)
    masks = {"right": (diff < 0) | (diff >= window), "off_by_one": (diff < 0) | (diff > window),
             "no_causal": diff >= window}

    def compute(dev):
        with torch.no_grad():
            _, _, values, scores = _project(mha.to(dev), x.to(dev)[None])
            found = {name: _attend(mha, scores, values, mask.to(dev)) for name, mask in masks.items()}
        right = found["right"][1][0].cpu()
        return {name: {"context_vec": context[0].cpu(), "vs_right": max_abs_diff(context[0].cpu(), right),
                       "visible": (~masks[name]).sum(dim=-1), "future_weight": float(weights[0, 0, 0, 1:].sum())}
                for name, (weights, context) in found.items()}
    return run_with_fallback(compute, device)


def frame_of(window: int, head: int, num_heads: int) -> int:
    """Where (window W, head) sits in window_stack: W 1-based, head 0-based."""
    return (window - 1) * num_heads + head


def counts_in_stack(counts: list[int], num_tokens: int) -> list[int]:
    """The head counts whose every window travels together, so that num_heads moves in the browser too (the book's
    6 tokens: 1 and 2 heads, 6 windows, 18 maps); [] for a single count or past the budget."""
    return counts if len(counts) > 1 and sum(stack_bytes(num_tokens, c) for c in counts) <= STACK_BUDGET else []


def merge_stacks(stacks: dict, causal_contexts: dict) -> dict:
    """window_stack's of several head counts ({count: stack}) as one stack in the view's order: W, then the count,
    then its heads (F = T · Σ counts maps); "causal_context" (F, T, d_out): each map's count's causal layer output
    (causal_part's), which the view prints beside the window's."""
    counts = list(stacks)
    num_tokens = stacks[counts[0]]["weights"].shape[-1]
    at = [(c, frame_of(w, h, c)) for w in range(1, num_tokens + 1) for c in counts for h in range(c)]
    merged = {name: torch.stack([stacks[c][name][f] for c, f in at])  # (F, T, T) or (F, T, d_out)
              for name in ("weights", "masked_scores", "causal_weights", "context_vec")}
    return merged | {"causal_context": torch.stack([causal_contexts[c] for c, _ in at])}


def merged_frame(window: int, num_heads: int, head: int, counts: list[int]) -> int:
    """Where (W, num_heads, head) sits in merge_stacks': W 1-based, head 0-based."""
    return (window - 1) * sum(counts) + sum(counts[:counts.index(num_heads)]) + head


def stack_frames(num_tokens: int, d_out: int, num_heads: int, window: int, head: int, counts: list[int]) -> dict:
    """The attention view's frames for window_stack (W, then Head), or for merge_stacks' with `counts` (W, then
    num_heads, then a Head as long as that count: ragged, head 2 of 1 head is not sent). head 0-based."""
    dims = [{"name": "Window W", "param": "sliding_window", "values": list(range(1, num_tokens + 1)),
             "labels": [str(w) for w in range(1, num_tokens + 1)]}]
    dims += count_dims(counts, d_out) if counts else [
        {"name": "Head", "param": "head", "values": list(range(1, num_heads + 1)),
         "labels": [str(h) for h in range(1, num_heads + 1)]}]
    return {"dims": dims, "initial": merged_frame(window, num_heads, head, counts) if counts
            else frame_of(window, head, num_heads)}


def chunks_of(num_tokens: int, chunk: int) -> list[tuple[int, int]]:
    """The prompt cut into chunks of `chunk` tokens (the last may be shorter): [(start, end), ...], 0-based."""
    return [(s, min(s + chunk, num_tokens)) for s in range(0, num_tokens, chunk)]


def prefill_before_fix(mha: MultiHeadAttentionWithSWA, x: torch.Tensor, chunk: int) -> tuple[torch.Tensor, list]:
    """The cached prefill as ch04/06_swa/gpt_with_kv_swa.py computed it before #1013: the cache is cut to W keys
    and the chunk attends over those W only, so the chunk's early queries lose keys inside their window (and a
    query with none left gets softmax of only -inf: nan). x: (1, T, d_in). Returns ((T, d_out), kept key positions
    per chunk). It gives the numbers of the book's file at that commit."""
    b, num_tokens, _ = x.shape
    W = mha.sliding_window_size
    keys_all = mha.W_key(x).view(b, num_tokens, mha.num_heads, mha.head_dim).transpose(1, 2)  # (1, h, T, hd)
    values_all = mha.W_value(x).view(b, num_tokens, mha.num_heads, mha.head_dim).transpose(1, 2)
    queries_all = mha.W_query(x).view(b, num_tokens, mha.num_heads, mha.head_dim).transpose(1, 2)
    outputs, kept = [], []
    for start, end in chunks_of(num_tokens, chunk):
        first = end - min(W, end)  # the old code attended over the trimmed cache: the last W keys only
        keys, values, queries = keys_all[:, :, first:end], values_all[:, :, first:end], queries_all[:, :, start:end]
        diff = (torch.arange(start, end, device=x.device)[:, None]
                - torch.arange(first, end, device=x.device)[None, :])  # (C, K)
        scores = (queries @ keys.transpose(2, 3)).masked_fill((diff < 0) | (diff >= W), -torch.inf)  # (1, h, C, K)
        weights = torch.softmax(scores / keys.shape[-1]**0.5, dim=-1)
        outputs.append(mha.out_proj(merge_heads(weights @ values)))  # (1, C, d_out)
        kept.append(list(range(first, end)))
    return torch.cat(outputs, dim=1)[0], kept


def prefill_trace(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int, window: int, chunk: int):
    """The prompt prefilled in chunks with the cache, the book's way (HEAD) and the way before #1013, against one
    uncached forward. Returns (record, device_used, note): "uncached", "right", "wrong" (T, d_out); per chunk its
    (start, end), the key positions each version kept and the cache's length after it."""
    num_tokens, d_in = x.shape
    mha = build(d_in, d_out, num_heads, seed, window)

    def compute(dev):
        model, xb = mha.to(dev), x.to(dev)[None]  # (1, T, d_in)
        with torch.no_grad():
            uncached = model(xb)[0]  # (T, d_out)
            model.reset_cache()
            steps = [model.trace(xb[:, s:e], use_cache=True) for s, e in chunks_of(num_tokens, chunk)]
            model.reset_cache()
            wrong, wrong_kept = prefill_before_fix(model, xb, chunk)
        right = torch.cat([step["context_vec"][0] for step in steps])  # (T, d_out)
        chunks = [{"start": s, "end": e, "right_keys": step["k_positions"].tolist(), "wrong_keys": kept,
                   "cache_len": step["cache_len"]}
                  for (s, e), step, kept in zip(chunks_of(num_tokens, chunk), steps, wrong_kept)]
        return {"uncached": uncached.cpu(), "right": right.cpu(), "wrong": wrong.cpu(), "chunks": chunks,
                "right_vs_uncached": max_abs_diff(right, uncached), "wrong_nan_rows": int(wrong.isnan().any(-1).sum()),
                "wrong_vs_uncached": _gap(wrong.cpu(), uncached.cpu())}
    return run_with_fallback(compute, device)


def _gap(a: torch.Tensor, b: torch.Tensor) -> float:
    """Largest |a - b| over the rows where a is a number (a nan row is counted apart, wrong_nan_rows)."""
    rows = ~a.isnan().any(-1)
    return float((a[rows] - b[rows]).abs().max()) if rows.any() else 0.0


def generation_check(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int, window: int,
                     steps: int):
    """Generation one token at a time with the cache against the uncached layer on the first `steps` tokens (a
    causal layer's first n outputs do not depend on the tokens after them): (steps,) max |difference| at each step
    and (steps,) the cache's length after it. Returns (record, device_used, note)."""
    x = x[:steps]
    num_tokens, d_in = x.shape
    mha = build(d_in, d_out, num_heads, seed, window)

    def compute(dev):
        model, xb = mha.to(dev), x.to(dev)[None]
        with torch.no_grad():
            uncached = model(xb)[0]  # (T, d_out)
            model.reset_cache()
            gaps, lengths = [], []
            for t in range(num_tokens):
                step = model(xb[:, t:t + 1], use_cache=True)[0, 0]  # (d_out,)
                gaps.append(float((step - uncached[t]).abs().max()))
                lengths.append(model.cache_k.size(1))
        return {"gaps": gaps, "cache_lengths": lengths}
    return run_with_fallback(compute, device)


# --- memory: the cache holds W tokens -------------------------------------------------------------

GEMMA3 = cache_bytes.GEMMA3_27B
GEMMA3_WINDOW, GEMMA3_SWA_PER_FULL = 1024, 5  # Gemma 3: 5 sliding-window layers (1,024 tokens) to 1 full layer

def layer_split(layers: int, swa_per_full: int) -> tuple[int, int]:
    """(sliding-window layers, full layers) of a K : 1 schedule, the book's distribute_layers
    (memory_estimator_swa.py): whole blocks of K + 1, the rest sliding first. Gemma 3 27B, 62 layers at 5 : 1: (52, 10)."""
    block = swa_per_full + 1
    blocks, rest = divmod(layers, block)
    return blocks * swa_per_full + min(swa_per_full, rest), blocks + max(0, rest - swa_per_full)


def schedule_bytes(model: cache_bytes.ModelSize, window: int, swa_per_full: int, tokens: int | None = None) -> dict:
    """The cache of `model` at `tokens` (its context by default): every layer full, against K : 1 sliding-window
    layers of window W to full ones. Each sliding layer holds min(W, tokens) tokens."""
    tokens = model.context if tokens is None else tokens
    swa, full = layer_split(model.layers, swa_per_full)
    per_layer = dict(kv_heads=model.kv_heads, head_dim=model.head_dim, bytes_per_elem=cache_bytes.DTYPE_BYTES[model.dtype])
    all_full = cache_bytes.kv_cache_bytes(tokens=tokens, layers=model.layers, **per_layer)
    mixed = (cache_bytes.kv_cache_bytes(tokens=min(window, tokens), layers=swa, **per_layer)
             + cache_bytes.kv_cache_bytes(tokens=tokens, layers=full, **per_layer))
    return {"tokens": tokens, "swa_layers": swa, "full_layers": full, "all_full": all_full, "mixed": mixed,
            "saved": 1 - mixed / all_full if all_full else 0.0}


def layer_bytes(num_tokens: int, window: int, num_heads: int, head_dim: int, bytes_per_elem: int = 4) -> tuple[int, int]:
    """This layer's cache after T tokens: (without a window: T tokens, with window W: min(W, T) tokens)."""
    size = dict(layers=1, kv_heads=num_heads, head_dim=head_dim, bytes_per_elem=bytes_per_elem)
    return (cache_bytes.kv_cache_bytes(tokens=num_tokens, **size),
            cache_bytes.kv_cache_bytes(tokens=min(window, num_tokens), **size))


# --- predict first ---------------------------------------------------------------------------------

def sliding_window_questions(record: dict, window: int, chunk_keys: int | None, chunk: int,
                             tokens: list[str]) -> list[Question]:
    """record: window_trace's; chunk_keys: how many keys the book's cached prefill kept for the prompt's last chunk
    of `chunk` tokens (None with one chunk)."""
    num_tokens = len(record["visible"])
    q = min(6, num_tokens) - 1  # query 6, the book's last token, or the last one there is
    seen = int(record["visible"][q])
    earliest = q + 2 - seen  # 1-based: query q + 1 keeps keys earliest … q + 1
    # Asked as the earliest key, not how many: the screen's intro says a query sees "the most recent W keys", which
    # would answer a count before the question is read (a class-mode slide did).
    keys = Question(
        _identity("sliding-window", "earliest", window, num_tokens, q),
        f"With a sliding window of W = {window}, which is the earliest token that query {_tok(tokens, q)} can still "
        "attend to (its number, counting from 1)?", "number",
        float(earliest), f"Token {earliest}: the mask hides a key when diff = query − key is < 0 (the future) or "
        f"≥ W = {window}; query {q + 1} keeps keys {earliest} … {q + 1}, {seen} in all, itself included." + (
            f" Without the window it would see all {q + 1}." if seen < q + 1 else " The window reaches back to token 1."),
        low=1, high=num_tokens, gives_away=(f"keys {earliest} … {q + 1}",))
    gap = record["full_vs_causal"]
    same = Question(
        _identity("sliding-window", "full", record["causal_context"], gap),
        f"With W = T = {num_tokens} (as many as the tokens), do the context vectors differ from the causal layer's?",
        "yesno", gap > SAME,
        f"{'Yes' if gap > SAME else 'No'}: the largest difference is {gap:.4f}. With W = T, diff ≥ W never holds "
        f"(a query is at most T − 1 = {num_tokens - 1} tokens after a key), so the band mask is the causal mask.")
    found = [keys, same]
    if chunk_keys is not None:
        found.append(Question(
            _identity("sliding-window", "prefill", window, num_tokens, chunk, chunk_keys),
            f"A prompt of {num_tokens:,} tokens is prefilled in chunks of {chunk:,} with the cache (W = {window}). "
            "Over how many keys must its last chunk attend?", "number", float(chunk_keys),
            f"{chunk_keys:,}: min(W + C − 1, keys so far) with C the chunk's length; its first query needs W − 1 keys "
            f"before the chunk. The cache itself keeps only W = {window}.", low=0, high=num_tokens))
    return found


def last_chunk_keys(num_tokens: int, window: int, chunk: int) -> int | None:
    """Keys the book's cached prefill attends over for the last chunk: min(W + C - 1, keys so far)."""
    pieces = chunks_of(num_tokens, chunk)
    if len(pieces) < 2:
        return None
    start, end = pieces[-1]
    return min(window + (end - start) - 1, end)


def default_chunk(num_tokens: int) -> int:
    """Two chunks: the prompt's first half cached, then the rest as one chunk (3 and 3 at the book's 6 tokens)."""
    return max(1, math.ceil(num_tokens / 2))


# --- sentences that follow the numbers -----------------------------------------------------------------

def window_sentence(window: int, num_tokens: int, gap: float) -> str:
    """What W does to the context vectors here, from their largest difference from the causal layer's."""
    if gap <= SAME:
        reach = ("W ≥ T: the window reaches back to token 1 for every query" if window >= num_tokens else
                 "no query lost a key whose weight shows at 4 decimals")
        return f"At W = {window:,} the context vectors equal the causal layer's (largest difference {gap:.4f}): {reach}."
    lost = num_tokens - window  # queries W + 1 … T lose keys
    who = (f"the last query (token {num_tokens:,}) loses its oldest key" if lost == 1 else
           f"the last {lost:,} queries (tokens {window + 1:,} … {num_tokens:,}) lose their oldest keys")
    return f"At W = {window:,} {who}, and the context vectors move by up to {gap:.4f} from the causal layer's."


def prefill_rows_shown(num_tokens: int, start: int, end: int, count: int = 12) -> list[int | None]:
    """The rows /sliding-window's prefill table shows (None: a "…" row). Up to `count` tokens, every row; else the
    second chunk [start, end), where keys go missing before #1013: its first rows (nan there when the window's keys
    were cut) and, when it is longer than `count`, its last three too (where the old code's rows are numbers that
    differ)."""
    if num_tokens <= count:
        return list(range(num_tokens))
    if end - start <= count:
        return list(range(start, min(start + count, num_tokens)))
    return [*range(start, start + count - 4), None, *range(end - 3, end)]


def prefill_sentence(record: dict) -> str:
    """The fixed prefill against the one before #1013, in words that follow prefill_trace's numbers."""
    return fixed_prefill_sentence(record) + " " + before_fix_sentence(record)


def fixed_prefill_sentence(record: dict) -> str:
    right = record["right_vs_uncached"]
    return (f"The book's cached prefill gives the uncached layer's vectors (largest difference {scientific(right)})."
            if right <= 1e-5 else f"The book's cached prefill differs from the uncached layer by {scientific(right)}.")


def before_fix_sentence(record: dict) -> str:
    wrong, nans = record["wrong_vs_uncached"], record["wrong_nan_rows"]
    if nans:
        return (f"Before the fix, {nans:,} row{'s' if nans != 1 else ''} came out nan (a query whose every kept key "
                "lay outside its window: softmax of only −∞)"
                + (f", and the others differ by up to {wrong:.4f}." if wrong > SAME else "."))
    if wrong > SAME:
        return f"Before the fix, the chunks' early queries lost keys and their vectors differ by up to {wrong:.4f}."
    return ("Before the fix, nothing differs here: no query of a later chunk needed a key older than the last W (one "
            "chunk, chunks of one token, or W ≥ T).")


def sweep_sentence(windows: tuple, gaps: list[float], num_tokens: int) -> str:
    """What the sweep over W shows: where the vectors start to move, and whether they move further at every
    smaller W (said only when the numbers do). windows descending, gaps their largest |difference| from causal."""
    moved = [w for w, gap in zip(windows, gaps) if gap > SAME]
    if not moved:
        return "No window changes anything here: every query sees all its keys at each W shown."
    said = f"W = {num_tokens:,} gives the causal layer's; the largest W shown that changes something is {max(moved):,}"
    steady = all(later >= earlier for earlier, later in zip(gaps, gaps[1:]))  # W descending
    # the claim is about the table's last column (any query), not the last query's dims beside it (a teacher's read)
    return said + ("; the largest change of any query (the last column) grows at each smaller W." if steady else
                   "; the largest change of any query (the last column) does not grow at every smaller W (a lost key "
                   "can pull either way).")
