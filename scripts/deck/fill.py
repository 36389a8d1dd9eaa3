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
# from the top of its scroll area, as page_js.LAYOUT measures); ratio 1 takes every such zoom off. Returns where the
# zoomed slide starts and stops, whether anything on it is cut sideways or wraps where it must not, and how many
# elements were zoomed (0: the slide holds part of an element, or its text would grow past a title's size).
ZOOM = """([start, stop, ratio]) => {
  const main = document.querySelector('[data-testid="stMain"]');
  const origin = main.getBoundingClientRect().top - main.scrollTop;
  document.querySelectorAll('[data-slides-zoom]').forEach(e => {
    e.style.zoom = ''; e.removeAttribute('data-slides-zoom');
    e.querySelectorAll('code').forEach(c => { if (!c.closest('pre')) c.style.whiteSpace = ''; });
  });
  if (ratio === 1) return null;
  const TITLE_ZOOM = 1.2;
  // Boxes around elements are opened to find what lies wholly on the slide; an element itself (a code block, a
  // table, a paragraph) is zoomed whole or not at all: its lines must not zoom one by one. A slide holding a piece of
  // one (a listing running on from the slide before or on to the next) stays as it is: a teacher's read found a
  // listing changing size from one slide to the next less readable than a slide half full.
  const WHOLE = 'pre, code, table, p, ul, ol, svg, canvas, img, iframe, .katex-display, [data-testid="stMarkdown"],'
    + ' [data-testid="stCode"], [data-testid="stCaptionContainer"], [data-testid="stTable"], [data-testid="stMetric"],'
    + ' [data-testid="stElementContainer"]:not(:has([data-testid="stVerticalBlock"]))';  // an element: a picture and its caption
  const picked = [];
  let partial = false;
  const visit = parent => {
    for (const e of parent.children) {
      const r = e.getBoundingClientRect(), top = r.top - origin, bottom = r.bottom - origin;
      if (r.height === 0 || bottom <= start || top >= stop) continue;
      if (top >= start - 1 && bottom <= stop + 1) picked.push(e);
      else if (!e.matches(WHOLE)) visit(e);
      else partial = true;
    }
  };
  visit(document.querySelector('[data-testid="stMainBlockContainer"]'));
  if (partial) return {zoomed: 0};
  // No text but a heading grows far past the page's title: a lone metric drawn 2.2 times as large reads as a banner.
  const sizeOf = e => parseFloat(getComputedStyle(e).fontSize) || 0;
  const title = 2.75 * sizeOf(document.documentElement);  // Streamlit's st.title: 2.75rem
  const largest = Math.max(1, ...picked.flatMap(e => [e, ...e.querySelectorAll('*')])
    .filter(x => !x.closest('h1, h2, h3, h4, h5, h6')
                 && [...x.childNodes].some(n => n.nodeType === Node.TEXT_NODE && n.textContent.trim())).map(sizeOf));
  if (ratio * largest > title * 1.3) return {zoomed: 0};
  // A table cell of a few characters that wraps once zoomed (a shape split over two lines) reads worse than a
  // smaller slide: it counts as cut. Long cells (a line of code, a sentence) may wrap.
  const lines = cell => { const r = document.createRange(); r.selectNodeContents(cell);
                          return new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top))).size; };
  const cells = picked.flatMap(e => [...e.querySelectorAll('td, th')]).filter(c => c.innerText.trim().length <= 24)
    .map(c => [c, lines(c)]);  // a number, a shape, a short name: none of these may wrap
  // Nor may a line of code or of a printed tensor: a code block is only ever `ratio` times as tall as before.
  const code = picked.flatMap(e => [...e.querySelectorAll('pre')]).map(c => [c, c.getBoundingClientRect().height]);
  // Anything clipped (a code block, a label cut with '…') that was not already so at the page's own size.
  // Up and down too: a formula's box (KaTeX's overflow: auto hidden) cut the top of a zoomed fraction.
  const clipped = x => (x.scrollWidth > x.clientWidth + 1 && getComputedStyle(x).overflowX !== 'visible')
    || (x.scrollHeight > x.clientHeight + 2 && getComputedStyle(x).overflowY !== 'visible');
  const inside = picked.flatMap(e => [e, ...e.querySelectorAll('*')]);
  const before = new Set(inside.filter(clipped));
  // The screen's title (h1) grows a little only: it is already the largest text, and a title slide's intro and
  // controls are what filled a quarter of it (/scores, /softmax).
  picked.forEach(e => { e.setAttribute('data-slides-zoom', '');
                        e.style.zoom = e.querySelector('h1') ? Math.min(ratio, TITLE_ZOOM) : ratio; });
  // Inline code in re-wrapped prose keeps its line ("transpose(1, 2)", a shape): the line breaks before it instead.
  // Not a code block's <code>, which Streamlit wraps in a <div> inside its <pre>: nowrap would fold its lines into one.
  picked.forEach(e => e.querySelectorAll('code').forEach(c => { if (!c.closest('pre')) c.style.whiteSpace = 'nowrap'; }));
  let bottom = start, cut = cells.some(([c, n]) => lines(c) > n)
    || code.some(([c, h]) => c.getBoundingClientRect().height > h * ratio + 2);
  for (const e of picked) {
    bottom = Math.max(bottom, e.getBoundingClientRect().bottom - origin);
  }
  cut = cut || inside.some(x => !before.has(x) && clipped(x))
    || picked.some(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1);
  return {start, stop: bottom + 8, cut, zoomed: picked.length};
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
