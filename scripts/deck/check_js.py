"""The JavaScript behind the deck's check (check.py): what the page itself says about each thing on it.

Text drawn in a canvas (Vega's charts, st.dataframe's grid) is not in the DOM, so CANVAS_TEXT, injected
before the app renders, notes every fillText: its text, its size and where it lands, in the canvas's own
pixels. MEASURE then reads, in CSS pixels from the top of the main column's scroll area (as LAYOUT does):
- every run of text with its computed font size (canvas text too, converted to CSS pixels);
- what is cut: an element that clips or scrolls its content sideways (scrollWidth > clientWidth: a code
  block, a formula, a table wider than its box), text past the slide's right edge, a canvas's text drawn
  past the canvas's edge, and a chart's label shortened with '…' (a Vega legend's labelLimit);
- what the deck leaves out: elements marked for the teacher alone (SKIP), whose text goes in the report.
"""

# Elements the app marks as not for a class (ui/draw/display.py: for_the_teacher): a download command, a missing
# file, a backend's "not implemented". The slides hide them (page_js.HIDE_CHROME) and name them in the left-out
# file; a mark with "-screen" (slides-skip-screen-...) leaves out the whole screen.
SKIP = '[class*="st-key-slides-skip"]'

CANVAS_TEXT = """(() => {
  const seen = new WeakMap();  // canvas -> Map(key -> [text, size, left, right, y, canvas width, canvas height])
  window.__slidesCanvasText = c => [...(seen.get(c) || new Map()).values()]
    .filter(t => t[5] === c.width && t[6] === c.height);  // drawn at the canvas's present size
  const note = (ctx, text, x, y) => {
    const canvas = ctx.canvas;
    if (!canvas || typeof canvas.getBoundingClientRect !== 'function') return;  // an OffscreenCanvas
    const m = ctx.getTransform(), scale = Math.hypot(m.a, m.b) || 1;
    const turned = Math.abs(m.b) > 1e-6 || Math.abs(m.c) > 1e-6;  // rotated (a facet's row header): not measured sideways
    const size = parseFloat((ctx.font.match(/([\\d.]+)px/) || [0, 0])[1]) * scale;  // canvas pixels
    const width = ctx.measureText(text).width * scale;
    let left = m.a * x + m.c * y + m.e;
    const align = ctx.textAlign;
    if (align === 'center') left -= width / 2;
    else if (align === 'right' || align === 'end') left -= width;
    let map = seen.get(canvas);
    if (!map) { map = new Map(); seen.set(canvas, map); }
    if (map.size > 20000) map.clear();
    const top = m.b * x + m.d * y + m.f;
    map.set(`${text}@${Math.round(left)},${Math.round(top)}`,
            [text, size, turned ? 0 : left, turned ? 0 : left + width, top, canvas.width, canvas.height]);
  };
  for (const method of ['fillText', 'strokeText']) {
    const original = CanvasRenderingContext2D.prototype[method];
    CanvasRenderingContext2D.prototype[method] = function (text, x, y, ...rest) {
      try { note(this, String(text), x, y); } catch (e) { /* the drawing matters, not the note */ }
      return original.call(this, text, x, y, ...rest);
    };
  }
  const clear = CanvasRenderingContext2D.prototype.clearRect;
  CanvasRenderingContext2D.prototype.clearRect = function (x, y, w, h) {  // a whole redraw: forget the old text
    try { const m = this.getTransform();
          if (x * m.a + m.e <= 0 && y * m.d + m.f <= 0 && w * m.a >= this.canvas.width && h * m.d >= this.canvas.height)
            seen.delete(this.canvas); } catch (e) { /* ignore */ }
    return clear.call(this, x, y, w, h);
  };
})()"""

MEASURE = """(skip) => {
  const main = document.querySelector('[data-testid="stMain"]');
  const origin = main.getBoundingClientRect().top - main.scrollTop;
  const root = document.querySelector('[data-testid="stMainBlockContainer"]');
  const edge = document.documentElement.clientWidth;  // the slide's right edge
  const shown = e => e.checkVisibility({opacityProperty: true, visibilityProperty: true})
                     && !e.closest('[data-testid="stElementToolbar"], .slides-band');
  const short = s => (s || '').replace(/\\s+/g, ' ').trim().slice(0, 70);
  const name = e => e.getAttribute('data-testid') || e.tagName.toLowerCase();
  const texts = [], cut = [], boxes = [];
  const add = (list, r, what) => list.push([Math.round(r.top - origin), Math.round(r.bottom - origin), what]);
  const within = e => boxes.some(b => b.contains(e));  // already said: its box is flagged
  // Clipped or scrolled sideways: the box shows less than its content.
  for (const e of root.querySelectorAll('*')) {
    if (e.scrollWidth <= e.clientWidth + 2 || e.clientWidth === 0 || !shown(e) || within(e)) continue;
    if (getComputedStyle(e).overflowX === 'visible') continue;
    const r = e.getBoundingClientRect();
    if (r.height < 8) continue;
    boxes.push(e);
    add(cut, r, `${name(e)} ${e.scrollWidth} px wide in a ${e.clientWidth} px box: "${short(e.innerText)}"`);
  }
  // A line of code or of a printed tensor that wraps: its continuation starts a row at the block's left, under the
  // indentation students copy (Streamlit's code blocks wrap rather than scroll). Each drawn row that does not begin
  // a line of the text is flagged where it lies.
  for (const pre of root.querySelectorAll('[data-testid="stCode"] pre')) {
    if (!shown(pre) || within(pre)) continue;
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    let top = -Infinity, fresh = true, first = null;
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const parts = n.textContent.split('\\n');
      let offset = 0;
      parts.forEach((part, i) => {
        if (part.length) {
          const range = document.createRange();
          range.setStart(n, offset);
          range.setEnd(n, offset + part.length);
          for (const r of [...range.getClientRects()].filter(r => r.height > 1 && r.width > 0)) {
            if (r.top > top + 1 && !fresh && !first) first = r;  // a new row that no newline began
            top = Math.max(top, r.top);
            fresh = false;
          }
        }
        offset += part.length + 1;
        if (i < parts.length - 1) fresh = true;  // a newline follows this part: the next row is a line's own
      });
    }
    if (first) {
      boxes.push(pre);
      add(cut, first, `a code line wraps in a ${Math.round(pre.clientWidth)} px box: "${short(pre.innerText.split('\\n')
        .reduce((a, b) => b.length > a.length ? b : a, ''))}"`);
    }
  }
  // A picture wider than its column (or section): its neighbour covers it, or the section's edge cuts it.
  const COLUMN = '[data-testid="stColumn"], [data-testid="stExpanderDetails"], [data-testid="stMainBlockContainer"]';
  for (const e of root.querySelectorAll('canvas, img, svg, table, [data-testid="stVegaLiteChart"]')) {
    if (!shown(e) || within(e) || e.closest('svg') !== (e.tagName === 'svg' ? e : null)) continue;
    const column = e.parentElement && e.parentElement.closest(COLUMN);
    if (!column) continue;
    const r = e.getBoundingClientRect(), c = column.getBoundingClientRect();
    // A column's picture may reach into the gap before the next column, or to its section's edge after the last
    // one (a legend does, at presenter size): nothing covers or cuts it there.
    let limit = c.right;
    if (column.getAttribute('data-testid') === 'stColumn') {
      const next = column.nextElementSibling, box = column.parentElement.closest(
        '[data-testid="stExpander"], [data-testid="stMainBlockContainer"]');  // its drawn border
      limit = next ? next.getBoundingClientRect().left : box ? box.getBoundingClientRect().right : c.right;
    }
    if (r.height < 8 || r.right <= limit + 2) continue;
    boxes.push(e);
    add(cut, r, `${name(e)} ${Math.round(r.width)} px wide runs ${Math.round(r.right - c.right)} px past its `
                + `${name(column)} (${Math.round(c.width)} px)`);
  }
  const walk = node => {
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === Node.TEXT_NODE) {
        const text = n.textContent.trim(), parent = n.parentElement;
        if (!text || !parent || parent.closest('.katex-mathml') || !shown(parent)) continue;
        const range = document.createRange();
        range.selectNodeContents(n);
        const lines = [...range.getClientRects()].filter(r => r.height > 1 && r.width > 0);
        if (!lines.length) continue;
        let size = parseFloat(getComputedStyle(parent).fontSize);
        const ctm = parent instanceof SVGElement && parent.getScreenCTM && parent.getScreenCTM();
        if (ctm) size *= Math.hypot(ctm.a, ctm.b);  // an SVG's text is sized in its own units, then scaled to its box
        texts.push([Math.round(lines[0].top - origin), +size.toFixed(1), short(text)]);
        const past = lines.find(r => r.right > edge + 1);
        const holder = parent.closest('pre, p, li, td, th, div') || parent;  // said once per paragraph or block
        if (past && !within(holder)) { boxes.push(holder); add(cut, past, `text past the slide's right edge: "${short(text)}"`); }
      } else if (n.shadowRoot) {
        walk(n.shadowRoot);
      } else if (n.tagName === 'CANVAS' && shown(n) && window.__slidesCanvasText) {
        const r = n.getBoundingClientRect(), css = r.width / (n.width || 1);  // CSS px per canvas pixel
        for (const [text, size, left, right, y, w] of window.__slidesCanvasText(n)) {
          if (!text.trim()) continue;
          const top = r.top + y * css - size * css;
          texts.push([Math.round(top - origin), +(size * css).toFixed(1), short(text)]);
          const where = {top, bottom: top + size * css};
          if (left < -1 || right > w + 1 || r.left + right * css > edge + 1)
            add(cut, where, `chart text past its canvas: "${short(text)}"`);
          else if (text.endsWith('…'))
            add(cut, where, `chart label shortened: "${short(text)}"`);
        }
      }
    }
  };
  walk(root);
  const skipped = [...document.querySelectorAll(skip)].map(e => short(e.innerText)).filter(Boolean);
  const whole = !!document.querySelector(skip.replace('slides-skip', 'slides-skip-screen'));
  return {texts, cut, skipped, whole};
}"""
