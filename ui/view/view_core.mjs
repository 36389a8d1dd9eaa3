// The attention view's pure functions: indexing, number text, colours, zoom clamping and the state
// reducer. No DOM here, so `node --test tests/js` can import this file; view.py inlines it in front of
// attention_view.js to make the component's one ES module. Positions are 0-based here, 1-based in URLs.

/** Where cell (i, j) sits in the arrays Python sent, or -1 when it was not sent (masked, "lower" layout). */
export function cellIndex(layout, cols, i, j) {
  if (layout === "lower") return j > i ? -1 : (i * (i + 1)) / 2 + j;
  return i * cols + j;
}

/** How many values the last dimension has under each value of the one before: its `lengths` when that value
 * limits it (a ragged dimension: head 3 does not exist with 2 heads), else all of its values each time. */
function lastLengths(frames) {
  const dims = frames.dims, last = dims[dims.length - 1];
  if (dims.length === 1) return [last.values.length];
  return last.lengths ?? dims[dims.length - 2].values.map(() => last.values.length);
}

const total = (list) => list.reduce((n, x) => n + x, 0);

/** How many values dimension d offers when the earlier ones are at `parts` (only the last may be ragged). */
export function dimLength(frames, d, parts) {
  const dims = frames.dims;
  return d === dims.length - 1 && d > 0 ? lastLengths(frames)[parts[d - 1]] : dims[d].values.length;
}

/** How many maps a stack of frames holds: the product of its dimensions (a layer × head grid is two); a ragged
 * last dimension counts only the values that exist (every head of every head count: the sum of the counts). */
export function frameCount(frames) {
  if (!frames) return 1;
  return frames.dims.slice(0, -2).reduce((n, dim) => n * dim.values.length, 1) * total(lastLengths(frames));
}

/** A flat frame index as one index per dimension (the first dimension outermost, the frames in that order
 * with a ragged last dimension's missing values left out), and back. */
export function frameParts(frames, flat) {
  const dims = frames.dims, n = dims.length, lengths = lastLengths(frames), block = total(lengths);
  let rest = flat % block, outer = Math.floor(flat / block), before = 0;
  while (before < lengths.length - 1 && rest >= lengths[before]) rest -= lengths[before++];
  const parts = [];
  if (n === 1) parts[0] = rest;
  else [parts[n - 2], parts[n - 1]] = [before, rest];
  for (let d = n - 3; d >= 0; d--) {
    const len = dims[d].values.length;
    parts[d] = outer % len;
    outer = Math.floor(outer / len);
  }
  return parts;
}

/** The flat index of `parts`; a last part past what its ragged dimension offers becomes its last value. */
export function frameFrom(frames, parts) {
  const n = frames.dims.length, lengths = lastLengths(frames);
  const outer = frames.dims.slice(0, -2).reduce((flat, dim, d) => flat * dim.values.length + parts[d], 0);
  const inner = n === 1 ? parts[0]
    : total(lengths.slice(0, parts[n - 2])) + Math.min(parts[n - 1], lengths[parts[n - 2]] - 1);
  return outer * total(lengths) + inner;
}

/** Where cell (i, j) of frame f sits when Python sent F maps of `rows` × `cols` one after another. */
export function frameCellIndex(layout, rows, cols, frame, i, j) {
  const at = cellIndex(layout, cols, i, j);
  if (at < 0) return -1;
  return frame * (layout === "lower" ? (rows * (rows + 1)) / 2 : rows * cols) + at;
}

/** Where key j of row r sits in a "top" layout (each row sends its `top` largest keys, in key order), or -1. */
export function topIndex(keys, top, r, j) {
  const base = r * top;
  for (let n = 0; n < top; n++) if (keys[base + n] === j) return base + n;
  return -1;
}

/** The text of a fixed-point code: formatFixed(-312, 4) === "-0.0312". Integer work only, so the text is
 * exactly Python's f"{x:.4f}" for the code Python sent (floats would re-round). */
export function formatFixed(code, decimals) {
  const sign = code < 0 ? "-" : "";
  const digits = String(Math.abs(code)).padStart(decimals + 1, "0");
  if (decimals === 0) return sign + digits;
  return `${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

export function parseHex(hex) {
  return [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
}

/** A colour between the stops, as colour.py's _ramp interpolates them (t clipped to 0..1). */
export function colourAt(stops, t) {
  const rgb = stops.map(parseHex);
  const x = Math.min(Math.max(t, 0), 1) * (rgb.length - 1);
  const low = Math.min(Math.floor(x), rgb.length - 2);
  const frac = x - low;
  return rgb[low].map((c, n) => Math.round(c * (1 - frac) + rgb[low + 1][n] * frac));
}

export const SHADE_MASKED = 255;

/** Whether bit n of Python's np.packbits(..., bitorder="little") is set: byte n >> 3, bit n & 7 (the dropped
 * cells of a dropout map, view_data.dropped_bits). No bits: nothing is set. */
export function bitAt(bits, n) {
  return !!bits && n >= 0 && n < bits.length * 8 && ((bits[n >> 3] >> (n & 7)) & 1) === 1;
}

/** The 255 CSS colours of shades 0..254 (a shade is t × 254, rounded in Python); index 255 is masked. */
export function shadeColours(stops, masked) {
  const table = [];
  for (let s = 0; s < SHADE_MASKED; s++) table.push(`rgb(${colourAt(stops, s / (SHADE_MASKED - 1)).join(",")})`);
  table.push(masked);
  return table;
}

/** The shade a bar is coloured with: its cell's, but a score whose shade rounded to the white middle (0.0634
 * beside a largest |ω| of 159) takes the first shade of its sign, so only a score of exactly 0 is white. */
export function barShade(shade, code, kind) {
  const middle = (SHADE_MASKED - 1) / 2;
  if (shade >= SHADE_MASKED) return SHADE_MASKED - 1;
  return kind === "scores" && shade === middle && code ? middle + Math.sign(code) : shade;
}

/** Where one bar lies on its track, as [start, width] fractions of it, for a row whose codes run from `low` to
 * `high` (both taken to include 0): a negative value reaches left from the zero line, a positive one right, so
 * −10.7 reads as further below zero than −2.5, not as a bigger bar. A row without negatives starts at the left. */
export function barSpan(code, low, high) {
  const lo = Math.min(0, low), span = Math.max(1, Math.max(0, high) - lo), zero = lo < 0 ? -lo / span : 0;
  const width = Math.abs(code) / span;
  return [code < 0 ? zero - width : zero, width];
}

/** A bar's colour for each shade (255: masked, grey). Weight bars start a third of the way into their one-sided
 * palette, so a small weight stays visible against the track; score bars keep their sign's hue but start a third
 * of the way out from the white middle, else a value small beside the map's largest |ω| (0.6650 beside 159 when
 * dividing x · x by its sum) is a white bar on a white track. Only a score of exactly 0 (shade 127) is white. */
export function barColours(stops, kind) {
  const middle = (SHADE_MASKED - 1) / 2;
  const at = kind === "scores"
    ? (s) => { const f = (s - middle) / middle; return 0.5 + (Math.sign(f) * (0.3 + 0.7 * Math.abs(f))) / 2; }
    : (s) => 0.3 + (0.7 * s) / (SHADE_MASKED - 1);
  const table = [];
  for (let s = 0; s < SHADE_MASKED; s++) table.push(`rgb(${colourAt(stops, at(s)).join(",")})`);
  table.push("#ccc");
  return table;
}

/** The RGBA pixels of an overview: Python's blocks as shades (rows × cols from `base`) on the map's stops, and
 * masked blocks (shade 255) in diagonal grey stripes, as colour.py hatches them. */
export function overviewPixels(shades, base, rows, cols, stops, masked) {
  const table = Array.from({ length: SHADE_MASKED }, (_, s) => colourAt(stops, s / (SHADE_MASKED - 1)));
  const stripes = masked.map(parseHex);
  const pixels = new Uint8ClampedArray(rows * cols * 4);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const n = r * cols + c, shade = shades[base + n];
      pixels.set(shade === SHADE_MASKED ? stripes[Math.floor((r + c) / 3) % 2] : table[shade], 4 * n);
      pixels[4 * n + 3] = 255;
    }
  }
  return pixels;
}

/** The readout of a cell whose exact value Python did not send (a large map sends each row's `top` largest): the
 * lowest and highest value among the cells of its colour, as codes rounded outwards, in the legend's unit. */
export function notSentText(top, low, high, decimals, unit = "") {
  return `a smaller value: at this size only each row's ${top} largest are printed; cells of this colour hold `
    + `${formatFixed(low, decimals)} to ${formatFixed(high, decimals)}${unit ? ` (${unit})` : ""}`;
}

/** A window start that keeps size cells inside 0..n. */
export function clampWindow(start, size, n) {
  return Math.max(0, Math.min(start, n - Math.min(size, n)));
}

/** The window start, moved just enough that index is inside it. */
export function follow(start, size, index, n) {
  if (index < start) return clampWindow(index, size, n);
  if (index >= start + size) return clampWindow(index - size + 1, size, n);
  return clampWindow(start, size, n);
}

/** The window sizes a map of n tokens allows. */
export function allowedSizes(sizes, n) {
  return sizes.filter((s) => s <= n);
}

/** The allowed window size one step up (dir 1) or down (-1), never above n tokens. */
export function nextSize(sizes, size, dir, n) {
  const allowed = allowedSizes(sizes, n);
  if (allowed.length === 0) return n;
  const at = allowed.indexOf(size);
  const from = at < 0 ? 0 : at;
  return allowed[Math.max(0, Math.min(allowed.length - 1, from + dir))];
}

/** A row's bars, { keys, apart }: every visible key in key order when they fit in limit; otherwise a "largest"
 * list: the limit largest codes, largest first, ties to the lower key, and the selected key, when it is not among
 * them, `apart` (drawn after them and labelled as the selected key, never in place of the last; a long row's key
 * whose number Python did not send is drawn as at most the smallest listed).
 * `candidates`: the keys with numbers (a long row sends only its largest); default every visible key. Selecting and
 * sorting sent numbers, no math. */
export function rowKeys(codeOf, visible, selected, limit, candidates = null) {
  const all = (candidates ?? Array.from({ length: visible }, (_, j) => j)).filter((j) => j < visible && codeOf(j) !== undefined);
  if (all.length === visible && visible <= limit) return { keys: all.sort((a, b) => a - b), apart: null };
  all.sort((a, b) => codeOf(b) - codeOf(a) || a - b);
  return largestWithSelected(all.slice(0, limit), visible, selected, true);
}

/** The row's bars, { keys, apart }, when Python ranked the row once for every list of the view (`ranked`: its
 * keys, largest first, ties to the lower key, padded past the last key): its first `limit` visible keys in that
 * order, and the selected key apart when it is not among them and every list has its number (`selectable`). The
 * scores and their softmax then name the same keys, although softmax rounds many of them to 0.0000. */
/** "all 6 keys", but "both keys" and "its only key": the bars' title when every visible key is listed. */
export function everyKey(visible) {
  return visible === 1 ? "its only key" : visible === 2 ? "both keys" : `all ${visible.toLocaleString("en-US")} keys`;
}

export function rankedKeys(ranked, visible, selected, limit, selectable = true) {
  const chosen = Array.from(ranked).filter((j) => j < visible).slice(0, limit);
  if (chosen.length === visible) return { keys: chosen.sort((a, b) => a - b), apart: null }; // all of them
  return largestWithSelected(chosen, visible, selected, selectable);
}

function largestWithSelected(keys, visible, selected, selectable) {
  const apart = selectable && selected >= 0 && selected < visible && !keys.includes(selected) ? selected : null;
  return { keys, apart };
}

/** "ω₂,₃ = q₂·k₃ = 0.4300×0.5500 + … = 0.9544" from the codes Python sent; the total is Python's. first: the number
 * of the first row and column (1: tokens counted from 1; 0: positions, counted from 0 as the book's code does). */
export function arithmeticText(symbol, qCodes, kCodes, d, i, j, total, decimals, maxTerms = 8, names = ["q", "k"],
                               first = 1) {
  const factor = (code) => (code < 0 ? `(${formatFixed(code, decimals)})` : formatFixed(code, decimals));
  const term = (m) => `${factor(qCodes[i * d + m])}×${factor(kCodes[j * d + m])}`;
  const shown = d <= maxTerms ? [...Array(d).keys()].map(term)
    : [term(0), term(1), term(2), `… (${d - 4} more terms)`, term(d - 1)];
  const [a, b] = [i + first, j + first];
  return `${symbol}(${a},${b}) = ${names[0]}${a}·${names[1]}${b} = ${shown.join(" + ")} = ${formatFixed(total, decimals)}`;
}

/** The view's starting state from Python's 1-based initial values, clamped to the map. */
export function initialState(meta) {
  const init = meta.initial;
  const big = Math.max(meta.rows, meta.cols) > meta.cells_max;
  const size = big ? nextSize(meta.window_sizes, init.window_size, 0, meta.rows) : meta.rows;
  const clampIndex = (v, n) => Math.max(0, Math.min(n - 1, (v | 0) - 1));
  const query = clampIndex(init.query, meta.rows), key = clampIndex(init.key, meta.cols);
  // The window starts where the URL put it (a shared link shows what its sender saw); without one,
  // centred on the selected cell.
  const start = (v, index, n) => clampWindow(v == null ? index - (size >> 1) : (v | 0) - 1, size, n);
  const frame = meta.frames ? Math.max(0, Math.min(frameCount(meta.frames) - 1, meta.frames.initial | 0)) : 0;
  return { query, key, size, frame, window: start(init.window, query, meta.rows), windowKey: start(init.window_key, key, meta.cols) };
}

/** The next state after one control move; the window follows the selected cell. */
export function move(state, meta, action, by = 1) {
  const s = { ...state };
  const step = (v, n) => Math.max(0, Math.min(n - 1, v + by));
  if (action === "query") s.query = step(s.query, meta.rows);
  else if (action === "key") s.key = step(s.key, meta.cols);
  else if (action === "frame") s.frame = Math.max(0, Math.min(frameCount(meta.frames) - 1, s.frame + by));
  else if (action === "window") s.window = clampWindow(s.window + by, s.size, meta.rows);
  else if (action === "window_key") s.windowKey = clampWindow(s.windowKey + by, s.size, meta.cols);
  else if (action === "window_size") {
    s.size = nextSize(meta.window_sizes, s.size, by, Math.min(meta.rows, meta.cols));
    s.window = clampWindow(s.window, s.size, meta.rows);
    s.windowKey = clampWindow(s.windowKey, s.size, meta.cols);
  }
  if (action === "query" || action === "key") {
    s.window = follow(s.window, s.size, s.query, meta.rows);
    s.windowKey = follow(s.windowKey, s.size, s.key, meta.cols);
  }
  return s;
}

/** The address with the view's state in the app's URL parameters (1-based; window ones only with a zoom).
 * selection false: a map that is not of the app's tokens (an experiment's) writes only its frames. */
export function urlWith(href, state, zoom, frames = null, selection = true) {
  const url = new URL(href);
  if (frames) frameParts(frames, state.frame).forEach((n, d) => url.searchParams.set(frames.dims[d].param, String(frames.dims[d].values[n])));
  if (!selection) return url.toString();
  url.searchParams.set("query", String(state.query + 1));
  url.searchParams.set("key", String(state.key + 1));
  if (zoom) {
    url.searchParams.set("window", String(state.window + 1));
    url.searchParams.set("window_key", String(state.windowKey + 1));
    url.searchParams.set("window_size", String(state.size));
  }
  return url.toString();
}

/** "z(3) = [0.4419, 0.6515, 0.5683]": row `row` of the vectors Python sent (the first `sent` entries of each,
 * then "… n more"), labelled with its query (a stack of frames puts a frame's rows after the earlier frames'). */
export function vectorText(name, codes, d, row, decimals, sent = d, fields = null, query = row) {
  const shown = Math.min(d, sent);
  if (fields) return `${name}, query ${query + 1}: ` + fields.slice(0, shown).map((f, m) => `${f} ${formatFixed(codes[row * sent + m], decimals)}`).join(", ");
  const parts = [];
  for (let m = 0; m < shown; m++) parts.push(formatFixed(codes[row * sent + m], decimals));
  if (d > shown) parts.push(`… ${d - shown} more`);
  return `${name}(${query + 1}) = [${parts.join(", ")}]`;
}

/** A slider's value as a state change: the range inputs are 1-based positions, the size one an index into the allowed sizes. */
export function fromSlider(state, meta, name, value) {
  const n = Math.max(0, (value | 0) - 1);
  if (name === "window_size") {
    const sizes = allowedSizes(meta.window_sizes, Math.min(meta.rows, meta.cols));
    const size = sizes[Math.min(n, sizes.length - 1)] ?? state.size;
    return { ...state, size, window: clampWindow(state.window, size, meta.rows), windowKey: clampWindow(state.windowKey, size, meta.cols) };
  }
  if (name.startsWith("frame") && meta.frames) { // frame0, frame1: one slider per dimension of the stack
    const d = Number(name.slice(5)), parts = frameParts(meta.frames, state.frame);
    parts[d] = Math.min(n, dimLength(meta.frames, d, parts) - 1);
    return { ...state, frame: frameFrom(meta.frames, parts) };
  }
  if (name === "window") return { ...state, window: clampWindow(n, state.size, meta.rows) };
  if (name === "window_key") return { ...state, windowKey: clampWindow(n, state.size, meta.cols) };
  return move({ ...state, [name]: n }, meta, name, 0);
}
