"""A slide that its content fills little of is drawn larger, as a teacher making slides by hand would do first.

A piece of a tall section (a printed book snippet, a metrics row, one table, five lines of prose) often fills under
a quarter of its slide at the page's own size: readable on a laptop, small from the back of a room. Such a slide is
laid out again with its own elements zoomed (CSS `zoom` on the largest elements wholly on it): the browser draws
their text, tables and code `ratio` times as large and wraps prose to the narrower width that leaves, so the slide
stays sharp and as wide as before. The ratio is the largest, up to MAX_ZOOM, at which the zoomed part still fits the
slide with nothing cut sideways; the zoom is taken off again before the next slide, whose layout was measured
without it. The deck's check (check.py) then reads the larger slide, its cuts measured again on the zoomed page.
"""
from . import check
from .check_js import MEASURE, SKIP

MAX_ZOOM = 2.2  # at most this many times the page's own size (presenter text of 22 px becomes 48 px)
MIN_GAIN = 1.15  # below this a zoom changes too little to be worth laying the slide out again
STEPS = 5  # bisections of the ratio between 1 and MAX_ZOOM

# ([start, stop, ratio]): zoom the largest elements of the main column lying wholly between start and stop (CSS px
# from the top of its scroll area, as page_js.LAYOUT measures); ratio 1 takes every such zoom off. Returns the
# bottom of the zoomed elements and whether anything inside them is cut sideways or wraps where it must not.
ZOOM = """([start, stop, ratio]) => {
  const main = document.querySelector('[data-testid="stMain"]');
  const origin = main.getBoundingClientRect().top - main.scrollTop;
  document.querySelectorAll('[data-slides-zoom]').forEach(e => { e.style.zoom = ''; e.removeAttribute('data-slides-zoom'); });
  if (ratio === 1) return null;
  // Boxes around elements are opened to find what lies wholly on the slide; an element itself (a code block, a
  // table, a paragraph) is zoomed whole or not at all: its lines must not zoom one by one. One that runs on from the
  // slide before (the tail of a long listing) or on to the next (its head) is zoomed whole too, and the slide then
  // starts, or ends, where its cut between two lines has moved to: every line grows by the same ratio.
  const WHOLE = 'pre, code, table, p, ul, ol, svg, canvas, img, iframe, .katex-display, [data-testid="stMarkdown"],'
    + ' [data-testid="stCode"], [data-testid="stCaptionContainer"], [data-testid="stTable"], [data-testid="stMetric"]';
  const picked = [];
  let runOn = null, runsPast = null, more = false;
  const visit = parent => {
    for (const e of parent.children) {
      const r = e.getBoundingClientRect(), top = r.top - origin, bottom = r.bottom - origin;
      if (r.height === 0 || bottom <= start || top >= stop) continue;
      if (top >= start - 1 && bottom <= stop + 1) { picked.push(e); continue; }
      if (!e.matches(WHOLE)) { visit(e); continue; }
      // At most one element straddles each edge (columns side by side, each running on, are left as they are)
      if ((top < start && runOn) || (bottom > stop + 1 && runsPast)) { more = true; continue; }
      if (top < start) runOn = [e, top];
      if (bottom > stop + 1) runsPast = [e, top];  // both: one listing across the whole slide
      picked.push(e);
    }
  };
  visit(document.querySelector('[data-testid="stMainBlockContainer"]'));
  if (more) return {zoomed: 0};
  // A table cell of a few characters that wraps once zoomed (a shape split over two lines) reads worse than a
  // smaller slide: it counts as cut. Long cells (a line of code, a sentence) may wrap.
  const lines = cell => { const r = document.createRange(); r.selectNodeContents(cell);
                          return new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top))).size; };
  const cells = picked.flatMap(e => [...e.querySelectorAll('td, th')]).filter(c => c.innerText.trim().length <= 24)
    .map(c => [c, lines(c)]);  // a number, a shape, a short name: none of these may wrap
  // Nor may a line of code or of a printed tensor: a code block is only ever `ratio` times as tall as before.
  const code = picked.flatMap(e => [...e.querySelectorAll('pre')]).map(c => [c, c.getBoundingClientRect().height]);
  // Anything clipped sideways (a code block, a label cut with '…') that was not already so at the page's own size.
  const clipped = x => x.scrollWidth > x.clientWidth + 1 && getComputedStyle(x).overflowX !== 'visible';
  const inside = picked.flatMap(e => [e, ...e.querySelectorAll('*')]);
  const before = new Set(inside.filter(clipped));
  picked.forEach(e => { e.setAttribute('data-slides-zoom', ''); e.style.zoom = ratio; });
  let bottom = start, cut = cells.some(([c, n]) => lines(c) > n)
    || code.some(([c, h]) => c.getBoundingClientRect().height > h * ratio + 2);
  for (const e of picked) {
    bottom = Math.max(bottom, e.getBoundingClientRect().bottom - origin);
  }
  cut = cut || inside.some(x => !before.has(x) && clipped(x))
    || picked.some(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1);
  // Where the slide's first and last lines now are: start itself, unless the element running on from the slide
  // before grew; just below what is on it, unless an element runs on to the next slide, whose cut moved.
  const moved = ([e, top], y) => e.getBoundingClientRect().top - origin + (y - top) * ratio;
  const first = runOn ? moved(runOn, start) : start;
  return {start: first, stop: runsPast ? moved(runsPast, stop) : bottom + 8, cut, zoomed: picked.length};
}"""


def best_ratio(page, start: float, stop: float, room: float) -> float:
    """The largest zoom, up to MAX_ZOOM, at which the slide's elements fit in `room` CSS px below `start` with
    nothing cut sideways (bisection: the height grows with the ratio, by more than it for wrapped prose)."""
    def fits(ratio: float) -> bool:
        placed = page.evaluate(ZOOM, [start, stop, ratio])
        if not placed or not placed["zoomed"] or placed["cut"] or placed["stop"] - placed["start"] > room:
            return False
        return not check.cut_flags(page.evaluate(MEASURE, SKIP), placed["start"], placed["stop"])  # the check's rule

    if fits(MAX_ZOOM):
        return MAX_ZOOM
    low, high = 1.0, MAX_ZOOM
    for _ in range(STEPS):
        middle = (low + high) / 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    page.evaluate(ZOOM, [start, stop, 1])
    return low


def zoom_in(page, start: float, stop: float, room: float, wait) -> tuple[float, float, float, dict] | None:
    """Lay the slide from start to stop out larger: (ratio, its new start and stop, the check's MEASURE of the zoomed
    page), or None where no ratio of MIN_GAIN or more fits. The zoom stays on until zoom_out; `wait` waits for the
    page to settle (charts redrawn at their new width)."""
    ratio = best_ratio(page, start, stop, room)
    if ratio < MIN_GAIN:
        return None
    page.evaluate(ZOOM, [start, stop, ratio])
    wait()
    placed = page.evaluate(ZOOM, [start, stop, ratio])  # measured again once charts have redrawn
    return ratio, placed["start"], min(placed["start"] + room, placed["stop"]), page.evaluate(MEASURE, SKIP)


def zoom_out(page, wait) -> None:
    page.evaluate(ZOOM, [0, 0, 1])
    wait()
