"""Where a long screen is cut into 16:9 slides: pure Python on the layout page_js.LAYOUT reports.

The rules, in the order they apply:
- A heading, and the intro text after it, stay with the block they introduce (a picture, a chart, a
  table): a slide never ends on them, nor on the paragraph or the control (a block under CONTROL_PX tall, such
  as a select box) right above a picture. A line ending with
  ':' introduces what follows too; a caption, a folded expander or a colour bar stays with the block
  above. The blocks glued this way make a *unit*.
- A slide holds as many whole units as fit; a slide that opens a topic holds all of it (up to the next
  heading) where it fits scaled readably (no further than MERGE_SCALE); else it prefers to end before a
  heading when that leaves it at least 60% full.
- A unit taller than a slide is scaled down only as far as its text stays readable (MIN_TEXT_PX at
  the slide's size, or unscaled where the app already draws it smaller); beyond that it is cut
  between two rows of its ink (text lines, table rows), never right after its heading or intro,
  into as few slides as readable text allows, and those as even as its rows allow: two slides of
  three quarters each, not a full one scaled down and a quarter. A cut between two blocks beats one
  inside an attention view (its controls from its map), which beats one inside a paragraph, a listing
  or a list of bars, where it gives as many slides, none small.
- A slide left mostly empty (under NEAR_EMPTY of a slide) joins its neighbour where the two fit
  on one slide at a readable scale; the tail of a topic never joins the start of the next.
"""
from dataclasses import dataclass, field

WIDTH, HEIGHT = 1920, 1080  # a slide, in image pixels at --scale 1
TOP_BAND = 32  # blank margin (CSS pixels) above the content of every slide after the first
GAP = 8  # a cut lies this far above the next block's top: in the gap between two blocks
MIN_TEXT_PX = 16  # the smallest text a scaled slide may show, in pixels of a 1920 x 1080 slide
MERGE_SCALE = 0.8  # a merge of a near-empty slide never scales the two below this, text or not
NEAR_EMPTY = 0.5  # a slide whose content fills less than half of it is merged where it fits
CONTROL_PX = 110  # a block this short above a picture is its control (a select box, a badge): it leads the picture
TIDY_SHARE = 0.3  # a cut between two pieces of reading is preferred while every piece stays this share of a slide
BODY_SHARE = 0.02  # a block's "small text" is the size below which only this share of its characters lie (a lone
# subscript; a code block or a caption beside long prose is more, and is read: it sets how far a slide may shrink)


@dataclass
class Unit:
    top: float
    bottom: float
    opens: bool  # starts with a heading: a good place to start a slide
    texts: list = field(default_factory=list)  # [top, font size in CSS px, characters] of each run of its text
    cuts: list = field(default_factory=list)  # where it may be cut when it must be: between two rows of ink
    splits: dict = field(default_factory=dict)  # {cut: 2} inside one piece of reading (a paragraph, bars), 1 in a view


def fonts_of(texts: list, start: float = float("-inf"), stop: float = float("inf")) -> dict:
    """{font size: characters} of the texts that begin between start and stop."""
    fonts: dict = {}
    for top, size, count in texts:
        if start <= top < stop:
            fonts[float(size)] = fonts.get(float(size), 0) + count
    return fonts


def small_text(fonts: dict) -> float | None:
    """The size (CSS px) below which only BODY_SHARE of the characters lie: the text a reader must still read
    (a lone subscript does not count); None when there is no text (an image can be scaled freely)."""
    total = sum(fonts.values())
    if not total:
        return None
    seen = 0
    for size in sorted(fonts):
        seen += fonts[size]
        if seen > BODY_SHARE * total:
            return float(size)
    return float(max(fonts))


def scale_floor(fonts: dict, zoom: float = 1.0, every: bool = False) -> float:
    """The least a slide holding this text may be scaled by: its small text (every character's, with `every`) stays
    at MIN_TEXT_PX or more on the slide; text the app already draws smaller is not scaled at all."""
    size = (float(min(fonts)) if fonts else None) if every else small_text(fonts)
    return 0.0 if size is None else min(1.0, MIN_TEXT_PX / (size * zoom))


@dataclass
class Slide:
    start: int
    stop: int
    fonts: dict  # the text on it, {CSS px: characters}
    room: float  # the height its content may take unscaled, in CSS px
    band: float = 0  # the blank band captured above it (TOP_BAND on every slide after the first)
    opens: bool = False  # starts with a heading: a new topic, which a near-empty slide before it does not join

    @property
    def scale(self) -> float:
        """How much the capture (band included) is scaled down to fit the slide (1: not at all)."""
        return min(1.0, (self.room + self.band) / max(1, self.stop - self.start + self.band))

    def readable(self, zoom: float = 1.0, every: bool = False) -> bool:
        """every: no character under MIN_TEXT_PX, a formula's subscripts included (check.py's rule): a slide the
        layout may choose, not one it must make of a unit taller than a slide."""
        return self.scale >= scale_floor(self.fonts, zoom, every)


def groups(layout: dict) -> list[Unit]:
    """The units a slide never splits unless it must: the blocks of LAYOUT glued as the module says."""
    found: list[Unit] = []
    lead = False  # the unit so far ends with a heading or an intro: the next block joins it
    previous = before = {"kind": "other", "colon": False}  # the last two blocks
    headings_only = False  # the unit so far is headings alone (a title over a subtitle): another one joins it
    blocks = layout["blocks"]
    for k, block in enumerate(blocks):
        # A new heading starts a new unit, and so does a block that opens its own topic (an open section): a
        # paragraph above it explains what came before (/softmax's curves), it is not its intro.
        joins_lead = lead and ((block["kind"] != "heading" and not block["opens"]) or headings_only)
        if found and (joins_lead or block["after"]):
            unit = found[-1]
            # The unit may later be cut here only after a picture (before its caption), or inside a long intro
            # (after its second paragraph): never right after a heading or its first line, nor between an
            # intro and its picture.
            if (block["after"] and previous["kind"] == "other") or (
                    lead and block["kind"] == "text" and previous["kind"] == "text" and not previous["colon"]
                    and before["kind"] == "text"):
                unit.cuts.append(round(block["top"] - GAP))
            unit.bottom = max(unit.bottom, block["bottom"])
            unit.texts += block["texts"]
            unit.cuts += block["cuts"]
            unit.splits |= dict(block.get("splits", ()))
            lead = (joins_lead and block["kind"] in ("heading", "text")) or block["colon"]
            headings_only = headings_only and block["kind"] == "heading"
        else:
            found.append(Unit(block["top"], block["bottom"], block["opens"], list(block["texts"]), list(block["cuts"]),
                              dict(block.get("splits", ()))))
            # A heading leads what follows; so does a paragraph right above a picture (its intro).
            lead = (block["kind"] == "heading" or block["colon"] or (
                block["kind"] in ("text", "other") and k + 1 < len(blocks) and blocks[k + 1]["kind"] == "other"
                and (block["kind"] == "text" or block["bottom"] - block["top"] <= CONTROL_PX)))
            headings_only = block["kind"] == "heading"
        previous, before = block, previous
    return found


def split_tall(unit: Unit, start: int, end: int, height: float, band: float, zoom: float) -> list[Slide]:
    """The slides holding one unit taller than `room`, from `start` to `end`: as few as readable slides allow (each
    scaled no further than Slide.readable allows, else up to the next cut), and those as even as the cuts allow. Cuts
    between two pieces of reading come first: /softmax's experiment was cut inside its list of bars, three bars and a
    legend on a slide of their own, where a cut between its intro and its view gave as many slides."""
    def piece(a, b):  # the screen's first slide (from 0) has no band above it
        top = band if a else 0
        return Slide(a, b, fonts_of(unit.texts, a, b), height - top, top, opens=unit.opens and a == start)

    candidates = sorted(c for c in set(unit.cuts) if start < c < end)
    edges = _edges(piece, candidates, start, end, zoom)
    for level in (0, 1):  # between two blocks first, then inside a view (its controls from its map), else anywhere
        tidy_cuts = [c for c in candidates if unit.splits.get(c, 0) <= level]
        if len(tidy_cuts) == len(candidates):
            break
        tidy = _edges(piece, tidy_cuts, start, end, zoom)
        if (len(tidy) == len(edges) and all(piece(a, b).readable(zoom) for a, b in zip(tidy, tidy[1:]))
                and min(b - a for a, b in zip(tidy, tidy[1:])) >= TIDY_SHARE * height):
            edges = tidy
            break
    return [piece(a, b) for a, b in zip(edges, edges[1:])]


def _edges(piece, candidates: list, start: int, end: int, zoom: float) -> list:
    """[start, cuts..., end]: the fewest readable pieces (greedy), then the cuts moved to make them even."""
    greedy, position = [], start  # the fewest pieces: each as tall as it may be
    while not piece(position, end).readable(zoom):
        ahead = [c for c in candidates if c > position]
        if not ahead:
            break
        fits = [c for c in ahead if piece(position, c).readable(zoom)] or ahead[:1]  # unscaled ones included
        greedy.append(fits[-1])
        position = fits[-1]
    # Even: a listing 1.5 slides long filled greedily gave a full slide scaled down and a tail under a quarter
    # filled; two slides of 0.75 each keep its text unscaled and neither slide nearly empty.
    cuts, position = [], start
    for left in range(len(greedy), 0, -1):  # `left` cuts still to place, aiming at equal shares of what remains
        target = position + (end - position) / (left + 1)
        usable = [c for c in candidates if c > position and piece(position, c).readable(zoom)]
        if not usable:
            cuts = []
            break
        cuts.append(min(usable, key=lambda c: abs(c - target)))
        position = cuts[-1]
    if not cuts or not piece(position, end).readable(zoom) or len(cuts) != len(greedy):
        cuts = greedy  # the even cuts leave a piece too tall to read: the greedy ones stand
    return [start, *cuts, end]


def layout_slides(layout: dict, height: float, band: float = TOP_BAND, zoom: float = 1.0) -> list[Slide]:
    """The slides of one screen, in CSS pixels of the page (see the module's rules)."""
    units = groups(layout)
    if not units:
        return [Slide(0, int(layout["height"]), {}, height)]
    end = int(max(u.bottom for u in units) + GAP)  # the last slide ends just below the content
    slides: list[Slide] = []
    start, i = 0, 0

    def room() -> float:
        return height - (band if slides else 0)

    def after(k):  # where a slide that ends with unit k stops: just above the next unit
        return int(units[k + 1].top - GAP) if k + 1 < len(units) else end

    while i < len(units):
        if after(i) - start > room():  # taller than a slide: scaled within its floor, or cut inside
            slides += split_tall(units[i], start, after(i), height, band, zoom)
            start, i = after(i), i + 1
            continue
        j = i + 1  # units i .. j-1 go on this slide: the first always, the next ones while they fit
        while j < len(units) and after(j) - start <= room():
            j += 1

        def slide(k):  # units i .. k-1 on one slide
            return Slide(start, after(k - 1), fonts_of([t for u in units[i:k] for t in u.texts]), room(),
                         band if slides else 0, units[i].opens)

        if j < len(units) and not units[j].opens:  # the next slide would not open on a heading
            # A topic (from its heading to the next) on one slide, scaled a little, before its last lines start a
            # slide of their own (/mask's two maps, then the difference between them and its formula).
            rest = next((k for k in range(j, len(units)) if units[k].opens), len(units))
            if units[i].opens and slide(rest).readable(zoom, every=True) and slide(rest).scale >= MERGE_SCALE:
                j = rest
            else:  # end this slide before a heading, if one leaves it well filled
                j = next((k for k in range(j - 1, i, -1)
                          if units[k].opens and units[k].top - GAP - start >= 0.6 * room()), j)
        slides.append(slide(j))
        stop = slides[-1].stop
        start, i = stop, j
    return merge_near_empty(slides, zoom)


def merge_near_empty(slides: list[Slide], zoom: float = 1.0) -> list[Slide]:
    """A slide under NEAR_EMPTY full joins the shorter of its neighbours where both fit one slide whose
    text stays readable (scaled no further than the floor of the text on both, nor below MERGE_SCALE). The tail
    of a topic (a slide that does not open on a heading) joins only the slide before it, never the next topic."""
    merged = True
    while merged:
        merged = False
        for k, slide in enumerate(slides):
            if slide.stop - slide.start >= NEAR_EMPTY * slide.room:
                continue
            options = []
            for a, b in ((k - 1, k), (k, k + 1)):
                if a < 0 or b >= len(slides) or (slides[b].opens and not slides[a].opens):
                    continue  # the tail of one topic (a legend) never goes in front of the next one
                fonts = {size: slides[a].fonts.get(size, 0) + slides[b].fonts.get(size, 0)
                         for size in {*slides[a].fonts, *slides[b].fonts}}
                both = Slide(slides[a].start, slides[b].stop, fonts, slides[a].room, slides[a].band, slides[a].opens)
                if both.readable(zoom) and both.scale >= MERGE_SCALE:
                    options.append((both.stop - both.start, a, both))
            if options:
                _, a, both = min(options, key=lambda o: o[0])
                slides[a:a + 2] = [both]
                merged = True
                break
    return slides


def cuts(layout: dict, height: float, band: float = TOP_BAND, zoom: float = 1.0) -> list[tuple[int, int]]:
    """(start, stop) of each slide, in CSS pixels of the page."""
    return [(s.start, s.stop) for s in layout_slides(layout, height, band, zoom)]
