"""Many attention maps as one picture: every head of every layer in a single RGB image.

At T tokens a causal row i spreads its weight over i + 1 keys, so its average is 1 / (i + 1): on a
0..1 scale the later rows of every map fade to the colour of zero. Each cell is therefore coloured
by how many times the uniform share it gets, log2(weight × visible keys): white = uniform, red =
more (up to 2^RANGE times), blue = less, grey = the masked future. One fixed range for all heads
keeps them comparable.
"""
import numpy as np

RANGE = 3.0  # log2 units: the colours saturate at 8x and 1/8 of the uniform share
MASKED = (229, 231, 235)
GAP = (255, 255, 255)
# Blue (below uniform) -> white (uniform) -> red (above), ColorBrewer's RdBu reversed.
_PALETTE = np.array([[5, 48, 97], [67, 147, 195], [247, 247, 247], [214, 96, 77], [103, 0, 31]], float)


def relative_to_uniform(weights: np.ndarray) -> np.ndarray:
    """log2(weight × visible keys) for causal maps (..., T, T); nan on the masked future."""
    w = np.asarray(weights, dtype=np.float64)
    T = w.shape[-1]
    visible = np.arange(1, T + 1, dtype=np.float64)[:, None]  # row i sees i + 1 keys
    future = np.triu(np.ones((T, T), bool), k=1)
    with np.errstate(divide="ignore"):
        ratio = np.log2(w * visible)
    return np.where(future, np.nan, ratio)


def colours(log_ratio: np.ndarray) -> np.ndarray:
    """RGB uint8 for log2 ratios; nan (masked) is grey."""
    masked = np.isnan(log_ratio)
    t = (np.clip(np.nan_to_num(log_ratio, nan=0.0), -RANGE, RANGE) / RANGE + 1) / 2 * (len(_PALETTE) - 1)
    low = np.floor(t).astype(int).clip(0, len(_PALETTE) - 2)
    frac = (t - low)[..., None]
    rgb = _PALETTE[low] * (1 - frac) + _PALETTE[low + 1] * frac
    rgb[masked] = MASKED
    return rgb.round().astype(np.uint8)


def cell_pixels(tokens: int, head_px: int) -> int:
    """Pixels per cell so that one head is about head_px wide (at least 1)."""
    return max(1, head_px // max(tokens, 1))


def model_view(weights: np.ndarray, head_px: int = 64, gap: int = 4) -> np.ndarray:
    """(layers, heads, T, T) -> one image: a row per layer, a column per head, gap pixels between."""
    layers, heads, T, _ = weights.shape
    px = cell_pixels(T, head_px)
    tiles = colours(relative_to_uniform(weights)).repeat(px, axis=2).repeat(px, axis=3)  # (L, H, T*px, T*px, 3)
    side = T * px
    image = np.empty((layers * (side + gap) - gap, heads * (side + gap) - gap, 3), np.uint8)
    image[:] = GAP
    for layer in range(layers):
        for head in range(heads):
            top, left = layer * (side + gap), head * (side + gap)
            image[top:top + side, left:left + side] = tiles[layer, head]
    return image


def colour_bar(width: int = 256, height: int = 14) -> np.ndarray:
    """The legend: log2 ratio from -RANGE (left) to +RANGE (right)."""
    return colours(np.linspace(-RANGE, RANGE, width)[None, :].repeat(height, axis=0))
