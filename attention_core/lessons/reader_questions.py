"""The questions readers of chapter 3 actually ask, each answered by computing both versions.

From the book's issue tracker (rasbt/LLMs-from-scratch): the dropout scale (issues 428, 431),
where dropout goes (280), the mask as a buffer (bonus notebook ch03/03_understanding-buffers),
d_out in the two multi-head classes (pull request 859), splitting into heads, and why dropout
numbers differ across platforms. Every function returns numbers, shapes or PyTorch's own error
message, never prose, so a screen can show them and a test can check the claim.
"""
import torch
import torch.nn as nn

from attention_core.book import stages
from attention_core.book.modules import (CausalAttention, MultiHeadAttention, MultiHeadAttentionWrapper, count_parameters,
                                         mha_parameter_count, wrapper_parameter_count)
from attention_core.book.seeding import build_seeded


# --- 1/p against 1/(1 - p) ----------------------------------------------------------------------

def keeps_expectation(factor: float, p: float) -> bool:
    """A survivor scale is right when survival probability x scale = 1 (the average weight is kept)."""
    return abs((1 - p) * factor - 1) < 1e-6


def dropout_scale(ps=(0.1, 0.2, 0.5), cells: int = 100_000, seed: int = 123) -> list[dict]:
    """For each p: what nn.Dropout really multiplies survivors by, and the average of a tensor of
    ones after dropout with PyTorch's scale 1/(1 - p) and with the expected 1/p (same keep mask)."""
    rows = []
    for p in ps:
        out = build_seeded(nn.Dropout(p).train(), seed, torch.ones(cells))  # torch.manual_seed(seed); dropout(ones)
        kept = (out > 0).float()  # (cells,)
        rows.append({"p": p, "1/p": 1 / p, "1/(1-p)": 1 / (1 - p), "nn.Dropout survivor value": float(out.max()),
                     "share kept": float(kept.mean()), "mean with 1/(1-p)": float(out.mean()),
                     "mean with 1/p": float((kept / p).mean())})
    return rows


# --- dropout on the weights, not on the scores ---------------------------------------------------

def dropout_placement(attn_scores: torch.Tensor, p: float, seed: int, d_k: int = 1) -> dict:
    """The book's order (mask, softmax, then dropout on the weights) against dropout on the scores.

    attn_scores: (T, T) raw causal-attention scores q·k (scaled by √d_k as the book does). Both
    versions use the same keep mask.
    Dropout on the scores sets a dropped score to 0, not to -inf: softmax then still gives that key
    a weight, and every row sums to exactly 1, so nothing was dropped. On scores that are already
    masked, dropout multiplies -inf by 0 and the row becomes nan.
    """
    num_tokens = attn_scores.shape[-1]
    masked = stages.mask_scores(attn_scores)  # (T, T), -inf in the future
    weights = stages.softmax(stages.scale_scores(masked, d_k))
    right, keep = stages.dropout(weights, p, seed)  # (T, T) each
    on_scores, _ = stages.dropout(attn_scores, p, seed)
    wrong = stages.softmax(stages.scale_scores(stages.mask_scores(on_scores), d_k))
    after_mask, _ = stages.dropout(masked, p, seed)  # -inf * 0 = nan
    visible = stages.mask_simple(num_tokens).bool()
    dropped = visible & (keep == 0)
    return {"keep": keep, "right": right, "wrong": wrong, "dropped": dropped,
            "right_on_dropped": right[dropped], "wrong_on_dropped": wrong[dropped],
            "right_row_sums": right.sum(dim=-1), "wrong_row_sums": wrong.sum(dim=-1),
            "nan_rows_if_after_mask": int(torch.isnan(stages.softmax(after_mask)).any(dim=-1).sum())}


def dropped_keys_get_nothing(weights: torch.Tensor, dropped: torch.Tensor) -> bool:
    """What dropout promises: a dropped link carries no weight at all."""
    return bool((weights[dropped] == 0).all())


# --- splitting into heads ------------------------------------------------------------------------

def head_split(num_tokens: int = 6, d_out: int = 4, num_heads: int = 2) -> dict:
    """Where each token's numbers end up: the right split, view(b, T, h, d).transpose(1, 2), and the
    wrong one, view(b, h, T, d). Every entry is tagged with its token and column, so the result says
    which token and which columns fill head i's row t."""
    head_dim = d_out // num_heads
    tokens = torch.arange(num_tokens).view(1, num_tokens, 1).expand(1, num_tokens, d_out)
    columns = torch.arange(d_out).view(1, 1, d_out).expand(1, num_tokens, d_out)
    tagged = (tokens * d_out + columns).float()  # (1, T, d_out): entry = token * d_out + column
    right = stages.split_heads(tagged, num_heads)  # (1, h, T, head_dim)
    wrong = tagged.reshape(1, num_heads, num_tokens, head_dim)  # the mistake: same shape, no transpose

    def rows(split):
        """rows[i][t] = the (token, first column, last column) pieces, 1-based, of head i's row t."""
        tags = split[0].long()  # (h, T, head_dim); a row never spans two tokens (head_dim divides d_out)
        return [[(int(tags[i, t, 0]) // d_out + 1, int(tags[i, t, 0]) % d_out + 1, int(tags[i, t, -1]) % d_out + 1)
                 for t in range(num_tokens)] for i in range(num_heads)]

    return {"right": rows(right), "wrong": rows(wrong), "head_dim": head_dim,
            "right_shape": tuple(right.shape), "wrong_shape": tuple(wrong.shape),
            "right_tokens": [sorted({r[0] for r in head}) for head in rows(right)],
            "wrong_tokens": [sorted({r[0] for r in head}) for head in rows(wrong)]}


def split_keeps_tokens(rows: list[list[tuple]]) -> bool:
    """Right when row t of every head holds token t's own numbers."""
    return all(piece[0] == t + 1 for head in rows for t, piece in enumerate(head))


# --- d_out in the wrapper and in MultiHeadAttention ----------------------------------------------

def d_out_meaning(x: torch.Tensor, d_out: int, num_heads: int, seed: int = 123) -> dict:
    """The same constructor arguments in both classes: output widths, per-head widths, parameters.

    x: (T, d_in). The wrapper gives every head d_out columns (output num_heads * d_out wide);
    MultiHeadAttention splits d_out among the heads (output d_out wide).
    """
    batch = x[None]  # (1, T, d_in)
    d_in, num_tokens = x.shape[-1], x.shape[0]
    wrapper = build_seeded(MultiHeadAttentionWrapper, seed, d_in, d_out, num_tokens, 0.0, num_heads)
    mha = build_seeded(MultiHeadAttention, seed, d_in, d_out, num_tokens, 0.0, num_heads)
    narrow = build_seeded(MultiHeadAttentionWrapper, seed, d_in, d_out // num_heads, num_tokens, 0.0, num_heads)
    with torch.no_grad():
        wrapper_out, mha_out, narrow_out = wrapper(batch), mha(batch), narrow(batch)
    return {"wrapper_shape": tuple(wrapper_out.shape), "mha_shape": tuple(mha_out.shape),
            "wrapper_head_width": wrapper.heads[0].W_query.out_features, "mha_head_dim": mha.head_dim,
            "wrapper_params": count_parameters(wrapper), "mha_params": count_parameters(mha),
            "wrapper_d_out_for_same_width": d_out // num_heads, "wrapper_shape_for_same_width": tuple(narrow_out.shape)}


def d_out_meaning_counted(num_tokens: int, d_in: int, d_out: int, num_heads: int) -> dict:
    """d_out_meaning's answers from the constructor arguments alone, for sizes whose wrapper is too large to build
    (1,024 full-width heads of 1,024 dims: 3.2 billion parameters, 12.9 GB): the same keys, counted, not measured."""
    narrow = d_out // num_heads
    return {"wrapper_shape": (1, num_tokens, num_heads * d_out), "mha_shape": (1, num_tokens, d_out),
            "wrapper_head_width": d_out, "mha_head_dim": narrow,
            "wrapper_params": wrapper_parameter_count(d_in, d_out, num_heads),
            "mha_params": mha_parameter_count(d_in, d_out, num_heads),
            "wrapper_d_out_for_same_width": narrow, "wrapper_shape_for_same_width": (1, num_tokens, num_heads * narrow)}


# --- the mask as a buffer or as a plain attribute ------------------------------------------------

class CausalAttentionPlainMask(nn.Module):
    """CausalAttention with the mistake readers make: `self.mask = ...` instead of register_buffer."""

    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.d_out = d_out
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)  # a plain attribute

    trace = CausalAttention.trace  # the same computation as the book's class


def default_target() -> str:
    """A GPU when there is one; else the meta device, which has shapes and devices but no data."""
    return "cuda" if torch.cuda.is_available() else "meta"


def mask_storage(d_in: int = 3, d_out: int = 2, context_length: int = 6, target: str | None = None) -> dict:
    """Both classes moved with `.to(target)`: where each tensor ends up, what state_dict saves, and
    what a forward pass on `target` does (the output's device, or PyTorch's error message)."""
    target = target or default_target()
    result = {"target": target}
    for name, factory in (("buffer", CausalAttention), ("attribute", CausalAttentionPlainMask)):
        module = build_seeded(factory, 123, d_in, d_out, context_length, 0.0).to(target)
        tensors = {n: str(t.device) for n, t in module.named_parameters()}
        tensors |= {n: str(t.device) for n, t in module.named_buffers()}
        tensors.setdefault("mask", str(module.mask.device))  # the plain attribute, which .to() skipped
        x = torch.ones(1, context_length, d_in, device=target)
        try:
            with torch.no_grad():
                out = module.trace(x)["context_vec"]
            error, output = None, f"{tuple(out.shape)} on {out.device}"
        except RuntimeError as caught:
            error, output = str(caught).splitlines()[0], None
        result[name] = {"devices": tensors, "state_dict": list(module.state_dict()), "error": error, "output": output}
    return result


# --- platforms and the app's private generator ---------------------------------------------------

def platform_dropout(attn_weights: torch.Tensor, p: float = 0.5, seed: int = 123) -> dict:
    """Why the book's dropout numbers can differ: they come from one global generator.

    attn_weights: (T, T). Compares the book's `torch.manual_seed(seed); nn.Dropout(p)(w)` with the
    same call after one extra random draw (another visitor, a library) and with the app's private
    generator, and on every accelerator present with the same seed there.
    """
    def book(extra_draws: int, device="cpu"):
        def run():
            if extra_draws:
                torch.rand(extra_draws, device=device)
            return nn.Dropout(p).train()(attn_weights.to(device)).cpu()
        return build_seeded(run, seed, device_type=None if device == "cpu" else device)

    reference = book(0)
    shifted = book(1)
    app = stages.dropout(attn_weights, p, seed)[0]
    app_again = (torch.rand(1), stages.dropout(attn_weights, p, seed)[0])[1]  # someone else draws in between
    devices = {}
    for device in [d for d, ok in (("cuda", torch.cuda.is_available()),
                                   ("mps", getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()))
                   if ok]:
        theirs = book(0, device)
        devices[device] = int(((theirs == 0) != (reference == 0)).sum())
    return {"book_vs_app": stages.max_abs_diff(reference, app),
            "cells_changed_by_one_extra_draw": int(((shifted == 0) != (reference == 0)).sum()),
            "app_repeatable": stages.max_abs_diff(app, app_again), "cells": reference.numel(),
            "accelerator_cells_differing": devices, "torch_version": torch.__version__,
            "reference": reference, "shifted": shifted}
