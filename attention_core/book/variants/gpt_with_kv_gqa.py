"""GroupedQueryAttention, as the book prints it in ch04/04_gqa/gpt_with_kv_gqa.py (rasbt/LLMs-from-scratch).

Fewer key/value heads than query heads: W_key and W_value project to num_kv_groups · head_dim columns, and
`repeat_interleave` hands each key/value head to group_size = num_heads / num_kv_groups neighbouring query heads.
In this class num_kv_groups is the number of key/value heads (the book's memory estimator calls the group size
n_kv_groups instead: the book's issue #922). The class is the book's, line for line (names, signature, parameter
creation order, buffers, forward); `trace()` beside it is the app's addition.
"""
import torch
import torch.nn as nn


class GroupedQueryAttention(nn.Module):
    def __init__(
            self, d_in, d_out, dropout, num_heads, num_kv_groups, dtype=None, qkv_bias=False
    ):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        assert num_heads % num_kv_groups == 0, "num_heads must be divisible by num_kv_groups"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads

        self.W_key = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias, dtype=dtype)
        self.W_value = nn.Linear(d_in, num_kv_groups * self.head_dim, bias=qkv_bias, dtype=dtype)
        self.num_kv_groups = num_kv_groups
        self.group_size = num_heads // num_kv_groups

        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias, dtype=dtype)
        self.out_proj = nn.Linear(d_out, d_out, bias=False, dtype=dtype)
        self.dropout = nn.Dropout(dropout)

        self.register_buffer("cache_k", None, persistent=False)
        self.register_buffer("cache_v", None, persistent=False)
        self.ptr_current_pos = 0

    def forward(self, x, use_cache=False):
        b, num_tokens, _ = x.shape

        # Apply projections
        queries = self.W_query(x)  # (b, num_tokens, num_heads * head_dim)
        keys = self.W_key(x)       # (b, num_tokens, num_kv_groups * head_dim)
        values = self.W_value(x)   # (b, num_tokens, num_kv_groups * head_dim)

        # Reshape
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        keys_new = keys.view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)
        values_new = values.view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)

        if use_cache:
            if self.cache_k is None:
                self.cache_k, self.cache_v = keys_new, values_new
            else:
                self.cache_k = torch.cat([self.cache_k, keys_new], dim=2)
                self.cache_v = torch.cat([self.cache_v, values_new], dim=2)
            keys_base, values_base = self.cache_k, self.cache_v
        else:
            keys_base, values_base = keys_new, values_new
            if self.cache_k is not None or self.cache_v is not None:
                self.cache_k, self.cache_v = None, None
                self.ptr_current_pos = 0

        # Expand keys and values to match the number of heads
        # Shape: (b, num_heads, num_tokens, head_dim)
        keys = keys_base.repeat_interleave(self.group_size, dim=1)  # Shape: (b, num_heads, num_tokens, head_dim)
        values = values_base.repeat_interleave(self.group_size, dim=1)  # Shape: (b, num_heads, num_tokens, head_dim)
        # For example, before repeat_interleave along dim=1 (query groups):
        #   [K1, K2]
        # After repeat_interleave (each query group is repeated group_size times):
        #   [K1, K1, K2, K2]
        # If we used regular repeat instead of repeat_interleave, we'd get:
        #   [K1, K2, K1, K2]

        # Compute scaled dot-product attention (aka self-attention) with a causal mask
        # Shape: (b, num_heads, num_tokens, num_tokens)
        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head

        ####################################################
        # causal mask
        num_tokens_Q = queries.shape[-2]
        num_tokens_K = keys.shape[-2]
        device = queries.device
        if use_cache:
            q_positions = torch.arange(
                self.ptr_current_pos,
                self.ptr_current_pos + num_tokens_Q,
                device=device,
                dtype=torch.long,
            )
            self.ptr_current_pos += num_tokens_Q
        else:
            q_positions = torch.arange(num_tokens_Q, device=device, dtype=torch.long)
            self.ptr_current_pos = 0
        k_positions = torch.arange(num_tokens_K, device=device, dtype=torch.long)
        mask = q_positions.unsqueeze(-1) < k_positions.unsqueeze(0)

        # Use the mask to fill attention scores
        attn_scores = attn_scores.masked_fill(mask, -torch.inf)

        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        assert keys.shape[-1] == self.head_dim
        attn_weights = self.dropout(attn_weights)

        # Shape: (b, num_tokens, num_heads, head_dim)
        context_vec = (attn_weights @ values).transpose(1, 2)

        # Combine heads, where self.d_out = self.num_heads * self.head_dim
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        context_vec = self.out_proj(context_vec)  # optional projection

        return context_vec

    def reset_cache(self):
        self.cache_k, self.cache_v = None, None
        self.ptr_current_pos = 0

    def trace(self, x, expand="repeat_interleave"):
        """forward(x) without a cache, every intermediate under the book's names: keys_new and values_new
        (b, num_kv_groups, T, head_dim), the cache holds these; keys and values after the expansion
        (b, num_heads, T, head_dim); attn_scores, attn_weights (b, num_heads, T, T); context_vec (b, T, d_out).
        expand="repeat" runs the common mistake (`repeat` in place of `repeat_interleave`): query head i then
        meets key/value head i mod num_kv_groups instead of i // group_size."""
        b, num_tokens, _ = x.shape  # (b, T, d_in)
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)  # (b, h, T, hd)
        keys_new = self.W_key(x).view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)  # (b, g, T, hd)
        values_new = self.W_value(x).view(b, num_tokens, self.num_kv_groups, self.head_dim).transpose(1, 2)
        if expand == "repeat_interleave":
            keys = keys_new.repeat_interleave(self.group_size, dim=1)  # (b, h, T, hd): [K1, K1, K2, K2]
            values = values_new.repeat_interleave(self.group_size, dim=1)
        elif expand == "repeat":
            keys = keys_new.repeat(1, self.group_size, 1, 1)  # (b, h, T, hd): [K1, K2, K1, K2]
            values = values_new.repeat(1, self.group_size, 1, 1)
        else:
            raise ValueError(f"expand must be 'repeat_interleave' or 'repeat', not {expand!r}")
        attn_scores = queries @ keys.transpose(2, 3)  # (b, h, T, T)
        mask = torch.triu(torch.ones(num_tokens, num_tokens, dtype=torch.bool, device=x.device), diagonal=1)  # (T, T)
        masked = attn_scores.masked_fill(mask, -torch.inf)
        attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)  # (b, h, T, T)
        dropped = self.dropout(attn_weights)
        heads_context = dropped @ values  # (b, h, T, hd)
        merged = heads_context.transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)  # (b, T, d_out)
        return {"queries": queries, "keys_new": keys_new, "values_new": values_new, "keys": keys, "values": values,
                "attn_scores": attn_scores, "attn_weights": attn_weights, "heads_context": heads_context,
                "merged": merged, "context_vec": self.out_proj(merged)}


def kv_head_of(query_head: int, num_heads: int, num_kv_groups: int, expand: str = "repeat_interleave") -> int:
    """Which key/value head (0-based) query head `query_head` (0-based) meets: repeat_interleave gives each
    key/value head group_size neighbours (i // group_size); repeat cycles through them (i mod num_kv_groups)."""
    group_size = num_heads // num_kv_groups
    return query_head // group_size if expand == "repeat_interleave" else query_head % num_kv_groups
