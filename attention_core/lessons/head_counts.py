"""Every head count at once: MultiHeadAttention's weights for each num_heads that divides d_out, so the view
can scrub (num_heads, head) in the browser instead of rerunning the page for each count.

Why one projection serves every count: MultiHeadAttention.__init__ creates W_query, W_key, W_value
(nn.Linear(d_in, d_out) each), then out_proj (nn.Linear(d_out, d_out)), then a Dropout and the mask buffer,
which draw no random numbers. No shape there involves num_heads (it only decides how `view` cuts d_out), so
under one seed every head count gets the same weights, and only the cut differs.

Head i of h heads owns the columns [i·g, (i+1)·g) of the queries and keys, g = head_dim = d_out / h, and its
score for (query t, key s) is the sum of q[t, m]·k[s, m] over those columns. With the running sum R of the
products over m, that is R[(i+1)·g] − R[i·g]: one gather gives every head of every count in one batched call.
The running sum changes the order of the additions, so the weights agree with the book's class run one count
at a time to float rounding (tests: ≤ 1e-6), not bit for bit; float64 keeps the differences exact enough.
"""
import torch

from attention_core.book.device import run_with_fallback
from attention_core.book.modules import MultiHeadAttention
from attention_core.book.seeding import build_seeded
from attention_core.book.stages import divisors

# The stack holds one T × T map per (num_heads, head) pair: σ(d_out) maps, σ = the sum of d_out's divisors
# (3 at the book's d_out = 2, 2,044 at 768). The browser gets it only while σ(d_out) · T² stays within this
# many weights: the view then sends at most about 1 M cells (a causal map sends its lower triangle, a long row
# its 32 largest keys), about 3 MB of codes and shades. Above it the server computes one count at a time.
STACK_WEIGHTS = 2_000_000


def stack_size(d_out: int, num_tokens: int) -> int:
    """How many weights every head count of d_out at num_tokens tokens holds: σ(d_out) · T²."""
    return sum(divisors(d_out)) * num_tokens * num_tokens


def fits(d_out: int, num_tokens: int) -> bool:
    """Whether every head count goes to the browser at once (the stack stays within STACK_WEIGHTS)."""
    return stack_size(d_out, num_tokens) <= STACK_WEIGHTS


def frame_of(d_out: int, num_heads: int, head: int) -> int:
    """Where head `head` (0-based) of num_heads heads sits in the stack: counts ascending, heads within each."""
    return sum(h for h in divisors(d_out) if h < num_heads) + head


def count_dims(counts: list[int], d_out: int) -> list[dict]:
    """The attention view's two dims for several head counts: num_heads, then a Head slider as long as that count
    (ragged: head 3 does not exist with 2 heads, so it is neither computed nor sent). counts ascending."""
    heads = list(range(1, counts[-1] + 1))
    return [{"name": "num_heads", "param": "heads", "values": list(counts),
             "labels": [f"{c} (head_dim {d_out // c})" for c in counts]},
            {"name": "Head", "param": "head", "values": heads, "labels": [str(h) for h in heads],
             "lengths": list(counts)}]


def head_columns(d_out: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(start, end) column of every head of every count, in the stack's order; (F,) each, F = σ(d_out)."""
    starts = [i * (d_out // h) for h in divisors(d_out) for i in range(h)]
    ends = [(i + 1) * (d_out // h) for h in divisors(d_out) for i in range(h)]
    return torch.tensor(starts), torch.tensor(ends)


def every_head_count(x: torch.Tensor, d_out: int, seed: int) -> torch.Tensor:
    """attn_weights of every head of MultiHeadAttention(d_in, d_out, num_heads=h) for every h dividing d_out,
    on x (T, d_in), built under `seed` as the book builds it (no dropout). Returns (F, T, T) float32, F = σ(d_out):
    the heads of 1 head, then of the next count, ... (frame_of says where). Computed on the CPU: the stack is
    small by construction (fits), and float64 is not on every accelerator."""
    num_tokens, d_in = x.shape
    # num_heads = 1: any divisor gives the same parameters (the module docstring says why).
    mha = build_seeded(MultiHeadAttention, seed, d_in, d_out, num_tokens, 0.0, 1)
    with torch.no_grad():
        queries, keys = mha.W_query(x).double(), mha.W_key(x).double()  # (T, d_out) each
    products = queries[:, None, :] * keys[None, :, :]  # (T, T, d_out): q[t, m] · k[s, m]
    running = torch.nn.functional.pad(products.cumsum(dim=-1), (1, 0))  # (T, T, d_out + 1); running[..., 0] = 0
    starts, ends = head_columns(d_out)  # (F,) each
    scores = (running[..., ends] - running[..., starts]).permute(2, 0, 1)  # (F, T, T): each head's q · k
    head_dim = (ends - starts).double()[:, None, None]  # (F, 1, 1)
    future = torch.triu(torch.ones(num_tokens, num_tokens, dtype=torch.bool), diagonal=1)  # (T, T)
    weights = torch.softmax(scores.masked_fill(future, -torch.inf) / head_dim**0.5, dim=-1)  # (F, T, T)
    return weights.float()


def one_head_count(x: torch.Tensor, d_out: int, num_heads: int, seed: int, device: str):
    """attn_weights of MultiHeadAttention(d_in, d_out, num_heads) alone, (h, T, T) on the CPU, for a stack too large
    for the browser: the lesson's view needs only these, and heads_trace's wrapper beside them (12 full-width
    CausalAttention modules at GPT-2 small: 3.8 s against 0.4 s here) waits for a section that shows it.
    Returns (weights, device_used, note)."""
    num_tokens, d_in = x.shape
    mha = build_seeded(MultiHeadAttention, seed, d_in, d_out, num_tokens, 0.0, num_heads)

    def compute(dev):
        with torch.no_grad():
            return mha.to(dev).trace(x.to(dev)[None])["attn_weights"][0].cpu()  # (h, T, T)
    return run_with_fallback(compute, device)
