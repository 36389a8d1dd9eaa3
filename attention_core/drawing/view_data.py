"""What the browser-side attention view needs, computed in Python: numbers as fixed-point codes,
shades on the app's colour scales, the overview image, and the terms of one worked cell.

The browser only selects, formats and colours these; it computes no attention math. Every number it
prints is an integer code c meaning c / 10**DECIMALS, rounded here exactly as Python's f"{x:.4f}" rounds,
so the browser's text equals Python's text. Codes and shades are lists of integers, which Streamlit
sends as Arrow columns (uint16 for weights: 2 bytes a cell; a causal map sends only its lower triangle).
"""
import base64
import hashlib
import io

import numpy as np
import pandas as pd
from PIL import Image

from attention_core.drawing import colour, matrix_images

DECIMALS = 4
CELLS_MAX = 64  # up to this many tokens every cell is drawn; above, an overview image and a zoom window
WINDOW_SIZES = (32, 40, 48, 56, 64)
ARITHMETIC_MAX = 64  # q and k rows and the scores travel for the worked cell only up to this many tokens
SHADE_MASKED = 255  # shades 0..254 are palette positions; 255 is a masked or missing cell (hatched grey)


def fixed_codes(values, decimals: int = DECIMALS) -> np.ndarray:
    """round(x, decimals) as integers (int64), agreeing with f"{x:.{decimals}f}" on every finite x.

    x * 10**d in floating point can land exactly on .5 when x itself is just above or below it
    (0.12345 is stored as 0.123450000000000004...): those near-ties are decided by Python's formatting.
    Non-finite values become 0 (their cells are drawn as masked)."""
    x = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(x)
    scaled = np.where(finite, x, 0.0) * 10.0 ** decimals
    codes = np.rint(scaled)
    near_tie = finite & (np.abs(np.abs(scaled - np.trunc(scaled)) - 0.5) < 1e-6)
    for index in zip(*np.nonzero(near_tie)):
        codes[index] = int(f"{x[index]:.{decimals}f}".replace(".", ""))
    return codes.astype(np.int64)


def shade_fractions(values: np.ndarray, kind: str, scale: str, masked: np.ndarray):
    """(t in 0..1 per cell, palette, (low, high) of the colour bar, legend text), as colour.py colours.

    kind "weights" with scale "share" colours log2(weight × visible keys) over the map's 2nd..98th
    percentile; "absolute" colours 0..1; kind "scores" is diverging around 0."""
    if kind == "weights" and scale == "share":
        shares = colour.shares(values, masked)
        low, high = colour.share_range(shares)
        t = (np.where(shares == -np.inf, low, shares) - low) / (high - low)
        legend = f"{colour.times_even(low)} … {colour.times_even(high)} (this map's 2nd–98th percentile)"
        return t, colour.SHARES, (low, high), legend
    if kind == "scores":
        finite = values[np.isfinite(values) & ~masked]
        spread = float(np.abs(finite).max()) if finite.size else 1.0
        spread = spread or 1.0
        return (values / spread + 1) / 2, colour.REDBLUE, (-spread, spread), f"−{spread:.4g} … {spread:.4g}"
    return values, colour.BLUES, (0.0, 1.0), "0 … 1"


def _hex(palette: np.ndarray) -> list[str]:
    return ["#%02x%02x%02x" % tuple(int(round(c)) for c in stop) for stop in palette]


def _causal(values: np.ndarray, kind: str) -> np.ndarray:
    if kind == "scores":  # a masked score is -inf; only a whole upper triangle of them counts as causal
        above = np.triu(np.ones(values.shape, dtype=bool), k=1)
        return above if values.shape[0] > 1 and (values[above] == -np.inf).all() else np.zeros_like(above)
    return colour.masked_cells(values)


def stored_cells(rows: int, cols: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the cells sent, in the order sent (row by row; "lower": j <= i only)."""
    if layout == "lower":
        return np.tril_indices(rows)
    return np.indices((rows, cols)).reshape(2, -1)


def _png_base64(rgb: np.ndarray) -> str:
    buffer = io.BytesIO()
    Image.fromarray(rgb).save(buffer, "PNG")  # optimize=True saved 2 % of the bytes for 5x the time here
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def view_payload(matrix, labels, kind: str = "weights", scale: str = "absolute", title: str = "",
                 query: int = 1, key: int = 1, window: int | None = None, window_key: int | None = None, window_size: int = 32,
                 q=None, k=None, scores=None, symbol: str = "ω", font_scale: float = 1.0,
                 parts: tuple = ("matrix", "row", "cell", "arithmetic")) -> dict:
    """The view's `data`: a JSON dict "meta" plus Arrow-bound DataFrames. Positions are 1-based, as in the URL;
    a window left None starts centred on the selected cell.

    matrix: (T, T) weights or scores; q, k: (T, d) query and key rows and scores: (T, T) q·k, for the
    worked cell (sent only up to ARITHMETIC_MAX tokens). parts: which of the view's pictures to show (a
    screen that draws the matrix and the row in two places mounts two views of one payload)."""
    values = np.asarray(matrix, dtype=np.float64)  # (T, T)
    rows, cols = values.shape
    masked = _causal(values, kind)
    layout = "lower" if masked.any() else "full"
    t, palette, (low, high), legend = shade_fractions(values, kind, scale, masked)
    shade = np.rint(np.clip(np.nan_to_num(t, nan=0.0), 0, 1) * (SHADE_MASKED - 1)).astype(np.uint8)
    shade[masked | ~np.isfinite(values)] = SHADE_MASKED
    codes = fixed_codes(values)
    i, j = stored_cells(rows, cols, layout)
    code_type = np.uint16 if codes.min() >= 0 and codes.max() <= np.iinfo(np.uint16).max else np.int32
    data = {"cells": pd.DataFrame({"code": codes[i, j].astype(code_type), "shade": shade[i, j]})}
    size = min(max(window_size, WINDOW_SIZES[0]), WINDOW_SIZES[-1], rows)
    meta = {
        "id": hashlib.sha1(values.tobytes() + repr((kind, scale, query, key, window, window_key, size)).encode()).hexdigest()[:16],
        "rows": rows, "cols": cols, "kind": kind, "title": title, "layout": layout, "decimals": DECIMALS,
        "labels": [str(label) for label in labels][:max(rows, cols)], "stops": _hex(palette),
        "masked": ["#%02x%02x%02x" % colour.MASKED_RGB, "#%02x%02x%02x" % colour.MASKED_STRIPE],
        "legend": legend, "domain": [low, high], "cells_max": CELLS_MAX, "window_sizes": list(WINDOW_SIZES),
        "initial": {"query": query, "key": key, "window": window, "window_key": window_key, "window_size": size},
        "font_scale": font_scale, "symbol": symbol, "overview": None, "d": 0, "parts": list(parts),
    }
    if max(rows, cols) > CELLS_MAX:
        image, blocks, _ = matrix_images.overview(values, "share" if scale == "share" else kind)
        meta["overview"] = {"png": _png_base64(image), "blocks": blocks}
    if q is not None and k is not None and scores is not None and max(rows, cols) <= ARITHMETIC_MAX:
        q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)  # (T, d) each
        meta["d"] = q.shape[1]
        data["q"] = pd.DataFrame({"code": fixed_codes(q).reshape(-1).astype(np.int32)})
        data["k"] = pd.DataFrame({"code": fixed_codes(k).reshape(-1).astype(np.int32)})
        data["scores"] = pd.DataFrame({"code": fixed_codes(scores).reshape(-1).astype(np.int32)})
    data["meta"] = meta
    return data
