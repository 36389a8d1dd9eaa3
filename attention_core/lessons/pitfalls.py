"""Mistakes people really make with attention, each computed next to the right version.

Every function returns plain results (tensors, shapes or the error PyTorch raises) so a screen can
show the wrong code's numbers beside the right ones, and a test can check the claim. Each takes the lesson's own
matrix (its scores, with its mask and its d_k) and changes only the mistake: the right version is the lesson's
numbers (tests/test_mistakes_on_the_lesson.py), never softmax over keys the lesson masks.
"""
import torch

from attention_core.book import stages
from attention_core.book.seeding import build_seeded


def precedence(attn_scores: torch.Tensor, d_k: int) -> dict:
    """`/ d_k*0.5` is `(scores / d_k) * 0.5`: a division by 2·d_k, not by sqrt(d_k)."""
    return {"wrong": torch.softmax(attn_scores / d_k*0.5, dim=-1),  # noqa: E226 (the bug as people type it)
            "right": torch.softmax(attn_scores / d_k**0.5, dim=-1)}


def scale_by_model_dim(queries: torch.Tensor, keys: torch.Tensor, d_model: int, mask_bool: torch.Tensor | None) -> dict:
    """Multi-head scores scaled by sqrt(d_model) instead of sqrt(head_dim): too flat by sqrt(h).

    queries, keys: (b, h, T, head_dim); mask_bool: (T, T) the lesson's mask (True on a future key), or None. The
    scores are masked as the lesson's are, so only the divisor differs from its weights.
    """
    scores = stages.attn_scores(queries, keys)  # (b, h, T, T)
    masked = scores if mask_bool is None else scores.masked_fill(mask_bool, -torch.inf)
    return {"wrong": torch.softmax(masked / d_model**0.5, dim=-1),
            "right": torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)}


def softmax_wrong_dim(attn_scores: torch.Tensor, d_k: int | None = None) -> dict:
    """softmax(dim=0) normalises each key's column: the rows (what a query mixes) no longer sum to 1.
    attn_scores: (T, T) the lesson's scores; d_k: its scaling (None: unscaled), so the right version is its weights."""
    scaled = attn_scores if d_k is None else attn_scores / d_k**0.5  # (T, T)
    wrong = torch.softmax(scaled, dim=0)
    right = torch.softmax(scaled, dim=-1)
    return {"wrong": wrong, "right": right, "wrong_row_sums": wrong.sum(dim=-1), "right_row_sums": right.sum(dim=-1)}


def future_leak(unmasked_weights: torch.Tensor) -> torch.Tensor:
    """Without a mask, the weight each query puts on tokens after it (0 for a correct mask). (T,)"""
    future = stages.causal_mask(unmasked_weights.shape[-1], unmasked_weights.device)  # 1 above the diagonal
    return (unmasked_weights * future).sum(dim=-1)


def mask_value_in_float16(attn_scores: torch.Tensor, d_k: int | None = None) -> dict:
    """-1e9 does not fit in float16 (max 65504): masked_fill raises; -inf works in every dtype.
    attn_scores: (T, T) the lesson's unmasked scores; d_k: its scaling, so the right version is its weights (in
    float16's precision)."""
    half = attn_scores.half()
    future = stages.causal_mask(half.shape[-1], half.device).bool()
    try:
        half.masked_fill(future, -1e9)
        error = None
    except RuntimeError as caught:
        error = str(caught).splitlines()[0]
    right = torch.softmax(half.masked_fill(future, -torch.inf).float() / (d_k or 1)**0.5, dim=-1)  # (T, T)
    return {"error": error, "right": right}


def fully_masked_row(num_keys: int) -> dict:
    """A row whose every key is masked (e.g. padding): -inf gives nan, -1e9 silently attends evenly."""
    return {"with_inf": torch.softmax(torch.full((num_keys,), -torch.inf), dim=-1),
            "with_minus_1e9": torch.softmax(torch.full((num_keys,), -1e9), dim=-1)}


def dropout_at_inference(module: torch.nn.Module, x: torch.Tensor, seeds=(1, 2)) -> dict:
    """Forgetting model.eval(): two runs on the same input differ; in eval mode they agree."""
    module.train()
    with torch.no_grad():
        runs = [build_seeded(module, seed, x) for seed in seeds]  # nn.Dropout draws from the global RNG
    module.eval()
    with torch.no_grad():
        evals = [module(x), module(x)]
    return {"train_diff": stages.max_abs_diff(runs[0], runs[1]), "eval_diff": stages.max_abs_diff(*evals)}


def causal_dropout_at_inference(x: torch.Tensor, d_out: int, p: float, seed: int) -> dict:
    """dropout_at_inference for the book's CausalAttention(d_in, d_out, T, p) built under `seed`, on x (T, d_in)."""
    from attention_core.book.modules import CausalAttention
    module = build_seeded(CausalAttention, seed, x.shape[-1], d_out, x.shape[0], p)
    return dropout_at_inference(module, x[None])


def transpose_batched(queries: torch.Tensor, keys: torch.Tensor) -> dict:
    """`keys.T` on a (b, T, d) tensor reverses all three dims to (d, T, b); transpose(1, 2) is meant."""
    wrong_shape = tuple(keys.permute(*reversed(range(keys.dim()))).shape)  # what keys.T gives
    try:
        result = queries @ keys.permute(*reversed(range(keys.dim())))
        error = None
        wrong_result_shape = tuple(result.shape)
    except RuntimeError as caught:
        error, wrong_result_shape = str(caught).splitlines()[0], None
    return {"keys_T_shape": wrong_shape, "error": error, "wrong_result_shape": wrong_result_shape,
            "right_shape": tuple(keys.transpose(1, 2).shape),
            "right_result_shape": tuple((queries @ keys.transpose(1, 2)).shape)}
