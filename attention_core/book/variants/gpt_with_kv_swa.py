"""ch04/06_swa/gpt_with_kv_swa.py: MultiHeadAttentionWithSWA, multi-head attention with a KV cache whose keys
slide: each query sees only its last `sliding_window_size` keys (itself included).

The class is the book's as printed at rasbt/LLMs-from-scratch HEAD, with the fix of #1013 (for #1008): a cached chunk
of num_tokens new tokens attends over sliding_window_size + num_tokens - 1 keys, while the cache keeps only
sliding_window_size. `trace()` is the app's addition (cut from the code a screen shows, ui/draw/code.py): the same
computation, returning its intermediate tensors under the book's names.
"""
import torch
import torch.nn as nn

from attention_core.book.stages import attend, merge_heads


#####################################
# Chapter 3
#####################################
class MultiHeadAttentionWithSWA(nn.Module):
    def __init__(self, d_in, d_out, dropout, num_heads, qkv_bias=False, sliding_window_size=None):
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
        self.sliding_window_size = sliding_window_size

        ####################################################
        # KV cache-related code
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
        # KV cache-related
        if use_cache:
            old_cache_k, old_cache_v = self.cache_k, self.cache_v
            old_len = 0 if old_cache_k is None else old_cache_k.size(1)
            if old_cache_k is None:
                combined_k, combined_v = keys_new, values_new
            else:
                combined_k = torch.cat([old_cache_k, keys_new], dim=1)
                combined_v = torch.cat([old_cache_v, values_new], dim=1)

            keys, values = combined_k, combined_v
            if self.sliding_window_size is not None:
                # During chunked prefill we need up to W-1 older keys plus the whole
                # current chunk (so the earliest queries in the chunk keep their full
                # sliding-window context)
                attn_keep = min(keys.size(1), self.sliding_window_size + num_tokens - 1)
                keys = keys[:, -attn_keep:, :, :]
                values = values[:, -attn_keep:, :, :]

                cache_keep = min(combined_k.size(1), self.sliding_window_size)
                self.cache_k = combined_k[:, -cache_keep:, :, :]
                self.cache_v = combined_v[:, -cache_keep:, :, :]
            else:
                self.cache_k, self.cache_v = combined_k, combined_v

            dropped = combined_k.size(1) - keys.size(1)
            k_start_pos_abs = (self.ptr_current_pos - old_len) + dropped
            q_start_pos_abs = self.ptr_current_pos
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
        # causal + sliding-window mask
        num_tokens_Q = queries.shape[-2]
        num_tokens_K = keys.shape[-2]
        device = queries.device
        # Determine absolute positions for q and k
        if use_cache:
            q_start = q_start_pos_abs
            k_start = k_start_pos_abs
        else:
            q_start = 0
            k_start = 0
        q_positions = torch.arange(q_start, q_start + num_tokens_Q, device=device, dtype=torch.long)
        k_positions = torch.arange(k_start, k_start + num_tokens_K, device=device, dtype=torch.long)
        # Sliding window width
        W = num_tokens_K + 1 if self.sliding_window_size is None else int(self.sliding_window_size)
        diff = q_positions.unsqueeze(-1) - k_positions.unsqueeze(0)
        mask_bool = (diff < 0) | (diff >= W)
        if use_cache:
            self.ptr_current_pos += num_tokens_Q
        else:
            self.ptr_current_pos = 0

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

    def reset_cache(self):
        self.cache_k, self.cache_v = None, None
        self.ptr_current_pos = 0

    def trace(self, x, use_cache=False):
        """forward(x, use_cache) step by step (the cache and the pointer move exactly as forward moves them):
        the band mask, the keys kept, the scores, the weights and the context vectors under the book's names.
        Shapes: x (b, T, d_in); keys, values (b, h, T_K, head_dim); attn_weights (b, h, T, T_K)."""
        b, num_tokens, d_in = x.shape
        keys_new = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim)  # (b, T, h, head_dim)
        values_new = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim)
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim)
        if use_cache:
            old_cache_k, old_cache_v = self.cache_k, self.cache_v
            old_len = 0 if old_cache_k is None else old_cache_k.size(1)
            combined_k = keys_new if old_cache_k is None else torch.cat([old_cache_k, keys_new], dim=1)
            combined_v = values_new if old_cache_v is None else torch.cat([old_cache_v, values_new], dim=1)
            keys, values = combined_k, combined_v  # (b, old_len + T, h, head_dim)
            if self.sliding_window_size is not None:
                # the fix of #1013: W - 1 older keys and the whole chunk attend; the cache keeps W
                attn_keep = min(keys.size(1), self.sliding_window_size + num_tokens - 1)
                keys, values = keys[:, -attn_keep:], values[:, -attn_keep:]
                cache_keep = min(combined_k.size(1), self.sliding_window_size)
                self.cache_k, self.cache_v = combined_k[:, -cache_keep:], combined_v[:, -cache_keep:]
            else:
                self.cache_k, self.cache_v = combined_k, combined_v
            dropped = combined_k.size(1) - keys.size(1)
            k_start, q_start = (self.ptr_current_pos - old_len) + dropped, self.ptr_current_pos
        else:
            keys, values, k_start, q_start = keys_new, values_new, 0, 0
        keys, queries, values = keys.transpose(1, 2), queries.transpose(1, 2), values.transpose(1, 2)  # (b, h, ., hd)
        num_tokens_Q, num_tokens_K = queries.shape[-2], keys.shape[-2]
        q_positions = torch.arange(q_start, q_start + num_tokens_Q, device=x.device, dtype=torch.long)  # (T,)
        k_positions = torch.arange(k_start, k_start + num_tokens_K, device=x.device, dtype=torch.long)  # (T_K,)
        W = num_tokens_K + 1 if self.sliding_window_size is None else int(self.sliding_window_size)
        diff = q_positions.unsqueeze(-1) - k_positions.unsqueeze(0)  # (T, T_K): how far back each key lies
        mask_bool = (diff < 0) | (diff >= W)  # (T, T_K): the future, and keys W or more tokens back
        self.ptr_current_pos = self.ptr_current_pos + num_tokens_Q if use_cache else 0
        record = {"q_positions": q_positions, "k_positions": k_positions, "W": W, "diff": diff,
                  "mask_bool": mask_bool}
        heads_context = attend(queries, keys, values, mask_bool, self.dropout, record)  # (b, h, T, head_dim)
        merged = merge_heads(heads_context)  # (b, T, d_out)
        record.update(heads_context=heads_context, merged=merged, context_vec=self.out_proj(merged),
                      cache_len=0 if self.cache_k is None else self.cache_k.size(1))
        return record
