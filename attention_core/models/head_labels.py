"""What a head does, read off its attention map: previous token, first-token sink, same token, or broad.

Every score is an average over the query rows where the pattern can show (row 1 sees only
itself, so it is left out), so a head that always does one thing scores close to 1.
"""
import math
from dataclasses import dataclass

import torch

THRESHOLD = 0.4  # a pattern names the head when it takes at least this share of the weight on average
BROAD = 0.7  # entropy / log(visible keys) above this: the head spreads its weight (no single pattern)

LABELS = {
    "previous": "previous token",
    "first": "first-token sink",
    "duplicate": "same token earlier",
    "self": "itself",
    "broad": "broad",
    "mixed": "mixed",
}


@dataclass(frozen=True)
class HeadScores:
    previous: float  # mean weight on the token just before
    first: float  # mean weight on the first token
    duplicate: float  # mean weight on earlier copies of the query's own token (nan when no token repeats)
    self: float  # mean weight on the query token itself
    spread: float  # mean entropy / log(visible keys): 0 = one key, 1 = uniform
    label: str  # a key of LABELS


def score_heads(attn_weights: torch.Tensor, ids: list[int]) -> list[list[HeadScores]]:
    """attn_weights: (layers, heads, T, T) for one sequence; ids: its T token ids -> [layer][head] scores."""
    w = attn_weights.detach().float().cpu()
    layers, heads, T, _ = w.shape
    if T < 2:
        return [[HeadScores(math.nan, math.nan, math.nan, math.nan, math.nan, "mixed")] * heads] * layers
    rows = torch.arange(1, T)  # queries 2..T
    previous = w[..., rows, rows - 1].mean(-1)  # (layers, heads)
    first = w[..., 1:, 0].mean(-1)
    itself = w[..., rows, rows].mean(-1)
    ids_t = torch.tensor(ids)
    earlier_copy = (ids_t[:, None] == ids_t[None, :]) & torch.tril(torch.ones(T, T, dtype=torch.bool), -1)  # (T, T)
    repeats = earlier_copy.any(-1)  # queries whose token appeared before
    duplicate = ((w * earlier_copy).sum(-1)[..., repeats].mean(-1) if repeats.any()
                 else torch.full((layers, heads), math.nan))
    logs = torch.where(w > 0, w.log(), torch.zeros_like(w))
    entropy = -(w * logs).sum(-1)[..., 1:]  # (layers, heads, T-1)
    spread = (entropy / torch.log(rows.float() + 1)).mean(-1)
    return [[_scored(float(previous[l, h]), float(first[l, h]), float(duplicate[l, h]), float(itself[l, h]),
                     float(spread[l, h])) for h in range(heads)] for l in range(layers)]


def _scored(previous, first, duplicate, itself, spread) -> HeadScores:
    patterns = {"previous": previous, "first": first, "self": itself,
                "duplicate": 0.0 if math.isnan(duplicate) else duplicate}
    best = max(patterns, key=patterns.get)
    if patterns[best] >= THRESHOLD:
        label = best
    elif spread >= BROAD:
        label = "broad"
    else:
        label = "mixed"
    return HeadScores(previous, first, duplicate, itself, spread, label)
