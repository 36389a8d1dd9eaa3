"""Time and memory of the course's attention against PyTorch's fused kernels.

The course (the book's `MultiHeadAttention`) computes attention the way it is taught: the
(b, h, T, T) scores are written to memory, masked, scaled and softmaxed into more (b, h, T, T)
tensors, then multiplied by the values. `F.scaled_dot_product_attention` gives the same result
but its flash kernel works on tiles of Q and K/V with an online softmax, so the T x T matrix
never exists. This module measures both, per sequence length, on any device.
"""
import contextlib
import statistics
import time
import warnings
import weakref

import pandas as pd
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from attention_core.book import stages
from attention_core.book.device import run_with_fallback
from attention_core.drawing.numbers import TOLERANCE, scientific, size_in_bytes  # the app's one tolerance

# What is compared. "sdpa" lets PyTorch pick a kernel; the others force one backend.
LABELS = {
    "course": "course (T×T weights)",
    "sdpa": "SDPA (auto)",
    "flash": "SDPA flash",
    "efficient": "SDPA memory-efficient",
    "cudnn": "SDPA cuDNN",
    "math": "SDPA math",
}
BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION,
            "cudnn": SDPBackend.CUDNN_ATTENTION, "math": SDPBackend.MATH}
CPU_MEMORY_LIMIT = 1 << 30  # on the CPU a method whose predicted peak exceeds 1 GiB is skipped
MIN_SECONDS = 0.1  # each method is timed until its calls add up to this: a handful of 1 ms calls is noise
_UNAVAILABLE = ("No available kernel", "No viable backend")  # SDPA's words for "not for these inputs"


# --- sizes -----------------------------------------------------------------------------------

def weights_bytes(batch: int, heads: int, num_tokens: int, bytes_per_value: int = 4) -> int:
    """Bytes of one (b, h, T, T) tensor: the attention weights the course writes to memory."""
    return batch * heads * num_tokens * num_tokens * bytes_per_value


def predicted_peak_bytes(method: str, batch: int, heads: int, num_tokens: int, head_dim: int,
                         bytes_per_value: int = 4) -> int:
    """A bound on what a method holds at once, to skip sizes that cannot fit before trying.

    The course keeps four (b, h, T, T) tensors alive (scores, masked, scaled, weights) plus the
    (T, T) boolean mask; the math backend about two; fused kernels only the output and one
    log-sum-exp value per row.
    """
    weights = weights_bytes(batch, heads, num_tokens, bytes_per_value)
    output = batch * heads * num_tokens * head_dim * bytes_per_value  # (b, h, T, d)
    if method == "course":
        return 4 * weights + num_tokens * num_tokens + output
    if method == "math":
        return 3 * weights + output
    return output + batch * heads * num_tokens * 4


def token_sizes(max_tokens: int, smallest: int = 128) -> list[int]:
    """Powers of two from `smallest` up to max_tokens: even steps on a log axis."""
    sizes, size = [], smallest
    while size <= max_tokens:
        sizes.append(size)
        size *= 2
    return sizes


# --- the two ways to attend ------------------------------------------------------------------

def random_qkv(batch: int, heads: int, num_tokens: int, head_dim: int, device: str = "cpu",
               dtype: torch.dtype = torch.float32, seed: int = 0):
    """Seeded queries, keys and values of shape (b, h, T, head_dim), drawn on the CPU."""
    generator = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(batch, heads, num_tokens, head_dim, generator=generator, dtype=dtype).to(device)
                 for _ in range(3))


def course_attention(queries, keys, values, mask):
    """The book's MultiHeadAttention between its projections: mask cut to T, then stages.attend.

    mask: the registered float buffer (context_length, context_length), 1 above the diagonal.
    """
    num_tokens = queries.shape[-2]
    mask_bool = mask.bool()[:num_tokens, :num_tokens]  # (T, T), as in the book's forward
    return stages.attend(queries, keys, values, mask_bool)  # (b, h, T, head_dim)


def fused_attention(queries, keys, values, backend: str | None = None):
    """PyTorch's fused causal attention; backend None lets PyTorch choose the kernel."""
    context = sdpa_kernel(BACKENDS[backend]) if backend else contextlib.nullcontext()
    with context:
        return F.scaled_dot_product_attention(queries, keys, values, is_causal=True)  # (b, h, T, head_dim)


def available_backends(device: str) -> list[str]:
    """The SDPA backends that run causal float32 attention on this device (tried, not assumed)."""
    q = torch.randn(1, 1, 8, 8, device=device)
    found = []
    for name in BACKENDS:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "kernel not used because ..." on every refusal
                fused_attention(q, q, q, name)
            found.append(name)
        except RuntimeError:
            pass
    return found


# --- measuring -------------------------------------------------------------------------------

def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def timings(fn, device: str, repeats: int = 3, warmup: int = 1, min_seconds: float = 0.0,
            max_calls: int = 200) -> list[float]:
    """Seconds of each timed call after `warmup` untimed ones (GPU work waited for): at least `repeats` calls,
    and more until they add up to `min_seconds` (at most `max_calls`), so that a 1 ms call is not judged on
    three samples while a 1 s call is not repeated for minutes."""
    for _ in range(warmup):
        fn()
    times = []
    while len(times) < max(1, repeats) or (sum(times) < min_seconds and len(times) < max_calls):
        _sync(device)
        start = time.perf_counter()
        fn()
        _sync(device)
        times.append(time.perf_counter() - start)
    return times


def time_call(fn, device: str, repeats: int = 3, warmup: int = 1) -> float:
    """Median seconds of `repeats` calls after `warmup` calls (GPU work waited for)."""
    return statistics.median(timings(fn, device, repeats, warmup))


class _LiveTensorBytes(TorchDispatchMode):
    """Sees every tensor each PyTorch op creates; tracks the most bytes alive at once.

    Storages that existed before (the inputs, the mask buffer) are not counted; views share
    their base's storage, so a transpose costs nothing, as in memory.
    """

    def __init__(self, existing=()):
        super().__init__()
        self.existing = {t.untyped_storage().data_ptr() for t in existing}
        self.live = {}  # storage address -> (bytes, weak references to the tensors using it)
        self.peak = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        self.live = {ptr: entry for ptr, entry in self.live.items() if any(r() is not None for r in entry[1])}
        for tensor in tree_leaves(out):
            if not isinstance(tensor, torch.Tensor):
                continue
            storage = tensor.untyped_storage()
            ptr = storage.data_ptr()
            if ptr in self.existing or storage.nbytes() == 0:
                continue
            self.live.setdefault(ptr, (storage.nbytes(), []))[1].append(weakref.ref(tensor))
        self.peak = max(self.peak, sum(nbytes for nbytes, _ in self.live.values()))
        return out


def peak_bytes(fn, device: str, existing=()):
    """(result, the most bytes of new tensors alive at once during fn()).

    CUDA: the caching allocator's peak above what was allocated before. Elsewhere: the tensors
    PyTorch's ops create, tracked through the dispatcher (a kernel's private scratch is not seen).
    """
    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        before = torch.cuda.memory_allocated()
        result = fn()
        torch.cuda.synchronize()
        return result, torch.cuda.max_memory_allocated() - before
    tracker = _LiveTensorBytes(existing)
    with tracker:
        result = fn()
    return result, tracker.peak


def _measure(device: str, batch: int, heads: int, head_dim: int, num_tokens: int, repeats: int,
             methods, dtype: torch.dtype, memory_limit: int | None, min_seconds: float) -> list[dict]:
    q, k, v = random_qkv(batch, heads, num_tokens, head_dim, device, dtype, seed=num_tokens)
    mask = stages.causal_mask(num_tokens, device)  # the module's buffer: built once, outside the timing
    rows, reference = [], None
    for method in methods:
        row = {"tokens": num_tokens, "method": method, "label": LABELS[method], "seconds": None, "fastest_s": None,
               "calls": 0, "peak_bytes": None, "max_abs_diff": None, "status": "ok", "device": device}
        rows.append(row)
        need = predicted_peak_bytes(method, batch, heads, num_tokens, head_dim, q.element_size())
        if device != "cuda" and memory_limit is not None and need > memory_limit:
            row["status"] = f"skipped: needs about {size_in_bytes(need)}"
            continue
        if method == "course":
            def fn():
                return course_attention(q, k, v, mask)
        else:
            def fn(backend=None if method == "sdpa" else method):
                return fused_attention(q, k, v, backend)
        try:
            with torch.no_grad(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = fn()  # also the warm-up
                _, row["peak_bytes"] = peak_bytes(fn, device, existing=(q, k, v, mask))
                calls = timings(fn, device, repeats, warmup=0, min_seconds=min_seconds)
                row["seconds"], row["fastest_s"], row["calls"] = statistics.median(calls), min(calls), len(calls)
        except torch.OutOfMemoryError:
            row["status"] = "out of memory"
            out = None
            torch.cuda.empty_cache()
        except RuntimeError as error:
            if not any(words in str(error) for words in _UNAVAILABLE):
                raise  # a device failure: run_with_fallback retries on the CPU
            row["status"] = "no kernel for these sizes"
            continue
        if out is None:
            continue
        if method == "course":
            reference = out
        elif reference is not None:
            row["max_abs_diff"] = stages.max_abs_diff(out, reference)
    return rows


def measure_size(device: str, batch: int, heads: int, head_dim: int, num_tokens: int, repeats: int,
                 methods: tuple[str, ...], dtype: str = "float32", memory_limit: int | None = CPU_MEMORY_LIMIT,
                 min_seconds: float = MIN_SECONDS):
    """One sequence length: time, peak memory and agreement with the course, per method.

    Plain values in and out, so callers can cache it. Each method is called at least `repeats` times and
    until its calls add up to `min_seconds`; a row keeps the median ("seconds"), the fastest call and how
    many were made. A method that runs out of memory or has no kernel for these sizes gets a status
    instead of numbers. Returns (rows, device_used, note).
    """
    methods = tuple(methods)
    if "course" in methods:  # the reference goes first
        methods = ("course",) + tuple(m for m in methods if m != "course")

    def compute(dev):
        return _measure(dev, batch, heads, head_dim, num_tokens, repeats, methods, getattr(torch, dtype),
                        memory_limit, min_seconds)
    return run_with_fallback(compute, device)


def sweep(measure, sizes, methods, device: str, time_budget_s: float | None = None, on_step=None):
    """Measure growing sequence lengths until they run out (memory, time budget or sizes).

    measure(device, T, methods) -> (rows, device_used, note), e.g. a cached measure_size.
    A method that fails at one size is not tried at larger ones. Before each size the time it
    will take is predicted as 4x the previous one (the work is quadratic in T); a size that
    would overrun the budget stops the sweep. on_step(fraction_done, text) reports progress.
    Returns (rows, notes, device_used).
    """
    rows, notes, active = [], [], list(methods)
    total = sum(t * t for t in sizes)
    done, start, last = 0, time.perf_counter(), 0.0
    for num_tokens in sizes:
        elapsed = time.perf_counter() - start
        if time_budget_s is not None and done and elapsed + 4 * last > time_budget_s:
            notes.append(f"Stopped before T = {num_tokens:,}: it would take about {4 * last:.0f} s more, past "
                         f"this screen's {time_budget_s:.0f} s budget.")
            break
        if not active:
            break
        if on_step:
            on_step(done / total, f"Measuring T = {num_tokens:,} on {device}…")
        began = time.perf_counter()
        found, used, note = measure(device, num_tokens, tuple(active))
        last = time.perf_counter() - began
        if note:
            notes.append(note)
        device = used
        rows.extend(found)
        active = [m for m in active if any(r["method"] == m and r["status"] == "ok" for r in found)]
        done += num_tokens * num_tokens
    if on_step:
        on_step(1.0, "Done.")
    return rows, notes, device


# --- what a sweep says ---------------------------------------------------------------------------

COMPUTED_LABEL = "(b, h, T, T) weights, computed"  # the memory plot's reference line: one weights tensor


def measured_frames(rows: list[dict], batch: int, heads: int):
    """(time, memory) tables of a sweep's successful rows: tokens, label, ms (the fastest call); tokens, label,
    MB, with the computed size of one (b, h, T, T) float32 weights tensor as a reference line in memory."""
    frame = pd.DataFrame(rows)
    ok = frame[frame["status"] == "ok"].assign(ms=lambda f: f["fastest_s"] * 1e3, MB=lambda f: f["peak_bytes"] / 1e6)
    sizes = sorted(frame["tokens"].unique())
    computed = pd.DataFrame({"tokens": sizes, "label": COMPUTED_LABEL,
                             "MB": [weights_bytes(batch, heads, t) / 1e6 for t in sizes]})
    return ok[["tokens", "label", "ms"]], pd.concat([ok[["tokens", "label", "MB"]], computed], ignore_index=True)


def summary(rows: list[dict]) -> dict | None:
    """At the largest T where both ran: the course's and the fused kernel's seconds and peak bytes, the course's
    time at T/2 and how it grew from there, and the spread of those calls: the largest median ÷ fastest call
    among them (1.0 when every call took as long). Times are fastest calls: other programs on the processor can
    only slow a call down, so the fastest is the least disturbed (Python's timeit says the same). None where no
    size has both."""
    ok = pd.DataFrame(rows).query("status == 'ok'")
    both = ok.pivot_table(index="tokens", columns="method", values="fastest_s")
    if not {"course", "sdpa"} <= set(both.columns) or both.dropna(subset=["course", "sdpa"]).empty:
        return None
    both = both.dropna(subset=["course", "sdpa"])
    t = int(both.index.max())
    peaks = ok[ok["tokens"] == t].set_index("method")["peak_bytes"]
    half = float(both.loc[t // 2, "course"]) if t // 2 in both.index else None
    used = ok[ok["tokens"].isin([t, t // 2]) & ok["method"].isin(["course", "sdpa"])]
    spreads = [s / f for s, f in zip(used["seconds"], used["fastest_s"]) if f > 0]
    return {"tokens": t, "course_s": float(both.loc[t, "course"]), "sdpa_s": float(both.loc[t, "sdpa"]),
            "course_bytes": int(peaks["course"]), "sdpa_bytes": int(peaks["sdpa"]), "course_half_s": half,
            "growth_from_half": float(both.loc[t, "course"]) / half if half else None,
            "spread": max(spreads) if spreads else None}


def agreement_table(rows: list[dict]):
    """(largest |course − fused| of the sweep or None, a tokens × label table of each difference with ✓/✗)."""
    checked = pd.DataFrame(rows).dropna(subset=["max_abs_diff"])
    if checked.empty:
        return None, None
    marks = [f"{scientific(d)} {'✓' if d <= TOLERANCE else '✗'}" for d in checked["max_abs_diff"]]
    return float(checked["max_abs_diff"].max()), checked.assign(diff=marks).pivot(index="tokens", columns="label",
                                                                                   values="diff")
