"""The JavaScript the slides run in the page: hide the chrome, wait until drawn, and read the layout."""

from local_server import VIEWS_DRAWN

from .check_js import SKIP

# Streamlit 1.67's embed mode hides the toolbar but not the sidebar; the empty header goes too.
# What the app marks as for the teacher alone (check_js.SKIP: a download command, a missing file) goes as well.
# Injected before the app renders, so charts are laid out at the full width from the start.
HIDE_CHROME = """(() => {
  const SKIP = '%s';
  const css = '[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],'
    + ' [data-testid="stExpandSidebarButton"], [data-testid="stHeader"], ' + SKIP + ' { display: none !important; }';
  const add = () => { const s = document.createElement('style'); s.textContent = css;
                      document.head.appendChild(s); };
  if (document.head) add(); else document.addEventListener('DOMContentLoaded', add);
})()""".replace("%s", SKIP)

PROBLEMS = '[data-testid="stException"], [data-testid="stAlertContentError"]'

# Ready: the run is over, no placeholder is left, images are loaded and every view and chart is drawn.
READY = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-testid="stSkeleton"], [data-testid="stStatusWidget"]')) return false;
  if (!document.querySelector('[data-testid="stMain"] [data-testid="stElementContainer"]')) return false;
  if ([...document.images].some(i => !i.complete)) return false;
  if (!(""" + VIEWS_DRAWN + """)) return false;
  return [...document.querySelectorAll('[data-testid="stVegaLiteChart"]')]
    .every(c => !c.checkVisibility() || c.querySelector('canvas, svg.marks'));  // hidden tabs draw later
}"""

# Where the units of the main column sit, in CSS pixels from the top of its scroll area: its
# top-level blocks (columns, tabs, expanders and containers count as one), except that a container
# taller than a slide (a fragment holding most of a screen) counts as the blocks inside it, and an
# open section taller than a slide counts as its title (a heading) and the blocks inside it.
# Each block says what it is (cutting.py decides what stays together), how big its text is
# ({font px: characters}), and, when it is tall, where it could be cut: the lines between two rows
# of its ink (text lines, table rows, images, charts, widgets; the attention view's shadow DOM too).
LAYOUT = """(slide) => {
  const main = document.querySelector('[data-testid="stMain"]');
  const origin = main.getBoundingClientRect().top - main.scrollTop;
  const box = e => { const r = e.getBoundingClientRect(); return [r.top - origin, r.bottom - origin]; };
  const shown = e => e.checkVisibility() && e.getBoundingClientRect().height > 0;
  const section = e => { const d = e.querySelector(':scope > [data-testid="stExpander"] > details[open]');
                         return d && [d.querySelector(':scope > summary'),
                                      d.querySelector(':scope > [data-testid="stExpanderDetails"] > [data-testid="stVerticalBlock"]')]; };
  const units = parent => [...parent.children].filter(shown).flatMap(e => {
    if (e.getBoundingClientRect().height <= slide) return [e];
    const inner = e.querySelector(':scope > [data-testid="stVerticalBlock"]');
    if (inner) return units(inner);
    const open = section(e);
    return open && open[1] ? [open[0], ...units(open[1])] : [e];
  });
  const SOLID = 'img, canvas, svg, video, iframe, input, button, textarea, select, [role="slider"], hr';
  // One piece of reading: a cut between two of its rows splits it (a paragraph, a listing, a table, a list of bars).
  const WHOLE = 'p, li, pre, table, .av-bars';
  // The ink of e: every text line and solid element as [top, bottom], and its text's sizes.
  const ink = (root, acc) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === Node.TEXT_NODE) {
        const text = n.textContent.trim(), parent = n.parentElement;
        if (!text || !parent || parent.closest('.katex-mathml') || !parent.checkVisibility()) continue;
        const range = document.createRange();
        range.selectNodeContents(n);
        const lines = [...range.getClientRects()].filter(r => r.height > 1 && r.width > 0);
        lines.forEach(r => acc.rows.push([r.top - origin, r.bottom - origin]));
        const size = parseFloat(getComputedStyle(parent).fontSize);
        if (lines.length && size >= 4) acc.texts.push([Math.round(lines[0].top - origin), +size.toFixed(1), text.length]);
      } else {
        if (n.shadowRoot) ink(n.shadowRoot, acc);
        if (n.matches(WHOLE)) acc.wholes.push(box(n));
        if (n.matches('.av')) acc.views.push(box(n));  // an attention view: its controls belong with its map
        if (n.matches(SOLID) && n.checkVisibility()) { const r = n.getBoundingClientRect();
                                                       if (r.height > 0) acc.rows.push([r.top - origin, r.bottom - origin]); }
      }
    }
    return acc;
  };
  const cutsInside = (acc, top, bottom) => {  // the middle of every blank band at least 4 px high
    const rows = acc.rows.sort((a, b) => a[0] - b[0]), found = [];
    let reach = top;
    for (const [t, b] of rows) {
      if (t - reach >= 4 && reach > top + 8 && t < bottom - 8) found.push(Math.round((reach + t) / 2));
      reach = Math.max(reach, b);
    }
    return found;
  };
  const blocks = units(document.querySelector('[data-testid="stMainBlockContainer"] > [data-testid="stVerticalBlock"]'))
    .map(e => {
      const element = e.matches('[data-testid="stElementContainer"]');  // one element, not a block of them
      const title = e.tagName === 'SUMMARY';  // an open section's title: a heading for what follows
      const first = element ? e : e.querySelector('[data-testid="stElementContainer"]');
      const words = element && !e.querySelector('img, table, canvas, svg, pre, .katex-display, ' + SOLID);
      const caption = words && !!e.querySelector('[data-testid="stCaptionContainer"]');  // not an image's own
      // A colour bar: thin images (and their captions) only, the legend of the picture above it.
      const solid = element ? [...e.querySelectorAll('table, pre, ' + SOLID)]
                                .filter(x => !x.closest('[data-testid="stElementToolbar"]')) : [];  // not its buttons
      const legend = solid.length > 0 && solid.every(x => x.tagName === 'IMG' && x.getBoundingClientRect().height <= 48);
      const folded = !!e.querySelector('[data-testid="stExpander"]') && !e.querySelector('details[open]')
                     && e.getBoundingClientRect().height < 120;
      const heading = title || (element && !!e.querySelector('[data-testid="stHeading"]'));
      const prose = words && !!e.querySelector('[data-testid="stMarkdown"]');
      const [top, bottom] = box(e);
      const acc = ink(e, {rows: [], texts: [], wholes: [], views: []});
      // A picture and its own caption (st.image's): never cut apart, and the check says so if they end up apart.
      const glued = [...e.querySelectorAll('[data-testid="stImage"]')].flatMap(i => {
        const img = i.querySelector('img'), caption = i.querySelector('[data-testid="stImageCaption"]');
        return img && caption && caption.innerText.trim() ? [[Math.round(box(img)[0]), Math.round(box(caption)[1])]] : [];
      });
      const cuts = (bottom - top > slide / 2 ? cutsInside(acc, top, bottom) : [])
        .filter(c => !glued.some(([a, b]) => c > a && c < b));
      return {top, bottom,
              kind: heading ? 'heading' : (prose || caption || folded || legend) ? 'text' : 'other',
              colon: element && e.innerText.trim().endsWith(':'),  // "the tensors:" introduces what follows
              after: caption || folded || legend,  // a caption, a folded expander or a legend goes with the block above
              opens: heading || (!!first && !!first.querySelector('[data-testid="stHeading"]'))
                     || !!e.querySelector(':scope > [data-testid="stExpander"] > details[open]'),  // starts a slide
              texts: acc.texts,  // [top, font px, characters] of each run of text
              text: e.innerText.trim().replace(/\\s+/g, ' ').slice(0, 80),  // for the check's report
              glued,  // [top of a picture, bottom of its caption] of each captioned image in the block
              cuts,
              // The cuts inside one piece of reading (2) or inside one attention view (1): the cutter avoids them.
              splits: cuts.flatMap(c => acc.wholes.some(([a, b]) => c > a && c < b) ? [[c, 2]]
                                   : acc.views.some(([a, b]) => c > a && c < b) ? [[c, 1]] : [])};
    });
  const bg = getComputedStyle(document.querySelector('[data-testid="stApp"]')).backgroundColor;
  return {height: main.scrollHeight, blocks, bg};
}"""
