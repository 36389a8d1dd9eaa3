// The attention view's DOM: built once per element, loaded with each payload, drawn on every move from the
// numbers Python sent. view.py inlines view_core.mjs before this file and view_input.js (the controls) after.
const VIEWS = new WeakMap(); // one view per mounted element: a rerun updates it, never appends again
const GRID_PX = 480; // the grid's side; a zoom grid is 384 so that it and the 300 px overview share a centred column
const BARS_MAX = 32;
const PRESENTER_BARS = 8; // a projector shows every key of a row of up to 8 (the book's 6 tokens), larger, ...
const PRESENTER_LONG_ROW = 5; // ... and a longer row's 5 largest, so that map, bars and controls share one slide (at 8,
// /mask's three lists at GPT-2 ran 55 px past what a slide holds readably, and its controls went a slide apart)
// The view's own sliders: [state field, label]; the window ones show only when the map is zoomed.
const SLIDERS = [["frame0", ""], ["frame1", ""], ["frame2", ""], ["query", "Query token"], ["key", "Key token"], ["window", "Zoom: queries from"], ["window_key", "Zoom: keys from"], ["window_size", "Zoom: window size"]];
const URL_DELAY_MS = 150; // Chrome ignores replaceState called hundreds of times in seconds: write after a pause
const HELP = "Move the sliders, or focus the map: ↑ ↓ query, ← → key, Shift + arrows move the zoom window, + and − its size. "
  + "Click a cell to pick it; hover a cell for its value.";
const el = (tag, cls, parent) => { const e = document.createElement(tag); if (cls) e.className = cls; parent?.appendChild(e); return e; };

function build(parent) {
  const root = el("div", "av", parent);
  root.tabIndex = 0;
  root.setAttribute("role", "application");
  const v = { root, title: el("p", "av-title", root) };
  v.help = el("p", "av-help", root);
  v.help.id = "av-help";

  root.setAttribute("aria-describedby", "av-help");
  v.controls = el("div", "av-controls", root);
  v.sliders = Object.fromEntries(SLIDERS.map(([name, text]) => {
    const box = el("label", "av-slider", v.controls);
    const title = el("span", "av-slider-name", box);
    title.textContent = text;
    const input = el("input", "", box);
    input.type = "range"; input.min = "1"; input.step = "1"; input.dataset.control = name;
    return [name, { box, title, input, out: el("span", "av-slider-value", box) }];
  }));
  v.send = el("button", "av-send", v.controls);
  v.send.type = "button";
  v.send.textContent = "Use in the lesson ↵";
  // The maps and, beside them where the column is wide enough, the selected cell and the rows' bars: a
  // projector (presenter mode's larger cells) then sees map and bars on one screen.
  const body = el("div", "av-body", root);
  const maps = v.maps = el("div", "av-maps", body);
  v.overviewBox = el("div", "av-overview", maps);
  v.overview = el("canvas", "", v.overviewBox); // Python's blocks as shades, one pixel each
  v.overview.setAttribute("role", "img");
  v.win = el("div", "av-win", v.overviewBox);
  v.mark = el("div", "av-mark", v.overviewBox);
  v.grid = el("canvas", "av-grid", maps);
  v.grid.setAttribute("aria-hidden", "true");
  const side = el("div", "av-side", body);
  v.range = el("p", "av-range", side);
  v.readout = el("p", "av-readout", side);
  v.readout.setAttribute("aria-live", "polite");
  v.hover = el("p", "av-hover", side);
  v.arith = el("p", "av-arith", side);
  v.rowsBox = el("div", "av-rows", side);
  v.barSets = [];
  v.vectors = el("div", "av-vectors", side);
  v.legend = el("p", "av-legend", root);
  v.timings = [];
  root.attentionView = v; // the tests and the benchmark read timings, state and drawn texts here
  listen(v);
  return v;
}

/** One block of bars (a title and a pool of rows), for the main map or one of the `also` maps. */
function barSet(v) {
  const box = el("div", "av-row-set", v.rowsBox);
  const title = el("p", "av-bars-title", box), bars = el("div", "av-bars", box);
  const pool = Array.from({ length: BARS_MAX + 1 }, () => {
    const row = el("div", "av-bar", bars);
    return { row, label: el("span", "av-bar-label", row), fill: el("span", "av-bar-fill", el("span", "av-bar-track", row)), value: el("span", "av-bar-value", row) };
  });
  return { box, title, bars, pool };
}

/** Codes and shades of one matrix as the browser reads them (Arrow columns) with its meta and colours. A large
 * matrix (exact "top" beside a shade for every cell) sends its codes and their keys in `top` and the range of
 * values each shade holds in `bands`. */
function source(meta, table, title, top = null, bands = null, column = null) {
  const colours = barColours(meta.stops, meta.kind); // never white on the white track (barColours says why)
  const exact = top ?? table;
  return { meta, title, codes: exact.getChild("code").toArray(), shades: table.getChild("shade").toArray(),
    keys: exact.getChild("key")?.toArray(), colours, bandLow: bands?.getChild("low").toArray(), bandHigh: bands?.getChild("high").toArray(),
    columnCodes: column?.getChild("code").toArray(), columnShades: column?.getChild("shade").toArray() };
}

/** Where the lesson's key travelled in every row (meta.column), that cell's index in the column, else -1. */
function columnAt(src, frame, i, j) {
  const m = src.meta;
  return src.columnCodes && j === m.column ? (m.framed ? frame * m.rows : 0) + i : -1;
}

/** Cell (i, j)'s shade, where Python sent one (a row's largest, every cell of a picture, the lesson's key). */
function shadeAt(src, frame, i, j) {
  const n = at(src, frame, i, j);
  if (n >= 0) return src.shades[n];
  const c = columnAt(src, frame, i, j);
  return c >= 0 ? src.columnShades[c] : undefined;
}

/** Where cell (i, j)'s shade sits for the frame shown (a source that is one map serves every frame), or -1. */
function at(src, frame, i, j) {
  const m = src.meta;
  if (m.layout === "top") return topIndex(src.keys, m.top, (m.framed ? frame * m.rows : 0) + i, j);
  return frameCellIndex(m.layout, m.rows, m.cols, m.framed ? frame : 0, i, j);
}

/** The code Python sent for cell (i, j), or undefined where only each row's largest travel and it is not one. */
function codeAt(src, frame, i, j) {
  const m = src.meta;
  const n = m.exact === "top" ? topIndex(src.keys, m.top, (m.framed ? frame * m.rows : 0) + i, j) : at(src, frame, i, j);
  if (n >= 0) return src.codes[n];
  const c = columnAt(src, frame, i, j);
  return c >= 0 ? src.columnCodes[c] : undefined;
}

/** A row's bars, { keys, apart } (view_core's rowKeys): in a view Python ranked, the same keys for every list (its
 * one order); else the largest of the row's numbers, or of those Python sent for a "top" source. */
function barKeys(v, src, i, visible, limit) {
  const codeOf = (j) => codeAt(src, v.state.frame, i, j);
  const rank = v.meta.rank;
  if (rank && v.rank && src.meta.ranked) {
    const base = ((rank.framed ? v.state.frame * v.meta.rows : 0) + i) * rank.top;
    const everyList = v.sources.every((s) => !s.meta.ranked || codeAt(s, v.state.frame, i, v.state.key) !== undefined);
    return rankedKeys(v.rank.subarray(base, base + rank.top), Math.min(visible, src.meta.cols), v.state.key, limit, everyList);
  }
  if (src.meta.exact !== "top") return rowKeys(codeOf, visible, v.state.key, limit);
  const base = ((src.meta.framed ? v.state.frame * src.meta.rows : 0) + i) * src.meta.top;
  const sent = Array.from(src.keys.subarray(base, base + src.meta.top)).filter((j) => j < src.meta.cols);
  return rowKeys(codeOf, visible, v.state.key, limit, sent);
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
  v.shades = data.cells.getChild("shade").toArray();
  v.sources = [source(meta, data.cells, meta.row_title || meta.title, data.top, data.bands, data.column)].concat(
    (meta.also || []).map((m, n) => source(m, data[`also${n}`], m.title, null, null, data[`also${n}_column`])));
  while (v.barSets.length < v.sources.length) v.barSets.push(barSet(v));
  v.barSets.forEach((set, n) => { set.box.hidden = n >= v.sources.length; });
  v.rank = data.rank?.getChild("key").toArray(); // each row's keys in the view's one order, where Python ranked
  v.dropped = data.dropped?.getChild("bits").toArray(); // Python's marks: which cells this dropout draw removed
  v.vectorCodes = (meta.vectors || []).map((m, n) => data[`vector${n}`].getChild("code").toArray());
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
  v.rowsBox.hidden = !shown.has("row");
  v.vectors.hidden = !shown.has("cell");
  v.controls.hidden = false; // every view keeps its sliders, rows-only ones too
  for (const [name, { box }] of Object.entries(v.sliders)) {
    const dim = name.startsWith("frame") ? meta.frames?.dims[Number(name.slice(5))] : null;
    box.hidden = name.startsWith("frame") ? !dim : name.startsWith("window") ? !v.zoom || !shown.has("matrix") : (name === "key" ? meta.cols < 2 : meta.rows < 2);
    if (dim) v.sliders[name].title.textContent = dim.name;
  }
  v.send.hidden = !meta.commit;
  v.help.textContent = HELP + (meta.commit ? " Enter (or the button) sends this query and key to the lesson below." : "");
  // Presenter mode: the keys are the teacher's to know, not the room's to read (a slide of every view carried them,
  // and their small text kept a tall view from being scaled whole onto one slide). A screen reader still has them:
  // aria-describedby names a hidden element's text too (a visually-hidden box overflowed the slide's check instead).
  v.help.hidden = (meta.font_scale || 1) > 1;
  v.readout.hidden = !shown.has("cell");
  v.arith.hidden = !shown.has("arithmetic");
  v.overviewBox.hidden = !v.zoom;
  v.overviewShades = data.overview?.getChild("shade").toArray();
  v.overviewFrame = null;
}

/** Whether Python marked cell (i, j) of the frame shown as removed by dropout (view_data.dropped_bits). */
function droppedCell(v, i, j) {
  const m = v.meta;
  return !!m.dropped && bitAt(v.dropped, ((m.framed ? v.state.frame : 0) * m.rows + i) * m.cols + j);
}

/** The frame's overview image and legend (both change only with the frame). */
function drawFrame(v) {
  const { meta, state } = v;
  const frame = meta.framed ? state.frame : 0;
  if (v.zoom && meta.overview && v.overviewFrame !== frame) { // rows-only views get none
    v.overviewFrame = frame;
    const o = meta.overview, canvas = v.overview;
    if (canvas.width !== o.cols || canvas.height !== o.rows) { canvas.width = o.cols; canvas.height = o.rows; }
    const ctx = canvas.getContext("2d"), image = ctx.createImageData(o.cols, o.rows);
    image.data.set(overviewPixels(v.overviewShades, frame * o.rows * o.cols, o.rows, o.cols, meta.stops, meta.masked));
    ctx.putImageData(image, 0, 0);
    canvas.setAttribute("aria-label", `Overview of ${meta.title}: ${o.blocks}`);
  }
  const masked = v.sources[0].shades.includes(SHADE_MASKED) || meta.layout === "lower";
  v.legend.textContent = `Colour: ${meta.legends[state.frame] ?? meta.legend}${masked ? `; hatched grey = ${meta.hatched ?? "masked"}` : ""}`
    + `${meta.dropped ? `; ${meta.dropped.name} = dropped by this draw (0 after dropout, a weight before)` : ""}.`
    + (v.zoom && meta.overview ? ` Overview: ${meta.overview.blocks}.` : "");
}

/** The selected or hovered cell's value as Python sent it; where only each row's largest travel and this cell is
 * not one, says so, with the lowest and highest value Python found among the cells of its colour. */
function valueText(v, i, j) {
  const src = v.sources[0], m = src.meta, frame = v.state.frame;
  const n = at(src, frame, i, j);
  if ((m.causal && j > i) || (n >= 0 && src.shades[n] === SHADE_MASKED)) return "masked";
  if (droppedCell(v, i, j)) return `${formatFixed(0, m.decimals)}: dropped by this draw`;
  const code = codeAt(src, frame, i, j);
  if (code !== undefined) return formatFixed(code, m.decimals);
  if (n < 0 || !src.bandLow) return `a smaller value: at this size only each row's ${m.top} largest are printed`;
  const band = (m.framed ? frame : 0) * (SHADE_MASKED + 1) + src.shades[n];
  return notSentText(m.top, src.bandLow[band], src.bandHigh[band], m.decimals, m.band_unit);
}

// The app's labels already start with the position ("2 journey"); bare ones (the test app's "t2") get it here.
function labelOf(v, i) {
  const text = v.meta.labels[i] ?? "";
  if ((v.meta.first ?? 1) === 0) return text;  // positions counted from 0 ("pos 4"): the label says which
  return text.startsWith(`${i + 1} `) ? text : `${i + 1} ${text}`;
}
function label(v, i) { return `“${labelOf(v, i)}”`; }

function draw(v) {
  const { meta, state } = v;
  const n = v.zoom ? state.size : Math.max(meta.rows, meta.cols);
  const [r0, c0] = v.zoom ? [state.window, state.windowKey] : [0, 0];
  const scale = meta.font_scale || 1;
  const px = Math.max(4, Math.floor(((v.zoom ? 384 : GRID_PX) * scale) / n));
  const font = Math.min(Math.floor(px / 4.2), Math.round(13 * scale));
  // A number in a cell only where it can be read: 8 px on a screen one leans into, 16 px on a projector (presenter
  // mode); smaller cells carry their value in colour, the readout and the bars.
  const minFont = scale > 1 ? 16 : 8;
  if (v.grid.width !== px * n) { v.grid.width = v.grid.height = px * n; }
  const ctx = v.grid.getContext("2d");
  ctx.font = `${font}px sans-serif`; ctx.textAlign = "center"; ctx.textBaseline = "middle";
  const drawn = [];
  for (let r = 0; r < n && r0 + r < meta.rows; r++) {
    for (let c = 0; c < n && c0 + c < meta.cols; c++) {
      const n0 = at(v.sources[0], state.frame, r0 + r, c0 + c);
      const shade = n0 < 0 ? SHADE_MASKED : v.shades[n0];
      const gone = droppedCell(v, r0 + r, c0 + c); // its own colour: the palest shade would read as a small weight
      ctx.fillStyle = gone ? meta.dropped.colour : v.colours[shade];
      ctx.fillRect(c * px, r * px, px, px);
      const code = font >= minFont && shade !== SHADE_MASKED ? codeAt(v.sources[0], state.frame, r0 + r, c0 + c) : undefined;
      if (code !== undefined) { // a label only where Python sent the exact value
        const text = formatFixed(code, meta.decimals);
        ctx.fillStyle = gone ? "#111" : v.ink[shade];
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
    v.range.textContent = `Zoom: queries ${state.window + 1}–${state.window + state.size}, keys ${state.windowKey + 1}–${state.windowKey + state.size} (${state.size} × ${state.size} `
      + (meta.exact === "top" ? `cells, a colour each; numbers printed: each row's ${meta.top} largest and the lesson's key).` : "exact cells).");
  }
  v.range.hidden = !v.zoom || v.maps.hidden;
  v.readout.textContent = `Query ${label(v, state.query)}, key ${label(v, state.key)}: ${valueText(v, state.query, state.key)}`;
  const total = v.scores && v.scores[state.query * meta.cols + state.key];
  v.arith.textContent = v.q ? arithmeticText(meta.symbol, v.q, v.k, meta.d, state.query, state.key, total, meta.decimals, 8, meta.names, meta.first ?? 1) : "";
  v.barSets.forEach((set, n) => { if (n < v.sources.length) drawBars(v, v.sources[n], set); });
  v.vectors.replaceChildren(...(v.meta.vectors || []).map((m, n) => {
    const line = document.createElement("p");
    line.className = "av-vector";
    const rowsBefore = m.framed ? state.frame * meta.rows : 0; // a stack of vectors: this frame's rows
    line.textContent = vectorText(m.name, v.vectorCodes[n], m.d, rowsBefore + state.query, meta.decimals, m.sent, m.fields, state.query);
    return line;
  }));
  drawFrame(v);
  syncSliders(v);
  v.drawn = drawn;
  window.__attentionViewDrawn = performance.now(); // the app benchmark's end of a redraw (canvas draws change no DOM)
}

/** The sliders show the state (setting .value fires no input event, so no loop). */
function syncSliders(v) {
  const { meta, state } = v;
  const sizes = allowedSizes(meta.window_sizes, Math.min(meta.rows, meta.cols));
  const parts = meta.frames ? frameParts(meta.frames, state.frame) : [];
  const dimSlider = (d) => { const dim = meta.frames?.dims[d]; return dim ? [parts[d] + 1, dimLength(meta.frames, d, parts), dim.labels[parts[d]]] : [1, 1, ""]; }; // a ragged one: only the values that exist
  const values = { frame0: dimSlider(0), frame1: dimSlider(1), frame2: dimSlider(2),
    query: [state.query + 1, meta.rows, labelOf(v, state.query)], key: [state.key + 1, meta.cols, labelOf(v, state.key)],
    window: [state.window + 1, meta.rows - state.size + 1, String(state.window + 1)],
    window_key: [state.windowKey + 1, meta.cols - state.size + 1, String(state.windowKey + 1)],
    window_size: [sizes.indexOf(state.size) + 1, sizes.length, `${state.size} × ${state.size}`] };
  for (const [name, [value, max, text]] of Object.entries(values)) {
    const { input, out } = v.sliders[name];
    input.max = String(Math.max(1, max));
    input.value = String(value);
    out.textContent = text;
  }
}

/** The selected query's row of one source as bars: every visible key, or the largest BARS_MAX of them. */
function drawBars(v, src, set) {
  const { state } = v;
  const { meta } = src;
  const i = state.query;
  const visible = meta.causal ? i + 1 : meta.cols;
  const codeOf = (j) => codeAt(src, state.frame, i, j);
  const presenter = (meta.font_scale || v.meta.font_scale || 1) > 1;
  const limit = !presenter ? BARS_MAX : visible <= PRESENTER_BARS ? PRESENTER_BARS : PRESENTER_LONG_ROW;
  const { keys: listed, apart } = barKeys(v, src, i, visible, limit);
  const keys = apart === null ? listed : listed.concat([apart]); // the selected key after the list, labelled
  const codes = keys.map((j) => codeOf(j) ?? 0);
  const low = Math.min(0, ...codes), high = Math.max(0, ...codes); // a row with negative scores gets a zero line
  const by = src.meta.ranked && v.meta.rank?.name; // a ranked view names what it ranks by: the softmax's 0.0000s too
  set.title.textContent = `${src.title}, query ${label(v, i)}: ${listed.length >= visible ? everyKey(visible)
    : (by ? `the ${listed.length} of ${visible.toLocaleString("en-US")} keys with the largest ${by}`
       : `the ${listed.length} largest of ${visible.toLocaleString("en-US")} keys`)
      + `, largest first${apart === null ? "" : "; then the selected key"}`}`;
  set.pool.forEach((bar, slot) => {
    const j = keys[slot];
    bar.row.hidden = j === undefined;
    if (j === undefined) return;
    bar.row.classList.toggle("av-apart", slot === listed.length); // the selected key, not one of the largest
    const code = codeOf(j); // only a key apart that the visitor picked in the browser may lack a code
    const was = src === v.sources[0] && v.meta.dropped_from ? v.sources[v.meta.dropped_from] : null;
    const wasCode = was ? codeAt(was, state.frame, i, j) ?? 0 : 0;
    const dropped = was !== null && code === 0 && wasCode > 0; // removed by dropout: say so, not just 0
    bar.row.classList.toggle("av-dropped", dropped);
    bar.row.classList.toggle("av-selected", j === state.key);
    bar.label.textContent = slot === listed.length ? `selected: ${labelOf(v, j)}` : labelOf(v, j);
    const [start, width] = barSpan(code ?? 0, low, high);
    bar.fill.parentElement.style.setProperty("--av-zero", low < 0 ? `${100 * barSpan(0, low, high)[0]}%` : "-10%");
    if (code === undefined) { // a long row sent only its largest: the selected key is at most the smallest listed
      bar.fill.style.width = "0%";
      bar.value.textContent = `≤ ${formatFixed(codeOf(listed[listed.length - 1]), meta.decimals)}`;
      return;
    }
    bar.fill.style.marginLeft = `${100 * start}%`;
    bar.fill.style.width = `${100 * width}%`;
    bar.fill.style.background = src.colours[barShade(shadeAt(src, state.frame, i, j), code, meta.kind)];
    bar.value.textContent = dropped ? `0 (was ${formatFixed(wasCode, meta.decimals)})` : formatFixed(code, meta.decimals);
  });
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  try {
    let v = VIEWS.get(parentElement);
    if (!v) { parentElement.querySelectorAll(".av, .av-error").forEach((old) => old.remove()); v = build(parentElement); VIEWS.set(parentElement, v); }
    v.setStateValue = setStateValue;
    if (!data || typeof data !== "object" || !data.meta || !data.cells) throw new Error("the view received no data from Python");
    const moved = v.meta && v.state && v.meta.id === data.meta?.id;
    load(v, data);
    draw(v);
    if (moved) writeUrl(v); // a rerun rewrote the query string from Python's values: put the view's back
  } catch (error) {
    fail(parentElement, error);
  }
}
