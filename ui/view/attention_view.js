// The attention view's DOM: built once per element, loaded with each payload, drawn on every move from the
// numbers Python sent. view.py inlines view_core.mjs before this file and view_input.js (the controls) after.
const VIEWS = new WeakMap(); // one view per mounted element: a rerun updates it, never appends again
const GRID_PX = 480; // the grid's side; a zoom grid is 384 so that it and the 300 px overview share a centred column
const BARS_MAX = 32;
const URL_DELAY_MS = 150; // Chrome ignores replaceState called hundreds of times in seconds: write after a pause
const el = (tag, cls, parent) => { const e = document.createElement(tag); if (cls) e.className = cls; parent?.appendChild(e); return e; };

function build(parent) {
  const root = el("div", "av", parent);
  root.tabIndex = 0;
  root.setAttribute("role", "application");
  const v = { root, title: el("p", "av-title", root) };
  v.help = el("p", "av-help", root);
  v.help.id = "av-help";
  v.help.textContent = "Keys: ↑ ↓ query, ← → key, Shift + arrows move the zoom window, + and − its size, "
    + "Enter sends this cell to the lesson. Click a cell to pick it.";
  root.setAttribute("aria-describedby", "av-help");
  const maps = v.maps = el("div", "av-maps", root);
  v.overviewBox = el("div", "av-overview", maps);
  v.overview = el("img", "", v.overviewBox);
  v.win = el("div", "av-win", v.overviewBox);
  v.mark = el("div", "av-mark", v.overviewBox);
  v.grid = el("canvas", "av-grid", maps);
  v.grid.setAttribute("aria-hidden", "true");
  v.range = el("p", "av-range", root);
  v.readout = el("p", "av-readout", root);
  v.readout.setAttribute("aria-live", "polite");
  v.hover = el("p", "av-hover", root);
  v.arith = el("p", "av-arith", root);
  v.barsTitle = el("p", "av-bars-title", root);
  v.bars = el("div", "av-bars", root);
  v.pool = Array.from({ length: BARS_MAX + 1 }, () => {
    const row = el("div", "av-bar", v.bars);
    return { row, label: el("span", "av-bar-label", row), fill: el("span", "av-bar-fill", el("span", "av-bar-track", row)), value: el("span", "av-bar-value", row) };
  });
  v.legend = el("p", "av-legend", root);
  v.timings = [];
  root.attentionView = v; // the tests and the benchmark read timings, state and drawn texts here
  listen(v);
  return v;
}

function hatch(masked) {
  // colour.py's _hatch: ((row + col) // 3) % 2 picks the dark or the light grey, here 2 screen pixels a step
  const tile = document.createElement("canvas");
  tile.width = tile.height = 12;
  const ctx = tile.getContext("2d");
  for (let y = 0; y < 6; y++) for (let x = 0; x < 6; x++) {
    ctx.fillStyle = masked[Math.floor((x + y) / 3) % 2];
    ctx.fillRect(2 * x, 2 * y, 2, 2);
  }
  return ctx.createPattern(tile, "repeat");
}

function load(v, data) {
  const meta = data.meta;
  if (!v.meta || v.meta.id !== meta.id) v.state = initialState(meta); // same map on a rerun: keep the browser's state
  v.meta = meta;
  v.codes = data.cells.getChild("code").toArray();
  v.shades = data.cells.getChild("shade").toArray();
  v.q = data.q?.getChild("code").toArray();
  v.k = data.k?.getChild("code").toArray();
  v.scores = data.scores?.getChild("code").toArray();
  v.colours = shadeColours(meta.stops, hatch(meta.masked));
  v.ink = meta.stops.length ? v.colours.map((_, s) => { const [r, g, b] = colourAt(meta.stops, s / 254); return 0.3 * r + 0.59 * g + 0.11 * b < 140 ? "#fff" : "#111"; }) : [];
  v.zoom = Math.max(meta.rows, meta.cols) > meta.cells_max;
  v.root.style.setProperty("--av-scale", String(meta.font_scale || 1));
  v.root.setAttribute("aria-label", `${meta.title || "Attention"}: ${meta.rows} × ${meta.cols} ${meta.kind}`);
  v.title.textContent = meta.title;
  const shown = new Set(meta.parts);
  [v.maps, v.legend].forEach((e) => { e.hidden = !shown.has("matrix"); });
  [v.barsTitle, v.bars].forEach((e) => { e.hidden = !shown.has("row"); });
  v.readout.hidden = !shown.has("cell");
  v.arith.hidden = !shown.has("arithmetic");
  v.overviewBox.hidden = !v.zoom;
  if (v.zoom && v.overviewSrc !== meta.overview.png) {
    v.overviewSrc = meta.overview.png;
    v.overview.src = `data:image/png;base64,${meta.overview.png}`;
    v.overview.alt = `Overview of ${meta.title}: ${meta.overview.blocks}`;
  }
  v.legend.textContent = `Colour: ${meta.legend}; hatched grey = masked.${v.zoom ? ` Overview: ${meta.overview.blocks}.` : ""}`;
}

function valueText(v, i, j) {
  const at = cellIndex(v.meta.layout, v.meta.cols, i, j);
  return at < 0 || v.shades[at] === SHADE_MASKED ? "masked" : formatFixed(v.codes[at], v.meta.decimals);
}

function label(v, i) { return `${i + 1} “${v.meta.labels[i] ?? ""}”`; }

function draw(v) {
  const { meta, state } = v;
  const n = v.zoom ? state.size : Math.max(meta.rows, meta.cols);
  const [r0, c0] = v.zoom ? [state.window, state.windowKey] : [0, 0];
  const scale = meta.font_scale || 1;
  const px = Math.max(4, Math.floor(((v.zoom ? 384 : GRID_PX) * scale) / n));
  const font = Math.min(Math.floor(px / 4.2), Math.round(13 * scale));
  if (v.grid.width !== px * n) { v.grid.width = v.grid.height = px * n; }
  const ctx = v.grid.getContext("2d");
  ctx.font = `${font}px sans-serif`; ctx.textAlign = "center"; ctx.textBaseline = "middle";
  const drawn = [];
  for (let r = 0; r < n && r0 + r < meta.rows; r++) {
    for (let c = 0; c < n && c0 + c < meta.cols; c++) {
      const at = cellIndex(meta.layout, meta.cols, r0 + r, c0 + c);
      const shade = at < 0 ? SHADE_MASKED : v.shades[at];
      ctx.fillStyle = v.colours[shade];
      ctx.fillRect(c * px, r * px, px, px);
      if (font >= 8 && shade !== SHADE_MASKED) {
        const text = formatFixed(v.codes[at], meta.decimals);
        ctx.fillStyle = v.ink[shade];
        ctx.fillText(text, c * px + px / 2, r * px + px / 2);
        drawn.push([r0 + r, c0 + c, text]);
      }
    }
  }
  ctx.strokeStyle = "#f59e0b"; ctx.lineWidth = 2;
  if (state.query >= r0 && state.query < r0 + n) ctx.strokeRect(1, (state.query - r0) * px + 1, px * n - 2, px - 2);
  ctx.strokeStyle = "#dc2626"; ctx.lineWidth = 3;
  if (state.key >= c0 && state.key < c0 + n) ctx.strokeRect((state.key - c0) * px + 1.5, (state.query - r0) * px + 1.5, px - 3, px - 3);
  if (v.zoom) {
    const pct = (x, total) => `${(100 * x) / total}%`;
    Object.assign(v.win.style, { top: pct(state.window, meta.rows), left: pct(state.windowKey, meta.cols), height: pct(state.size, meta.rows), width: pct(state.size, meta.cols) });
    Object.assign(v.mark.style, { top: pct(state.query, meta.rows), left: pct(state.key, meta.cols) });
    v.range.textContent = `Zoom: queries ${state.window + 1}–${state.window + state.size}, keys ${state.windowKey + 1}–${state.windowKey + state.size} (${state.size} × ${state.size} exact cells).`;
  }
  v.range.hidden = !v.zoom || v.maps.hidden;
  v.readout.textContent = `Query ${label(v, state.query)}, key ${label(v, state.key)}: ${valueText(v, state.query, state.key)}`;
  const total = v.scores && v.scores[state.query * meta.cols + state.key];
  v.arith.textContent = v.q ? arithmeticText(meta.symbol, v.q, v.k, meta.d, state.query, state.key, total, meta.decimals) : "";
  drawBars(v);
  v.drawn = drawn;
}

function drawBars(v) {
  const { meta, state } = v;
  const i = state.query;
  const visible = meta.layout === "lower" ? i + 1 : meta.cols;
  const codeOf = (j) => v.codes[cellIndex(meta.layout, meta.cols, i, j)];
  const keys = rowKeys(codeOf, visible, state.key, BARS_MAX);
  const biggest = Math.max(1, ...keys.map((j) => Math.abs(codeOf(j))));
  v.barsTitle.textContent = `Query ${label(v, i)}: ${keys.length < visible ? `the ${keys.length} largest of ${visible} keys` : `all ${visible} keys`}`;
  v.pool.forEach((bar, n) => {
    const j = keys[n];
    bar.row.hidden = j === undefined;
    if (j === undefined) return;
    const at = cellIndex(meta.layout, meta.cols, i, j);
    bar.row.classList.toggle("av-selected", j === state.key);
    bar.label.textContent = `${j + 1} ${meta.labels[j] ?? ""}`;
    bar.fill.style.width = `${(100 * Math.abs(v.codes[at])) / biggest}%`;
    bar.fill.style.background = v.colours[Math.min(v.shades[at], 254)];
    bar.value.textContent = formatFixed(v.codes[at], meta.decimals);
  });
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  try {
    let v = VIEWS.get(parentElement);
    if (!v) { parentElement.querySelectorAll(".av, .av-error").forEach((old) => old.remove()); v = build(parentElement); VIEWS.set(parentElement, v); }
    v.setStateValue = setStateValue;
    if (!data || typeof data !== "object" || !data.meta || !data.cells) throw new Error("the view received no data from Python");
    load(v, data);
    draw(v);
  } catch (error) {
    fail(parentElement, error);
  }
}
