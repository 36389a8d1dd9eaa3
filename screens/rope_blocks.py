"""The bodies of /rope's pictures and folded sections: the dials, the shift numbers, the score over positions, the
layer beside the chapter's, the two layouts, the tensors and the common mistakes. Every number comes from
attention_core/lessons/rope.py; this file lays them out."""
import math

import pandas as pd
import streamlit as st

from attention_core.drawing.dials import dials_svg
from attention_core.drawing.text import md_escape
from attention_core.lessons import rope
from attention_core.lessons.head_counts import STACK_WEIGHTS
from ui.draw.checks import pitfall
from ui.draw.display import table, table_grid
from ui.draw.vega import draw_image, font_scale
from ui.state.settings import Settings
from attention_core.drawing.numbers import scientific

COLOURS = {"q": "#1f77b4", "k": "#d62728"}
WHY = (
    "**Why turning gives relative positions.** Turn a pair (a, b) by angle α and another pair (c, d) by β: their dot "
    "product is |(a, b)| · |(c, d)| · cos(φ + α − β), with φ the angle between them before. With α = m · θ and "
    "β = n · θ it depends on m − n only. Pair i (counted from 1) has its own θ_i = theta_base^(−2(i − 1)/head_dim): "
    "the first turns one radian a token, the last barely moves, so near and far distances each have dials that tell "
    "them apart.\n\n"
    "**Why not add a vector to x, as GPT-2 does?** An added position vector mixes into every projection and the "
    "model must learn to read distances out of it; a turn leaves each vector's length alone and puts the distance "
    "straight into q · k. The values are never turned: what a token passes on does not depend on where it sits.\n\n"
    "**Why two layouts?** The paper and Meta's code turn neighbours (1 with 2, 3 with 4); the book and Hugging Face "
    "turn the two halves (1 with 1 + d/2). Both are rotations by the same angles; they pair different dimensions, "
    "so a checkpoint made for one needs its W_query and W_key rows permuted to run in the other."
)


def offsets_fit(num_tokens: int) -> bool:
    """Whether the map at every start position goes to the browser (the /heads stack's budget)."""
    return len(rope.OFFSETS) * num_tokens * num_tokens <= STACK_WEIGHTS


def nice_reach(value: float) -> float:
    """The dials' half-width, rounded up to 1, 1.5, 2, 3, 5, 7 or 10 times a power of ten: round tick labels, and
    the same axes while the vectors' lengths move a little."""
    power = 10 ** math.floor(math.log10(max(value, 1e-6)))
    return next(step * power for step in (1, 1.5, 2, 3, 5, 7, 10) if step * power >= value)


def dials(q_vec, k_vec, m: int, n: int, record: dict, settings: Settings, q: int, k: int) -> None:
    """One dial per pair: q's pair (blue) turned by m · θ_i and k's (red) by n · θ_i, each from its faint start."""
    rows = rope.dial_rows(q_vec, k_vec, m, n, record["cos"], record["sin"], record["inv_freq"])
    half = len(rows) // 2
    named = [(f"{row['pair']} · θ = {row['theta']:.4g}", row) for row in rows]  # a dial's title, once a row
    labels = tuple(dict.fromkeys(label for label, _ in named))[:8]  # GPT-2 small's head has 32 pairs
    panels = [(label, [row for title, row in named if title == label]) for label in labels]
    reach = nice_reach(max(abs(row[axis]) for _, arrows in panels for row in arrows
                           for axis in ("x0", "y0", "x", "y")) * 1.1)
    tokens = settings.tokens
    st.markdown(f"q of “{md_escape(tokens[q])}” (token {q + 1}) placed at position **m = {m:,}**, k of "
                f"“{md_escape(tokens[k])}” (token {k + 1}) placed at position **n = {n:,}** (head {record['head'] + 1}). "
                "The dials put the two vectors at any positions you choose; in a sentence, token i sits at position "
                "i − 1 (the book's code counts positions from 0). Each dial turns by position · θ; the faint arrow is "
                "the pair before turning."
                + (f" {half} pairs: the first {len(labels)} are drawn." if half > len(labels) else "")
                + _slowest_note(panels[-1]))
    draw_image(dials_svg(panels, reach, COLOURS, font_scale()), "rope dials",
               "RoPE dials: each pair of q's and k's dimensions before (faint) and after (solid) the turn",
               table=lambda: pd.DataFrame(rows))


def _slowest_note(panel: tuple) -> str:
    """A sentence when the last dial drawn barely turns at these positions (its θ is tiny): its faint and solid
    arrows lie on each other, which looks like a drawing fault unless said."""
    title, arrows = panel
    turn = max(abs(arrow["angle"]) for arrow in arrows)  # radians: position · θ
    if turn >= 0.2:
        return ""
    return (f" The last dial drawn ({title.split(':')[0]}) turns by at most {turn:.2g} rad at these positions: a slow "
            "pair barely moves over a few tokens, and tells far distances apart instead.")


def shift_numbers(q_vec, k_vec, m: int, n: int, record: dict) -> None:
    """The score as both positions move, and as one moves: the numbers, then the sentence they support."""
    rows = rope.shift_table(q_vec, k_vec, m, n, record["cos"], record["sin"])
    st.markdown(rope.shift_sentence(rows))
    lines = ["| move | q at position | k at position | m − n | score |", "|---|--:|--:|--:|--:|"]
    lines += [f"| {r['move']} | {r['query at']:,} | {r['key at']:,} | {r['query at'] - r['key at']:,} "
              f"| {r['score']:.4f} |" for r in rows]
    st.markdown("\n".join(lines))


def position_view(q_vec, k_vec, record: dict, m: int, n: int) -> dict:
    """show_view's arguments for S[m, n] = rope(q, m) · rope(k, n) at positions 0 … 15 (constant along each
    diagonal: only m − n counts), with the worked product of the selected cell."""
    turned_q, turned_k, scores = rope.position_scores(q_vec, k_vec, record["cos"], record["sin"])
    last = rope.POSITIONS - 1
    return dict(matrix=scores, kind="scores", title="q · k at positions m (rows) and n (columns)",
                view_key="rope_positions", worked=(turned_q, turned_k, scores), names=("q", "k"),
                labels=[f"pos {p}" for p in range(last + 1)], selection=(min(m, last), min(n, last)),
                parts=("matrix", "cell", "arithmetic"), first=0)


POSITION_CAPTION = ("The same q and k at every pair of positions 0 … 15 (rows: the query's position m, columns: the "
                    "key's position n): each diagonal holds one colour, because the score depends only on m − n. Move the "
                    "selected cell along a diagonal in the view and "
                    "the worked product changes term by term while its sum stays.")


def layer_view(record: dict, settings: Settings, offset: int, scrubbed: bool) -> dict:
    """Says what RoPE changed in the chapter's map, and returns show_view's arguments for RoPE's weights with the
    chapter's row beside them, every start position a frame."""
    T = record["attn_weights"].shape[-1]
    frames = ({"name": "Sentence starts at position", "param": "rope_offset", "values": list(rope.OFFSETS),
               "labels": [f"{o:,}" for o in rope.OFFSETS], "initial": rope.OFFSETS.index(offset)} if scrubbed else None)
    changes = rope.layer_changes(record["chapter_scores"], record["attn_scores"], record["chapter_weights"],
                                 record["attn_weights"])
    st.markdown(f"The chapter's `MultiHeadAttention`, the same weights (seed {settings.seed_for('rope')}), with "
                "`apply_rope` on its queries and keys and nothing added to x. " + rope.changes_sentence(changes) + " "
                + rope.offsets_sentence(record["shifted"], record["offsets"])
                + (" Move the start position in the view; Enter brings its query and key to the dials above."
                   if scrubbed else ""))
    return dict(matrix=record["shifted"] if scrubbed else record["attn_weights"],  # (O, T, T) or (T, T)
                kind="weights", title=f"RoPE attn_weights, head {record['head'] + 1}", view_key="rope_view",
                also=[("chapter 3's attn_weights (no positions)", record["chapter_weights"], "weights")],
                parts=("matrix", "row", "cell") if T <= 64 else ("row", "cell"), commit=True, frames=frames)


def layouts(record: dict, settings: Settings) -> None:
    """The book's halves, the paper's neighbours with the weights permuted, and without."""
    lay, d = record["layouts"], record["head_dim"]
    order = ", ".join(str(int(i) + 1) for i in rope.interleaved_order(d)[:8])
    st.markdown(
        f"The book turns dimension i with i + {d // 2} (`x1 = x[..., :{d // 2}]`, `x2 = x[..., {d // 2}:]`, cos laid out "
        "[c1, c2, …, c1, c2, …]: the book's issue #838). The paper and Meta's code turn neighbours 1 with 2, 3 with 4 "
        f"(issues #746, #751). Reorder each head's W_query and W_key rows as {order}{' …' if d > 8 else ''} and the "
        f"neighbours' turn gives the book's scores (largest difference {scientific(lay['permuted_gap'])}); without the "
        f"reordering the scores differ by up to {lay['unpermuted_gap']:.4f}.")
    shown = lay["book"].shape[0]
    labels = settings.labels[:shown]
    if shown < len(settings.tokens):  # the layouts are compared on the first tokens: say so beside a 1,024-token preset
        st.caption(f"The three score tables below are of the first {shown} of the {len(settings.tokens):,} tokens.")
    for name, key in (("scores, the book's halves", "book"), ("scores, neighbours, weights permuted", "permuted"),
                      ("scores, neighbours, weights as they are", "unpermuted")):
        table(lay[key], name, labels, labels)


def tensors(record: dict, settings: Settings) -> None:
    T = record["queries"].shape[0]
    offset = record["offset"]
    positions = [f"pos {p}" for p in range(offset, offset + T)]
    with table_grid():
        table(record["cos"][offset:offset + T], "cos (from compute_rope_params)", positions)
        table(record["sin"][offset:offset + T], "sin", positions)
        for key in ("queries_raw", "queries", "keys_raw", "keys"):
            table(record[key], key + (" (before apply_rope)" if key.endswith("raw") else " (after apply_rope)"),
                  settings.labels)
        table(record["attn_weights"], "attn_weights (RoPE)", settings.labels, settings.labels)


def mistakes(record: dict) -> None:
    for item in rope.mistakes(record):
        pitfall(item["name"], item["code"], item["right_code"],
                f"{item['measure']}: {item['wrong']:.4f}: {item['says']}.",
                rope.right_words(item))
