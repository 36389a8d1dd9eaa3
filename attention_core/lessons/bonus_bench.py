"""The bonus implementations side by side: which run here, do they agree, how fast, how much memory.

Plain values in and out (callers cache them). A version this torch or device cannot run is kept
with PyTorch's own reason, never dropped.
"""
import platform
import statistics
import time
import warnings

import torch

from attention_core.lessons import bonus, bonus_fused
from attention_core.book.device import describe
from attention_core.lessons.efficiency import peak_bytes, time_call
from attention_core.book.modules import MultiHeadAttention
from attention_core.book.seeding import build_seeded
from attention_core.drawing.numbers import TOLERANCE  # noqa: F401  every screen's one tolerance, as ≤ 10⁻⁵

IMPLEMENTATIONS = {  # key: (label, class), in the bonus notebook's order
    "wrapper": ("1 · wrapper of CausalAttention heads", bonus.WrapperWithOutProj),
    "chapter": ("2 · chapter's MultiHeadAttention", bonus.ChapterMHA),
    "combined_qkv": ("3 · combined QKV projection", bonus.MultiHeadAttentionCombinedQKV),
    "einsum": ("4 · einsum", bonus.MHAEinsum),
    "sdpa": ("5 · SDPA (PyTorch picks the kernel)", bonus_fused.MHAPyTorchScaledDotProduct),
    "sdpa_no_flash": ("6 · SDPA, flash forbidden", bonus_fused.MHAPyTorchSDPAWithoutFlash),
    "torch_mha": ("7 · nn.MultiheadAttention", bonus_fused.MHAPyTorchClass),
    "flex": ("8 · FlexAttention", bonus_fused.MHAPyTorchFlexAttention),
}
TOKEN_SIZES = (128, 256, 512, 1024)  # from 128 tokens up to GPT-2's context
GPT2 = dict(d_in=768, d_out=768, num_heads=12)  # GPT-2 small's attention layer


def pair(key: str, d_in: int, d_out: int, num_heads: int, context_length: int, seed: int = 123, device="cpu"):
    """(the chapter's MultiHeadAttention, implementation `key` with its weights copied in), both in eval mode."""
    mha = build_seeded(MultiHeadAttention, seed, d_in, d_out, context_length, 0.0, num_heads).to(device).eval()
    other = IMPLEMENTATIONS[key][1](d_in, d_out, context_length, 0.0, num_heads).to(device).eval()
    return mha, other.copy_from(mha)


def agreement(key: str, d_in: int, d_out: int, num_heads: int, num_tokens: int = 6, seed: int = 123) -> float:
    """Largest |implementation - chapter| over a seeded random batch of 2 sequences."""
    mha, other = pair(key, d_in, d_out, num_heads, num_tokens, seed)
    x = torch.randn(2, num_tokens, d_in, generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        return float((other(x) - mha(x)).abs().max())


def _why_not(error: Exception) -> str:
    return f"{type(error).__name__}: {str(error).splitlines()[0]}"


def _calls(key: str, device: str, num_tokens: int, d_in: int, d_out: int, num_heads: int):
    """(forward, forward_backward, the tensors that exist before a call), or the reason it cannot be built."""
    try:
        model = IMPLEMENTATIONS[key][1](d_in, d_out, num_tokens, 0.0, num_heads).to(device).eval()
    except (ValueError, AssertionError) as error:
        return _why_not(error)
    x = torch.randn(1, num_tokens, d_in, generator=torch.Generator().manual_seed(num_tokens)).to(device)

    def forward():
        with torch.no_grad():
            return model(x)

    def forward_backward():
        model.zero_grad(set_to_none=True)
        model(x).sum().backward()
        model.zero_grad(set_to_none=True)  # the gradients are part of the call's peak, not kept after it
    return forward, forward_backward, (x, *model.parameters(), *model.buffers())


def measure_size(keys, device: str, num_tokens: int, repeats: int, d_in=768, d_out=768, num_heads=12) -> list:
    """Forward and forward+backward of each implementation at one length: median seconds and peak bytes of
    the tensors created during a call (inputs and weights not counted). The timed calls take turns
    (one of each, `repeats` rounds), so a busy spell on a shared machine hits them all alike."""
    rows, timed = [], []
    for key in keys:
        row = {"key": key, "label": IMPLEMENTATIONS[key][0], "tokens": num_tokens, "device": device}
        rows.append(row)
        built = _calls(key, device, num_tokens, d_in, d_out, num_heads)
        if isinstance(built, str):
            row.update(forward=built, backward=built)
            continue
        for name, fn in zip(("forward", "backward"), built[:2]):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fn()  # warm-up: a first call may compile or pick kernels
                    # The CPU tracker cannot look inside FlexAttention (one higher-order operator), and trying
                    # leaves its eager path broken for later sizes: its memory is left unmeasured there.
                    row[f"{name}_bytes"] = None if key == "flex" and device != "cuda" else _peak(fn, device,
                                                                                                  built[2])
                row[name] = "ok"
                timed.append((row, name, fn, []))
            except (RuntimeError, NotImplementedError) as error:
                row[name] = _why_not(error)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(max(1, repeats)):
            for row, name, fn, times in timed:
                times.append(time_call(fn, device, repeats=1, warmup=0))
    for row, name, fn, times in timed:
        row[f"{name}_s"] = statistics.median(times)
    return rows


def measure(key: str, device: str, num_tokens: int, repeats: int, d_in=768, d_out=768, num_heads=12) -> dict:
    """measure_size for one implementation."""
    return measure_size((key,), device, num_tokens, repeats, d_in, d_out, num_heads)[0]


def _peak(fn, device, existing):
    """Peak bytes, or None where the CPU's tracker cannot follow the call (a higher-order operator)."""
    try:
        return peak_bytes(fn, device, existing=existing)[1]
    except NotImplementedError:
        return None


def machine(device: str) -> str:
    """Where a measurement ran, in words, for the table's caption."""
    cpu = platform.processor() or platform.machine()
    threads = torch.get_num_threads()
    return f"{describe(device)}, {threads} thread{'s' if threads != 1 else ''}, {cpu}, torch {torch.__version__}"


def sweep(device: str, sizes=TOKEN_SIZES, repeats: int = 3, keys=tuple(IMPLEMENTATIONS), on_step=None,
          time_budget_s: float | None = None) -> dict:
    """Every implementation at every size (skipping a size that would overrun the budget); a dict ready
    to store as JSON: rows, the machine, the date, the SDPA kernels picked, notes."""
    rows, notes, start = [], [], time.perf_counter()
    total, done = sum(t * t for t in sizes), 0  # the work grows with T², and so does the bar
    for n, num_tokens in enumerate(sizes):
        spent = time.perf_counter() - start
        if time_budget_s is not None and n and spent * 5 > time_budget_s:  # the next size costs about 4x
            notes.append(f"Stopped before T = {num_tokens:,}: past this screen's {time_budget_s:.0f} s budget.")
            break
        if on_step:
            on_step(done / total, f"T = {num_tokens:,}: {len(keys)} implementations, {repeats} rounds")
        rows.extend(measure_size(keys, device, num_tokens, repeats))
        done += num_tokens * num_tokens
    if on_step:
        on_step(1.0, "Done.")
    return {"rows": rows, "notes": notes, "device": device, "machine": machine(device), "repeats": repeats,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "sdpa_kernel": bonus_fused.sdpa_backend(device), "sdpa_no_flash_kernel":
                bonus_fused.sdpa_backend(device, flash=False)}
