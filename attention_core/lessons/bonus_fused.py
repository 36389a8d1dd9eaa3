"""The bonus material's versions that hand attention to PyTorch's own kernels.

Same constructor and `copy_from(mha)` as attention_core/lessons/bonus.py. Between the projections they
call `F.scaled_dot_product_attention` (PyTorch picks a kernel, or flash is forbidden),
`nn.MultiheadAttention`, or FlexAttention (where this torch has it).
"""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from attention_core.lessons.bonus import copy_qkv

try:  # torch >= 2.5
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
except ImportError:  # pragma: no cover - an older torch: the implementation is listed as missing
    create_block_mask = flex_attention = None


class _FusedBase(nn.Module):
    """Combined QKV projection and out_proj around a fused attention call (`_attend`)."""

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.num_heads, self.head_dim, self.d_out = num_heads, d_out // num_heads, d_out
        self.context_length, self.dropout = context_length, dropout
        self.qkv = nn.Linear(d_in, 3 * d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)

    def forward(self, x):
        b, T, _ = x.shape
        qkv = self.qkv(x).view(b, T, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        queries, keys, values = qkv  # each (b, h, T, hd)
        context_vec = self._attend(queries, keys, values, self.dropout if self.training else 0.0)
        return self.out_proj(context_vec.transpose(1, 2).reshape(b, T, self.d_out))

    def copy_from(self, mha):
        copy_qkv(self.qkv, mha)
        self.out_proj.load_state_dict(mha.out_proj.state_dict())
        return self


class MHAPyTorchScaledDotProduct(_FusedBase):
    """F.scaled_dot_product_attention with is_causal=True: PyTorch picks the kernel (flash where it can)."""

    def _attend(self, queries, keys, values, dropout_p):
        return F.scaled_dot_product_attention(queries, keys, values, dropout_p=dropout_p, is_causal=True)


class MHAPyTorchSDPAWithoutFlash(_FusedBase):
    """The same call with the flash kernel forbidden: memory-efficient on a GPU, PyTorch's math path on a CPU."""

    def _attend(self, queries, keys, values, dropout_p):
        with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.MATH]):
            return F.scaled_dot_product_attention(queries, keys, values, dropout_p=dropout_p, is_causal=True)


class MHAPyTorchFlexAttention(_FusedBase):
    """FlexAttention: the mask is a Python function of (batch, head, query, key), compiled into block skips."""

    def _attend(self, queries, keys, values, dropout_p):
        if flex_attention is None:
            raise NotImplementedError("this torch has no torch.nn.attention.flex_attention (it came in 2.5)")
        T = queries.shape[-2]
        block_mask = create_block_mask(lambda b, h, q, k: q >= k, None, None, T, T, device=queries.device.type)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "flex_attention called without torch.compile()": said on screen
            return flex_attention(queries, keys, values, block_mask=block_mask)  # no dropout in FlexAttention


class MHAPyTorchClass(nn.Module):
    """torch.nn.MultiheadAttention with a causal mask. Its query width is its embed_dim, so d_in must equal d_out."""

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        if d_in != d_out:
            raise ValueError(f"needs d_in == d_out (got {d_in} and {d_out})")  # embed_dim in, embed_dim out
        self.multihead_attn = nn.MultiheadAttention(d_out, num_heads, dropout=dropout, bias=True,
                                                    batch_first=True)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1).bool())

    def forward(self, x):
        T = x.shape[1]
        # need_weights=False lets it take its fast path (SDPA inside) instead of returning (b, T, T) weights.
        out, _ = self.multihead_attn(x, x, x, attn_mask=self.mask[:T, :T], need_weights=False)
        return out

    def copy_from(self, mha):
        inner = self.multihead_attn
        inner.in_proj_weight.data.copy_(torch.cat([mha.W_query.weight, mha.W_key.weight, mha.W_value.weight]))
        biases = [m.bias for m in (mha.W_query, mha.W_key, mha.W_value)]
        inner.in_proj_bias.data.copy_(torch.cat(biases) if biases[0] is not None else
                                      torch.zeros_like(inner.in_proj_bias))
        inner.out_proj.load_state_dict(mha.out_proj.state_dict())
        return self


def sdpa_backend(device: str, flash: bool = True) -> str:
    """The kernel F.scaled_dot_product_attention picks for causal float32 attention here (asked of PyTorch)."""
    q = torch.zeros(1, 1, 64, 16, device=device)
    allowed = ([SDPBackend.FLASH_ATTENTION] if flash else []) + [SDPBackend.EFFICIENT_ATTENTION,
                                                                  SDPBackend.CUDNN_ATTENTION, SDPBackend.MATH]
    try:
        with sdpa_kernel(allowed):
            choice = torch._fused_sdp_choice(q, q, q, None, 0.0, True)  # the index of the backend it would run
        return SDPBackend(choice).name.lower() if choice >= 0 else "none"
    except (AttributeError, RuntimeError, ValueError):  # a private helper: another torch may lack or change it
        return "unknown"
