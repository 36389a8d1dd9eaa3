"""Where scripts/slides.py cuts a long screen (scripts/deck/cutting.py): layouts as the page reports them, no browser."""
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from deck import cutting  # noqa: E402
from deck.cutting import GAP, TOP_BAND, cuts, groups, layout_slides, scale_floor  # noqa: E402

SLIDE = 1080  # one slide at --zoom 1, CSS px
BODY = {22.0: 500}  # a paragraph's text: 22 px in presenter mode
SMALL = {19.0: 900}  # a table's or a view's text: 19 px, readable down to 16/19 = 0.84


def block(top, bottom, kind="other", colon=False, after=False, opens=None, fonts=None, inner=(), splits=()):
    """A block as page_js.LAYOUT reports it; its text (`fonts`, {px: characters}) spread over it, a line every 40 px.
    inner: where it may be cut; splits: those of them inside one piece of reading (a paragraph, a list of bars),
    as (cut, 2), or inside an attention view, as (cut, 1)."""
    lines = range(top, bottom, 40)
    texts = [[y, size, count / len(lines)] for size, count in (BODY if fonts is None else fonts).items() for y in lines]
    return {"top": top, "bottom": bottom, "kind": kind, "colon": colon, "after": after,
            "opens": kind == "heading" if opens is None else opens, "texts": texts, "cuts": list(inner),
            "splits": [list(s) for s in splits]}


def heading(top, bottom, **kw):
    return block(top, bottom, "heading", **kw)


def text(top, bottom, **kw):
    return block(top, bottom, "text", **kw)


def on_one_slide(spans, top, bottom) -> bool:
    return any(a <= top and bottom <= b for a, b in spans)


def test_a_heading_and_its_intro_stay_with_the_picture_they_introduce():
    # /trained's "Look closer": a chart fills most of the first slide; the heading, its caption and an intro
    # paragraph would fit beneath it, the view would not. They go to the next slide, with the view.
    layout = {"height": 2000, "blocks": [
        block(0, 700), heading(716, 760), text(776, 800, after=True), text(816, 880), block(896, 1700, fonts=SMALL)]}
    spans = cuts(layout, SLIDE)
    assert spans[0] == (0, 716 - GAP), spans
    assert on_one_slide(spans, 716, 1700), spans
    # A line ending with ':' introduces the table after it, across an intro of two paragraphs.
    layout = {"height": 2000, "blocks": [block(0, 800), text(816, 850, colon=True), text(866, 900), block(916, 1500)]}
    assert on_one_slide(cuts(layout, SLIDE), 816, 1500)
    # Without a heading, the paragraph right above the picture is its intro (/mask's "No mask at all: the future
    # leaks." over its map); the paragraph before it is not, and fills the first slide.
    layout = {"height": 2000, "blocks": [block(0, 700), text(716, 780), text(796, 880), block(896, 1700)]}
    spans = cuts(layout, SLIDE)
    assert spans[0] == (0, 796 - GAP) and on_one_slide(spans, 796, 1700), spans


def test_a_tall_block_is_scaled_while_its_text_stays_readable_and_cut_between_rows_beyond():
    rows = list(range(150, 3200, 40))  # between two table rows, every 40 px
    # 5% taller than a slide, 19 px text: scaled to 0.95 (18 px), one slide.
    layout = {"height": 1200, "blocks": [block(0, 1100, fonts=SMALL, inner=rows)]}
    slides = layout_slides(layout, SLIDE)
    assert len(slides) == 1 and 0.9 < slides[0].scale < 1
    # Three slides' worth: scaling to 0.34 would draw 6.4 px text: cut between rows, no slide under 16 px.
    layout = {"height": 3300, "blocks": [heading(0, 60), block(76, 3200, fonts=SMALL, inner=rows)]}
    slides = layout_slides(layout, SLIDE)
    assert len(slides) == 3, [(s.start, s.stop) for s in slides]
    assert all(s.scale * 19 >= 16 for s in slides), [s.scale for s in slides]
    assert all(s.stop in rows for s in slides[:-1])  # every cut lies between two rows
    assert slides[0].start == 0 and slides[0].stop > 76 + 500  # the heading opens the first part of its table
    # An image without text is scaled whole, however tall.
    layout = {"height": 3000, "blocks": [block(0, 2900, fonts={}, inner=[])]}
    slides = layout_slides(layout, SLIDE)
    assert len(slides) == 1 and slides[0].scale < 0.4
    # Text with no row to cut between: scaled anyway (and the run reports how small its text is).
    layout = {"height": 3000, "blocks": [block(0, 2900, fonts=SMALL)]}
    assert len(layout_slides(layout, SLIDE)) == 1


def test_the_floor_follows_the_text_size_and_zoom():
    assert scale_floor({}) == 0
    assert scale_floor({19.0: 100}) == 16 / 19
    assert scale_floor({19.0: 100}, zoom=1.25) == 16 / (19 * 1.25)
    assert scale_floor({14.0: 100}) == 1  # already smaller than 16 px: never scaled further
    # A lone subscript does not set the floor: the size below which 10% of the characters lie does.
    assert scale_floor({12.0: 5, 20.0: 995}) == 16 / 20
    assert scale_floor({12.0: 200, 20.0: 800}) == 1


def test_a_near_empty_slide_joins_a_neighbour_where_both_fit_readably():
    # A paragraph left over after a full slide joins the short slide after it.
    layout = {"height": 2000, "blocks": [block(0, 1000), heading(1016, 1060, opens=True), text(1076, 1200),
                                         heading(1216, 1260), block(1276, 1500)]}
    spans = cuts(layout, SLIDE)
    assert len(spans) == 2 and on_one_slide(spans, 1016, 1500), spans
    # A block too tall to join the full slide before it, followed by one too tall to share a slide with it:
    # alone it would fill a quarter of a slide; it joins the shorter pair, scaled to 0.93 (22 px text: 20 px).
    layout = {"height": 2200, "blocks": [block(0, 900), block(916, 1150), block(1166, 2100)]}
    slides = layout_slides(layout, SLIDE)
    assert [(s.start, s.stop) for s in slides] == [(0, 1158), (1158, 2100 + GAP)]
    assert 0.9 < slides[0].scale < 0.95
    # A remainder too big to join without shrinking text under 16 px stays on its own slide.
    layout = {"height": 2400, "blocks": [block(0, 1040, fonts=SMALL), block(1056, 1300, fonts=SMALL),
                                         block(1316, 2300, fonts=SMALL)]}
    spans = cuts(layout, SLIDE)
    assert len(spans) == 3, spans


def units_cut_only_where_allowed(layout, slides):
    """Every unit lies on one slide, or is cut only at the cuts it offers; every cut slide keeps its text
    readable unless no offered cut lies close enough; slides tile the page from 0."""
    spans = [(s.start, s.stop) for s in slides]
    for unit in groups(layout):
        inside = [(a, b) for a, b in spans if a < unit.bottom and unit.top < b]
        assert inside, unit
        for a, b in inside[1:]:
            assert a in unit.cuts, f"unit {unit.top}-{unit.bottom} cut at {a}, offers {unit.cuts}"
    assert spans[0][0] == 0 and all(b == c for (_, b), (c, _) in zip(spans, spans[1:]))


def test_random_layouts_keep_every_rule():
    rng = random.Random(7)
    for _ in range(300):
        blocks, y = [], 0
        for _ in range(rng.randint(1, 30)):
            h = rng.choice([30, 60, 200, 500, 900, 1500, 2500])
            kind = rng.choice(["heading", "text", "text", "other", "other", "other"])
            inner = sorted(rng.sample(range(y + 41, y + h - 40), min(5, max(0, h - 81)))) if h > 540 else []
            blocks.append(block(y, y + h, kind, colon=rng.random() < 0.05, after=rng.random() < 0.1,
                                opens=rng.random() < 0.2, fonts=rng.choice([{}, BODY, SMALL]), inner=inner))
            y += h + 16
        layout = {"height": y, "blocks": blocks}
        slides = layout_slides(layout, SLIDE)
        units_cut_only_where_allowed(layout, slides)
        for slide in slides:  # never shrunk below its text's floor where a merge chose to join two slides
            whole = [u for u in groups(layout) if slide.start <= u.top - GAP and u.bottom <= slide.stop]
            if len(whole) > 1 and slide.scale < 1:
                assert slide.readable() and slide.scale >= cutting.MERGE_SCALE, slide


def test_no_slide_ends_on_a_heading_in_random_layouts():
    rng = random.Random(11)
    for _ in range(300):
        blocks, y = [], 0
        for _ in range(rng.randint(2, 25)):
            h = rng.choice([40, 80, 300, 700])
            blocks.append(block(y, y + h, rng.choice(["heading", "text", "other", "other"]), fonts=BODY))
            y += h + 16
        for a, b in cuts({"height": y, "blocks": blocks}, SLIDE):
            last = [blk for blk in blocks if a <= blk["top"] and blk["bottom"] <= b][-1:]
            later = [blk for blk in blocks if blk["top"] >= b]
            assert not (last and later and last[0]["kind"] == "heading"), (a, b, last)


def test_units_glue_headings_intros_and_captions():
    layout = {"height": 900, "blocks": [heading(0, 50), text(66, 100, after=True), text(116, 200), block(216, 600),
                                        text(616, 640, after=True), text(656, 700), block(716, 800)]}
    units = groups(layout)
    assert [(u.top, u.bottom) for u in units] == [(0, 640), (656, 800)]  # the last paragraph leads its picture
    assert units[0].cuts == [616 - GAP]  # only before the caption of the picture, never after the heading
    assert TOP_BAND == 32


def test_a_new_heading_starts_a_new_unit_unless_it_is_a_subtitle():
    layout = {"height": 900, "blocks": [heading(0, 50), text(66, 100), heading(116, 150), block(166, 400)]}
    assert [(u.top, u.bottom) for u in groups(layout)] == [(0, 100), (116, 400)]
    layout = {"height": 900, "blocks": [heading(0, 50), heading(66, 100), text(116, 150), block(166, 400)]}
    assert [(u.top, u.bottom) for u in groups(layout)] == [(0, 400)]


def test_a_tall_image_is_scaled_alone_and_its_caption_keeps_a_readable_size():
    # /mask at GPT-2 size: a 1,340 px map with its caption inside the same element, then its colour bar's caption.
    image = block(0, 1400, fonts={}, inner=[1340])
    image["texts"] = [[1350, 16.5, 200]]
    layout = {"height": 1700, "blocks": [image, block(1416, 1650, "text", after=True, fonts={16.5: 300})]}
    slides = layout_slides(layout, SLIDE)
    assert [(s.start, s.stop) for s in slides] == [(0, 1340), (1340, 1650 + GAP)], slides
    assert slides[0].fonts == {} and slides[0].scale < 0.85  # the map alone, scaled: no text on it to shrink
    assert all(s.readable() for s in slides)


def test_a_near_empty_slide_never_joins_the_start_of_another_topic():
    # A map's legend, left alone below a map scaled to fit, does not join the next section (it opens on its title).
    image = block(0, 1400, fonts={}, inner=[1340])
    layout = {"height": 2400, "blocks": [image, block(1416, 1600, "text", after=True, fonts={16.5: 300}),
                                         heading(1616, 1660, opens=True), block(1676, 2000)]}
    spans = cuts(layout, SLIDE)
    assert len(spans) == 3 and spans[1][1] == spans[2][0] == 1616 - GAP, spans  # the legend alone


def test_a_tall_unit_never_leaves_a_one_line_tail_when_the_rows_allow_two_even_slides():
    # /sliding-window's open code: a block a little taller than one slide of readable text (19 px, floor 0.84).
    # Filled greedily, the second slide held its last line (4% of a slide); the last cut moves up instead.
    rows = list(range(100, 1400, 40))
    layout = {"height": 1500, "blocks": [block(0, 1400, fonts=SMALL, inner=rows)]}
    slides = layout_slides(layout, SLIDE)
    assert len(slides) == 2, [(s.start, s.stop) for s in slides]
    heights = [s.stop - s.start for s in slides]
    assert min(heights) >= cutting.NEAR_EMPTY * SLIDE, heights
    assert slides[0].stop in rows and all(s.readable() for s in slides)


def test_a_tall_unit_is_cut_into_as_few_slides_as_readable_and_those_even():
    # /kv-cache's listing, 1.7 slides of 19 px code: filled greedily, a full slide scaled to 0.84 and a tail of half a
    # slide (15% of it inked: "nearly empty"). Two slides of 0.85 each keep the code at its own size, neither empty.
    rows = list(range(40, 1836, 40))
    layout = {"height": 1900, "blocks": [block(0, 1836, fonts=SMALL, inner=rows)]}
    slides = layout_slides(layout, SLIDE)
    heights = [s.stop - s.start for s in slides]
    assert len(slides) == 2 and max(heights) - min(heights) <= 80, heights
    assert all(s.scale == 1 for s in slides), [s.scale for s in slides]
    # Three and a half slides: four even ones, not three full and a half.
    rows = list(range(40, 3736, 40))
    slides = layout_slides({"height": 3800, "blocks": [block(0, 3736, fonts=SMALL, inner=rows)]}, SLIDE)
    heights = [s.stop - s.start for s in slides]
    assert max(heights) - min(heights) <= 80 and all(s.readable() for s in slides), heights


def test_a_tall_unit_is_cut_between_two_pieces_of_reading_before_inside_one():
    # /softmax's experiment at GPT-2: a section (1,580 px) whose intro paragraph (lines to 373) tops a view whose list
    # of bars runs past the first slide. The even cut fell inside the bars: three bars and a legend alone on a slide.
    # Between the intro and the view gives two slides as well, the view whole on the second.
    paragraph, bars = [260, 300, 340], list(range(1180, 1560, 40))
    layout = {"height": 1600, "blocks": [block(0, 1580, fonts=SMALL, inner=[*paragraph, 373, *bars],
                                               splits=[(c, 2) for c in [*paragraph, *bars]])]}
    assert [(s.start, s.stop) for s in layout_slides(layout, SLIDE)] == [(0, 373), (373, 1588)]
    # A piece under TIDY_SHARE of a slide is not worth it: the even cuts stand (here, inside the bars).
    bars = list(range(1180, 1500, 40))
    layout = {"height": 1520, "blocks": [block(0, 1500, fonts=SMALL, inner=[200, 240, 280, *bars],
                                               splits=[(c, 2) for c in bars])]}
    slides = layout_slides(layout, SLIDE)
    assert len(slides) == 2 and slides[0].stop in bars and all(s.readable() for s in slides), slides


def test_a_tall_unit_is_cut_before_a_view_rather_than_between_its_controls_and_its_map():
    # /mask at the book preset: the title, its intro and captions (to 416), then the view's own intro and the view
    # (416 to 1,458). The even cut fell between the view's sliders and its map (639): the map on the next slide
    # without the controls that name its query. Before the view's intro keeps the view whole.
    layout = {"height": 1500, "blocks": [heading(99, 199), text(221, 291), text(313, 349), text(371, 402, after=True),
                                         text(424, 495), block(517, 1458, fonts=SMALL, inner=[563, 639, 1417],
                                                               splits=[(563, 1), (639, 1)])]}
    assert [(s.start, s.stop) for s in layout_slides(layout, SLIDE)] == [(0, 416), (416, 1466)]
    layout["blocks"][-1]["splits"] = []  # the view's cuts unmarked: the even cut lands between its controls and map
    assert layout_slides(layout, SLIDE)[0].stop == 639


def test_a_topic_that_fits_a_slide_scaled_readably_stays_on_one():
    # /mask at GPT-2, "The book's two ways": its title, two maps with their legend (to 1,020), then the difference
    # between them and its formula (to 1,270). Unscaled, the difference started the next slide, above the next
    # section; scaled to 0.85 (22 px text: 19 px) the topic is one slide.
    def topic(bottom):
        return {"height": bottom + 1200, "blocks": [heading(0, 60), block(76, 1020), block(1036, bottom),
                                                    heading(bottom + 30, bottom + 80), block(bottom + 96, bottom + 600)]}
    assert cuts(topic(1270), SLIDE)[0] == (0, 1292)
    # Too tall for MERGE_SCALE: cut between the two as before.
    assert cuts(topic(1400), SLIDE)[0] == (0, 1028)
    # A formula's subscripts (KaTeX: 18.6 px, a few characters) would come out at 15.5 px scaled to 0.84: the deck's
    # check flags any character under 16 px, so a topic is kept whole only where every character stays readable.
    formula = topic(1270)
    formula["blocks"][2]["texts"] = [[1100, 22.0, 200], [1150, 18.6, 3]]
    assert cuts(formula, SLIDE)[0] == (0, 1028)


def test_a_paragraph_above_an_open_section_is_not_its_intro():
    # /softmax: the curves, the paragraph that explains them, then the temperature section (open, its own title). The
    # paragraph went with the section as its "intro", to the next slide, and left the curves unexplained.
    curves, words = block(0, 500), text(516, 600)
    section = block(616, 1400, opens=True)
    units = groups({"height": 1400, "blocks": [curves, words, section]})
    assert [(u.top, u.bottom) for u in units] == [(0, 500), (516, 600), (616, 1400)]
    spans = [(s.start, s.stop) for s in layout_slides({"height": 1400, "blocks": [curves, words, section]}, SLIDE)]
    assert on_one_slide(spans, 0, 600), spans
    # A paragraph above a picture still introduces it.
    assert len(groups({"height": 1000, "blocks": [text(0, 80), block(96, 900)]})) == 1


def test_a_control_right_above_a_picture_stays_with_it():
    # /implementations: "Show the code of" (a select box) was left alone on a slide, its code on the next.
    layout = {"height": 2200, "blocks": [block(0, 900), block(916, 990, fonts={16.0: 30}),
                                         block(1006, 1900, fonts=SMALL)]}
    spans = cuts(layout, SLIDE)
    assert on_one_slide(spans, 916, 1900), spans
    assert len(groups(layout)) == 2
