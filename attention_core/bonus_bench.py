"""The bonus implementations side by side: which run here, do they agree, how fast, how much memory.

Plain values in and out (callers cache them). A version this torch or device cannot run is kept
with PyTorch's own reason, never dropped.
"""
import platform
import time
import warnings

import torch

from attention_core import bonus, bonus_fused
from attention_core.device import describe
from attention_core.efficiency import peak_bytes, time_call
from attention_core.modules import MultiHeadAttention
from attention_core.seeding import build_seeded

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
TOLERANCE = 1e-5


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


def measure(key: str, device: str, num_tokens: int, repeats: int, d_in=768, d_out=768, num_heads=12) -> dict:
    """Forward and forward+backward of one implementation at one length: median seconds and peak bytes
    of the tensors created during the call (the inputs and the weights are not counted)."""
    row = {"key": key, "label": IMPLEMENTATIONS[key][0], "tokens": num_tokens, "device": device}
    try:
        model = IMPLEMENTATIONS[key][1](d_in, d_out, num_tokens, 0.0, num_heads).to(device).eval()
    except (ValueError, AssertionError) as error:
        return row | {"forward": _why_not(error), "backward": _why_not(error)}
    x = torch.randn(1, num_tokens, d_in, generator=torch.Generator().manual_seed(num_tokens)).to(device)
    existing = (x, *model.parameters(), *model.buffers())

    def forward():
        with torch.no_grad():
            return model(x)

    def forward_backward():
        model.zero_grad(set_to_none=True)
        model(x).sum().backward()
        model.zero_grad(set_to_none=True)  # the gradients are part of the call's peak, not kept after it

    for name, fn in (("forward", forward), ("backward", forward_backward)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fn()  # warm-up: a first call may compile or pick kernels
                row[f"{name}_s"] = time_call(fn, device, repeats, warmup=0)
                row[name] = "ok"
                row[f"{name}_bytes"] = _peak(fn, device, existing)
        except (RuntimeError, NotImplementedError) as error:
            row[name] = _why_not(error)
    return row


def _peak(fn, device, existing):
    """Peak bytes, or None where the CPU's tracker cannot follow the call: it sees PyTorch's operators,
    and FlexAttention runs as one higher-order operator that it cannot look inside."""
    try:
        return peak_bytes(fn, device, existing=existing)[1]
    except NotImplementedError:
        return None


def machine(device: str) -> str:
    """Where a measurement ran, in words, for the table's caption."""
    cpu = platform.processor() or platform.machine()
    return f"{describe(device)}, {torch.get_num_threads()} threads, {cpu}, torch {torch.__version__}"


def sweep(device: str, sizes=TOKEN_SIZES, repeats: int = 3, keys=tuple(IMPLEMENTATIONS), on_step=None,
          time_budget_s: float | None = None) -> dict:
    """Every implementation at every size (skipping a size that would overrun the budget); a dict ready
    to store as JSON: rows, the machine, the date, the SDPA kernels picked, notes."""
    rows, notes, start = [], [], time.perf_counter()
    total = len(sizes) * len(keys)
    for n, num_tokens in enumerate(sizes):
        spent = time.perf_counter() - start
        if time_budget_s is not None and n and spent * 5 > time_budget_s:  # the next size costs about 4x
            notes.append(f"Stopped before T = {num_tokens:,}: past this screen's {time_budget_s:.0f} s budget.")
            break
        for i, key in enumerate(keys):
            if on_step:
                on_step((n * len(keys) + i) / total, f"T = {num_tokens:,}: {IMPLEMENTATIONS[key][0]}")
            rows.append(measure(key, device, num_tokens, repeats))
    if on_step:
        on_step(1.0, "Done.")
    return {"rows": rows, "notes": notes, "device": device, "machine": machine(device), "repeats": repeats,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "sdpa_kernel": bonus_fused.sdpa_backend(device), "sdpa_no_flash_kernel":
                bonus_fused.sdpa_backend(device, flash=False)}
