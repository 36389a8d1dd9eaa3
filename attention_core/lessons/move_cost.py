"""What one move costs the server at given sizes, and the bound a public server keeps (ui/server/public.py applies it).

A move that changes a size (or the seed) makes the screen compute at sizes the server may not have seen. The
dearest is on /heads with a section open that shows the wrapper: heads_trace runs MultiHeadAttentionWrapper (h
full-width CausalAttention heads, each with its own d_in × d_out projections) beside MultiHeadAttention, and the
lesson's view sends the heads' maps. Its cost follows three counts, each at a rate measured on this 2-core machine:
  - multiply-adds: h·(3·T·d_in·d_out + 2·T²·d_out) in the wrapper, 3·T·d_in·d_out + 2·T²·d_out + T·d_out²
    in MultiHeadAttention;
  - attention weights: h·T² (each class masks and softmaxes them, the view encodes them: per cell);
  - weights initialised: h·3·d_in·d_out in the wrapper, 3·d_in·d_out + d_out² in MultiHeadAttention.
The other stages (scores, softmax, mask, dropout) do one head's work: their lessons took 0.2-0.7 s at 1,024 tokens
and d_in = d_out = 1,024, under the budget at every size the sliders offer. Work that does not depend on the sizes
(the exercises' GPT-2 numbers) is computed once per server and is no part of a move.

The rates (2026-11-25, the shared 2-core machine, torch 2.13 CPU, process CPU time, the least of 5 runs each of
heads_trace + head_counts.one_head_count at 49 sizes from 128 to 1,024 tokens, 64 to 1,024 dims, 1 to 16 heads;
least squares, median error 15 %): 1.5e-11 s a multiply-add (about 67 G a second on both cores), 8.5e-8 s an
attention weight of each head (both classes), 3.2e-8 s a parameter (drawing it, and reading it in a product over
few tokens). The lesson's view adds about 6.5e-8 s per weight of the heads it sends (the /heads lesson at 1,024
tokens: 1.13 s at 12 heads of d_out 768, 0.40 s at 4 of 256). Checked against whole moves (AppTest, /heads
with the wrapper's section open, cold caches, median of 3; tokens × d_in × d_out × heads, seconds predicted →
measured): GPT-2 small's 1,024 × 768 × 768 × 12 3.5 → 2.8; at the bound 144 × 768 × 768 × 12 1.0 → 0.5,
776 × 768 × 768 × 4 1.0 → 0.8, 1,024 × 384 × 384 × 4 0.95 → 0.87, 768 × 256 × 256 × 8 0.98 → 0.70;
1,024 × 1,024 × 1,024 × 1 0.72 → 0.69; 1,024 × 64 × 64 × 8 1.4 → 0.9-1.2. The estimate errs on the dear side,
as a busy class's server would.
"""
from attention_core.book.inputs import MAX_TOKENS
from attention_core.lessons.traces import heads_too_large

BUDGET_S = 1.0  # what one move may cost a public server, in seconds of its CPU
SECONDS_PER_MAC = 1.5e-11  # products (both cores: process CPU time)
SECONDS_PER_HEAD_WEIGHT = 1.5e-7  # per weight of the h heads' T × T maps: both classes' masking and softmax, the view
SECONDS_PER_PARAM = 3.2e-8  # drawing a weight at initialisation, and reading it in a product over few tokens
BASE_S = 0.15  # the screen itself: Streamlit's run, the prose, the sections' headers


def multiply_adds(tokens: int, d_in: int, d_out: int, heads: int) -> int:
    """Multiply-adds of heads_trace: the wrapper's h full-width heads, then MultiHeadAttention with out_proj."""
    one_head = 3 * tokens * d_in * d_out + 2 * tokens * tokens * d_out
    return heads * one_head + one_head + tokens * d_out * d_out


def move_seconds(tokens: int, d_in: int, d_out: int, heads: int) -> float:
    """Estimated seconds of server CPU for the dearest screen (/heads, sections open) at these sizes. A size the
    heads screen refuses (traces.heads_too_large) computes no heads: only the base remains."""
    return BASE_S if heads_too_large(heads, tokens, d_in, d_out) else _estimate(tokens, d_in, d_out, heads)


def _estimate(tokens: int, d_in: int, d_out: int, heads: int) -> float:
    """move_seconds as if the heads were computed: it grows with every size."""
    params = heads * 3 * d_in * d_out + 3 * d_in * d_out + d_out * d_out  # the wrapper's heads, then MultiHeadAttention
    return (BASE_S + multiply_adds(tokens, d_in, d_out, heads) * SECONDS_PER_MAC
            + heads * tokens * tokens * SECONDS_PER_HEAD_WEIGHT + params * SECONDS_PER_PARAM)


def within_bound(tokens: int, d_in: int, d_out: int, heads: int) -> bool:
    return move_seconds(tokens, d_in, d_out, heads) <= BUDGET_S


def most_tokens(d_in: int, d_out: int, heads: int, high: int = MAX_TOKENS) -> int:
    """The most tokens (≤ high) whose move stays within the bound at these sizes; 0 when not even one does. Rounded
    down to a multiple of 8 above 8 tokens, so the slider lands on a round number."""
    def fits(tokens):  # the heads computed (a count the heads screen refuses shows nothing: no answer here)
        return _estimate(tokens, d_in, d_out, heads) <= BUDGET_S and not heads_too_large(heads, tokens, d_in, d_out)

    if not fits(1):
        return 0
    low, top = 1, high  # fits(low) holds, and fits only gets harder as the tokens grow
    while low < top:
        middle = (low + top + 1) // 2
        low, top = (middle, top) if fits(middle) else (low, middle - 1)
    return low if low <= 8 else low - low % 8
