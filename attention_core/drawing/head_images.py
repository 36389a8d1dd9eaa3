"""Many attention maps as one picture: every head of every layer in a single RGB image.

At T tokens a causal row i spreads its weight over i + 1 keys, so its average is 1 / (i + 1): on a
0..1 scale the later rows of every map fade to the colour of zero. Each cell is therefore coloured on
the app's share scale (colour.SHARE): how many times the even share it gets, log2(weight × visible keys).
"""
import numpy as np

from attention_core.drawing import colour
from attention_core.drawing.shares import shares

RANGE = 3.0  # log2 units: the colours saturate at 8× and 1/8 of the even share
# One fixed range for every head, not each map's own percentiles (as a map drawn alone has): a grid of 144
# heads is read by comparing them, and a head whose weights are almost even must look pale beside a sharp
# one, not be stretched over the whole palette.
SCALE = colour.SHARE.with_domain(-RANGE, RANGE)
GAP = (255, 255, 255)
LEGEND = (f"colour: each weight against an even share 1/(keys visible), on a log scale, the same for every head: "
          f"pale yellow = 1/{2 ** RANGE:g} of an even share or less, teal = even, "
          f"dark blue = {2 ** RANGE:g}× or more; hatched grey = the masked future")


def relative_to_uniform(weights: np.ndarray) -> np.ndarray:
    """log2(weight × visible keys) of causal maps (..., T, T); nan on the masked future."""
    T = np.shape(weights)[-1]
    return shares(weights, np.triu(np.ones((T, T), bool), k=1))  # (..., T, T)


def cell_pixels(tokens: int, head_px: int) -> int:
    """Pixels per cell so that one head is about head_px wide (at least 1)."""
    return max(1, head_px // max(tokens, 1))


def model_view(weights: np.ndarray, head_px: int = 64, gap: int = 4) -> np.ndarray:
    """(layers, heads, T, T) -> one image: a row per layer, a column per head, gap pixels between."""
    layers, heads, T, _ = weights.shape
    px = cell_pixels(T, head_px)
    tiles = SCALE.image(relative_to_uniform(weights), cell_px=px)  # (L, H, T*px, T*px, 3)
    side = T * px
    image = np.empty((layers * (side + gap) - gap, heads * (side + gap) - gap, 3), np.uint8)
    image[:] = GAP
    for layer in range(layers):
        for head in range(heads):
            top, left = layer * (side + gap), head * (side + gap)
            image[top:top + side, left:left + side] = tiles[layer, head]
    return image


def colour_bar(width: int = 256, height: int = 14) -> np.ndarray:
    """The legend: log2 share from -RANGE (left) to +RANGE (right)."""
    return SCALE.bar(width=width, height=height)
