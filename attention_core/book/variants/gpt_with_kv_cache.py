"""The book's MultiHeadAttention with a KV cache (rasbt/LLMs-from-scratch, ch04/03_kv-cache/gpt_with_kv_cache.py).

`MultiHeadAttention` below is the book's class as printed: chapter 3's layer plus the `cache_k` / `cache_v` buffers
(`persistent=False`), `ptr_current_pos`, `forward(x, use_cache=False)` and `reset_cache()`. `trace()` is the app's
addition, as for chapter 3's classes (attention_core/book/modules.py): the same computation, returning its
intermediate tensors under the book's names, and moving the cache and the pointer exactly as `forward` does, so a
generation traced call by call is the generation the book's code runs.
"""
import torch
import torch.nn as nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"

        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads  # Reduce the projection dim to match desired output dim

        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)  # Linear layer to combine head outputs
        self.dropout = nn.Dropout(dropout)
        self.register_buffer(
            "mask",
            torch.triu(torch.ones(context_length, context_length), diagonal=1),
            persistent=False
        )

        ####################################################
        # NEW
        self.register_buffer("cache_k", None, persistent=False)
        self.register_buffer("cache_v", None, persistent=False)
        self.ptr_current_pos = 0
        ####################################################

    def forward(self, x, use_cache=False):
        b, num_tokens, d_in = x.shape

        keys_new = self.W_key(x)  # Shape: (b, num_tokens, d_out)
        values_new = self.W_value(x)
        queries = self.W_query(x)

        # We implicitly split the matrix by adding a `num_heads` dimension
        # Unroll last dim: (b, num_tokens, d_out) -> (b, num_tokens, num_heads, head_dim)
        keys_new = keys_new.view(b, num_tokens, self.num_heads, self.head_dim)
        values_new = values_new.view(b, num_tokens, self.num_heads, self.head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim)

        ####################################################
        # NEW
        if use_cache:
            if self.cache_k is None:
                self.cache_k, self.cache_v = keys_new, values_new
            else:
                self.cache_k = torch.cat([self.cache_k, keys_new], dim=1)
                self.cache_v = torch.cat([self.cache_v, values_new], dim=1)
            keys, values = self.cache_k, self.cache_v
        else:
            keys, values = keys_new, values_new
        ####################################################

        # Transpose: (b, num_tokens, num_heads, head_dim) -> (b, num_heads, num_tokens, head_dim)
        keys = keys.transpose(1, 2)
        queries = queries.transpose(1, 2)
        values = values.transpose(1, 2)

        # Compute scaled dot-product attention (aka self-attention) with a causal mask
        attn_scores = queries @ keys.transpose(2, 3)  # Dot product for each head

        ####################################################
        # NEW
        num_tokens_Q = queries.shape[-2]
        num_tokens_K = keys.shape[-2]
        if use_cache:
            mask_bool = self.mask.bool()[
                self.ptr_current_pos:self.ptr_current_pos + num_tokens_Q, :num_tokens_K
            ]
            self.ptr_current_pos += num_tokens_Q
        ####################################################
        # Original mask truncated to the number of tokens and converted to boolean
        else:
            mask_bool = self.mask.bool()[:num_tokens_Q, :num_tokens_K]

        # Use the mask to fill attention scores
        attn_scores.masked_fill_(mask_bool, -torch.inf)

        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)

        # Shape: (b, num_tokens, num_heads, head_dim)
        context_vec = (attn_weights @ values).transpose(1, 2)

        # Combine heads, where self.d_out = self.num_heads * self.head_dim
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        context_vec = self.out_proj(context_vec)  # optional projection

        return context_vec

    ####################################################
    # NEW
    def reset_cache(self):
        self.cache_k, self.cache_v = None, None
        self.ptr_current_pos = 0
    ####################################################

    def trace(self, x, use_cache=False):
        """forward's computation step by step (the app's addition): every intermediate tensor under the book's
        names, plus `ptr_before` (the pointer this call's mask slice starts at; 0 without the cache). It updates
        `cache_k`, `cache_v` and `ptr_current_pos` exactly as forward does."""
        b, num_tokens, d_in = x.shape  # (b, T_new, d_in)
        keys_new = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim)  # (b, T_new, h, head_dim)
        values_new = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim)
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim)
        if use_cache:
            if self.cache_k is None:
                self.cache_k, self.cache_v = keys_new, values_new
            else:
                self.cache_k = torch.cat([self.cache_k, keys_new], dim=1)  # (b, T_cached, h, head_dim)
                self.cache_v = torch.cat([self.cache_v, values_new], dim=1)
            keys, values = self.cache_k, self.cache_v
        else:
            keys, values = keys_new, values_new
        keys, queries, values = keys.transpose(1, 2), queries.transpose(1, 2), values.transpose(1, 2)  # (b, h, T, hd)
        attn_scores = queries @ keys.transpose(2, 3)  # (b, h, T_new, T_keys)
        num_tokens_Q, num_tokens_K = queries.shape[-2], keys.shape[-2]
        ptr_before = self.ptr_current_pos if use_cache else 0
        mask_bool = self.mask.bool()[ptr_before:ptr_before + num_tokens_Q, :num_tokens_K]  # (T_new, T_keys)
        if use_cache:
            self.ptr_current_pos += num_tokens_Q
        masked_scores = attn_scores.masked_fill(mask_bool, -torch.inf)  # (b, h, T_new, T_keys)
        attn_weights = torch.softmax(masked_scores / keys.shape[-1]**0.5, dim=-1)
        dropped_weights = self.dropout(attn_weights)
        heads_context = dropped_weights @ values  # (b, h, T_new, head_dim)
        merged = heads_context.transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)  # (b, T_new, d_out)
        return {"keys_new": keys_new.transpose(1, 2), "values_new": values_new.transpose(1, 2),
                "queries": queries, "keys": keys, "values": values, "attn_scores": attn_scores,
                "mask_bool": mask_bool, "ptr_before": ptr_before, "masked_scores": masked_scores,
                "attn_weights": attn_weights, "dropped_weights": dropped_weights, "heads_context": heads_context,
                "merged": merged, "context_vec": self.out_proj(merged)}
