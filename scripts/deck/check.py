"""The deck checks itself: what a teacher would have to fix by hand before projecting a slide.

A slide is flagged when
- something on it is cut: a code block, formula or table wider than its box, text past the slide's right
  edge, a chart's text past its canvas or shortened with '…', a line of code or of a printed tensor wrapped to the
  block's left edge (check_js.MEASURE finds them in the page);
- text on it is under MIN_TEXT_PX at 1920 x 1080 (its CSS size x the slide's scale x --zoom);
- it is less than MIN_FILLED filled (filled(): the share of the slide's area, in CELL-pixel squares, that its
  content blocks cover, the gaps between their words and lines included), unless it is a screen's title slide
  (title_slide()). A slide whose ink covers under MIN_FILLED of it (inked()) is first laid out again larger
  (fill.py), as far as nothing on it is cut or wraps where it must not; this reads the result;
- a picture and its caption (or legend, colour bar) are on different slides.
Every run writes the report beside the slides (check__<params>.txt, or check.txt); --strict makes a flagged
slide fail the run. Pure Python on what the page reported, so tests/test_slides_check.py drives it directly.
"""
import math
from dataclasses import dataclass, field

from .cutting import MIN_TEXT_PX

MIN_FILLED = 0.25  # a slide with less of its area drawn on is nearly empty
CELL = 40  # ink_cells(): the slide is read as squares of this many image pixels (at --scale 1)
INK = 24  # ink_cells(): a pixel differs from the background by more than this (0-255, any channel) to count
WORD_GAP = 3  # filled(): empty squares along a row (120 px, 5 characters of presenter text) inside one block
LINE_GAP = 2  # filled(): empty squares down a column (80 px, a paragraph's margin) inside one block


@dataclass
class SlideReport:
    file: str
    flags: list[str] = field(default_factory=list)


def on_slide(top: float, start: float, stop: float) -> bool:
    return start <= top < stop


def cut_flags(measured: dict, start: float, stop: float) -> list[str]:
    """What is cut at an edge on the slide from start to stop (CSS px of the page), each said once."""
    found = []
    for top, bottom, what in measured["cut"]:
        if (on_slide(top, start, stop) or on_slide(bottom - 1, start, stop)) and what not in found:
            found.append(what)
    return [f"cut: {what}" for what in found]


def small_text_flags(measured: dict, start: float, stop: float, scale: float, zoom: float) -> list[str]:
    """Text under MIN_TEXT_PX on the slide, as drawn on a 1920 x 1080 image: the smallest, and how many runs."""
    small = sorted((size * scale * zoom, text) for top, size, text in measured["texts"]
                   if on_slide(top, start, stop) and size * scale * zoom < MIN_TEXT_PX - 0.05)
    if not small:
        return []
    px, text = small[0]
    return [f"small text: {len(small)} run(s) under {MIN_TEXT_PX} px, the smallest {px:.1f} px (\"{text}\")"]


def caption_flags(blocks: list[dict], spans: list[tuple[float, float]]) -> dict[int, list[str]]:
    """{slide index: flags} for each caption, legend or colour bar whose picture (the block above it) is on
    another slide. spans: (start, stop) of each slide."""
    def slide_of(y):
        return next((k for k, (a, b) in enumerate(spans) if a <= y < b), None)

    # (where the picture ends, where its caption starts, the block whose text names it): a caption, legend or colour
    # bar after the picture's block, and an image's own caption inside it (a cut between them parts them the same)
    pairs = [(above["bottom"] - 1, block["top"], block) for above, block in zip(blocks, blocks[1:])
             if block["after"] and above["kind"] == "other"]
    pairs += [(top, bottom - 1, block) for block in blocks for top, bottom in block.get("glued", [])]
    flags: dict[int, list[str]] = {}
    for picture, caption, block in pairs:
        here, there = slide_of(caption), slide_of(picture)
        if here is not None and there is not None and here != there:
            flags.setdefault(here, []).append(
                f"caption apart from its picture: \"{block.get('text', '')[:70]}\" (the picture is on the slide before)")
    return flags


def ink_cells(image, background: str):
    """The slide as a grid of CELL x CELL squares: True where a square holds ink (anything not the background)."""
    import re

    import numpy as np
    rgb = np.asarray(image.convert("RGB"), dtype=np.int16)
    bg = np.array([int(v) for v in re.findall(r"\d+", background)[:3]] or [255, 255, 255], dtype=np.int16)
    ink = (np.abs(rgb - bg) > INK).any(axis=2)
    cell = max(1, round(CELL * image.width / 1920))
    rows, cols = ink.shape[0] // cell, ink.shape[1] // cell
    return ink[:rows * cell, :cols * cell].reshape(rows, cell, cols, cell).any(axis=(1, 3))


def inked(image, background: str) -> float:
    """The share of the slide's squares that hold ink: under MIN_FILLED, fill.py tries to draw the slide larger."""
    return float(ink_cells(image, background).mean())


def filled(image, background: str) -> float:
    """The share of the slide that its content covers: the inked squares, with the gaps inside a block of content
    closed (run-length smoothing, as document-layout analysis finds text blocks): up to WORD_GAP squares along a
    row, between words, metrics or table columns, and up to LINE_GAP down a column, between lines. A listing's short
    lines or a metric's large digits cover their block; a lone line, a dropdown or a stray bracket stays small."""
    cells = ink_cells(image, background)
    return float(_closed(_closed(cells, WORD_GAP).T, LINE_GAP).T.mean())


def _closed(grid, gap: int):
    """Each row of the grid with its runs of at most `gap` empty squares between two inked ones filled in."""
    import numpy as np
    grid = grid.copy()
    for row in grid:
        inked_at = np.flatnonzero(row)
        for a, b in zip(inked_at, inked_at[1:]):
            if 1 < b - a <= gap + 1:
                row[a:b] = True
    return grid


def title_slide(blocks: list[dict], start: float, stop: float) -> bool:
    """A screen's opening slide: its title, its intro and the controls or metrics beside them, the deck's divider
    between two screens. The picture they introduce is too tall to join it (cutting.py), so it may be mostly empty."""
    here = [b for b in blocks if on_slide(b["top"], start, stop)]
    return start == 0 and bool(here) and here[0]["kind"] == "heading"


def fill_flag(share: float, title: bool = False) -> list[str]:
    """Nearly empty: under MIN_FILLED of the slide holds ink. A title slide is exempt (title_slide)."""
    # Rounded down: 24.6% printed as "25% ... (under 25%)" read as a contradiction.
    return [f"nearly empty: {math.floor(share * 100)}% of the slide filled (under {MIN_FILLED:.0%})"] if (
        share < MIN_FILLED and not title) else []


def report_lines(reports: list[SlideReport], skipped: dict[str, list[str]]) -> list[str]:
    """The report: one line per flag, what the deck left out, and the count."""
    flagged = [r for r in reports if r.flags]
    lines = [f"{r.file}: {flag}" for r in flagged for flag in r.flags] + skipped_lines(skipped)
    lines.append(f"{len(flagged)} of {len(reports)} slide(s) flagged")
    return lines


def skipped_lines(skipped: dict[str, list[str]]) -> list[str]:
    """What the deck left out because the app marks it for the teacher (ui.for_the_teacher), screen by screen."""
    return [f"{screen}: left out, for the teacher, not the class: \"{text}\"" for screen, texts in skipped.items()
            for text in texts]
