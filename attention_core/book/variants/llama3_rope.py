"""RoPE as the book prints it: pkg/llms_from_scratch/llama3.py of rasbt/LLMs-from-scratch (used by ch05/07_gpt_to_llama).

`compute_rope_params` and `apply_rope` are the book's code, line for line: the angles position · inv_freq for
head_dim / 2 frequencies, laid out twice ([θ1, θ2, …, θ1, θ2, …], the book's issue #838), and the two halves of each
head's vector rotated together (dimension i turns with dimension i + head_dim / 2). The original paper and Meta's
code pair neighbours instead (2i with 2i + 1; the book's issues #746, #751): attention_core/lessons/rope.py shows
that the two agree once the weights are permuted. The book's file also holds Llama's model, blocks and tokenizer;
only these two functions are the attention's.
"""
import torch


def compute_rope_params(head_dim, theta_base=10_000, context_length=4096, freq_config=None, dtype=torch.float32):
    assert head_dim % 2 == 0, "Embedding dimension must be even"

    # Compute the inverse frequencies
    inv_freq = 1.0 / (theta_base ** (torch.arange(0, head_dim, 2, dtype=dtype)[: (head_dim // 2)].float() / head_dim))

    # Frequency adjustments
    if freq_config is not None:
        low_freq_wavelen = freq_config["original_context_length"] / freq_config["low_freq_factor"]
        high_freq_wavelen = freq_config["original_context_length"] / freq_config["high_freq_factor"]

        wavelen = 2 * torch.pi / inv_freq

        inv_freq_llama = torch.where(
            wavelen > low_freq_wavelen, inv_freq / freq_config["factor"], inv_freq
        )

        smooth_factor = (freq_config["original_context_length"] / wavelen - freq_config["low_freq_factor"]) / (
            freq_config["high_freq_factor"] - freq_config["low_freq_factor"]
        )

        smoothed_inv_freq = (
            (1 - smooth_factor) * (inv_freq / freq_config["factor"]) + smooth_factor * inv_freq
        )

        is_medium_freq = (wavelen <= low_freq_wavelen) & (wavelen >= high_freq_wavelen)
        inv_freq_llama = torch.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)
        inv_freq = inv_freq_llama

    # Generate position indices
    positions = torch.arange(context_length, dtype=dtype)

    # Compute the angles
    angles = positions.unsqueeze(1) * inv_freq.unsqueeze(0)  # Shape: (context_length, head_dim // 2)

    # Expand angles to match the head_dim
    angles = torch.cat([angles, angles], dim=1)  # Shape: (context_length, head_dim)

    # Precompute sine and cosine
    cos = torch.cos(angles)
    sin = torch.sin(angles)

    return cos, sin


def apply_rope(x, cos, sin):
    # x: (batch_size, num_heads, seq_len, head_dim)
    batch_size, num_heads, seq_len, head_dim = x.shape
    assert head_dim % 2 == 0, "Head dimension must be even"

    # Split x into first half and second half
    x1 = x[..., : head_dim // 2]  # First half
    x2 = x[..., head_dim // 2:]  # Second half

    # Adjust sin and cos shapes
    cos = cos[:seq_len, :].unsqueeze(0).unsqueeze(0)  # Shape: (1, 1, seq_len, head_dim)
    sin = sin[:seq_len, :].unsqueeze(0).unsqueeze(0)

    # Apply the rotary transformation
    rotated = torch.cat((-x2, x1), dim=-1)
    x_rotated = (x * cos) + (rotated * sin)

    # It's ok to use lower-precision after applying cos and sin rotation
    return x_rotated.to(dtype=x.dtype)


def trace(x, cos, sin):
    """apply_rope's intermediate tensors under its own names (the app's addition): x1, x2, rotated, x_rotated."""
    seq_len, head_dim = x.shape[2], x.shape[3]  # x: (b, h, T, head_dim)
    x1, x2 = x[..., : head_dim // 2], x[..., head_dim // 2:]  # (b, h, T, head_dim / 2) each
    rotated = torch.cat((-x2, x1), dim=-1)  # (b, h, T, head_dim)
    return {"x1": x1, "x2": x2, "cos": cos[:seq_len], "sin": sin[:seq_len], "rotated": rotated,
            "x_rotated": apply_rope(x, cos, sin)}
