"""The attention view's colours, computed in Python: where each cell sits on its palette (a shade, 1 byte), the
range of values each shade holds (for a cell whose exact value was not sent), and the overview's blocks as shades.
The browser ramps the scale's stops (ColourScale.stops) at shade / 254, as ColourScale.ramp does at t, so its colours
are colour.py's."""
import numpy as np
import pandas as pd

from attention_core.drawing import colour, matrix_images

SHADE_MASKED = 255  # shades 0..254 are palette positions; 255 is a masked or missing cell (hatched grey)


def shade_fractions(values: np.ndarray, scale: colour.ColourScale, masked: np.ndarray):
    """(t in 0..1 per cell, (low, high) of the colour bar, legend text) on `scale`, as its images colour: the share
    scale colours log2(weight × visible keys) over the map's 2nd..98th percentile, scores diverge around 0."""
    coloured = scale.values(values, masked)  # (T, T)
    low, high = scale.domain(coloured)
    t, _ = scale.fractions(coloured, (low, high))
    return t, (low, high), scale.legend(low, high)


def shades_of(t: np.ndarray, hidden: np.ndarray) -> np.ndarray:
    """Palette positions 0..254 (t × 254, rounded; t clipped to 0..1) as uint8, 255 where hidden."""
    t = np.nan_to_num(t, nan=0.0)  # a new array: never the caller's
    np.clip(t, 0, 1, out=t)
    t *= SHADE_MASKED - 1
    shade = np.rint(t, out=t).astype(np.uint8)
    shade[hidden] = SHADE_MASKED
    return shade


def bands(values: np.ndarray, shade: np.ndarray, hidden: np.ndarray, scale: colour.ColourScale,
          decimals: int) -> np.ndarray:
    """(256, 2) codes: the lowest and highest value among this map's cells of each shade (0, 0 for a shade no cell
    has), rounded outwards, in the legend's unit (× even on the share scale: weight × the row's visible keys).
    The readout of a cell whose exact value was not sent says what its colour holds."""
    unit = values * (~hidden).sum(axis=1, keepdims=True) if scale.relative else values  # (T, T)
    low, high = np.full(SHADE_MASKED + 1, np.inf), np.full(SHADE_MASKED + 1, -np.inf)
    np.minimum.at(low, shade.reshape(-1), unit.reshape(-1))  # hidden cells (shade 255, maybe ±inf) hold no band
    np.maximum.at(high, shade.reshape(-1), unit.reshape(-1))
    used = np.isfinite(low) & (np.arange(SHADE_MASKED + 1) < SHADE_MASKED)
    factor = 10.0 ** decimals
    return np.stack([np.where(used, np.floor(low * factor), 0), np.where(used, np.ceil(high * factor), 0)], axis=1)


def overview_shades(stack: np.ndarray, kind: str, scale: colour.ColourScale) -> tuple[pd.DataFrame, dict]:
    """matrix_images.overview of each frame (F, T, T) as shades, 1 byte a block on the same stops as the cells (its
    own range): 64 kB a frame at 1,024 tokens, where its RGB PNG was 100-250 kB, and a third more as base64."""
    shades = []
    for one in stack:
        reduced, _, value_range, blocks = matrix_images.overview_blocks(one, kind, scale)
        t, missing = scale.fractions(reduced, value_range)  # (T / f, T / f)
        shades.append(shades_of(t, missing).reshape(-1))
    rows, cols = reduced.shape
    return pd.DataFrame({"shade": np.concatenate(shades)}), {"rows": rows, "cols": cols, "blocks": blocks}
