"""A student's phone in Debian's Chromium (390 × 844, touch, 3 device pixels a CSS pixel): home, a stage screen and a
room student's questions fit the screen: no sideways scrolling of the page, no text under 12 px in the main area, no
formula cut off at the right, and each answer a student taps in a room at least 44 × 44 px (WCAG 2.5.5)."""
import pytest

from browser import chromium_page, exceptions, require_browser, streamlit_server, wait_idle

PHONE = dict(width=390, height=844, is_mobile=True, has_touch=True, device_scale_factor=3)
SMALLEST_PX = 12
TARGET_PX = 44

# What a phone shows, measured in the page: the page's own overflow, the smallest text in the main area (SVG text
# scaled as drawn), and every text element that reaches past a box that clips it (or past the screen) without a
# scroll bar of its own: text nobody can read.
FIGURES = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const vw = window.innerWidth;
  const out = {viewport: vw, page_width: Math.max(document.documentElement.scrollWidth, main.scrollWidth),
               smallest: null, widest: null, cut: []};
  const describe = el => (el.getAttribute('data-testid') || el.tagName.toLowerCase()) + ': '
                         + (el.textContent || '').trim().slice(0, 40);
  const hidden = el => el.closest('.katex-mathml, [aria-hidden="true"] title, [data-testid="stTooltipContent"]');
  for (const el of main.querySelectorAll('*')) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && /[^\\s\\u200b]/.test(n.textContent));
    const box = el.getBoundingClientRect();
    if (!own || box.width <= 1 || box.height <= 1 || hidden(el)) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.opacity === '0') continue;
    let size = parseFloat(style.fontSize);
    if (el instanceof SVGElement && el.getScreenCTM()) {
      const m = el.getScreenCTM();
      size *= Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
    }
    if (!out.smallest || size < out.smallest.px) out.smallest = {px: +size.toFixed(2), what: describe(el)};
    let clip = null;
    for (let up = el.parentElement; up && up !== main; up = up.parentElement) {  // main scrolls the page
      const o = getComputedStyle(up).overflowX;
      if (o !== 'visible') { clip = {el: up, scrolls: o === 'auto' || o === 'scroll'}; break; }
    }
    if (clip && clip.scrolls) continue;  // it scrolls: a swipe reads the rest
    const right = clip ? Math.min(clip.el.getBoundingClientRect().right, vw) : vw;
    if (!out.widest || box.right > out.widest.right) out.widest = {right: +box.right.toFixed(1), what: describe(el)};
    if (box.right > right + 1) out.cut.push({what: describe(el), right: +box.right.toFixed(1), box: +right.toFixed(1)});
  }
  // KaTeX display math: its width, its box's, and its widest unbreakable piece (KaTeX breaks only after a top-level
  // = or +); a phone shows no scroll bar until a finger moves, so a formula wider than its box reads as cut off
  out.formulas = [...main.querySelectorAll('.katex-display')].map(el => ({
    box: el.clientWidth, content: el.scrollWidth, overflow: getComputedStyle(el).overflowX,
    piece: Math.ceil(Math.max(0, ...[...el.querySelectorAll('.katex-html > .base')].map(
      b => b.getBoundingClientRect().width)))}));
  return out;
}"""

# Every option a student taps to answer in a room (radio options, yes/no, the number box, the picker, Send).
TARGETS = """() => [...document.querySelectorAll('[class*="st-key-predict-"]')].flatMap(box => [
    ...box.querySelectorAll('[data-testid="stRadioOption"], [data-testid="stTextInput"] input, [data-baseweb="select"],'
                            + ' [data-testid="stButton"] button')]).map(el => {
  const r = el.getBoundingClientRect();
  return {what: (el.textContent || el.getAttribute('placeholder') || '').trim().slice(0, 30),
          width: +r.width.toFixed(1), height: +r.height.toFixed(1)};
})"""


def phone_figures(page) -> dict:
    return page.evaluate(FIGURES)


def answer_targets(page) -> list[dict]:
    return page.evaluate(TARGETS)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_browser()
    store = tmp_path_factory.mktemp("rooms") / "rooms.sqlite3"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATTENTION_ROOMS_STORE", f"sqlite:///{store}")
        with streamlit_server() as base:
            yield base, f"sqlite:///{store}"


def _fits_a_phone(page, where: str) -> dict:
    figures = phone_figures(page)
    assert figures["page_width"] <= figures["viewport"], (where, figures)
    assert figures["smallest"]["px"] >= SMALLEST_PX, (where, figures["smallest"])
    assert figures["cut"] == [], (where, figures["cut"])
    # Wide formulas wrap after their = and + (never wider than their widest piece); a piece wider than the phone
    # (a fraction with six exponentials) scrolls in its own box
    assert [f for f in figures["formulas"] if f["content"] > max(f["box"], f["piece"]) + 1] == [], (where, figures)
    assert all(f["overflow"] in ("auto", "scroll") for f in figures["formulas"] if f["content"] > f["box"] + 1), where
    assert exceptions(page) == [], where
    return figures


@pytest.mark.parametrize("path", ["/", "/softmax", "/mask"])
def test_a_screen_fits_a_phone(server, path):
    base, _ = server
    with chromium_page(**PHONE) as page:
        page.goto(base + path)
        wait_idle(page)
        page.wait_for_timeout(1500)  # the diagram and the formulas are drawn after the run
        _fits_a_phone(page, path)
        if path == "/":  # the pipeline is there, once, in its phone layout (its text counted above)
            assert page.locator('[data-testid="stGraphVizChart"] svg').evaluate_all(
                "svgs => svgs.filter(s => s.getBoundingClientRect().width > 0).length") == 1


def test_a_room_students_answers_are_big_enough_to_tap(server):
    base, url = server
    from rooms.backends import open_store
    from rooms.store import start_room
    result, code, _token = start_room(open_store(url))
    assert result.ok
    with chromium_page(**PHONE) as page:
        page.goto(f"{base}/scores?room={code}")
        wait_idle(page)
        page.get_by_role("button", name="Send my predictions").wait_for(timeout=30_000)
        targets = answer_targets(page)
        assert len(targets) >= 4, targets  # two questions' options and Send at least
        small = [t for t in targets if t["width"] < TARGET_PX or t["height"] < TARGET_PX]
        assert small == [], small
        _fits_a_phone(page, "room student")
