"""Where dropout struck in a map too large to draw cell by cell (the dropout screen's own picture)."""
import numpy as np

from attention_core.drawing import matrix_images
from ui.draw.export import png_bytes
from ui.draw.heatmaps import as_numpy
from ui.compute.built import cached_image
from ui.compute.keys import fingerprint
from ui.draw.vega import draw_image


def show_where_dropped(keep, visible, title: str) -> None:
    """A large map: where dropout struck (the share dropped per block); the view beside it has the exact values."""
    keep_np = as_numpy(keep)
    png, blocks, top = cached_image(("dropped share", fingerprint(keep), fingerprint(visible)),
                                    lambda: _dropped_png(keep_np, as_numpy(visible)))
    draw_image(png, f"{title}: where dropout struck",
               f"Where dropout struck: {keep_np.shape[0]:,} × {keep_np.shape[1]:,}, {blocks} (pale = none "
               f"dropped, dark = {top:.0%} of the block's visible weights or more); hatched grey = masked "
               "(future tokens). A map of the weights themselves would hide a few zeros among their neighbours.",
               width=512)


def _dropped_png(keep: np.ndarray, visible: np.ndarray):
    image, blocks, top = matrix_images.dropped_overview(keep, visible)
    return png_bytes(image), blocks, top
