"""The bonus material's ways to write multi-head attention (ch03/02_bonus_efficient-multihead-attention).

Every class takes the book's constructor (d_in, d_out, context_length, dropout, num_heads,
qkv_bias=False) and computes the same function as the chapter's `MultiHeadAttention`: causal
attention, then out_proj. Each has `copy_from(mha)`, which loads the chapter module's weights, so
the outputs can be compared number for number. This file holds the versions written out by hand;
bonus_fused.py the ones that call PyTorch's fused kernels.
"""
import torch
import torch.nn as nn

from attention_core.book.modules import MultiHeadAttention, MultiHeadAttentionWrapper


class WrapperWithOutProj(nn.Module):
    """Section 3.6.1's wrapper, one CausalAttention per head of d_out // num_heads columns, then out_proj."""

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.heads = MultiHeadAttentionWrapper(d_in, d_out // num_heads, context_length, dropout, num_heads,
                                               qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)

    def forward(self, x):
        return self.out_proj(self.heads(x))  # (b, T, num_heads * head_dim) -> (b, T, d_out)

    def copy_from(self, mha):
        """Head i gets rows i*head_dim ... (i+1)*head_dim - 1 of each of the chapter's projections."""
        hd = mha.head_dim
        for i, head in enumerate(self.heads.heads):
            for name in ("W_query", "W_key", "W_value"):
                ours, theirs = getattr(head, name), getattr(mha, name)
                ours.weight.data.copy_(theirs.weight[i * hd:(i + 1) * hd])
                if theirs.bias is not None:
                    ours.bias.data.copy_(theirs.bias[i * hd:(i + 1) * hd])
        self.out_proj.load_state_dict(mha.out_proj.state_dict())
        return self


class ChapterMHA(MultiHeadAttention):
    """The chapter's own MultiHeadAttention (section 3.6.2), unchanged: the reference."""

    def copy_from(self, mha):
        self.load_state_dict(mha.state_dict())
        return self


class MultiHeadAttentionCombinedQKV(nn.Module):
    """One Linear makes queries, keys and values at once: one matmul instead of three."""

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.num_heads, self.head_dim, self.d_out = num_heads, d_out // num_heads, d_out
        self.qkv = nn.Linear(d_in, 3 * d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, _ = x.shape
        qkv = self.qkv(x).view(b, num_tokens, 3, self.num_heads, self.head_dim)  # (b, T, 3, h, hd)
        queries, keys, values = qkv.permute(2, 0, 3, 1, 4)  # each (b, h, T, hd)
        attn_scores = queries @ keys.transpose(-2, -1)  # (b, h, T, T)
        attn_scores = attn_scores.masked_fill(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = self.dropout(torch.softmax(attn_scores / self.head_dim ** 0.5, dim=-1))
        context_vec = (attn_weights @ values).transpose(1, 2)  # (b, T, h, hd)
        return self.out_proj(context_vec.reshape(b, num_tokens, self.d_out))

    def copy_from(self, mha):
        copy_qkv(self.qkv, mha)
        self.out_proj.load_state_dict(mha.out_proj.state_dict())
        return self


class MHAEinsum(nn.Module):
    """Projections and attention written as Einstein sums: the index letters say what is summed."""

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.num_heads, self.head_dim, self.d_out = num_heads, d_out // num_heads, d_out
        self.W_query = nn.Parameter(torch.empty(d_out, d_in))  # (d_out, d_in), like nn.Linear's weight
        self.W_key = nn.Parameter(torch.empty(d_out, d_in))
        self.W_value = nn.Parameter(torch.empty(d_out, d_in))
        self.bias = nn.Parameter(torch.zeros(3, d_out)) if qkv_bias else None
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))
        for weight in (self.W_query, self.W_key, self.W_value):
            nn.init.kaiming_uniform_(weight, a=5 ** 0.5)  # nn.Linear's own initialisation

    def forward(self, x):
        b, T, _ = x.shape
        q, k, v = (torch.einsum("btd,od->bto", x, w) for w in (self.W_query, self.W_key, self.W_value))
        if self.bias is not None:
            q, k, v = q + self.bias[0], k + self.bias[1], v + self.bias[2]
        q, k, v = (t.view(b, T, self.num_heads, self.head_dim) for t in (q, k, v))  # (b, T, h, hd)
        scores = torch.einsum("bihd,bjhd->bhij", q, k) / self.head_dim ** 0.5  # (b, h, T, T)
        scores = scores.masked_fill(self.mask.bool()[:T, :T], -torch.inf)
        weights = self.dropout(torch.softmax(scores, dim=-1))
        context = torch.einsum("bhij,bjhd->bihd", weights, v)  # (b, T, h, hd): heads already in place
        return self.out_proj(context.reshape(b, T, self.d_out))

    def copy_from(self, mha):
        for name in ("W_query", "W_key", "W_value"):
            getattr(self, name).data.copy_(getattr(mha, name).weight)
        if self.bias is not None:
            self.bias.data.copy_(torch.stack([mha.W_query.bias, mha.W_key.bias, mha.W_value.bias]))
        self.out_proj.load_state_dict(mha.out_proj.state_dict())
        return self


def copy_qkv(qkv: nn.Linear, mha) -> None:
    """The chapter's three projections stacked into one (3 * d_out, d_in) Linear: queries, keys, values."""
    qkv.weight.data.copy_(torch.cat([mha.W_query.weight, mha.W_key.weight, mha.W_value.weight]))
    if qkv.bias is not None:
        qkv.bias.data.copy_(torch.cat([mha.W_query.bias, mha.W_key.bias, mha.W_value.bias]))
