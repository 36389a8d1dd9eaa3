"""Each attention weight against an even split: what the share colour scale (colour.SHARE) colours.

A query that may see n keys gives them weights that average 1/n, so at 1,024 tokens a 0..1 scale
paints every cell the colour of zero. A weight's share is log2(weight × n): 0 is exactly 1/n, 1 twice
that, -1 half. Masked cells (the future, for a causal map) are no weights at all: nan here.
"""
import numpy as np

MIN_SHARE_SPAN = 0.25  # log2 units: a perfectly even map is drawn on 0.92× .. 1.09× (pale to dark), not on noise

# "× even share" in words, for a legend or caption wherever the share scale colours a map.
SHARE_WORDS = ("× even share: each weight divided by 1/n, the weight every one of its query's n visible keys "
               "would get if the query attended evenly. 1× is an even share, 4× four times that, 0.25× a quarter; "
               "the colours step on a log scale.")


def masked_cells(weights) -> np.ndarray:
    """Where a weights map is masked: for a causal map (every cell above the diagonal exactly 0 and a
    non-zero below), the cells above the diagonal; otherwise nothing. Dropped cells (zeros below the
    diagonal) are weights of 0, not masked."""
    values = np.asarray(weights, dtype=np.float64)
    rows, cols = values.shape
    above = np.triu(np.ones((rows, cols), dtype=bool), k=1)
    if rows < 2 or cols < 2 or not above.any():
        return np.zeros((rows, cols), dtype=bool)
    causal = bool((values[above] == 0).all()) and bool((values[~above] != 0).any())
    return above if causal else np.zeros((rows, cols), dtype=bool)


def shares(weights, masked: np.ndarray | None = None) -> np.ndarray:
    """log2(weight × visible keys) per cell; masked cells are nan, a weight of exactly 0 is -inf.
    weights: (T, T), or a stack (..., T, T) with `masked` (T, T) given (every GPT-2 head at once)."""
    values = np.asarray(weights, dtype=np.float64)
    masked = masked_cells(values) if masked is None else masked
    visible = (~masked).sum(axis=-1, keepdims=True).clip(min=1)  # (T, 1): keys each query may see
    with np.errstate(divide="ignore"):
        result = np.log2(values * visible)
    result[..., masked] = np.nan
    return result


def share_range(share_values: np.ndarray) -> tuple[float, float]:
    """The 2nd and 98th percentiles of the finite shares, at least MIN_SHARE_SPAN apart, around 0 when flat."""
    finite = share_values[np.isfinite(share_values)]
    if finite.size == 0:
        return -MIN_SHARE_SPAN / 2, MIN_SHARE_SPAN / 2
    low, high = (float(v) for v in np.percentile(finite, [2, 98]))
    if high - low < MIN_SHARE_SPAN:
        middle = (high + low) / 2
        low, high = middle - MIN_SHARE_SPAN / 2, middle + MIN_SHARE_SPAN / 2
    return low, high


def share_context(weights, dtype=np.float64) -> tuple[np.ndarray, np.ndarray, tuple[float, float]]:
    """(masked cells, log2 shares, share range) of a whole weights map: the one place they are worked
    out, for its Altair cells, its overview image and the zoom windows cut from it (a window's shares
    count the keys of the whole row, and its range is the whole map's). dtype float32 halves what a
    kept context of a 1,024-token map holds (5 MB)."""
    masked = masked_cells(weights)
    share_values = shares(weights, masked).astype(dtype, copy=False)
    return masked, share_values, share_range(share_values)


def times_even(log2_share: float) -> str:
    """A share as plain words: 2 -> '4× even', -1 -> '0.5× even'."""
    return f"{2 ** log2_share:.2g}× even"
