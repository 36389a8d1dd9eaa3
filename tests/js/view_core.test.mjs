// Unit tests of the attention view's pure functions (node --test tests/js; no packages needed).
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  dimLength, everyKey, frameCount, frameFrom, frameParts, allowedSizes, arithmeticText, topIndex, cellIndex, frameCellIndex, fromSlider, rankedKeys, barColours, barShade, barSpan, vectorText, clampWindow, colourAt, follow, formatFixed, initialState, move, nextSize, rowKeys,
  shadeColours, urlWith,
} from "../../ui/view/view_core.mjs";
import { notSentText, overviewPixels } from "../../ui/view/view_core.mjs";

test("cellIndex walks the lower triangle row by row and refuses masked cells", () => {
  const order = [];
  for (let i = 0; i < 4; i++) for (let j = 0; j <= i; j++) order.push(cellIndex("lower", 4, i, j));
  assert.deepEqual(order, [...Array(10).keys()]);
  assert.equal(cellIndex("lower", 4, 1, 2), -1);
  assert.equal(cellIndex("full", 5, 2, 3), 13);
});

test("formatFixed writes a code's digits exactly, sign and leading zeros included", () => {
  assert.equal(formatFixed(1235, 4), "0.1235");
  assert.equal(formatFixed(-312, 4), "-0.0312");
  assert.equal(formatFixed(10001, 4), "1.0001");
  assert.equal(formatFixed(0, 4), "0.0000");
  assert.equal(formatFixed(-123456, 4), "-12.3456");
  assert.equal(formatFixed(7, 0), "7");
});

test("colourAt interpolates the stops like colour.py's ramp, clipping t", () => {
  const stops = ["#000000", "#ff0000", "#ffffff"];
  assert.deepEqual(colourAt(stops, 0), [0, 0, 0]);
  assert.deepEqual(colourAt(stops, 0.25), [128, 0, 0]);
  assert.deepEqual(colourAt(stops, 0.75), [255, 128, 128]);
  assert.deepEqual(colourAt(stops, 1), [255, 255, 255]);
  assert.deepEqual(colourAt(stops, 7), [255, 255, 255]);
  assert.deepEqual(colourAt(stops, -1), [0, 0, 0]);
});

test("shadeColours decodes shade s as t = s / 254 and keeps 255 for masked cells", () => {
  const table = shadeColours(["#000000", "#fe0000"], "MASKED");
  assert.equal(table.length, 256);
  assert.equal(table[0], "rgb(0,0,0)");
  assert.equal(table[127], "rgb(127,0,0)");
  assert.equal(table[254], "rgb(254,0,0)");
  assert.equal(table[255], "MASKED");
});

test("zoom windows stay inside the map and follow the selection", () => {
  assert.equal(clampWindow(-3, 32, 100), 0);
  assert.equal(clampWindow(90, 32, 100), 68);
  assert.equal(clampWindow(5, 64, 40), 0);
  assert.equal(follow(10, 32, 50, 100), 19);
  assert.equal(follow(10, 32, 3, 100), 3);
  assert.equal(follow(10, 32, 20, 100), 10);
  assert.equal(nextSize([32, 40, 48], 40, 1, 100), 48);
  assert.equal(nextSize([32, 40, 48], 48, 1, 100), 48);
  assert.equal(nextSize([32, 40, 48], 32, -1, 100), 32);
  assert.equal(nextSize([32, 40, 48], 48, 1, 44), 40);
});

const meta = { rows: 100, cols: 100, cells_max: 64, window_sizes: [32, 40, 48, 56, 64],
  initial: { query: 2, key: 1, window: 90, window_key: 1, window_size: 40 } };

test("initialState turns 1-based URL values into clamped 0-based ones", () => {
  assert.deepEqual(initialState(meta), { query: 1, key: 0, size: 40, frame: 0, window: 60, windowKey: 0 });
  const centred = { ...meta, initial: { ...meta.initial, query: 80, key: 90, window: null, window_key: null } };
  assert.deepEqual(initialState(centred), { query: 79, key: 89, size: 40, frame: 0, window: 59, windowKey: 60 });
  const small = { ...meta, rows: 6, cols: 6, initial: { query: 9, key: 0, window: 1, window_key: 1, window_size: 32 } };
  assert.deepEqual(initialState(small), { query: 5, key: 0, size: 6, frame: 0, window: 0, windowKey: 0 });
});

test("move steps one control, clamps it, and pulls the window along with the selection", () => {
  const s = initialState(meta);
  assert.equal(move(s, meta, "query", -1).query, 0);
  assert.equal(move(s, meta, "query", -5).query, 0);
  assert.equal(move({ ...s, query: 99 }, meta, "query", 1).query, 99);
  const down = move({ ...s, query: 59 }, meta, "query", 1);
  assert.equal(down.window, 60);
  assert.equal(move({ ...s, key: 39 }, meta, "key", 1).windowKey, 1);
  assert.equal(move(s, meta, "window", 1).window, 60);
  assert.equal(move(s, meta, "window_key", 3).windowKey, 3);
  const bigger = move(s, meta, "window_size", 1);
  assert.deepEqual([bigger.size, bigger.window], [48, 52]);
});

test("rowKeys keeps every visible key in key order when they fit, else the largest first with the selected key apart", () => {
  const codes = [5, 90, 10, 70, 1, 60, 3];
  const of = (j) => codes[j];
  assert.deepEqual(rowKeys(of, 4, 0, 8), { keys: [0, 1, 2, 3], apart: null });
  assert.deepEqual(rowKeys(of, 7, 1, 3), { keys: [1, 3, 5], apart: null }); // 90, 70, 60: by value, not by key
  assert.deepEqual(rowKeys(of, 7, 4, 3), { keys: [1, 3, 5], apart: 4 }); // the selected key never takes the 3rd's place
  assert.deepEqual(rowKeys((j) => [0, 90, 0, 0, 0][j], 5, 4, 3), { keys: [1, 0, 2], apart: 4 }); // ties: the lower key
  assert.deepEqual(rowKeys(of, 3, 6, 2), { keys: [1, 2], apart: null }); // a causal row: key 7 is in its future
  // a long row sends only its largest (in key order): ranked by value; a selected key not sent still comes apart
  const sent = [2, 5, 9], big = (j) => ({ 2: 40, 5: 80, 9: 40 })[j];
  assert.deepEqual(rowKeys(big, 12, 0, 2, sent), { keys: [5, 2], apart: 0 });
  assert.deepEqual(rowKeys(big, 12, 5, 2, sent), { keys: [5, 2], apart: null });
  assert.deepEqual(rowKeys(big, 12, 9, 2, sent), { keys: [5, 2], apart: 9 });
  assert.deepEqual(rowKeys(big, 12, 9, 8, sent), { keys: [5, 2, 9], apart: null }); // 3 of 12: still largest first
});

test("arithmeticText shows the terms and the total Python sent, and shortens long sums", () => {
  const q = [4300, 1500, -2000, 100], k = [5500, 8700, 6600, 2000];
  assert.equal(arithmeticText("ω", q, k, 2, 1, 0, 9544, 4), "ω(2,1) = q2·k1 = (-0.2000)×0.5500 + 0.0100×0.8700 = 0.9544");
  const d = 10, many = Array.from({ length: d }, (_, m) => m * 10000);
  const text = arithmeticText("ω", many, many, d, 0, 0, 123, 4);
  assert.match(text, /= 0\.0000×0\.0000 \+ 1\.0000×1\.0000 \+ 2\.0000×2\.0000 \+ … \(6 more terms\) \+ 9\.0000×9\.0000 = 0\.0123$/);
  assert.match(arithmeticText("ω", [-5], [5], 1, 0, 0, -25, 4), /\(-0\.0005\)×0\.0005 = -0\.0025$/);
});

test("urlWith writes 1-based view parameters and keeps the others", () => {
  const state = { query: 2, key: 0, window: 9, windowKey: 4, size: 48 };
  const small = new URL(urlWith("http://h/scores?preset=book&query=9", state, false));
  assert.deepEqual([...small.searchParams], [["preset", "book"], ["query", "3"], ["key", "1"]]);
  const big = new URL(urlWith("http://h/gpt2", state, true));
  assert.deepEqual(Object.fromEntries(big.searchParams), { query: "3", key: "1", window: "10", window_key: "5", window_size: "48" });
});

const framed = { ...meta, rows: 4, cols: 4, frames: { dims: [{ name: "Temperature τ", param: "temperature", values: [0.5, 1, 2], labels: ["0.5", "1", "2"] }], initial: 1 } };

test("frames: the start frame, stepping within the stack, and the URL's value of the frame", () => {
  const s = initialState(framed);
  assert.equal(s.frame, 1);
  assert.equal(move(s, framed, "frame", 1).frame, 2);
  assert.equal(move(move(s, framed, "frame", 1), framed, "frame", 1).frame, 2);
  assert.equal(move(s, framed, "frame", -5).frame, 0);
  assert.equal(initialState({ ...framed, frames: { ...framed.frames, initial: 9 } }).frame, 2);
  const url = new URL(urlWith("http://h/softmax?temperature=1", { ...s, frame: 2 }, false, framed.frames));
  assert.equal(url.searchParams.get("temperature"), "2");
  const own = new URL(urlWith("http://h/softmax?query=4&d_k=64", { ...s, frame: 2 }, false, framed.frames, false));
  assert.deepEqual(Object.fromEntries(own.searchParams), { query: "4", d_k: "64", temperature: "2" }); // its frame only
});

test("frameCellIndex skips whole frames of the stored layout", () => {
  assert.equal(frameCellIndex("lower", 4, 4, 0, 3, 3), 9);
  assert.equal(frameCellIndex("lower", 4, 4, 2, 0, 0), 20); // two frames of 10 stored cells each
  assert.equal(frameCellIndex("lower", 4, 4, 1, 0, 2), -1);
  assert.equal(frameCellIndex("full", 3, 3, 1, 1, 2), 14);
});

test("fromSlider maps the sliders' 1-based values to the state, the size slider through the allowed sizes", () => {
  const s = initialState(meta);
  assert.equal(fromSlider(s, meta, "query", 7).query, 6);
  assert.equal(fromSlider(s, meta, "window", 100).window, 60); // clamped so the window stays inside
  assert.deepEqual(allowedSizes(meta.window_sizes, 50), [32, 40, 48]);
  assert.equal(fromSlider(s, meta, "window_size", 5).size, 64);
  assert.equal(fromSlider(s, framed, "frame0", 3).frame, 2);
  assert.equal(fromSlider(s, framed, "frame0", 9).frame, 2);
});

test("vectorText prints the selected row of the entries Python sent", () => {
  const codes = [1, 2, 3, 4, 5, 6]; // two rows of three sent entries
  assert.equal(vectorText("z", codes, 3, 1, 4), "z(2) = [0.0004, 0.0005, 0.0006]");
  assert.equal(vectorText("z", codes, 768, 0, 4, 3), "z(1) = [0.0001, 0.0002, 0.0003, … 765 more]");
  assert.equal(vectorText("sharpness", [2379, 9876], 2, 0, 4, 2, ["largest α", "entropy ÷ uniform"]),
    "sharpness, query 1: largest α 0.2379, entropy ÷ uniform 0.9876");
});

test("topIndex finds a key among the keys a row sent, and refuses the others", () => {
  const keys = [0, 3, 7, 9, 1, 2, 5, 9]; // two rows of top = 4; key 9 pads the first row of a 9-key map
  assert.equal(topIndex(keys, 4, 0, 7), 2);
  assert.equal(topIndex(keys, 4, 1, 5), 6);
  assert.equal(topIndex(keys, 4, 1, 3), -1);
});

test("a grid of frames (layer × head): one slider per dimension, the flat index row-major, both in the URL", () => {
  const grid = { ...meta, rows: 4, cols: 4, frames: { dims: [
    { name: "Layer", param: "layer", values: [1, 2, 3], labels: ["1", "2", "3"] },
    { name: "Head", param: "head", values: [1, 2, 3, 4], labels: ["1", "2", "3", "4"] }], initial: 6 } };
  assert.equal(frameCount(grid.frames), 12);
  assert.deepEqual(frameParts(grid.frames, 6), [1, 2]);
  assert.equal(frameFrom(grid.frames, [2, 3]), 11);
  const s = initialState(grid);
  assert.equal(fromSlider(s, grid, "frame1", 4).frame, 7); // layer 2, head 4
  assert.equal(fromSlider(s, grid, "frame0", 3).frame, 10); // layer 3, head 3
  const url = new URL(urlWith("http://h/gpt2", { ...s, frame: 11 }, false, grid.frames));
  assert.deepEqual([url.searchParams.get("layer"), url.searchParams.get("head")], ["3", "4"]);
});

test("a ragged grid (num_heads × head, d_out = 6): a head past num_heads does not exist, in the index or the sliders", () => {
  // Frames in order: 1 head (h1), 2 heads (h1 h2), 3 heads (h1 h2 h3), 6 heads (h1 ... h6): 1 + 2 + 3 + 6 = 12.
  const ragged = { ...meta, rows: 4, cols: 4, frames: { dims: [
    { name: "num_heads", param: "heads", values: [1, 2, 3, 6], labels: ["1", "2", "3", "6"] },
    { name: "Head", param: "head", values: [1, 2, 3, 4, 5, 6], labels: ["1", "2", "3", "4", "5", "6"], lengths: [1, 2, 3, 6] }],
  initial: 4 } };
  assert.equal(frameCount(ragged.frames), 12);
  const every = Array.from({ length: 12 }, (_, f) => frameParts(ragged.frames, f));
  assert.deepEqual(every, [[0, 0], [1, 0], [1, 1], [2, 0], [2, 1], [2, 2], [3, 0], [3, 1], [3, 2], [3, 3], [3, 4], [3, 5]]);
  every.forEach((parts, f) => assert.equal(frameFrom(ragged.frames, parts), f));
  assert.deepEqual([0, 1, 2, 3].map((n) => dimLength(ragged.frames, 1, [n])), [1, 2, 3, 6]);
  assert.equal(dimLength(ragged.frames, 0, [3]), 4);
  const s = initialState(ragged); // frame 4: 3 heads, head 2
  assert.deepEqual(frameParts(ragged.frames, s.frame), [2, 1]);
  assert.equal(fromSlider(s, ragged, "frame1", 3).frame, 5); // head 3 of 3
  assert.equal(fromSlider(s, ragged, "frame1", 6).frame, 5); // head 6 of 3 does not exist: the last head, 3
  const six = fromSlider(fromSlider(s, ragged, "frame0", 4), ragged, "frame1", 6); // 6 heads, head 6
  assert.equal(six.frame, 11);
  assert.deepEqual(frameParts(ragged.frames, fromSlider(six, ragged, "frame0", 2).frame), [1, 1]); // 2 heads: head 2, not 6
  assert.equal(move({ ...s, frame: 11 }, ragged, "frame", 1).frame, 11); // PageDown stops at the last frame
  const url = new URL(urlWith("http://h/heads", six, false, ragged.frames));
  assert.deepEqual([url.searchParams.get("heads"), url.searchParams.get("head")], ["6", "6"]);
  const grid3 = { dims: [{ values: [10, 20] }, ragged.frames.dims[0], ragged.frames.dims[1]] }; // an outer regular dimension
  assert.equal(frameCount(grid3), 24);
  assert.deepEqual(frameParts(grid3, 12 + 7), [1, 3, 1]);
  assert.equal(frameFrom(grid3, [1, 3, 1]), 19);
});

test("vectorText labels a stacked frame's row with its query, not its place in the stack", () => {
  const codes = Array.from({ length: 12 }, (_, n) => n); // two frames of three queries, two entries each
  assert.equal(vectorText("row sum", codes, 2, 4, 4, 2, ["before", "after"], 1), "row sum, query 2: before 0.0008, after 0.0009");
});

test("notSentText says, in a student's words, why a cell has no number and what the cells of its colour hold", () => {
  assert.equal(notSentText(32, 4301, 4392, 4, "× even share"),
    "a smaller value: at this size only each row's 32 largest are printed; cells of this colour hold 0.4301 to 0.4392 (× even share)");
  assert.equal(notSentText(32, -12345, -11111, 4), "a smaller value: at this size only each row's 32 largest are printed; cells of this colour hold -1.2345 to -1.1111");
  assert.doesNotMatch(notSentText(32, 0, 1, 4), /sent|travel/);
});

test("barColours never paints a bar white but a score of exactly 0, and keeps the score's sign as its hue", () => {
  const redBlue = ["#0000ff", "#ffffff", "#ff0000"]; // blue, white at 0, red: a scores palette
  const rgb = (text) => text.match(/\d+/g).map(Number);
  const scores = barColours(redBlue, "scores");
  assert.deepEqual(rgb(scores[127]), [255, 255, 255]); // 0 itself
  const small = rgb(scores[128]), negative = rgb(scores[126]); // 0.67 beside a largest |ω| of 159
  assert.ok(small[0] === 255 && small[2] <= 255 * 0.71, small); // clearly red, at least 30% of the way out
  assert.ok(negative[2] === 255 && negative[0] <= 255 * 0.71, negative); // clearly blue
  assert.deepEqual(rgb(scores[254]), [255, 0, 0]);
  assert.equal(barShade(127, 634, "scores"), 128); // 0.0634 rounded to the middle shade: still red, not white
  assert.equal(barShade(127, -634, "scores"), 126);
  assert.equal(barShade(127, 0, "scores"), 127);
  assert.equal(barShade(127, 634, "weights"), 127); // a weight's shade is its own
  const weights = barColours(["#ffffff", "#000000"], "weights");
  assert.ok(rgb(weights[0])[0] <= 255 * 0.71 && weights[255] === "#ccc");
});

test("rankedKeys takes the row's first keys in Python's one order, largest first, with the selected key apart", () => {
  const ranked = [1, 1020, 163, 120, 88, 1024, 1024]; // largest first; 1024 pads past the last key
  assert.deepEqual(rankedKeys(ranked, 1024, 1, 3), { keys: [1, 1020, 163], apart: null });
  assert.deepEqual(rankedKeys(ranked, 1024, 88, 3), { keys: [1, 1020, 163], apart: 88 }); // apart, not in 163's place
  assert.deepEqual(rankedKeys(ranked, 1024, 88, 3, false), { keys: [1, 1020, 163], apart: null }); // a list has no number for it
  assert.deepEqual(rankedKeys(ranked, 200, 5, 8), { keys: [1, 163, 120, 88], apart: 5 }); // causal: 1020 is in its future
  assert.deepEqual(rankedKeys([2, 0, 1, 3, 3], 3, 1, 8), { keys: [0, 1, 2], apart: null }); // all 3 keys: key order
});

test("overviewPixels paints each block's shade on the stops and masked blocks in two greys", () => {
  const stops = ["#000000", "#fe0000"], masked = ["#9ca3af", "#e5e7eb"];
  const shades = [9, 9, 0, 127, 254, 255, 255, 255]; // a one-block prefix, then a 2 × 3 overview
  const px = overviewPixels(shades, 2, 2, 3, stops, masked);
  assert.equal(px.length, 2 * 3 * 4);
  assert.deepEqual([...px.slice(0, 12)], [0, 0, 0, 255, 127, 0, 0, 255, 254, 0, 0, 255]);
  assert.deepEqual([...px.slice(12, 16)], [156, 163, 175, 255]); // (1, 0): r + c = 1, the dark grey
  assert.deepEqual([...px.slice(20, 24)], [229, 231, 235, 255]); // (1, 2): r + c = 3, the light one
});

test("arithmeticText numbers rows and columns from `first`: RoPE's positions count from 0", () => {
  const q = [0, 0, 0, 0, 0, 0, 0, 0, -2000, 100], k = [0, 0, 5500, 8700];  // rows 0 … 4 and 0 … 1, d = 2
  assert.equal(arithmeticText("ω", q, k, 2, 4, 1, 9544, 4, 8, ["q", "k"], 0),
               "ω(4,1) = q4·k1 = (-0.2000)×0.5500 + 0.0100×0.8700 = 0.9544");
  assert.equal(arithmeticText("ω", q, k, 2, 4, 1, 9544, 4), "ω(5,2) = q5·k2 = (-0.2000)×0.5500 + 0.0100×0.8700 = 0.9544");
});

test("the bars' title says both keys and its only key, not all 2 keys", () => {
  assert.equal(everyKey(1), "its only key");
  assert.equal(everyKey(2), "both keys");
  assert.equal(everyKey(6), "all 6 keys");
  assert.equal(everyKey(1024), "all 1,024 keys");
});

test("barSpan draws negative scores left of a zero line, so a more negative score is not a bigger bar", () => {
  // GPT-2's masked row: -2.4935 (weight 0.5738) and -10.7324; codes are values x 10,000
  const [a, b] = [barSpan(-24935, -107324, 0), barSpan(-107324, -107324, 0)];
  assert.ok(Math.abs(a[0] + a[1] - 1) < 1e-12 && Math.abs(b[0] + b[1] - 1) < 1e-12); // both end at the zero line (right)
  assert.ok(b[0] < a[0] && b[1] > a[1]); // the more negative one reaches further left
  const [p, n] = [barSpan(30000, -10000, 30000), barSpan(-10000, -10000, 30000)];
  assert.deepEqual(p, [0.25, 0.75]); // a mixed row: zero a quarter of the way in
  assert.deepEqual(n, [0, 0.25]);
  assert.deepEqual(barSpan(5000, 0, 10000), [0, 0.5]); // weights: from the left edge, as before
  assert.deepEqual(barSpan(0, 0, 0), [0, 0]); // an all-zero row draws nothing
});
