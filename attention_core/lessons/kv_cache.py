"""The KV-cache stage: generation one token at a time through the book's cached MultiHeadAttention
(attention_core/book/variants/gpt_with_kv_cache.py), beside the same layer run without its cache.

A language model writes one token per forward call. Without a cache, each call feeds the whole text so far and
recomputes every key and value; with it, the first call feeds the prompt, and each later call feeds only the newest
token, appends its key and value rows to `cache_k` / `cache_v`, and takes its row of the causal mask at
`ptr_current_pos`. The lesson runs the sidebar's tokens through both, call by call (the tokens stand in for what a
model would have generated), and keeps what each call computed. Plain PyTorch; the screen is screens/kv_cache.py.
"""
import hashlib
import time

import torch

from attention_core.book.device import run_with_fallback
from attention_core.book.seeding import build_seeded
from attention_core.book.variants.gpt_with_kv_cache import MultiHeadAttention
from attention_core.lessons import cache_bytes
from attention_core.lessons.questions import SAME, Question
from attention_core.drawing.numbers import scientific, significant, significant_decimals

MAX_RUN = 64  # tokens stepped through: every call is a frame of the view, and each uncached call reruns the prefix
SPEED_PROMPT, SPEED_NEW = 4, 64  # the speed test: a short prompt, then 64 new tokens (the book's README: 200)
SPEED_SIZES = {"the book's": (3, 2, 2), "GPT-2 small's": (768, 768, 12)}  # d_in, d_out, num_heads of one layer
SPEED_RUNS = 20  # at most this many runs of each measurement (a GPU or a fast CPU runs one in milliseconds)
SPEED_BUDGET_S = 4.0  # the whole measurement, in seconds: each of its four parts stops at its share


def run_length(num_tokens: int) -> int:
    """How many of the sidebar's tokens the generation steps through."""
    return min(num_tokens, MAX_RUN)


def calls_of(run: int, prompt: int) -> list[tuple[int, int]]:
    """The forward calls of a cached generation as (start, stop) token ranges: the prompt at once, then one token
    a call (generate_text_simple_cached)."""
    prompt = max(1, min(prompt, run))
    return [(0, prompt)] + [(t, t + 1) for t in range(prompt, run)]


def multiply_adds(new: int, keys: int, d_in: int, d_out: int) -> int:
    """Multiply-adds of one forward call that feeds `new` tokens against `keys` keys: the three projections of the
    new tokens, q·k for each new query and cached key, weights·values, and out_proj. Without the cache a call feeds
    every token so far (new = keys)."""
    return new * 3 * d_in * d_out + 2 * new * keys * d_out + new * d_out * d_out


def _build(d_in: int, d_out: int, num_heads: int, context_length: int, seed: int):
    module = build_seeded(MultiHeadAttention, seed, d_in, d_out, context_length, 0.0, num_heads)
    return module.eval()


def generation_trace(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int, prompt: int) -> dict:
    """The first run_length(T) tokens of x (T, d_in) through the book's class, cached call by call and uncached
    (each call feeding every token so far, as generate_text_simple does). Rows are tokens (0-based); each row of the
    per-token tensors comes from the call that fed that token. Returns CPU tensors and counts:
    calls [(start, stop)], weights_cached / weights_uncached (h, n, n), context_cached / context_uncached (n, d_out),
    cache_k / cache_v / queries (h, n, head_dim): the cache after the last call (after call c it holds rows :stop),
    masks [(q, K) bool of each call], ptrs [the pointer each call's slice started at], difference [per call: the
    largest |cached − uncached| of its outputs], macs_cached / macs_uncached [per call], device, note."""
    n = run_length(x.shape[0])
    calls = calls_of(n, prompt)
    d_in = x.shape[-1]

    def compute(dev):
        module = _build(d_in, d_out, num_heads, n, seed).to(dev)
        batch = x[:n].unsqueeze(0).to(dev)  # (1, n, d_in)
        weights = {"cached": torch.zeros(num_heads, n, n), "uncached": torch.zeros(num_heads, n, n)}
        context = {"cached": torch.zeros(n, d_out), "uncached": torch.zeros(n, d_out)}
        masks, ptrs = [], []
        with torch.no_grad():
            module.reset_cache()
            for start, stop in calls:
                record = module.trace(batch[:, start:stop], use_cache=True)
                masks.append(record["mask_bool"].cpu())
                ptrs.append(record["ptr_before"])
                weights["cached"][:, start:stop, :stop] = record["attn_weights"][0].cpu()  # (h, new, stop)
                context["cached"][start:stop] = record["context_vec"][0].cpu()
                again = module.trace(batch[:, :stop], use_cache=False)  # the uncached call: every row again
                weights["uncached"][:, start:stop, :stop] = again["attn_weights"][0, :, start:stop].cpu()
                context["uncached"][start:stop] = again["context_vec"][0, start:stop].cpu()
            to_heads = lambda t: t[0].transpose(0, 1).cpu()  # noqa: E731  (1, n, h, hd) -> (h, n, hd)
            queries = module.W_query(batch).view(1, n, num_heads, d_out // num_heads)
            return weights, context, masks, ptrs, to_heads(module.cache_k), to_heads(module.cache_v), to_heads(queries)

    (weights, context, masks, ptrs, cache_k, cache_v, queries), used, note = run_with_fallback(compute, device)
    gap = (context["cached"] - context["uncached"]).abs()  # (n, d_out)
    return {"calls": calls, "prompt": calls[0][1], "run": n, "num_heads": num_heads, "d_in": d_in, "d_out": d_out,
            "weights_cached": weights["cached"], "weights_uncached": weights["uncached"],
            "context_cached": context["cached"], "context_uncached": context["uncached"],
            "cache_k": cache_k, "cache_v": cache_v, "queries": queries, "masks": masks, "ptrs": ptrs,
            "difference": [float(gap[start:stop].max()) for start, stop in calls],
            "macs_cached": [multiply_adds(stop - start, stop, d_in, d_out) for start, stop in calls],
            "macs_uncached": [multiply_adds(stop, stop, d_in, d_out) for _, stop in calls],
            "device": used, "note": note}


def frames_of(weights: torch.Tensor, calls: list[tuple[int, int]]) -> torch.Tensor:
    """(F, n, n): after each call, the rows computed so far; rows of tokens not yet fed are nan (drawn as empty)."""
    n = weights.shape[-1]
    stack = weights.unsqueeze(0).repeat(len(calls), 1, 1)  # (F, n, n)
    visible = torch.ones(n, n, dtype=torch.bool).tril()  # (n, n): above the diagonal stays 0, a causal map's
    for f, (_, stop) in enumerate(calls):
        stack[f, stop:][visible[stop:]] = torch.nan
    return stack


# --- common mistakes -------------------------------------------------------------------------------------------

def mistakes_trace(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int, prompt: int) -> dict:
    """The generation done right and two ways the book's readers got wrong, on the same tokens and weights:
    - no reset: the same prompt generated twice without reset_cache() between (the pointer and the cache run on:
      the second run's queries see the first run's keys); right: reset_cache() first, which repeats run 1 exactly;
    - mask from 0: the mask sliced from row 0 at every call instead of at ptr_current_pos (the first fix proposed in
      the book's pull request #697): a lone new query gets row 0 of the mask and sees only key 1.
    Each (n, d_out), with the pointer after the runs."""
    n = run_length(x.shape[0])
    calls = calls_of(n, prompt)

    def generate(module, batch, from_zero=False):
        outputs = []
        for start, stop in calls:
            if from_zero:
                module.ptr_current_pos = 0  # the wrong slice: mask[0:q, :K] at every call
            outputs.append(module(batch[:, start:stop], use_cache=True))
        return torch.cat(outputs, dim=1)[0]  # (n, d_out)

    def compute(dev):
        module = _build(x.shape[-1], d_out, num_heads, 2 * n, seed).to(dev)  # room for a pointer that runs on
        batch = x[:n].unsqueeze(0).to(dev)
        with torch.no_grad():
            right = generate(module, batch)
            stale = generate(module, batch)  # no reset_cache(): cache and pointer go on from run 1
            stale_ptr = module.ptr_current_pos
            module.reset_cache()
            again = generate(module, batch)
            module.reset_cache()
            from_zero = generate(module, batch, from_zero=True)
        return {"right": right.cpu(), "no_reset": stale.cpu(), "reset": again.cpu(), "mask_from_0": from_zero.cpu(),
                "ptr_no_reset": stale_ptr, "run": n}

    record, used, note = run_with_fallback(compute, device)
    return record | {"device": used, "note": note}


def largest_difference(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).abs().max()) if a.numel() else 0.0


def difference_text(value: float) -> str:
    """A largest |difference| as the screen says it: exactly 0 is "0 (bit for bit)", else 1 significant digit+."""
    return "0 (bit for bit)" if value == 0 else scientific(value)


# --- memory ---------------------------------------------------------------------------------------------------

def memory_rows(num_heads: int, head_dim: int, tokens: int) -> list[dict]:
    """Bytes per token and after `tokens` tokens (and after each model's context) with the shared formula, for this
    layer (one layer, float32, as the app computes), GPT-2 small and Llama 3 8B (cache_bytes' published sizes)."""
    layer = cache_bytes.ModelSize("this layer (1 layer, float32)", layers=1, heads=num_heads, kv_heads=num_heads,
                                  head_dim=head_dim, dtype="fp32", context=tokens)
    rows = []
    for model in (layer, *cache_bytes.KNOWN_MODELS):
        after = lambda t: cache_bytes.kv_cache_bytes(  # noqa: E731
            tokens=t, layers=model.layers, kv_heads=model.kv_heads, head_dim=model.head_dim,
            bytes_per_elem=cache_bytes.DTYPE_BYTES[model.dtype])
        rows.append({"model": model.name, "layers": model.layers, "kv_heads": model.kv_heads,
                     "head_dim": model.head_dim, "dtype": model.dtype, "per_token": model.bytes_per_token,
                     "tokens": tokens, "after_tokens": after(tokens), "context": model.context,
                     "after_context": after(model.context)})
    return rows


# --- speed ----------------------------------------------------------------------------------------------------

def _tokens_per_second(module, batch, use_cache: bool, sync, deadline: float) -> tuple[float, int]:
    """One generation of up to SPEED_NEW tokens (the layer alone, the next inputs given), cut short at `deadline`:
    (tokens per second, tokens generated)."""
    start, done = time.perf_counter(), 0
    with torch.no_grad():
        if use_cache:
            module.reset_cache()
            module(batch[:, :SPEED_PROMPT], use_cache=True)  # the prefill; its output picks the first new token
        for t in range(SPEED_PROMPT, SPEED_PROMPT + SPEED_NEW):
            module(batch[:, t:t + 1] if use_cache else batch[:, :t + 1], use_cache=use_cache)
            done += 1
            if time.perf_counter() > deadline:
                break
    sync()
    return done / (time.perf_counter() - start), done


def speed_trace(x: torch.Tensor, *, d_out: int, seed: int, device: str, budget_s: float = SPEED_BUDGET_S) -> dict:
    """Tokens per second with and without the cache, one layer at SPEED_SIZES, random inputs and weights (seed),
    a SPEED_PROMPT-token prompt and SPEED_NEW new tokens, on `device`. Each size gets half of budget_s: a first
    run with the cache and one without, each in its own quarter, then more of both in turn while the half lasts (up
    to SPEED_RUNS each); the best run of each counts. A run still going at its deadline stops there ("tokens" says
    how far the best run got; an uncached run cut short skipped its dearest, longest steps). x and d_out are the
    sidebar's and not used: the sizes are fixed, so the figures compare across visitors."""
    def compute(dev):
        sync = (lambda: torch.cuda.synchronize()) if dev == "cuda" else (lambda: None)
        share, rows = budget_s / (2 * len(SPEED_SIZES)), []
        for label, (d_in, width, heads) in SPEED_SIZES.items():
            module = _build(d_in, width, heads, SPEED_PROMPT + SPEED_NEW, seed).to(dev)
            batch = torch.rand(1, SPEED_PROMPT + SPEED_NEW, d_in, generator=torch.Generator().manual_seed(seed)).to(dev)
            with torch.no_grad():
                module(batch[:, :SPEED_PROMPT])  # warm-up: the first call on a device pays its set-up
            best = {True: (0.0, 0), False: (0.0, 0)}
            start = time.perf_counter()
            for run in range(SPEED_RUNS):  # the two alternate, so a busy moment or a clock change hits both
                for i, use_cache in enumerate((True, False)):
                    # the first round: each its own share; later rounds only while both shares' time is left
                    deadline = start + share * (i + 1 if run == 0 else 2)
                    best[use_cache] = max(best[use_cache], _tokens_per_second(module, batch, use_cache, sync, deadline),
                                          key=lambda r: (r[1], r[0]))  # the furthest run, then the fastest
                if time.perf_counter() > start + 2 * share:
                    break
            rows.append({"sizes": label, "d_in": d_in, "d_out": width, "num_heads": heads,
                         "cached": best[True][0], "cached_tokens": best[True][1],
                         "uncached": best[False][0], "uncached_tokens": best[False][1]})
        return rows

    rows, used, note = run_with_fallback(compute, device)
    return {"rows": rows, "device": used, "note": note}


RATE_DIGITS = 3  # tokens per second are printed to 3 significant digits: 58.6, 1,234


def rate_text(rate: float) -> str:
    return significant(rate, RATE_DIGITS)


def _shown(rate: float) -> float:
    """A rate rounded as rate_text prints it: the verdict's ratio is the one a reader computes from the table
    ("pays: 2.4×" beside rates printed as 59 and 24 read as wrong)."""
    return round(rate, significant_decimals(rate, RATE_DIGITS)) if rate > 0 else 0.0


def speed_verdict(row: dict) -> str:
    """Whether the cache paid at one size, in words that follow its two figures as printed (rate_text). A run
    without the cache that stopped early skipped its dearest steps (the longest prefixes): its rate flatters it, so
    only a win for the cache can be read from it."""
    ratio = _shown(row["cached"]) / _shown(row["uncached"])
    short = row.get("uncached_tokens", SPEED_NEW) < SPEED_NEW
    if ratio >= 1.1:
        return f"pays: {ratio:.1f}× as fast" + (" or more" if short else "")
    if short:
        return (f"not comparable: without the cache the run stopped at {row['uncached_tokens']} of {SPEED_NEW} tokens, "
                "before its dearest steps (a busy machine)")
    if ratio > 1 / 1.1:
        return f"does not pay: {ratio:.2f}× (within 10%)"
    return f"does not pay: slower, {ratio:.2f}×"


def cut_short_note(rows: list[dict]) -> str | None:
    """Which runs stopped before SPEED_NEW tokens, each named, and what stopping early does to a rate; None when
    every run went the whole way. A run cut short skipped its last steps, its dearest: without the cache each step
    recomputes the whole prefix, so the cache's advantage is understated; with it each step adds one row, so its rate
    is only a little flattered."""
    stopped = []
    for row in rows:
        runs = [f"{name} {row[f'{key}_tokens']} of {SPEED_NEW}" for key, name in
                (("cached", "with the cache"), ("uncached", "without it")) if row[f"{key}_tokens"] < SPEED_NEW]
        if runs:
            stopped.append(f"at {row['sizes']} sizes, {' and '.join(runs)} tokens")
    if not stopped:
        return None
    return (f"Runs that reached the end of their share of the {SPEED_BUDGET_S:g} s budget stopped early: "
            f"{'; '.join(stopped)}. A run cut short skipped its last, dearest steps, so its rate reads higher than a "
            "whole run's would: much higher without the cache, whose every step recomputes the whole prefix (the "
            "cache's advantage there is understated), a little with it, whose steps each add one row.")


# --- predict first --------------------------------------------------------------------------------------------

def _qid(name: str, *parts) -> str:
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).hexdigest()
    return f"kv-cache:{name}:{digest}"


def kv_cache_questions(record: dict, step: int, tokens: list[str]) -> list[Question]:
    """record: generation_trace's; step: the call the screen follows (1-based)."""
    start, stop = record["calls"][step - 1]
    fed = ", ".join(f"“{t}”" for t in tokens[start:stop])
    new_rows = Question(
        _qid("rows", record["calls"], step),
        f"Step {step} feeds {fed} to the layer with use_cache=True. How many new key rows does it add to each "
        "head's cache_k?", "number", float(stop - start),
        f"{stop - start}: one per token fed. Before step {step} the cache held {start} key rows, after it {stop}; "
        "the keys of earlier tokens are not computed again.", low=0, high=record["run"])
    gap = record["difference"][step - 1]
    differs = gap >= SAME
    same_output = Question(
        _qid("differs", record["calls"], step, f"{gap:.3e}"),
        f"Does step {step}'s output (the context vector of its newest token) differ, to 4 decimals, between the "
        "cached call and an uncached forward over every token so far?", "yesno", differs,
        f"The largest difference is {scientific(gap)}: {'yes' if differs else 'no'}. The cached keys and values are the "
        "ones an uncached call recomputes, and the new query's mask row is the same row of the causal mask.")
    heads, head_dim, n = record["num_heads"], record["d_out"] // record["num_heads"], record["run"]
    total = cache_bytes.kv_cache_bytes(tokens=n, layers=1, kv_heads=heads, head_dim=head_dim, bytes_per_elem=4)
    memory = Question(
        _qid("bytes", heads, head_dim, n),
        f"This layer has {heads} head{'s' if heads != 1 else ''} of head_dim {head_dim} and runs in float32 (4 bytes "
        f"a number). How many bytes do cache_k and cache_v hold together after {n:,} tokens?", "number", float(total),
        f"2 (keys and values) × {n:,} tokens × {heads} heads × {head_dim} × 4 bytes = {total:,} bytes.",
        low=0, gives_away=(f"{total:,} bytes", f"= {total:,}"))
    return [new_rows, same_output, memory]
