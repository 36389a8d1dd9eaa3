"""How fast the math is on this machine's device: each stage's lesson function on a cache miss, and the
course's MultiHeadAttention against torch.nn.MultiheadAttention(need_weights=True) at GPT-2 small size."""
import sys

import torch

from attention_core.book.device import describe
from attention_core.book.inputs import BOOK_INPUTS
from attention_core.book.modules import MultiHeadAttention
from attention_core.book.seeding import build_seeded
from attention_core.lessons import traces
from attention_core.lessons.efficiency import time_call

from .report import MHA_TARGET


def compute_section(device: str, repeats: int, quick: bool, lines: list[str]) -> None:
    """Measure, and append both tables to `lines`."""
    sizes = (6, 256, 1024) if quick else (6, 64, 256, 1024)
    lines += ["", f"### Compute per stage on {describe(device)} (cache miss: build the seeded modules, trace, copy "
              "to the CPU)", "", f"Median of {repeats} after one warm-up. 6 tokens: the book's inputs (d_in 3, "
              "d_out 2, 2 heads); otherwise seeded random inputs at GPT-2 small's sizes (d_in = d_out = 768, "
              "12 heads).", "",
              "| tokens | scores: `projection_trace('v1')` ms | mask: `causal_trace` ms | heads: `heads_trace` ms |",
              "|---:|---:|---:|---:|"]
    for tokens in sizes:
        if tokens == 6:
            x, d_out, heads = BOOK_INPUTS, 2, 2
        else:
            x, d_out, heads = traces.make_inputs("random", "", False, tokens, 768, 123).x, 768, 12
        timings = [time_call(fn, device, repeats) * 1e3 for fn in (
            lambda: traces.projection_trace(x, "v1", d_out, 123, device),
            lambda: traces.causal_trace(x, d_out, 789, tokens, device),
            lambda: traces.heads_trace(x, d_out, heads, 123, tokens, device))]
        lines.append(f"| {tokens} | " + " | ".join(f"{t:,.1f}" for t in timings) + " |")
        print(f"  compute {tokens}: {timings}", file=sys.stderr)

    # The course's MultiHeadAttention against PyTorch's, same weights, both returning per-head weights.
    T, d, h = 1024, 768, 12
    x = torch.rand(1, T, d, generator=torch.Generator().manual_seed(0)).to(device)  # (1, 1024, 768)
    course = build_seeded(MultiHeadAttention, 123, d, d, T, 0.0, h).to(device).eval()
    reference = torch.nn.MultiheadAttention(d, h, batch_first=True).to(device).eval()
    with torch.no_grad():
        reference.in_proj_weight.copy_(torch.cat([course.W_query.weight, course.W_key.weight, course.W_value.weight]))
        reference.in_proj_bias.zero_()  # the course has qkv_bias=False
        reference.out_proj.weight.copy_(course.out_proj.weight)
        reference.out_proj.bias.copy_(course.out_proj.bias)
        future = torch.triu(torch.ones(T, T, dtype=torch.bool, device=device), diagonal=1)  # (T, T)

        def ours():
            return course(x)

        def theirs():
            return reference(x, x, x, attn_mask=future, need_weights=True, average_attn_weights=False)
        diff = float((ours() - theirs()[0]).abs().max())
        ours_s, theirs_s = time_call(ours, device, repeats), time_call(theirs, device, repeats)
    ratio = ours_s / theirs_s
    lines += ["", f"### MultiHeadAttention forward at GPT-2 small size (1 × {T} × {d}, {h} heads, causal)", "",
              "| course `MultiHeadAttention` ms | `nn.MultiheadAttention(need_weights=True)` ms | ratio | target | "
              "meets | max abs diff |", "|---:|---:|---:|---|---|---:|",
              f"| {ours_s * 1e3:,.1f} | {theirs_s * 1e3:,.1f} | {ratio:.2f}× | ≤ {MHA_TARGET}× | "
              f"{'yes' if ratio <= MHA_TARGET else '**no**'} | {diff:.1e} |"]
    print(f"  MHA ratio {ratio:.2f}", file=sys.stderr)
