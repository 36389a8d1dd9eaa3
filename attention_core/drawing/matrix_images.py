"""Large matrices as images: block reduction, exact windows, and the overview a screen draws.

Above 64 tokens one Altair rect per cell takes seconds to draw; an image of at most 256 x 256
blocks takes milliseconds. Plain numpy, no Streamlit.
"""
import io
import warnings

import numpy as np
from PIL import Image

from attention_core.drawing import colour
from attention_core.drawing.shares import masked_cells, share_context


SCORE_PERCENTILE = 98  # a scores overview's colours end at the 98th percentile of |block mean|
OVERVIEW_PX = 512  # an overview image is about this many pixels across (its cells a whole number of pixels)


def png_bytes(rgb: np.ndarray) -> bytes:
    """An RGB array (uint8) as PNG bytes: every image the app sends or offers as a download.

    zlib level 1: a 512 x 512 overview encodes in 13 ms instead of 31 ms at the default level 6, for 10 %
    more bytes; a GPT-2-sized /heads rerun encodes a dozen. optimize=True saved 2 % of the bytes for 5x the time."""
    buffer = io.BytesIO()
    Image.fromarray(rgb).save(buffer, "PNG", compress_level=1)
    return buffer.getvalue()


def overview_factor(size: int, max_pixels: int = 256) -> int:
    """How many cells one pixel of the overview image covers along each axis (1 up to 256)."""
    return max(1, -(-size // max_pixels))


def block_reduce(matrix, factor: int, how: str = "max") -> np.ndarray:
    """Aggregate factor x factor blocks of cells into one: "max" (keeps peaks), "mean" or "sum".

    Edges that do not fill a whole block are reduced over the cells they have. Infinite cells
    (masked scores) are ignored; a block with no finite cell becomes nan (drawn grey).
    """
    values = np.asarray(matrix, dtype=np.float64)
    rows, cols = values.shape
    if factor == 1:
        return values
    padded = np.full((-(-rows // factor) * factor, -(-cols // factor) * factor), np.nan)
    padded[:rows, :cols] = np.where(np.isfinite(values), values, np.nan)
    blocks = padded.reshape(padded.shape[0] // factor, factor, padded.shape[1] // factor, factor)
    reducer = {"max": np.nanmax, "mean": np.nanmean, "sum": np.nansum}[how]
    with warnings.catch_warnings():  # all-nan blocks are expected (fully masked)
        warnings.simplefilter("ignore", RuntimeWarning)
        reduced = reducer(blocks, axis=(1, 3))
    if how == "sum":  # nansum of an all-nan block is 0; keep it missing like the others
        reduced[np.isnan(blocks).all(axis=(1, 3))] = np.nan
    return reduced


def window(matrix, row_start: int, col_start: int, size: int) -> np.ndarray:
    """The exact values of a size x size region (clipped at the matrix's edges)."""
    values = np.asarray(matrix)
    return values[row_start: row_start + size, col_start: col_start + size]


def overview(values: np.ndarray, kind: str, scale: colour.ColourScale | str | None = None, inverted: bool = False):
    """(RGB image, how it was reduced, its colour range) of a large matrix, on `scale` (colour.scale_for(kind,
    scale): a ColourScale, or for weights "absolute" or "share").

    weights: block maxima (a peak stays visible); shares: block means of the log2 shares (the geometric
    mean of a block's shares); scores: block means. A block with no visible cell is hatched as masked.
    inverted: draw 1 − values (a mask whose 0 is drawn dark), described in terms of `values` (overview_blocks).
    """
    reduced, scale, (low, high), blocks = overview_blocks(values, kind, scale, inverted)
    image = scale.image(reduced, (low, high), max(1, OVERVIEW_PX // max(reduced.shape)))
    return image, blocks, (low, high)


def overview_blocks(values: np.ndarray, kind: str, scale: colour.ColourScale | str | None = None,
                    inverted: bool = False):
    """(the reduced matrix, the ColourScale and domain it is drawn with, how it was reduced): the overview
    before it becomes pixels (the attention view sends these blocks as shades). inverted: reduce 1 − values; the
    words still name `values`, so a block maximum of 1 − values is "the min of" a block of values."""
    if inverted:
        values = 1 - values
    factor = overview_factor(max(values.shape))
    scale = colour.scale_for(kind, scale or "absolute")
    if scale.relative:
        _, shares, (low, high) = share_context(values)
        low, high = scale.fixed or (low, high)
        reduced = block_reduce(np.where(shares == -np.inf, low, shares), factor, "mean")  # nan stays masked
        how = "mean of the log shares"
    else:
        how = "mean" if scale.around_zero else "max"
        masked = masked_cells(values) if kind == "weights" else np.zeros(values.shape, dtype=bool)
        reduced = block_reduce(np.where(masked, np.nan, values), factor, how)
        # Scores: the range of what is drawn (block means), to its 98th percentile, so that a bright
        # diagonal (x · x) does not wash every other block out to white.
        low, high = colour.score_range(reduced, SCORE_PERCENTILE) if scale.around_zero else scale.domain(values)
    said = {"max": "min", "min": "max"}.get(how, how) if inverted else how
    blocks = (f"each pixel is the {said} of a {factor} × {factor} block of cells" if factor > 1
              else "one pixel per cell")
    return reduced, scale, (low, high), blocks


def dropped_overview(keep, visible):
    """(RGB image, how it was reduced) of where dropout struck in a large map.

    Dropping a weight turns it to 0, and an image of block maxima (or of shares) hides a few zeros
    among their neighbours. Here each pixel is the share of a block's visible cells that dropout
    removed, from pale (none) to dark (`top` or more: the 98th percentile of the blocks' shares, so
    that p = 0.1 is not drawn in shades of white); blocks with no visible cell (the future) are
    hatched as masked. keep and visible: (T, T), 1 = kept / visible. Returns (image, how, top).
    """
    keep, visible = np.asarray(keep, dtype=np.float64), np.asarray(visible, dtype=bool)
    factor = overview_factor(max(keep.shape))
    share = block_reduce(np.where(visible, 1.0 - keep, np.nan), factor, "mean")  # nan: nothing visible
    finite = share[np.isfinite(share)]
    top = float(np.percentile(finite, 98)) if finite.size else 1.0
    top = top if top > 0 else 1.0  # nothing dropped: every block pale
    image = colour.WEIGHTS.image(np.clip(share / top, 0, 1), cell_px=max(1, OVERVIEW_PX // max(share.shape)))
    blocks = (f"each pixel is the share dropped in a {factor} × {factor} block of cells" if factor > 1
              else "one pixel per cell")
    return image, blocks, top
