"""The book's five attention classes, with the book's names, signatures and parameter order.

Creating the parameters in the book's order is what makes `torch.manual_seed(123)` give the
book's printed numbers. `forward` behaves exactly as in the book; `trace(x)` runs the same
computation and also returns every intermediate tensor under the book's names, so a screen
can show them without doing the math again. "Show the code" shows `__init__` and `forward` exactly as the
chapter's notebook (ch03/01_main-chapter-code/ch03.ipynb) has them, comments and layout included, except that a
trailing comment longer than a slide's line is moved onto its own lines above; tests check that
`trace(x)["context_vec"]` equals `module(x)` for every class.
"""
import torch
import torch.nn as nn

from attention_core.book.stages import attend, merge_heads, split_heads


class SelfAttention_v1(nn.Module):
    """Section 3.4.2: weights drawn with torch.rand, no masking, no batch dimension needed."""

    def __init__(self, d_in, d_out):
        super().__init__()
        self.W_query = nn.Parameter(torch.rand(d_in, d_out))
        self.W_key   = nn.Parameter(torch.rand(d_in, d_out))
        self.W_value = nn.Parameter(torch.rand(d_in, d_out))

    def trace(self, x):
        keys = x @ self.W_key  # (T, d_out)
        queries = x @ self.W_query
        values = x @ self.W_value
        record = {}
        attend(queries, keys, values, record=record)
        return record

    def forward(self, x):
        keys = x @ self.W_key
        queries = x @ self.W_query
        values = x @ self.W_value

        attn_scores = queries @ keys.T # omega
        attn_weights = torch.softmax(
            attn_scores / keys.shape[-1]**0.5, dim=-1
        )

        context_vec = attn_weights @ values
        return context_vec


class SelfAttention_v2(nn.Module):
    """Section 3.4.2: nn.Linear layers (better initialisation, optional bias)."""

    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key   = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def trace(self, x):
        keys = self.W_key(x)  # (T, d_out)
        queries = self.W_query(x)
        values = self.W_value(x)
        record = {}
        attend(queries, keys, values, record=record)
        return record

    def forward(self, x):
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)

        context_vec = attn_weights @ values
        return context_vec


class CausalAttention(nn.Module):
    """Section 3.5.3: a causal mask (-inf before softmax) and dropout on the weights."""

    def __init__(self, d_in, d_out, context_length,
                 dropout, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key   = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout) # New
        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1)) # New

    def trace(self, x):
        b, num_tokens, d_in = x.shape  # (b, T, d_in)
        keys = self.W_key(x)  # (b, T, d_out)
        queries = self.W_query(x)
        values = self.W_value(x)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]  # (T, T)
        record = {}
        attend(queries, keys, values, mask_bool, self.dropout, record)
        return record

    def forward(self, x):
        b, num_tokens, d_in = x.shape # New batch dimension b
        # For inputs where `num_tokens` exceeds `context_length`, this will result in errors
        # in the mask creation further below.
        # In practice, this is not a problem since the LLM (chapters 4-7) ensures that inputs
        # do not exceed `context_length` before reaching this forward method.
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        attn_scores = queries @ keys.transpose(1, 2) # Changed transpose
        attn_scores.masked_fill_(  # New, _ ops are in-place
            # `:num_tokens` to account for cases where the number of tokens in the batch is smaller than
            # the supported context_size
            self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(
            attn_scores / keys.shape[-1]**0.5, dim=-1
        )
        attn_weights = self.dropout(attn_weights) # New

        context_vec = attn_weights @ values
        return context_vec


class MultiHeadAttentionWrapper(nn.Module):
    """Section 3.6.1: num_heads independent CausalAttention heads, outputs concatenated.

    The output has num_heads * d_out columns (each head projects to d_out).
    """

    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList(
            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
             for _ in range(num_heads)]
        )

    def trace(self, x):
        head_records = [head.trace(x) for head in self.heads]
        context_vec = torch.cat([r["context_vec"] for r in head_records], dim=-1)  # (b, T, h*d_out)
        return {"heads": head_records, "context_vec": context_vec}

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    """Section 3.6.2: one projection per Q/K/V, split into heads, recombined by out_proj."""
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert (d_out % num_heads == 0), \
            "d_out must be divisible by num_heads"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads # Reduce the projection dim to match desired output dim

        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # Linear layer to combine head outputs
        self.dropout = nn.Dropout(dropout)
        self.register_buffer(
            "mask",
            torch.triu(torch.ones(context_length, context_length),
                       diagonal=1)
        )

    def trace(self, x):
        b, num_tokens, d_in = x.shape  # (b, T, d_in)
        keys = split_heads(self.W_key(x), self.num_heads)  # (b, h, T, head_dim)
        queries = split_heads(self.W_query(x), self.num_heads)
        values = split_heads(self.W_value(x), self.num_heads)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]  # (T, T)
        record = {}
        heads_context = attend(queries, keys, values, mask_bool, self.dropout, record)  # (b, h, T, head_dim)
        merged = merge_heads(heads_context)  # (b, T, d_out)
        record.update(heads_context=heads_context, merged=merged, context_vec=self.out_proj(merged))
        return record

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        # As in `CausalAttention`, for inputs where `num_tokens` exceeds `context_length`,
        # this will result in errors in the mask creation further below.
        # In practice, this is not a problem since the LLM (chapters 4-7) ensures that inputs
        # do not exceed `context_length` before reaching this forward method.

        keys = self.W_key(x) # Shape: (b, num_tokens, d_out)
        queries = self.W_query(x)
        values = self.W_value(x)

        # We implicitly split the matrix by adding a `num_heads` dimension
        # Unroll last dim: (b, num_tokens, d_out) -> (b, num_tokens, num_heads, head_dim)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)

        # Transpose: (b, num_tokens, num_heads, head_dim) -> (b, num_heads, num_tokens, head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)

        # Compute scaled dot-product attention (aka self-attention) with a causal mask
        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head

        # Original mask truncated to the number of tokens and converted to boolean
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]

        # Use the mask to fill attention scores
        attn_scores.masked_fill_(mask_bool, -torch.inf)

        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)

        # Shape: (b, num_tokens, num_heads, head_dim)
        context_vec = (attn_weights @ values).transpose(1, 2)

        # Combine heads, where self.d_out = self.num_heads * self.head_dim
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        context_vec = self.out_proj(context_vec) # optional projection

        return context_vec


def count_parameters(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def mha_parameter_count(d_in: int, d_out: int, num_heads: int, qkv_bias: bool = False) -> int:
    """Parameters of MultiHeadAttention without building it: 3 projections plus out_proj."""
    qkv = 3 * (d_in * d_out + (d_out if qkv_bias else 0))
    return qkv + out_proj_parameter_count(d_out)


def wrapper_parameter_count(d_in: int, d_out: int, num_heads: int, qkv_bias: bool = False) -> int:
    """Parameters of MultiHeadAttentionWrapper: num_heads heads of 3 (d_in x d_out) projections."""
    return num_heads * 3 * (d_in * d_out + (d_out if qkv_bias else 0))


def out_proj_parameter_count(d_out: int) -> int:
    """out_proj = nn.Linear(d_out, d_out): d_out × d_out weights and d_out biases."""
    return d_out * d_out + d_out
