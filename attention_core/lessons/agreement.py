"""The app's results next to PyTorch's own attention functions, as max absolute differences.

Each function rebuilds PyTorch's version from the same tensors or weights, so a screen can say
"ours vs PyTorch: 3e-08" with a number that could have come out large.
"""
import torch
import torch.nn.functional as F

from attention_core.book import stages
from attention_core.book.modules import MultiHeadAttention, SelfAttention_v1, SelfAttention_v2
from attention_core.book.seeding import build_seeded


def unmasked_vs_sdpa(record: dict, scaled: bool) -> float:
    """Context vectors of one unmasked head vs F.scaled_dot_product_attention on the same q, k, v."""
    q, k, v = record["queries"], record["keys"], record["values"]  # (T, d)
    theirs = F.scaled_dot_product_attention(q[None], k[None], v[None], scale=None if scaled else 1.0)[0]
    return stages.max_abs_diff(record["context_vec"], theirs)


def causal_vs_sdpa(record: dict) -> float:
    """CausalAttention's context vectors vs F.scaled_dot_product_attention(is_causal=True)."""
    q, k, v = record["queries"], record["keys"], record["values"]  # (T, d) or (b, h, T, d)
    theirs = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    return stages.max_abs_diff(record["context_vec"] if "heads_context" not in record else record["heads_context"],
                               theirs)


def dropout_vs_nn(attn_weights: torch.Tensor, p: float, seed: int) -> float:
    """This app's dropout vs the book's `torch.manual_seed(seed); nn.Dropout(p)(attn_weights)`."""
    layer = torch.nn.Dropout(p).train()
    theirs = build_seeded(layer, seed, attn_weights.cpu())
    return stages.max_abs_diff(stages.dropout(attn_weights, p, seed)[0], theirs)


def mha_vs_torch(x: torch.Tensor, d_out: int, num_heads: int, seed: int, context_length: int) -> dict:
    """MultiHeadAttention vs torch.nn.MultiheadAttention with the same weights copied in.

    Needs d_in == d_out (nn.MultiheadAttention projects embed_dim to embed_dim). Returns the max
    difference of the outputs and of the per-head attention weights.
    """
    d_in, num_tokens = x.shape[-1], x.shape[0]
    ours = build_seeded(MultiHeadAttention, seed, d_in, d_out, max(context_length, num_tokens), 0.0, num_heads)
    theirs = torch.nn.MultiheadAttention(d_out, num_heads, bias=True, batch_first=True)
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.W_query.weight, ours.W_key.weight, ours.W_value.weight]))
        theirs.in_proj_bias.zero_()  # the book's projections have no bias (qkv_bias=False)
        theirs.out_proj.weight.copy_(ours.out_proj.weight)
        theirs.out_proj.bias.copy_(ours.out_proj.bias)
        batch = x[None]  # (1, T, d_in)
        record = ours.trace(batch)
        future = torch.triu(torch.ones(num_tokens, num_tokens, dtype=torch.bool), diagonal=1)
        out, weights = theirs(batch, batch, batch, attn_mask=future, need_weights=True, average_attn_weights=False)
    return {"output": stages.max_abs_diff(record["context_vec"], out),
            "weights": stages.max_abs_diff(record["attn_weights"], weights)}


def exercise_3_1(x: torch.Tensor, d_out: int, seed: int) -> float:
    """Exercise 3.1: SelfAttention_v2's weights, transposed into SelfAttention_v1, give the same output."""
    v2 = build_seeded(SelfAttention_v2, seed, x.shape[-1], d_out)
    v1 = SelfAttention_v1(x.shape[-1], d_out)
    with torch.no_grad():
        v1.W_query.copy_(v2.W_query.weight.T)  # nn.Linear stores (d_out, d_in) and computes x @ W.T
        v1.W_key.copy_(v2.W_key.weight.T)
        v1.W_value.copy_(v2.W_value.weight.T)
        return stages.max_abs_diff(v1(x), v2(x))
