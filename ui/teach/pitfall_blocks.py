"""Each stage's "Common mistakes" section (ui/sections.py, name "mistakes"): every mistake of that step with its numbers.

A screen ends with one call to its block; the wrong and the right versions are computed by
attention_core/lessons/pitfalls.py, and this file only words them, so the screens stay an outline of the lesson.
"""
import torch

from attention_core.book import stages
from attention_core.drawing import numbers
from attention_core.lessons import pitfalls
from ui.checks import pitfall
from ui.settings import Settings


def softmax_pitfalls(scores: torch.Tensor) -> None:
    """Softmax over the wrong axis; scores: (T, T) ω = q · k."""
    wrong_dim = pitfalls.softmax_wrong_dim(scores)
    pitfall("Softmax over the wrong dimension", "torch.softmax(attn_scores, dim=0)",
            "torch.softmax(attn_scores, dim=-1)",
            f"Each key's column sums to 1, so the rows a query mixes with sum to {numbers.listing(wrong_dim['wrong_row_sums'])}.",
            f"Each query's row sums to {numbers.listing(wrong_dim['right_row_sums'])}.")


def mask_pitfalls(record: dict, unmasked: torch.Tensor, tokens: int) -> None:
    """A float16 mask value, a fully masked row, and no mask at all; unmasked: (T, T) weights without a mask."""
    fp16 = pitfalls.mask_value_in_float16(record["attn_scores"])
    pitfall("`-1e9` as the mask value in float16", "scores.half().masked_fill(mask, -1e9)",
            "scores.half().masked_fill(mask, -torch.inf)",
            f"PyTorch refuses: {fp16['error']} (float16 stops at 65,504)." if fp16["error"]
            else "No error on this device, but -1e9 is not exactly -inf.",
            f"Works in every dtype; row sums {float(fp16['right'].sum(dim=-1).min()):.4f} … "
            f"{float(fp16['right'].sum(dim=-1).max()):.4f}.")
    row = pitfalls.fully_masked_row(min(tokens, 6))  # a few keys are enough to show the even spread
    pitfall("A row with every key masked (padding)", "torch.softmax(torch.full((n,), -1e9), dim=-1)",
            "torch.softmax(torch.full((n,), -torch.inf), dim=-1)  # then handle the nan row",
            f"{', '.join(f'{float(v):.4f}' for v in row['with_minus_1e9'])}: silently spreads its weight "
            "evenly over keys it must not see.",
            f"{', '.join(str(float(v)) for v in row['with_inf'])}: nan, loud, so the bug is found "
            "(real code zeroes such rows or never masks a whole row).")
    leak = pitfalls.future_leak(unmasked)  # (T,): each query's weight on later tokens
    worst = int(leak.argmax())
    pitfall("Forgetting the mask", "torch.softmax(attn_scores / d_k**0.5, dim=-1)",
            "torch.softmax(attn_scores.masked_fill(mask, -torch.inf) / d_k**0.5, dim=-1)",
            f"Every row but the last puts weight on later tokens; query {worst + 1} gives "
            f"{float(leak[worst]):.4f} of its weight to the future.",
            "0.0000 of every row's weight goes to later tokens.")


def dropout_pitfalls(settings: Settings, p: float) -> None:
    """Dropout left on at inference: two predictions of the same input differ."""
    rate = p if 0 < p < 1 else 0.5  # p = 0 or 1 would show no randomness: the book's 0.5 instead
    runs = pitfalls.causal_dropout_at_inference(settings.x, settings.d_out, rate, settings.seed_for("dropout"))
    pitfall(f"Dropout left on at inference (p = {rate:g})", "model(x)  # still in model.train() mode",
            "model.eval()\nwith torch.no_grad():\n    model(x)",
            f"Two predictions for the same input differ by up to {runs['train_diff']:.4f}: "
            "the model's answers are random.",
            f"Two predictions differ by {runs['eval_diff']:.4f}: eval mode switches dropout off.")


def heads_pitfalls(mha: dict, d_out: int, num_heads: int, q: int) -> None:
    """Scaling every head by √d_out instead of √head_dim; mha: MultiHeadAttention's trace, (1, h, T, …) tensors."""
    flat = pitfalls.scale_by_model_dim(mha["queries"], mha["keys"], d_out)  # (1, h, T, T) each
    pitfall("Scaling by √d_out instead of √head_dim", "attn_scores / d_out**0.5",
            "attn_scores / head_dim**0.5  # keys.shape[-1]",
            f"head 1, query {q + 1}: largest weight {float(flat['wrong'][0, 0, q].max()):.4f}, entropy "
            f"{float(stages.entropy(flat['wrong'][0, 0, q])):.4f}: flatter by a factor √{num_heads} in the "
            "exponent.",
            f"head 1, query {q + 1}: largest weight {float(flat['right'][0, 0, q].max()):.4f}, entropy "
            f"{float(stages.entropy(flat['right'][0, 0, q])):.4f}.")
