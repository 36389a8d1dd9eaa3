"""The book's classes agree with PyTorch's own attention implementations."""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from attention_core import CausalAttention, MultiHeadAttention, MultiHeadAttentionWrapper, SelfAttention_v1, SelfAttention_v2, build_seeded
from attention_core.book import stages

TOL = 1e-5


def close(a, b, tol=TOL):
    diff = stages.max_abs_diff(a, b)
    assert diff <= tol, f"max abs diff {diff:g} > {tol:g}"


def _rand(*shape, seed=0):
    return torch.rand(*shape, generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("num_tokens", [7, 64])
def test_causal_attention_vs_sdpa(num_tokens):
    x = _rand(2, num_tokens, 16, seed=num_tokens)
    ca = build_seeded(CausalAttention, 123, 16, 8, num_tokens, 0.0)
    with torch.no_grad():
        ours = ca(x)
        expected = F.scaled_dot_product_attention(ca.W_query(x), ca.W_key(x), ca.W_value(x), is_causal=True)
    assert ours.shape == (2, num_tokens, 8)
    close(ours, expected)


def test_causal_attention_context_longer_than_input_vs_sdpa():
    x = _rand(2, 7, 16, seed=1)
    ca = build_seeded(CausalAttention, 5, 16, 8, 64, 0.0)
    with torch.no_grad():
        expected = F.scaled_dot_product_attention(ca.W_query(x), ca.W_key(x), ca.W_value(x), is_causal=True)
        close(ca(x), expected)


def _torch_mha_from(mha: MultiHeadAttention) -> nn.MultiheadAttention:
    d_out = mha.d_out
    ref = nn.MultiheadAttention(d_out, mha.num_heads, bias=True, batch_first=True)
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([mha.W_query.weight, mha.W_key.weight, mha.W_value.weight]))
        if mha.W_query.bias is not None:
            ref.in_proj_bias.copy_(torch.cat([mha.W_query.bias, mha.W_key.bias, mha.W_value.bias]))
        else:
            ref.in_proj_bias.zero_()
        ref.out_proj.weight.copy_(mha.out_proj.weight)
        ref.out_proj.bias.copy_(mha.out_proj.bias)
    return ref


@pytest.mark.parametrize("qkv_bias", [True, False])
def test_multi_head_attention_vs_torch_multihead(qkv_bias):
    num_tokens, heads = 10, 4
    mha = build_seeded(MultiHeadAttention, 123, 32, 32, num_tokens, 0.0, heads, qkv_bias=qkv_bias)
    ref = _torch_mha_from(mha)
    x = _rand(3, num_tokens, 32, seed=2)
    future = torch.triu(torch.ones(num_tokens, num_tokens, dtype=torch.bool), diagonal=1)
    with torch.no_grad():
        record = mha.trace(x)
        out, weights = ref(x, x, x, attn_mask=future, need_weights=True, average_attn_weights=False)
    assert weights.shape == (3, heads, num_tokens, num_tokens)
    assert record["attn_weights"].shape == (3, heads, num_tokens, num_tokens)
    close(record["context_vec"], out)
    close(record["attn_weights"], weights)


def test_multi_head_trace_per_head_vs_sdpa():
    num_tokens, heads = 10, 4
    mha = build_seeded(MultiHeadAttention, 7, 32, 32, num_tokens, 0.0, heads, qkv_bias=True)
    x = _rand(2, num_tokens, 32, seed=3)
    with torch.no_grad():
        record = mha.trace(x)
        q, k, v = record["queries"], record["keys"], record["values"]  # (b, h, T, head_dim)
        assert q.shape == (2, heads, num_tokens, 8)
        expected = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        close(record["heads_context"], expected)
        # the weights themselves: softmax of the masked, scaled scores
        future = torch.triu(torch.ones(num_tokens, num_tokens, dtype=torch.bool), diagonal=1)
        ref_weights = torch.softmax((q @ k.transpose(-2, -1) / 8**0.5).masked_fill(future, -torch.inf), dim=-1)
        close(record["attn_weights"], ref_weights)
        for h in range(heads):
            per_head = F.scaled_dot_product_attention(q[:, h], k[:, h], v[:, h], is_causal=True)
            close(record["attn_weights"][:, h] @ v[:, h], per_head)


def _five_modules():
    d_in, d_out, ctx = 6, 4, 9
    return [
        build_seeded(SelfAttention_v1, 1, d_in, d_out),
        build_seeded(SelfAttention_v2, 2, d_in, d_out),
        build_seeded(CausalAttention, 3, d_in, d_out, ctx, 0.3),
        build_seeded(MultiHeadAttentionWrapper, 4, d_in, d_out, ctx, 0.3, 2),
        build_seeded(MultiHeadAttention, 5, d_in, d_out, ctx, 0.3, 2),
    ]


@pytest.mark.parametrize("index", range(5))
def test_trace_context_equals_forward(index):
    module = _five_modules()[index]
    x = _rand(2, 9, 6, seed=4)
    if index < 2:
        x = x[0]  # the v1/v2 classes take a single sequence as in the book
    # dropout is active (training mode); the same global seed gives the same dropout masks
    torch.manual_seed(11)
    traced = module.trace(x)["context_vec"]
    torch.manual_seed(11)
    forward = module(x)
    torch.testing.assert_close(traced, forward, atol=0, rtol=0)
    module.eval()
    torch.testing.assert_close(module.trace(x)["context_vec"], module(x), atol=0, rtol=0)


def test_single_head_mha_equals_causal_attention_plus_out_proj():
    d_in, d_out, ctx = 5, 6, 8
    mha = build_seeded(MultiHeadAttention, 9, d_in, d_out, ctx, 0.0, 1)
    ca = CausalAttention(d_in, d_out, ctx, 0.0)
    ca.load_state_dict({"W_query.weight": mha.W_query.weight, "W_key.weight": mha.W_key.weight,
                        "W_value.weight": mha.W_value.weight, "mask": mha.mask})
    x = _rand(2, ctx, d_in, seed=5)
    with torch.no_grad():
        close(mha(x), mha.out_proj(ca(x)))
        close(mha.trace(x)["merged"], ca(x))


def test_wrapper_heads_are_independent_causal_attentions():
    wrapper = build_seeded(MultiHeadAttentionWrapper, 123, 3, 2, 6, 0.0, 3)
    x = _rand(2, 6, 3, seed=6)
    with torch.no_grad():
        out = wrapper(x)
        for h, head in enumerate(wrapper.heads):
            expected = F.scaled_dot_product_attention(head.W_query(x), head.W_key(x), head.W_value(x),
                                                      is_causal=True)
            close(out[..., 2 * h:2 * h + 2], expected)
