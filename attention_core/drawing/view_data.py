"""What the browser-side attention view needs, computed in Python: numbers as fixed-point codes,
shades on the app's colour scales (view_shades.py), the overview's blocks, and the terms of one worked cell.

The browser only selects, formats and colours these; it computes no attention math. Every number it
prints is an integer code c meaning c / 10**DECIMALS, rounded here exactly as Python's f"{x:.4f}" rounds,
so the browser's text equals Python's text. Codes and shades are lists of integers, which Streamlit
sends as Arrow columns (uint16 for weights: 2 bytes a cell; a causal map sends only its lower triangle).
Above EXACT_MAX tokens a map drawn as a matrix sends a 1-byte shade a cell (the picture) and exact codes only
where the view prints numbers: each row's TOP_KEYS largest (its bars), and for any other cell the range of
values its shade holds (the readout says the value was not sent).
"""
import hashlib
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd

from attention_core.drawing import colour
from attention_core.drawing.shares import masked_cells
from attention_core.drawing.view_shades import SHADE_MASKED, bands, overview_shades, shade_fractions, shades_of

DECIMALS = 4
CELLS_MAX = 64  # up to this many tokens every cell is drawn; above, an overview image and a zoom window
WINDOW_SIZES = (32, 40, 48, 56, 64)
TOP_KEYS = 32  # a row longer than CELLS_MAX shows its 32 largest keys as bars: only those travel for bars alone
# Up to this many tokens every cell's exact value travels (a causal map's codes are 3 bytes a cell with its shade,
# no more than a shade and 32 codes with their keys a row until here); above, the shade of every cell and each
# row's TOP_KEYS codes: 1,024 tokens 0.66 MB a causal map instead of 1.6, scores 1.2 MB instead of 5.2.
EXACT_MAX = 128
ARITHMETIC_MAX = 64  # q and k rows and the scores travel for the worked cell only up to this many tokens
RANKED_MIN = 16  # the fewest bars the view draws (a projector's): a row of at most this many keys shows them all
VECTOR_SHOWN = 8  # a context vector prints its first 8 entries (768 at GPT-2 size would be 3 MB a screen)
# A cell dropout removed is drawn in this colour, which no palette has (yellow-green-blue shares, blues, grey
# hatching for masked): at 1,024 tokens a dropped 0 would otherwise be the palest shade, like any small weight.
DROPPED_HEX, DROPPED_NAME = "#d946ef", "fuchsia"  # the legend names it


# Large frames (a GPT-2 map is 1,024 x 1,024) are worked out side by side, one per core: numpy lets go of the GIL
# in its array loops, so 12 heads at 1,024 tokens took 0.9 s instead of 1.7 on 2 cores (2026-11-27). One pool for
# the process, so a class's sessions share the cores instead of each starting threads of its own.
PARALLEL_CELLS = 256 * 256
_FRAMES = ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1)), thread_name_prefix="view-frames")


def each_frame(function, frames, cells: int) -> list:
    """[function(frame) for frame in frames], in order: side by side when there are several of `cells` cells each."""
    frames = list(frames)
    if len(frames) > 1 and cells >= PARALLEL_CELLS:
        return list(_FRAMES.map(function, frames))
    return [function(frame) for frame in frames]


def fixed_codes(values, decimals: int = DECIMALS) -> np.ndarray:
    """round(x, decimals) as integers (int64), agreeing with f"{x:.{decimals}f}" on every finite x.

    x * 10**d in floating point can land exactly on .5 when x itself is just above or below it
    (0.12345 is stored as 0.123450000000000004...): those near-ties are decided by Python's formatting.
    Non-finite values become 0 (their cells are drawn as masked)."""
    x = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(x)
    scaled = np.where(finite, x, 0.0)
    scaled *= 10.0 ** decimals
    codes = np.rint(scaled)
    # |frac - 0.5| < 1e-6 with frac = scaled - floor(scaled) in [0, 1): in place, one temporary (a map of
    # 1,024 x 1,024 is 8 MB a pass)
    scaled -= np.floor(scaled)
    scaled -= 0.5
    near_tie = np.abs(scaled, out=scaled) < 1e-6
    near_tie &= finite
    for index in zip(*np.nonzero(near_tie)):
        codes[index] = int(f"{x[index]:.{decimals}f}".replace(".", ""))
    return codes.astype(np.int64)


def _causal(values: np.ndarray, kind: str) -> np.ndarray:
    if kind == "scores":  # a masked score is -inf; only a whole upper triangle of them counts as causal
        above = np.triu(np.ones(values.shape, dtype=bool), k=1)
        return above if values.shape[0] > 1 and (values[above] == -np.inf).all() else np.zeros_like(above)
    masked = masked_cells(values)
    # An unmasked softmax can underflow to exact zeros above the diagonal too (x · x at 768 dimensions is
    # one-hot on the diagonal), and then zeros fill most of the lower triangle as well: not a causal map.
    if masked.any() and np.count_nonzero(values[~masked]) < 0.5 * np.count_nonzero(~masked):
        return np.zeros_like(masked)
    return masked


def stored_cells(rows: int, cols: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the cells sent, in the order sent (row by row; "lower": j <= i only)."""
    if layout == "lower":
        return np.tril_indices(rows)
    return np.indices((rows, cols)).reshape(2, -1)


def _cells(stack: np.ndarray, kind: str, scale: colour.ColourScale, top: int = 0, picture: bool = False, chosen=None,
           column: int | None = None):
    """Maps as the view reads them: ({table name: DataFrame}, meta: kind, layout, exact, palette, each frame's
    legend). stack: (F, T, T), or (T, T) for one frame. Every frame is coloured on `scale` over its own range (a share
    scale's percentiles, a score map's largest |ω|), like a map drawn alone. Without `top`, "cells" holds every stored
    cell's {code, shade}, frame after frame. top: only each row's `top` largest cells' codes travel (with their
    keys): for a map drawn only as rows' bars, "cells" holds just those {code, shade, key} (layout "top"); with
    `picture` (a matrix above EXACT_MAX), "cells" holds every stored cell's shade, "top" the {code, key} and
    "bands" each shade's lowest and highest value (frame after frame, 256 a frame) for the other cells' readout.
    chosen: (1 or F, T, top) keys from ranked_keys: the "largest" cells sent are those (the view's one order),
    instead of this map's own largest codes.
    column: with `top`, one key (0-based) whose {code, shade} travel in every row ("column"): the cell the lesson
    selected keeps its number at any query, where only each row's largest would give a bound ("≤ 0.0022")."""
    stack = stack[None] if stack.ndim == 2 else stack  # (F, T, T)
    masked = np.stack(each_frame(lambda values: _causal(values, kind), stack, stack[0].size))  # (F, T, T)
    above = np.triu(np.ones(stack.shape[1:], dtype=bool), k=1)
    if masked.any() and all(each_frame(lambda values: np.isin(values[above], (0.0, -np.inf)).all(), stack, above.size)):
        masked[:] = above  # one causal frame makes all causal (a frame of dropout at p = 1 is all zeros, still causal)
    causal = bool(masked.any(axis=0).any() and masked.all(axis=0).sum() == masked.any(axis=0).sum())
    layout = "top" if top and not picture else "lower" if causal else "full"
    # The stored cells in the order sent: every cell row by row, or the lower triangle (j <= i) row by row, which
    # is what a boolean mask picks (stored_cells' order) without building 2 M indices for a fancy gather. A causal
    # map with more rows than keys pads its triangle past the last key: that one still goes through the gather.
    rows, cols = stack.shape[1:]
    lower = np.tri(rows, cols, dtype=bool) if layout == "lower" and rows <= cols else None  # (T, T)

    def frame(f: int) -> tuple:
        """One frame's (codes, shades, keys, bands, legend, domain); None where the layout sends no such part."""
        values, hidden = stack[f], masked[f]
        t, (low, high), legend = shade_fractions(values, scale, hidden)
        hidden = hidden | ~np.isfinite(values)
        shade = shades_of(t, hidden)  # (T, T)
        code = fixed_codes(values)  # (T, T)
        codes = shades = keys = ends = None
        if top:  # each row's largest: the bars' numbers
            i, j = _top_cells(code, hidden, top) if chosen is None else _chosen_cells(chosen[f % len(chosen)], hidden, top)
            sent, inside = np.minimum(j, cols - 1), j < cols  # padding points past the last key
            codes, keys = np.where(inside, code[i, sent], 0), j
            if not picture:
                shades = np.where(inside, shade[i, sent], SHADE_MASKED).astype(np.uint8)
        if layout != "top":  # every stored cell's shade, and its code unless only the largest travel
            if lower is None and layout == "lower":
                i, j = stored_cells(rows, cols, layout)
                sent, inside = np.minimum(j, cols - 1), j < cols
                shades = np.where(inside, shade[i, sent], SHADE_MASKED).astype(np.uint8)
                if not top:
                    codes = np.where(inside, code[i, sent], 0)
            else:
                shades = shade[lower] if lower is not None else shade.reshape(-1)
                if not top:
                    codes = code[lower] if lower is not None else code.reshape(-1)
        if picture:
            ends = bands(values, shade, hidden, scale, DECIMALS)
        picked = None if column is None else (code[:, column], np.where(hidden[:, column], SHADE_MASKED, shade[:, column]))
        return codes, shades, keys, ends, legend, [low, high], picked

    column = column if top and column is not None and 0 <= column < cols else None
    parts = each_frame(frame, range(len(stack)), rows * cols)  # [(codes, shades, keys, bands, legend, domain, column)]
    codes, shades, keys, ends, legends, domains, picked = (list(part) for part in zip(*parts))
    codes = np.concatenate(codes)
    codes = codes.astype(np.uint16 if codes.min() >= 0 and codes.max() <= np.iinfo(np.uint16).max else np.int32)
    shades = np.concatenate(shades)
    if not top:
        tables = {"cells": pd.DataFrame({"code": codes, "shade": shades})}
    elif not picture:
        tables = {"cells": pd.DataFrame({"code": codes, "shade": shades, "key": np.concatenate(keys).astype(np.uint16)})}
    else:
        ends = np.concatenate(ends).clip(np.iinfo(np.int32).min, np.iinfo(np.int32).max).astype(np.int32)
        tables = {"cells": pd.DataFrame({"shade": shades}),
                  "top": pd.DataFrame({"code": codes, "key": np.concatenate(keys).astype(np.uint16)}),
                  "bands": pd.DataFrame({"low": ends[:, 0], "high": ends[:, 1]})}
    if column is not None:  # (F · T) codes and shades: the selected key's cell of every row, frame after frame
        tables["column"] = pd.DataFrame({"code": np.concatenate([c for c, _ in picked]).astype(np.int32),
                                         "shade": np.concatenate([h for _, h in picked]).astype(np.uint8)})
    meta = {"rows": stack.shape[1], "cols": stack.shape[2], "kind": kind, "layout": layout, "decimals": DECIMALS,
            "stops": scale.stops(), "legend": legends[0], "domain": domains[0], "legends": legends,
            "framed": stack.shape[0] > 1, "causal": causal, "top": top or 0, "exact": "top" if top else "all",
            "band_unit": scale.unit, "column": column}
    return tables, meta


def _top_cells(code: np.ndarray, hidden: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's `top` largest visible cells, in key order, as the bars show them (largest code first, the
    lower key on a tie, as the view's rowKeys picks). A row with fewer visible keys is padded with key
    index T (not a key: the view skips it). Returns (rows, keys) of T * top cells."""
    rows, cols = code.shape
    # One distinct rank per cell: descending code, then the lower key, hidden cells last. Distinct ranks make
    # a partial sort (argpartition, 6x cheaper than sorting 1,024 keys a row) pick exactly what a stable sort would.
    rank = np.where(hidden, np.int64(1) << 40, -code.astype(np.int64)) * cols + np.arange(cols)  # (T, T)
    top = min(top, cols)
    chosen = np.argpartition(rank, top - 1, axis=1)[:, :top]  # (T, top): the top smallest ranks, in no order
    chosen = np.sort(np.where(np.take_along_axis(hidden, chosen, axis=1), cols, chosen), axis=1)  # (T, top)
    return np.repeat(np.arange(rows), top), chosen.reshape(-1)


def ranked_keys(order: np.ndarray, hidden: np.ndarray, top: int) -> np.ndarray:
    """(T, top) each row's `top` keys in rank order: the largest value as the bars print it (4 decimals) first,
    the lower key on a tie, as _top_cells and the view's rowKeys pick (softmax rounds most keys of a sharp row to
    0.0000: a tie), hidden or non-finite keys never (padded with key index T, not a key). order: (T, T) float;
    hidden: (T, T) bool."""
    rows, cols = order.shape
    top = min(top, cols)
    hidden = hidden | ~np.isfinite(order)
    code = -fixed_codes(order)  # (T, T) int64: smallest first
    # One distinct rank per cell (descending code, then the lower key, hidden last), so that a partial sort picks
    # exactly what a stable sort would, at a sixth of its cost.
    rank = np.where(hidden, code.max(initial=0) + 1, code) * cols + np.arange(cols)  # (T, T)
    keys = np.argpartition(rank, top - 1, axis=1)[:, :top]  # (T, top) in no order
    keys = np.take_along_axis(keys, np.argsort(np.take_along_axis(rank, keys, axis=1), axis=1), axis=1)
    return np.where(np.take_along_axis(hidden, keys, axis=1), cols, keys)


def _chosen_cells(keys: np.ndarray, hidden: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, keys) of T * top cells like _top_cells, but the keys ranked_keys chose (key order, padding last),
    less any this map hides."""
    rows, cols = hidden.shape
    keys = np.sort(keys[:, :top], axis=1)  # (T, top): padding (T) sorts last
    inside = keys < cols
    keys = np.where(inside & ~np.take_along_axis(hidden, np.minimum(keys, cols - 1), axis=1), keys, cols)
    return np.repeat(np.arange(rows), keys.shape[1]), np.sort(keys, axis=1).reshape(-1)


def dropped_bits(after, before) -> pd.DataFrame:
    """Which cells dropout removed, one bit a cell ("bits", little-endian bytes): 0 after dropout where the weight
    before was not. after: (T, T) or (F, T, T); before: (T, T), or (F, T, T) of the same F. Bits run over the whole
    T × T grid row by row, frame after frame (cell n = (frame · T + i) · T + j): 16 kB a frame at 362 tokens."""
    after = np.asarray(after)
    after = after[None] if after.ndim == 2 else after  # (F, T, T)
    flags = (after == 0) & (np.broadcast_to(np.asarray(before), after.shape) != 0)  # (F, T, T)
    return pd.DataFrame({"bits": np.packbits(flags.reshape(-1), bitorder="little")})


def _codes(values) -> pd.DataFrame:
    return pd.DataFrame({"code": fixed_codes(values).reshape(-1).astype(np.int32)})


def view_payload(matrix, labels, kind: str = "weights", scale: colour.ColourScale | str = "absolute",
                 title: str = "", query: int = 1, key: int = 1, window: int | None = None, window_key: int | None = None,
                 window_size: int = 32, q=None, k=None, scores=None, symbol: str = "ω", font_scale: float = 1.0,
                 parts: tuple = ("matrix", "row", "cell", "arithmetic"), row_title: str = "",
                 also: tuple = (), vectors: tuple = (), names: tuple = ("q", "k"), commit: bool = False,
                 frames: dict | None = None, dropped_from: int | None = None, url_selection: bool = True,
                 order=None, order_name: str = "", first: int = 1) -> dict:
    """The view's `data`: a JSON dict "meta" plus Arrow-bound DataFrames. Positions are 1-based, as in the URL;
    `first` is only what the view calls its first row and column (0 for positions counted from 0, as RoPE's are);
    a window left None starts centred on the selected cell.

    matrix: (T, T) weights or scores, on colour.scale_for(kind, scale); q, k: (T, d) query and key rows and
    scores: (T, T) q·k, for the worked cell (sent only up to ARITHMETIC_MAX tokens). parts: which of the view's pictures to show (a
    screen that draws the matrix and the row in two places mounts two views of one payload).
    row_title: the main row's bars' title. also: (title, (T, T) matrix, kind, scale) tuples whose selected
    row is drawn as more bars; vectors: (name, (T, d)) tuples whose selected row is printed (a context vector),
    or (name, (T, d), d field names) to print each entry under its name.
    names: what the worked cell calls the two rows (q and k, or x and x for scores of the inputs).
    commit: show the button that sends the selection to Python (where the lesson below uses it).
    frames: matrix is a stack (F, T, T), one map per value of a control the browser scrubs (a temperature, a
    head, a training step): {"name": the slider's label, "param": its URL parameter, "values": the URL
    values, "labels": the slider's texts, "initial": the starting index}, or {"dims": [two such dicts without
    "initial"], "initial": flat index} for a grid (layer × head: F = layers · heads, the first outermost). The
    last dim may be ragged: "lengths" gives, for each value of the dim before, how many of its values exist
    there (num_heads × head: head 3 does not exist with 2 heads), and only those frames are in the stack.
    An `also` map or a vector may be a stack of the same F, or one map for every frame. dropped_from: which `also` map (1 = the first) holds the
    weights before dropout; a main-row bar that is 0 where that one is not is marked as dropped, and so is
    such a cell of the map (Python marks them, dropped_bits; the browser draws them in DROPPED_HEX).
    url_selection: False for a map that is not of the app's tokens (an experiment's): the browser then writes
    only its frames into the URL, never the app's query, key or window.
    order: (T, T) or (F, T, T) values whose order ranks every bar list of the view ("the 16 largest" of the
    scores and of their softmax name the same keys; ties go to the lower key), default the matrix itself, and
    order_name what the bars' titles call it ("scores ω"). A view with `also` maps or an order sends "rank":
    each row's TOP_KEYS keys in that order."""
    values = np.asarray(matrix, dtype=np.float64)  # (T, T), or (F, T, T) with frames
    scale = colour.scale_for(kind, scale)
    rows, cols = values.shape[-2:]
    rows_only = "matrix" not in parts and cols > CELLS_MAX  # the bars show at most TOP_KEYS of a long row
    picture = "matrix" in parts and max(rows, cols) > EXACT_MAX  # every cell's shade, the bars' exact values
    rank = None
    if (order is not None or also) and cols > RANKED_MIN:  # more than one list that may leave keys out
        ranking = np.asarray(values if order is None else order, dtype=np.float64)
        ranking = ranking[None] if ranking.ndim == 2 else ranking  # (F or 1, T, T)
        rank = np.stack([ranked_keys(o, np.zeros(o.shape, dtype=bool), TOP_KEYS) for o in ranking])  # (F or 1, T, R)
    fits = lambda stack: rank is not None and (len(rank) == 1 or np.ndim(stack) == 3 and len(stack) == len(rank))  # noqa: E731
    selected = key - 1  # the lesson's key: its number travels in every row, whatever the row's largest
    data, meta = _cells(values, kind, scale, TOP_KEYS if rows_only or picture else 0, picture,
                        chosen=rank if fits(values) else None, column=selected)
    meta["ranked"] = fits(values)
    size = min(max(window_size, WINDOW_SIZES[0]), WINDOW_SIZES[-1], rows)
    # The view keeps its own selection across reruns while this id stays: new numbers for the same tokens
    # (another d_out, seed or temperature) keep the query the visitor is looking at.
    if frames is not None and "dims" not in frames:  # one dimension: {name, param, values, labels, initial}
        frames = {"dims": [{key: frames[key] for key in ("name", "param", "values", "labels")}], "initial": frames["initial"]}
    start = None if frames is None else (repr(frames["dims"]), frames["initial"])
    selection = repr((rows, cols, kind, query, key, window, window_key, size, start)).encode()
    meta |= {
        "id": hashlib.sha1(selection).hexdigest()[:16], "title": title, "row_title": row_title or title,
        "labels": [str(label) for label in labels][:max(rows, cols)],
        "masked": [colour.MASKED_HEX, colour.MASKED_STRIPE_HEX],
        "cells_max": CELLS_MAX, "window_sizes": list(WINDOW_SIZES),
        "initial": {"query": query, "key": key, "window": window, "window_key": window_key, "window_size": size},
        "font_scale": font_scale, "symbol": symbol, "names": list(names), "first": first, "commit": commit, "overview": None, "d": 0, "parts": list(parts),
        "also": [], "vectors": [], "frames": frames, "dropped_from": dropped_from, "url_selection": url_selection,
        "rank": None if rank is None else {"top": rank.shape[-1], "framed": len(rank) > 1, "name": order_name},
    }
    if rank is not None:
        data["rank"] = pd.DataFrame({"key": rank.reshape(-1).astype(np.uint16)})
    for n, (name, extra, extra_kind, extra_scale) in enumerate(also):
        extra = np.asarray(extra, dtype=np.float64)  # (T, T), or (F, T, T)
        extra_scale = colour.scale_for(extra_kind, extra_scale)
        tables, extra_meta = _cells(extra, extra_kind, extra_scale, TOP_KEYS if cols > CELLS_MAX else 0,
                                    chosen=rank if fits(extra) else None, column=selected)
        ranked = fits(extra) and extra_meta["causal"] == meta["causal"]
        if fits(extra) and not ranked:  # unmasked scores beside causal weights: the future keys are not the same list
            tables, extra_meta = _cells(extra, extra_kind, extra_scale, TOP_KEYS if cols > CELLS_MAX else 0,
                                        column=selected)
        data[f"also{n}"] = tables["cells"]
        if "column" in tables:
            data[f"also{n}_column"] = tables["column"]
        meta["also"].append(extra_meta | {"title": name, "ranked": ranked})
    for n, (name, vector, *fields) in enumerate(vectors):
        vector = np.asarray(vector, dtype=np.float64)  # (T, d), or (F, T, d)
        data[f"vector{n}"] = _codes(vector[..., :VECTOR_SHOWN])  # the view prints only these
        meta["vectors"].append({"name": name, "d": vector.shape[-1], "sent": min(vector.shape[-1], VECTOR_SHOWN),
                                "framed": vector.ndim == 3, "fields": list(fields[0]) if fields else None})
    if max(rows, cols) > CELLS_MAX and "matrix" in parts:  # a view of rows only draws no overview (5 a rerun on /softmax)
        data["overview"], meta["overview"] = overview_shades(values.reshape(-1, rows, cols), kind, scale)
    if q is not None and k is not None and scores is not None and max(rows, cols) <= ARITHMETIC_MAX:
        q, k = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)  # (T, d) each
        meta["d"] = q.shape[1]
        data["q"], data["k"], data["scores"] = _codes(q), _codes(k), _codes(scores)
    marks = dropped_bits(values, also[dropped_from - 1][1]) if dropped_from is not None and "matrix" in parts else None
    if marks is not None and marks["bits"].any():  # the map's dropped cells, apart from small weights (none: eval)
        data["dropped"], meta["dropped"] = marks, {"colour": DROPPED_HEX, "name": DROPPED_NAME}
    data["meta"] = meta
    return data
