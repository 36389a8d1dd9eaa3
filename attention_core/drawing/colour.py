"""How numbers become colours: one ColourScale per idea, which every drawing route takes (Altair as a Vega
scale, images, and the attention view, whose browser ramps the stops sent in its payload as `ramp` does).

WEIGHTS colours 0..1; SHARE each weight against an even split (shares.py) over the map's 2nd to 98th
percentile, so a head's pattern fills the palette whatever its size; SCORES diverge around a white 0; MASK
has two tones. Masked cells (the future, for a causal map) are drawn in a hatched grey no palette has.
"""
import dataclasses
import functools

import numpy as np

from attention_core.drawing.numbers import plain
from attention_core.drawing.shares import SHARE_WORDS, share_range, shares, times_even

SHARE_AUTO_ABOVE = 16  # "auto": the plain 0..1 scale up to 16 tokens (the book's 6 read well), shares above

# The palettes, low end first, each written once (ColorBrewer's); their RGB is derived from these.
BLUES_HEX = ("#f7fbff", "#c6dbef", "#6baed6", "#2171b5", "#08306b")
# Shares: pale yellow (far below even) through green to deep blue (far above), so no share is grey.
SHARES_HEX = ("#ffffd9", "#c7e9b4", "#41b6c4", "#225ea8", "#081d58")
REDBLUE_HEX = ("#053061", "#4393c3", "#f7f7f7", "#d6604d", "#67001f")  # its middle, white (#f7f7f7), is 0
# A mask has two values, 0 and 1: two flat tones, no ramp (their meaning depends on the mask, see mask_legend).
MASK_HEX = ("#f3f4f6", "#1f2937")
MASKED_HEX, MASKED_STRIPE_HEX = "#9ca3af", "#e5e7eb"  # masked cells: grey, hatched with the stripe in images
# Lines and series told apart by colour: Okabe and Ito's palette, distinct under every common colour blindness
# (its yellow, 1.2 : 1 on white, left out for Paul Tol's olive). Charts add a second cue (a dash, a point shape).
CATEGORICAL_HEX = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999933")
# The efficiency plots: one colour per attention method, the same on every chart (vermilion: the course's T×T way).
METHOD_HEX = {"course": "#d55e00", "sdpa": "#0072b2", "flash": "#56b4e9", "efficient": "#009e73",
              "cudnn": "#cc79a7", "math": "#e69f00", "computed": MASKED_HEX}


def rgb_of(hex_colour: str) -> tuple[int, int, int]:
    """"#9ca3af" -> (156, 163, 175), as the browser's parseHex reads a stop."""
    return tuple(int(hex_colour[at:at + 2], 16) for at in (1, 3, 5))


MASKED_RGB, MASKED_STRIPE = rgb_of(MASKED_HEX), rgb_of(MASKED_STRIPE_HEX)


@dataclasses.dataclass(frozen=True)
class ColourScale:
    """One way numbers become colours. name: what settings.colour (and the URL) or a map's kind calls it;
    hex: its palette, low end first; fixed: its domain when that is not each map's own; relative: it colours
    each weight's share (log2 weight × visible keys), not the weight; around_zero: the palette's middle (white)
    is exactly 0 whatever the domain's sign; two_tone: 0 or 1, no ramp in between."""
    name: str
    hex: tuple[str, ...]
    fixed: tuple[float, float] | None = None
    relative: bool = False
    around_zero: bool = False
    two_tone: bool = False

    @functools.cached_property
    def rgb(self) -> np.ndarray:
        return np.array([rgb_of(stop) for stop in self.hex], float)  # (stops, 3)

    @property
    def words(self) -> str:  # what a caption adds wherever this scale colours a map: only shares need it
        return SHARE_WORDS if self.relative else ""

    @property
    def unit(self) -> str:  # the legend's unit, for numbers read off a colour
        return "× even share" if self.relative else ""

    def with_domain(self, low: float, high: float) -> "ColourScale":
        """The same colours on a domain set in advance instead of each map's own."""
        return dataclasses.replace(self, fixed=(float(low), float(high)))

    def values(self, matrix, masked: np.ndarray | None = None) -> np.ndarray:
        """What this scale colours: the log2 shares of weights (shares.py) when relative, else the values."""
        return shares(matrix, masked) if self.relative else np.asarray(matrix, dtype=np.float64)

    def domain(self, values) -> tuple[float, float]:
        """The values at the colour bar's two ends (of `values()`): fixed, else the map's own."""
        if self.fixed is not None:
            return self.fixed
        return share_range(np.asarray(values)) if self.relative else score_range(values)

    def fractions(self, values, domain: tuple[float, float] | None = None):
        """(t: where each value sits on the palette, 0..1 before clipping; the missing cells, drawn hatched)."""
        values = np.asarray(values, dtype=np.float64)
        low, high = self.domain(values) if domain is None else domain
        if self.relative:  # a weight of exactly 0 is a share of -inf: the palest colour, not a missing cell
            values = np.where(values == -np.inf, low, values)
        missing = ~np.isfinite(values)
        if self.two_tone:
            return (values >= 0.5).astype(float), missing
        if self.around_zero:  # 0 -> 0.5, the palette's white; a one-sided domain uses half the palette
            return (values / max(abs(low), abs(high)) + 1) / 2, missing
        return (values - low) / (high - low), missing

    def ramp(self, t) -> np.ndarray:
        """RGB floats at t (clipped to 0..1), linear between evenly spaced stops: view_core.mjs's colourAt."""
        t = np.clip(t, 0, 1) * (len(self.hex) - 1)
        low = np.floor(t).astype(int).clip(0, len(self.hex) - 2)
        frac = (t - low)[..., None]
        return self.rgb[low] * (1 - frac) + self.rgb[low + 1] * frac

    def colour(self, value: float, domain: tuple[float, float]) -> tuple[int, int, int]:
        """One value's colour on this domain, rounded as images are."""
        t, _ = self.fractions(np.array([value]), domain)
        return tuple(int(c) for c in _rounded(self.ramp(t)[0]))

    def image(self, values, domain=None, cell_px: int = 1, masked: np.ndarray | None = None) -> np.ndarray:
        """values (..., rows, cols) of `values()` as RGB uint8, cell_px pixels a cell; missing, `masked` hatched."""
        t, missing = self.fractions(values, domain)
        rgb = self.ramp(np.where(missing, 0, t))  # (..., rows, cols, 3)
        if masked is not None:
            missing = missing | masked
        if cell_px > 1:
            rgb = rgb.repeat(cell_px, axis=-3).repeat(cell_px, axis=-2)
            missing = missing.repeat(cell_px, axis=-2).repeat(cell_px, axis=-1)
        _hatch(rgb, missing)
        return _rounded(rgb).astype(np.uint8)

    def bar(self, domain: tuple[float, float] | None = None, width: int = 256, height: int = 14) -> np.ndarray:
        """A legend strip (RGB), low end left, over domain (default: fixed, or -1..1 around zero, else 0..1)."""
        low, high = domain or self.fixed or ((-1.0, 1.0) if self.around_zero else (0.0, 1.0))
        return self.image(np.tile(np.linspace(low, high, width), (height, 1)), (low, high))

    def vega(self, domain: tuple[float, float] | None = None) -> dict:
        """Vega-Lite's scale (alt.Scale(**it)): this palette interpolated in RGB, as `ramp` does (Vega-Lite's default,
        HCL, is off by up to 5 of 255 between stops); around zero, the half of it a one-sided domain uses."""
        low, high = domain or self.fixed
        stops = list(self.hex)
        if self.around_zero and (low >= 0 or high <= 0):
            middle = len(stops) // 2
            stops = stops[middle:] if low >= 0 else stops[:middle + 1]
        return {"domain": [low, high], "range": stops, "interpolate": "rgb", "clamp": True}

    def stops(self) -> list[str]:
        """The palette the attention view's browser ramps (view_core.mjs), sent in its payload."""
        return list(self.hex)

    def legend(self, low: float, high: float) -> str:
        """The colour bar's two ends in words (the attention view's legend line)."""
        if self.relative:
            whose = "" if self.fixed else " (this map's 2nd–98th percentile)"
            return f"{times_even(low)} … {times_even(high)}{whose}"
        return score_legend(low, high) if self.around_zero else f"{plain(low)} … {plain(high)}"


WEIGHTS = ColourScale("absolute", BLUES_HEX, fixed=(0.0, 1.0))
SHARE = ColourScale("share", SHARES_HEX, relative=True)
SCORES = ColourScale("scores", REDBLUE_HEX, around_zero=True)
MASK = ColourScale("mask", MASK_HEX, fixed=(0.0, 1.0), two_tone=True)
SCALES = {scale.name: scale for scale in (WEIGHTS, SHARE, SCORES, MASK)}


def scale_for(kind, colour_setting="absolute", tokens: int = 0) -> ColourScale:
    """The scale a map is drawn on. kind: "weights", "scores", "mask", "share" (weights as shares, said short), or
    a ColourScale (returned as is). Weights take colour_setting: a ColourScale, or settings.colour's "absolute",
    "share" or "auto" ("auto": the plain scale up to SHARE_AUTO_ABOVE tokens, shares above)."""
    if isinstance(kind, ColourScale):
        return kind
    if kind != "weights":
        return SCALES[kind]
    if isinstance(colour_setting, ColourScale):
        return colour_setting
    if colour_setting == "auto":
        colour_setting = "share" if tokens > SHARE_AUTO_ABOVE else "absolute"
    return SCALES[colour_setting]


def score_range(matrix, percentile: float = 100.0) -> tuple[float, float]:
    """The ends of a scores colour bar, with white at exactly 0: (-m, m) for scores of both signs,
    (0, m) when every score is >= 0 (one-sided: white to red), (-m, 0) when every score is <= 0.
    m is the largest |score|, or its `percentile` (larger scores take the end colour): a few huge
    scores, such as x · x on the diagonal, then leave the others their colours."""
    values = np.asarray(matrix, dtype=np.float64)
    finite = values[np.isfinite(values)]
    largest = float(np.abs(finite).max()) if finite.size else 0.0  # max: percentile 100 partitions the whole map
    spread = (float(np.percentile(np.abs(finite), percentile)) if percentile < 100 and largest else 0) or largest or 1.0
    if finite.size and finite.min() >= 0:
        return 0.0, spread
    if finite.size and finite.max() <= 0:
        return -spread, 0.0
    return -spread, spread


def score_legend(low: float, high: float) -> str:
    """A scores colour bar in words, white at 0: "0 (white) … 3.2 (red)" when no score is negative."""
    parts = ([f"{plain(low)} (blue)"] if low < 0 else []) + ["0 (white)"] + ([f"{plain(high)} (red)"] if high > 0 else [])
    return " … ".join(parts)


def mask_legend(labels: tuple[str, str] | None, dark: int = 1) -> str:
    """A mask's legend in words: what 0 and what 1 mean (light and dark), e.g. ("may see", "blocked");
    dark: the value drawn dark (0 for a mask whose 0 means what another mask's 1 means)."""
    zero, one = labels or ("0", "1")
    return f"light = 0 = {zero}, dark = 1 = {one}" if dark == 1 else f"dark = 0 = {zero}, light = 1 = {one}"


def _rounded(rgb: np.ndarray) -> np.ndarray:
    """Channels rounded half up, as the browser's Math.round does (numpy's round halves to even: 222.5 -> 222, where
    the view draws 223), so that an image and the view give a value the same colour."""
    return np.floor(rgb + 0.5)


def _hatch(rgb: np.ndarray, where: np.ndarray) -> None:
    """Masked pixels: diagonal grey stripes, unlike any colour of a palette. where: (..., rows, cols)."""
    rows, cols = np.indices(where.shape[-2:])
    stripe = ((rows + cols) // 3) % 2 == 0
    rgb[where & stripe] = MASKED_RGB
    rgb[where & ~stripe] = MASKED_STRIPE


def matrix_image(matrix, kind="weights", cell_px: int = 1, masked: np.ndarray | None = None,
                 value_range: tuple[float, float] | None = None) -> np.ndarray:
    """A matrix as an RGB image (uint8, cell_px pixels per cell) on the scale of `kind` (scale_for's kinds:
    "share" means the values are log2 shares already), over value_range or the values' own domain."""
    return scale_for(kind).image(matrix, value_range, cell_px, masked)
