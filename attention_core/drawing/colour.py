"""How numbers become colours, the same in Altair heatmaps and in the images of large matrices.

Attention weights need care. A query that may see n keys gives them weights that average 1/n, so
at 1,024 tokens a 0..1 scale paints every cell the colour of zero. The "share" scale colours a
weight by how it compares with attending evenly: log2(weight × n), 0 meaning exactly 1/n. Its
range is set per map, from the 2nd to the 98th percentile of the visible cells, so a head's
pattern fills the palette whatever its size. Masked cells (the future, for a causal map) are not
weights at all: they are drawn in a separate hatched grey that no weight can take.
"""
import numpy as np

from attention_core.drawing.numbers import plain

SHARE_AUTO_ABOVE = 16  # "auto": the plain 0..1 scale up to 16 tokens (the book's 6 read well), shares above
MIN_SHARE_SPAN = 0.25  # log2 units: a perfectly even map is drawn on 0.92× .. 1.09× (pale to dark), not on noise

BLUES = np.array([[247, 251, 255], [198, 219, 239], [107, 174, 214], [33, 113, 181], [8, 48, 107]], float)
REDBLUE = np.array([[5, 48, 97], [67, 147, 195], [247, 247, 247], [214, 96, 77], [103, 0, 31]], float)
# Shares: pale yellow (far below even) through green to deep blue (far above), so no share is grey.
SHARES = np.array([[255, 255, 217], [199, 233, 180], [65, 182, 196], [34, 94, 168], [8, 29, 88]], float)
BLUES_HEX = ["#f7fbff", "#c6dbef", "#6baed6", "#2171b5", "#08306b"]
SHARES_HEX = ["#ffffd9", "#c7e9b4", "#41b6c4", "#225ea8", "#081d58"]
REDBLUE_HEX = ["#053061", "#4393c3", "#f7f7f7", "#d6604d", "#67001f"]  # REDBLUE: white (#f7f7f7) is 0
# A mask has two values, 0 and 1: two flat tones, no ramp (their meaning depends on the mask, see mask_legend).
MASK_HEX = ["#f3f4f6", "#1f2937"]
MASK = np.array([[243, 244, 246], [31, 41, 55]], float)
MASKED_RGB = (156, 163, 175)  # grey, hatched with MASKED_STRIPE in images
MASKED_STRIPE = (229, 231, 235)
MASKED_HEX = "#9ca3af"
# The efficiency plots: one colour per attention method, the same on every chart (red: the course's T×T way).
METHOD_HEX = {"course": "#dc2626", "sdpa": "#1d4ed8", "flash": "#60a5fa", "efficient": "#0d9488",
              "cudnn": "#7c3aed", "math": "#f59e0b", "computed": MASKED_HEX}


def weight_scale(mode: str, tokens: int) -> str:
    """'auto' resolves to the plain scale for small maps and to shares above SHARE_AUTO_ABOVE tokens."""
    if mode == "auto":
        return "absolute" if tokens <= SHARE_AUTO_ABOVE else "share"
    return mode


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
    """log2(weight × visible keys) per cell; masked cells are nan, a weight of exactly 0 is -inf."""
    values = np.asarray(weights, dtype=np.float64)
    masked = masked_cells(values) if masked is None else masked
    visible = (~masked).sum(axis=1, keepdims=True).clip(min=1)  # keys each query may see
    with np.errstate(divide="ignore"):
        result = np.log2(values * visible)
    result[masked] = np.nan
    return result


def share_context(weights, dtype=np.float64) -> tuple[np.ndarray, np.ndarray, tuple[float, float]]:
    """(masked cells, log2 shares, share range) of a whole weights map: the one place they are worked
    out, for its Altair cells, its overview image and the zoom windows cut from it (a window's shares
    count the keys of the whole row, and its range is the whole map's). dtype float32 halves what a
    kept context of a 1,024-token map holds (5 MB)."""
    masked = masked_cells(weights)
    share_values = shares(weights, masked).astype(dtype, copy=False)
    return masked, share_values, share_range(share_values)


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


# "× even share" in words, for a legend or caption wherever the share scale colours a map.
SHARE_WORDS = ("× even share: each weight divided by 1/n, the weight every one of its query's n visible keys "
               "would get if the query attended evenly. 1× is an even share, 4× four times that, 0.25× a quarter; "
               "the colours step on a log scale.")


def times_even(log2_share: float) -> str:
    """A share as plain words: 2 -> '4× even', -1 -> '0.5× even'."""
    return f"{2 ** log2_share:.2g}× even"


def score_range(matrix, percentile: float = 100.0) -> tuple[float, float]:
    """The ends of a scores colour bar, with white at exactly 0: (-m, m) for scores of both signs,
    (0, m) when every score is >= 0 (one-sided: white to red), (-m, 0) when every score is <= 0.
    m is the largest |score|, or its `percentile` (larger scores take the end colour): a few huge
    scores, such as x · x on the diagonal, then leave the others their colours."""
    values = np.asarray(matrix, dtype=np.float64)
    finite = values[np.isfinite(values)]
    spread = float(np.percentile(np.abs(finite), percentile)) if finite.size else 0.0
    spread = spread or (float(np.abs(finite).max()) if finite.size else 0.0) or 1.0
    if finite.size and finite.min() >= 0:
        return 0.0, spread
    if finite.size and finite.max() <= 0:
        return -spread, 0.0
    return -spread, spread


def score_palette(low: float, high: float) -> list[str]:
    """The part of the red-blue palette a score range (from score_range) uses: white always sits at 0."""
    return REDBLUE_HEX[2:] if low >= 0 else REDBLUE_HEX[:3] if high <= 0 else REDBLUE_HEX


def score_legend(low: float, high: float) -> str:
    """A scores colour bar in words, white at 0: "0 (white) … 3.2 (red)" when no score is negative."""
    parts = ([f"{plain(low)} (blue)"] if low < 0 else []) + ["0 (white)"] + ([f"{plain(high)} (red)"] if high > 0 else [])
    return " … ".join(parts)


def mask_legend(labels: tuple[str, str] | None, dark: int = 1) -> str:
    """A mask's legend in words: what 0 and what 1 mean (light and dark), e.g. ("may see", "blocked");
    dark: the value drawn dark (0 for a mask whose 0 means what another mask's 1 means)."""
    zero, one = labels or ("0", "1")
    return f"light = 0 = {zero}, dark = 1 = {one}" if dark == 1 else f"dark = 0 = {zero}, light = 1 = {one}"


def colour_range(matrix, kind: str) -> tuple[float, float]:
    """The values at the two ends of the colour bar (for "share": log2 shares)."""
    if kind in ("weights", "mask"):
        return 0.0, 1.0
    if kind == "share":
        return share_range(shares(matrix))
    return score_range(matrix)


def _ramp(t: np.ndarray, palette: np.ndarray) -> np.ndarray:
    t = np.clip(t, 0, 1) * (len(palette) - 1)
    low = np.floor(t).astype(int).clip(0, len(palette) - 2)
    frac = (t - low)[..., None]
    return palette[low] * (1 - frac) + palette[low + 1] * frac


def _hatch(rgb: np.ndarray, where: np.ndarray) -> None:
    """Masked pixels: diagonal grey stripes, unlike any colour of a palette."""
    rows, cols = np.indices(where.shape)
    stripe = ((rows + cols) // 3) % 2 == 0
    rgb[where & stripe] = MASKED_RGB
    rgb[where & ~stripe] = MASKED_STRIPE


def fractions(matrix, kind: str = "weights", value_range: tuple[float, float] | None = None):
    """(t: where each cell sits on its palette, 0..1 before clipping; missing cells; the palette), as matrix_image
    colours them (its kinds and value_range). The attention view sends t as shades and ramps the same stops."""
    values = np.asarray(matrix, dtype=np.float64)
    missing = ~np.isfinite(values)
    if kind == "share":
        low, high = value_range or share_range(values)
        t = (np.where(values == -np.inf, low, values) - low) / (high - low)
        missing = np.isnan(values)
        palette = SHARES
    elif kind in ("scores", "scores_unit"):
        low, high = (-1.0, 1.0) if kind == "scores_unit" else value_range or score_range(values)
        t = (values / max(abs(low), abs(high)) + 1) / 2  # 0 -> 0.5, the palette's white
        palette = REDBLUE
    elif kind == "mask":
        t, palette = (values >= 0.5).astype(float), MASK
    else:
        t = values
        palette = BLUES
    return t, missing, palette


def matrix_image(matrix, kind: str = "weights", cell_px: int = 1, masked: np.ndarray | None = None,
                 value_range: tuple[float, float] | None = None) -> np.ndarray:
    """A matrix as an RGB image (uint8, cell_px pixels per cell), in the heatmaps' colours.

    kind: "weights" (0..1 blues), "share" (values are log2 shares, see `shares`, over value_range),
    "scores" (red-blue, white at 0: see score_range, or value_range), "scores_unit" (scores already in -1..1),
    "mask" (two tones: 0 light, 1 dark). Infinite or missing cells, and `masked` ones, are hatched grey.
    """
    t, missing, palette = fractions(matrix, kind, value_range)
    rgb = _ramp(np.where(missing, 0, t), palette)
    if masked is not None:
        missing = missing | masked
    if cell_px > 1:
        rgb = rgb.repeat(cell_px, axis=0).repeat(cell_px, axis=1)
        missing = missing.repeat(cell_px, axis=0).repeat(cell_px, axis=1)
    _hatch(rgb, missing)
    return rgb.round().astype(np.uint8)


def colour_bar(kind: str, width: int = 256, height: int = 14, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    """A horizontal legend strip (RGB) with the same colours as matrix_image, low end on the left.

    For "scores", low and high (from score_range) pick the half of the palette a one-sided range uses."""
    ramp = np.tile(np.linspace(0, 1, width), (height, 1))
    if kind == "scores":
        left, right = (0.0 if low >= 0 else -1.0), (0.0 if high <= 0 else 1.0)
        return matrix_image(left + ramp * (right - left), "scores_unit")
    if kind == "share":
        return matrix_image(ramp, "share", value_range=(0.0, 1.0))
    return matrix_image(ramp, kind)
