"""Rotary positions (RoPE): the chapter's MultiHeadAttention with the book's compute_rope_params and apply_rope.

The chapter's layer knows no order: GPT-2 adds a position embedding to x before it. Llama instead turns each
head's query and key, pair of dimensions by pair, by an angle position · θ_i (one dial per frequency θ_i). Two
turned vectors' dot product depends only on the difference of their angles, so a score depends on how far apart
two tokens are, not on where they sit. The app's composition lives here, not in the book's file: the chapter's
class with the two apply_rope lines of the book's Llama attention (pkg/llms_from_scratch/llama3.py) added, built
under the chapter's seed, so the only change from chapter 3's layer is the rotation.
"""
import torch
import torch.nn.functional as F

from attention_core.book.device import run_with_fallback
from attention_core.book.modules import MultiHeadAttention
from attention_core.book.seeding import build_seeded
from attention_core.book.variants.llama3_rope import apply_rope, compute_rope_params
from attention_core.drawing.numbers import scientific

MIN_HEAD_DIM = 4  # pairs need an even head_dim; the two layouts differ only from two pairs up
OFFSETS = (0, 1, 10, 100, 1000)  # where the sentence starts: the position control's values
POSITIONS = 16  # the positions of the score-over-positions map (0 … 15)
MAX_POSITION = 1_000  # the dials' position controls (the shift table looks 100 further)
DIAL_POSITIONS = MAX_POSITION + 128  # the cos and sin rows the dials and the shift table read
SHOWN_ROWS = 8  # tokens of the layouts' tables kept in the trace (a GPT-2-sized map is 4 MB a head)
SAME = 1e-4  # scores closer than this (relative to 1 or the score) count as equal: float32 angles at 1,000 differ ~1e-5


def rope_sizes(d_out: int, num_heads: int) -> tuple[int, int, str | None]:
    """(d_out used, head_dim, why it differs or None): the sidebar's head count, head_dim made even and at least
    MIN_HEAD_DIM (the book's preset, d_out 2 with 2 heads, has head_dim 1: nothing to pair)."""
    head_dim = d_out // num_heads
    used = max(MIN_HEAD_DIM, head_dim + head_dim % 2)
    if used == head_dim:
        return d_out, head_dim, None
    return num_heads * used, used, (
        f"RoPE turns pairs of dimensions, and the book's layout and the paper's differ only from head_dim "
        f"{MIN_HEAD_DIM} up: d_out = {d_out} with {num_heads} head{'s' if num_heads > 1 else ''} gives head_dim "
        f"{head_dim}, so this screen uses head_dim {used}, d_out = {num_heads} × {used} = {num_heads * used}.")


class MultiHeadAttentionRoPE(MultiHeadAttention):
    """The chapter's MultiHeadAttention with RoPE on its queries and keys (the app's composition).

    The constructor is the chapter's, so under one seed the weights are the chapter's too. forward takes the book's
    cos and sin (compute_rope_params), as the book's Llama attention does; cos[s:], sin[s:] start the sentence at
    position s. No position embedding is added to x."""

    def forward(self, x, cos, sin):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x)  # (b, T, d_out)
        queries = self.W_query(x)
        values = self.W_value(x)

        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)  # (b, h, T, head_dim)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)

        # The only change from chapter 3: turn queries and keys by their positions' angles (values stay)
        keys = apply_rope(keys, cos, sin)
        queries = apply_rope(queries, cos, sin)

        attn_scores = queries @ keys.transpose(2, 3)  # (b, h, T, T)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)

        context_vec = (attn_weights @ values).transpose(1, 2)  # (b, T, h, head_dim)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)

    def trace(self, x, cos, sin, rope=apply_rope):
        """forward's tensors under its names; `rope` swaps the rotation (a common mistake, another layout)."""
        b, num_tokens, d_in = x.shape
        split = lambda t: t.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)  # noqa: E731
        keys_raw, queries_raw, values = split(self.W_key(x)), split(self.W_query(x)), split(self.W_value(x))
        keys, queries = rope(keys_raw, cos, sin), rope(queries_raw, cos, sin)  # (b, h, T, head_dim)
        attn_scores = queries @ keys.transpose(2, 3)  # (b, h, T, T)
        masked = attn_scores.masked_fill(self.mask.bool()[:num_tokens, :num_tokens], -torch.inf)
        attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)  # (b, h, T, T)
        merged = (attn_weights @ values).transpose(1, 2).contiguous().view(b, num_tokens, self.d_out)
        return {"queries_raw": queries_raw, "keys_raw": keys_raw, "queries": queries, "keys": keys,
                "values": values, "attn_scores": attn_scores, "attn_weights": attn_weights,
                "context_vec": self.out_proj(merged)}


def apply_rope_interleaved(x, cos, sin):
    """The original paper's and Meta's layout: neighbours (2i, 2i + 1) turn together by θ_i. x: (b, h, T, head_dim)."""
    seq_len, head_dim = x.shape[-2], x.shape[-1]
    c, s = cos[:seq_len, : head_dim // 2], sin[:seq_len, : head_dim // 2]  # (T, head_dim / 2): θ_1 … once
    even, odd = x[..., 0::2], x[..., 1::2]  # (b, h, T, head_dim / 2) each
    return torch.stack((even * c - odd * s, even * s + odd * c), dim=-1).flatten(-2)


def interleaved_order(head_dim: int) -> torch.Tensor:
    """The book's dimensions in the interleaved order: slot 2i holds dimension i, slot 2i + 1 dimension i + d/2."""
    return torch.tensor([i // 2 + (head_dim // 2 if i % 2 else 0) for i in range(head_dim)])


def permuted_rows(d_out: int, num_heads: int) -> torch.Tensor:
    """W_query's and W_key's output rows reordered head by head, so the interleaved rotation pairs what the book's
    pairs (Hugging Face's Llama conversion permutes Meta's checkpoints the other way)."""
    head_dim = d_out // num_heads
    return torch.cat([h * head_dim + interleaved_order(head_dim) for h in range(num_heads)])


def cos_interleaved(cos: torch.Tensor) -> torch.Tensor:
    """The mistake of issue #838: cos laid out [c1, c1, c2, c2, …] (repeat_interleave) for the book's halves."""
    half = cos.shape[-1] // 2
    return cos[:, :half].repeat_interleave(2, dim=-1)  # (positions, head_dim)


def head_scores(q_raw, k_raw, cos, sin, rope=apply_rope):
    """One head's scores: its queries and keys (T, head_dim) turned by `rope` from position 0 of cos and sin."""
    T = q_raw.shape[0]
    turn = lambda t: rope(t.reshape(1, 1, T, -1), cos, sin)[0, 0]  # noqa: E731
    return turn(q_raw) @ turn(k_raw).T  # (T, T)


def causal_weights(scores: torch.Tensor, head_dim: int) -> torch.Tensor:
    """The chapter's causal mask, ÷ √head_dim and softmax on one head's (T, T) scores."""
    T = scores.shape[-1]
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool, device=scores.device), diagonal=1)
    return torch.softmax(scores.masked_fill(mask, -torch.inf) / head_dim**0.5, dim=-1)


def rope_trace(x, *, d_out, seed, device, num_heads, head=0, offset=0, offsets=(0,), theta_base=10_000):
    """The chapter's layer and its RoPE twin on x (T, d_in), both built under `seed` (d_out: the size used,
    rope_sizes). Kept for one head (`head`, 0-based; a GPT-2-sized map is 4 MB a head): the chapter's and RoPE's
    weights, RoPE's at every start position in `offsets`, the layouts, the raw queries and keys for the dials."""
    num_tokens, d_in = x.shape
    head_dim = d_out // num_heads
    rope = build_seeded(MultiHeadAttentionRoPE, seed, d_in, d_out, num_tokens, 0.0, num_heads)
    cos, sin = compute_rope_params(head_dim, theta_base, max(max(offsets + (offset,)) + num_tokens, DIAL_POSITIONS))
    order = interleaved_order(head_dim)  # W_query's and W_key's rows of this head, permuted (permuted_rows)

    def compute(dev):
        with torch.no_grad():
            batch, c, s = x.unsqueeze(0).to(dev), cos.to(dev), sin.to(dev)  # (1, T, d_in)
            # One head is all the screen draws: its columns of W_query(x) and W_key(x) are the rows the classes'
            # view and transpose give that head (the two layers share their weights under one seed), so the head's
            # maps come without the other heads' (at GPT-2 small, twelve 1,024 x 1,024 maps a layer, ~1.5 s a move).
            cols = slice(head * head_dim, (head + 1) * head_dim)
            rope.to(dev)

            def project(linear):  # the head's rows of the weights only: 64 of GPT-2 small's 768 outputs
                return F.linear(batch, linear.weight[cols], None if linear.bias is None else linear.bias[cols])[0]
            q_raw, k_raw = project(rope.W_query), project(rope.W_key)  # (T, head_dim) each
            chapter_scores = q_raw @ k_raw.T  # (T, T): the chapter's layer, no rotation
            turn = lambda t, o: apply_rope(t.reshape(1, 1, num_tokens, -1), c[o:], s[o:])[0, 0]  # noqa: E731
            queries, keys = turn(q_raw, offset), turn(k_raw, offset)  # (T, head_dim) each
            book_scores = queries @ keys.T  # (T, T)
            shifted = torch.stack([causal_weights(head_scores(q_raw, k_raw, c[o:], s[o:]), head_dim) for o in offsets])
            permuted = head_scores(q_raw[:, order], k_raw[:, order], c[offset:], s[offset:], apply_rope_interleaved)
            unpermuted = head_scores(q_raw, k_raw, c[offset:], s[offset:], apply_rope_interleaved)
            keep = min(num_tokens, SHOWN_ROWS)
            return {
                "chapter_weights": causal_weights(chapter_scores, head_dim).cpu(), "chapter_scores": chapter_scores.cpu(),
                "attn_weights": causal_weights(book_scores, head_dim).cpu(), "attn_scores": book_scores.cpu(),
                "shifted": shifted.cpu(),  # (len(offsets), T, T)
                "queries_raw": q_raw.cpu(), "keys_raw": k_raw.cpu(), "queries": queries.cpu(), "keys": keys.cpu(),
                "layouts": {"book": book_scores[:keep, :keep].cpu(), "permuted": permuted[:keep, :keep].cpu(),
                            "unpermuted": unpermuted[:keep, :keep].cpu(),
                            "permuted_gap": float((permuted - book_scores).abs().max()),
                            "unpermuted_gap": float((unpermuted - book_scores).abs().max())},
            }

    record, used, note = run_with_fallback(compute, device)
    inv_freq = 1.0 / (theta_base ** (torch.arange(0, head_dim, 2).float() / head_dim))  # (head_dim / 2,) the dials
    return record | {"cos": cos, "sin": sin, "inv_freq": inv_freq, "head_dim": head_dim, "num_heads": num_heads,
                     "head": head,
                     "offsets": tuple(offsets), "offset": offset, "device": used, "note": note}


def rotate(vector: torch.Tensor, position: int, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """One head_dim vector turned to `position` by the book's apply_rope (as a (1, 1, 1, d) batch)."""
    return apply_rope(vector.view(1, 1, 1, -1), cos[position:], sin[position:]).view(-1)


def position_scores(q: torch.Tensor, k: torch.Tensor, cos, sin, positions: int = POSITIONS):
    """(rotated q at each position (P, d), rotated k (P, d), scores (P, P)): S[m, n] = rope(q, m) · rope(k, n)."""
    turned_q = torch.stack([rotate(q, m, cos, sin) for m in range(positions)])  # (P, d)
    turned_k = torch.stack([rotate(k, n, cos, sin) for n in range(positions)])
    return turned_q, turned_k, turned_q @ turned_k.T


def score_at(q, k, m: int, n: int, cos, sin) -> float:
    """rope(q, m) · rope(k, n): the score of q placed at position m and k at position n (0-based)."""
    return float(rotate(q, m, cos, sin) @ rotate(k, n, cos, sin))


def dial_rows(q, k, m: int, n: int, cos, sin, inv_freq) -> list[dict]:
    """One row per pair and vector for the dials: the pair (dimension i, i + d/2) before and after the turn by
    position · θ_i, whose cos and sin are compute_rope_params' own. The chart only draws these coordinates."""
    half = q.shape[-1] // 2
    rows = []
    for who, vector, position in (("q", q, m), ("k", k, n)):
        for i in range(half):
            a, b = float(vector[i]), float(vector[i + half])
            c, s = float(cos[position, i]), float(sin[position, i])
            rows.append({"pair": f"pair {i + 1}: dims {i + 1} & {i + 1 + half}", "vector": who, "position": position,
                         "theta": float(inv_freq[i]), "angle": position * float(inv_freq[i]), "x0": a, "y0": b,
                         "x": a * c - b * s, "y": a * s + b * c})
    return rows


def shift_table(q, k, m: int, n: int, cos, sin, shifts=(1, 10, 100)) -> list[dict]:
    """The score as both positions move by each shift (unchanged), and as one of them moves by 1 (changed)."""
    rows = [{"move": "as placed", "query at": m, "key at": n, "score": score_at(q, k, m, n, cos, sin)}]
    rows += [{"move": f"both + {s:,}", "query at": m + s, "key at": n + s, "score": score_at(q, k, m + s, n + s, cos, sin)}
             for s in shifts]
    rows += [{"move": "query + 1 only", "query at": m + 1, "key at": n, "score": score_at(q, k, m + 1, n, cos, sin)},
             {"move": "key + 1 only", "query at": m, "key at": n + 1, "score": score_at(q, k, m, n + 1, cos, sin)}]
    return rows


def offsets_sentence(shifted: torch.Tensor, offsets) -> str:
    """What the start-position frames show: the same map wherever the sentence starts (or, honestly, not)."""
    if len(offsets) < 2:
        return ""
    gap = float((shifted - shifted[0]).abs().max())
    where = ", ".join(f"{o:,}" for o in offsets)
    return (f"The sentence starting at position {where}: the same map each time (largest difference from the start at "
            f"{offsets[0]:,}: {scientific(gap)}, float32 rounding of the angles)." if gap <= SAME else
            f"The maps differ by up to {gap:.4f} across the start positions {where}.")


def equal(a: float, b: float) -> bool:
    return abs(a - b) <= SAME * max(1.0, abs(a))


def shift_sentence(rows: list[dict]) -> str:
    """What the shift table says, worded from its numbers."""
    base = rows[0]["score"]
    both = [r for r in rows if r["move"].startswith("both")]
    one = [r for r in rows if r["move"].endswith("only")]
    kept = [r for r in both if equal(r["score"], base)]
    moved = [r for r in one if not equal(r["score"], base)]
    gap = max(abs(r["score"] - base) for r in both)
    first = (f"Moving both by {', '.join(r['move'][7:] for r in both)} leaves the score at {base:.4f} (largest "
             f"difference {scientific(gap)}, float32 rounding of the angles)." if len(kept) == len(both) else
             f"Moving both changes the score by up to {gap:.4f}: " + ", ".join(f"{r['score']:.4f}" for r in both) + ".")
    second = (" Moving only one of them changes it: " + ", ".join(f"{r['move']} {r['score']:.4f}" for r in one) + "."
              if moved else " Moving only one of them by 1 leaves it too (these vectors are symmetric under the turn).")
    return first + second


def layer_changes(chapter_scores, rope_scores, chapter_weights, rope_weights) -> dict:
    """Where RoPE changed the chapter's map (one head, offset 0): the diagonal's scores stay (a token meets itself at
    distance 0), the first row's weight stays 1, and the other visible cells move; the future stays 0."""
    T = chapter_scores.shape[-1]
    diag = torch.eye(T, dtype=torch.bool)
    below = torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-1)
    score_gap = (rope_scores - chapter_scores).abs()  # (T, T)
    weight_gap = (rope_weights - chapter_weights).abs()
    tol = SAME * max(1.0, float(chapter_scores.abs().max()))
    return {"diagonal_gap": float(score_gap[diag].max()), "below": int(below.sum()),
            "below_changed": int((score_gap[below] > tol).sum()),
            "largest_score_change": float(score_gap[below].max()) if T > 1 else 0.0,
            "largest_weight_change": float(weight_gap.max()),
            "future_weights": float(rope_weights[~below & ~diag].abs().max()) if T > 1 else 0.0,
            "first_row_gap": float(weight_gap[0].max())}


def changes_sentence(c: dict) -> str:
    if c["below"] == 0:
        return "With one token there is nothing to turn against: the map is the chapter's (one weight, 1)."
    return (f"On the diagonal the scores are the chapter's (largest difference {scientific(c['diagonal_gap'])}): a token meets "
            f"itself at distance 0. {c['below_changed']:,} of the {c['below']:,} cells below it changed score (up to "
            f"{c['largest_score_change']:.4f}) and the weights moved by up to {c['largest_weight_change']:.4f}; the first "
            f"row stays 1 and the future stays 0.")


def mistakes(record: dict, offset_later: int = 10) -> list[dict]:
    """The common mistakes on this head's own q and k, each beside the right result (numbers, not prose)."""
    q_raw, k_raw = record["queries_raw"], record["keys_raw"]  # (T, d)
    cos, sin = record["cos"], record["sin"]
    T = q_raw.shape[0]
    batch = lambda t: t.view(1, 1, T, -1)  # noqa: E731

    def scores(o, rotate_keys=True, c=cos):
        qq = apply_rope(batch(q_raw), c[o:], sin[o:])[0, 0]
        kk = apply_rope(batch(k_raw), c[o:], sin[o:])[0, 0] if rotate_keys else k_raw
        return qq @ kk.T  # (T, T)

    # Relative to the largest score: GPT-2-sized scores reach ~100, where float32's angles at position 10 move the
    # last digits by 2e-4 while the right result is exact to rounding (~1e-6 of the score).
    start = scores(0)
    right_shift = float((scores(offset_later) - start).abs().max() / start.abs().max())
    wrong_shift = float((scores(offset_later, False) - scores(0, False)).abs().max() / scores(0, False).abs().max())
    turned = apply_rope(batch(q_raw), cos_interleaved(cos), sin)[0, 0]  # the mistake's "rotation"
    length_right = float(apply_rope(batch(q_raw), cos, sin)[0, 0, -1].norm())
    return [
        {"name": "Rotating the queries only", "code": "queries = apply_rope(queries, cos, sin)  # keys left as they are",
         "right_code": "keys = apply_rope(keys, cos, sin)\nqueries = apply_rope(queries, cos, sin)",
         "measure": f"scores at start {offset_later} vs start 0 (largest difference ÷ largest score)",
         "right": right_shift, "wrong": wrong_shift,
         "says": "the score then depends on where the sentence starts, not only on the distance"},
        {"name": "cos laid out [c1, c1, c2, c2, …] for the book's halves (issue #838)",
         "code": "cos = cos[:, :head_dim // 2].repeat_interleave(2, dim=-1)",
         "right_code": "angles = torch.cat([angles, angles], dim=1)  # compute_rope_params: [θ1, θ2, …, θ1, θ2, …]",
         "measure": f"length of token {T}'s query (before: {float(q_raw[-1].norm()):.4f})", "right": length_right,
         "wrong": float(turned[-1].norm()),
         "says": "dimension i and i + d/2 no longer turn by the same angle, so it is no rotation: lengths change"},
        {"name": "The interleaved rotation on the book's weights, not permuted",
         "code": "queries = apply_rope_interleaved(queries, cos, sin)  # W_query, W_key as trained for halves",
         "right_code": "rows = permuted_rows(d_out, num_heads)  # W_query's and W_key's rows, head by head\n"
                       "queries = apply_rope_interleaved(queries_from_W_query_rows, cos, sin)",
         "measure": "largest score difference from the book's", "right": record["layouts"]["permuted_gap"],
         "wrong": record["layouts"]["unpermuted_gap"],
         "says": "each layout pairs other dimensions: weights trained for one give other scores in the other"},
    ]


def right_words(item: dict) -> str:
    """A common mistake's right-hand figure (mistakes()) in words that follow it: "float32 rounding" only where it is
    within SAME, and then measured against the mistake's own figure, not against another comparison's bar (teacher
    reads found 1.4 × 10⁻⁵ called rounding beside "agreement means ≤ 10⁻⁵", then a second bar of 10⁻⁴)."""
    right, wrong = item["right"], item["wrong"]
    if right <= SAME:
        times = f"{scientific(wrong / right)} times smaller than" if right > 0 else "against"  # 10,030,299: false digits
        return f"{item['measure']}: {scientific(right)}, float32 rounding ({times} the mistake's {wrong:.4f})"
    return f"{item['measure']}: {right:.4f}"


def agreement_checks(record: dict) -> list[tuple[str, float]]:
    """The book's rotation against PyTorch's complex numbers (Meta's way: q · e^(i·position·θ) on neighbour pairs)
    and against the length it must keep: (label, max |difference|)."""
    q_raw, turned, offset = record["queries_raw"], record["queries"], record["offset"]  # (T, d) each
    T, d = q_raw.shape
    order = interleaved_order(d)
    angles = torch.arange(offset, offset + T).float().unsqueeze(1) * record["inv_freq"].unsqueeze(0)  # (T, d / 2)
    pairs = torch.view_as_complex(q_raw[:, order].reshape(T, d // 2, 2).contiguous())  # (T, d / 2) complex
    complex_turn = torch.view_as_real(pairs * torch.polar(torch.ones_like(angles), angles)).reshape(T, d)
    return [("apply_rope vs torch.polar (complex)", float((complex_turn - turned[:, order]).abs().max())),
            ("lengths before vs after", float((turned.norm(dim=-1) - q_raw.norm(dim=-1)).abs().max()))]


def rope_questions(record: dict, q: int, k: int, tokens=None) -> list:
    """Predict first: the query at token 5 and the key at token 2, then at 6 and 3; a turned vector's length; the
    book's pairs. The query comes after its key, as the causal mask allows, and as the dials place them (m = 4, n = 1)."""
    from attention_core.lessons.questions import Question, _identity  # the chapter's Question type
    q_vec, k_vec = record["queries_raw"][q], record["keys_raw"][k]  # (head_dim,) each
    cos, sin, d = record["cos"], record["sin"], record["head_dim"]
    who = (f"the query of “{tokens[q]}” and the key of “{tokens[k]}”" if tokens else "one query and one key") + \
          f" (head {record.get('head', 0) + 1}, before RoPE)"
    first, later = score_at(q_vec, k_vec, 4, 1, cos, sin), score_at(q_vec, k_vec, 5, 2, cos, sin)  # positions from 0
    same = Question(
        _identity("rope", "shift", q_vec, k_vec), f"Take {who}. With the query at token 5 and the key at token 2, "
        f"RoPE gives them a score of {first:.4f}. With the query at token 6 and the key at token 3 instead, is their "
        "score the same?", "yesno", equal(first, later),
        f"At tokens 6 and 3 it is {later:.4f} (at 5 and 2: {first:.4f}). Each pair of dimensions turns by position · θ, "
        "and a dot product of two turned pairs depends only on the difference of their angles: 3 tokens apart either way.")
    length, turned = float(q_vec.norm()), float(rotate(q_vec, 4, cos, sin).norm())
    keeps = Question(
        _identity("rope", "length", q_vec), f"That query vector has length {length:.4f}. What is its length after RoPE "
        "turns it to token 5 (position 4 in the book's code)?", "number", round(turned, 4),
        f"{turned:.4f}: each pair turns on its own dial, and a turn keeps a pair's length, so the vector's length stays "
        f"{length:.4f} (to float rounding). RoPE changes directions, never sizes.",
        tolerance=max(1e-3, 1e-3 * length), low=0, high=1e9, gives_away=("keeps a pair's length", "never sizes"))
    partner = 1 + d // 2
    pairs = Question(
        _identity("rope", "pairs", d), f"With head_dim = {d}, the book's apply_rope turns dimension 1 together with "
        "which dimension (counting from 1)?", "number", float(partner),
        f"Dimension {partner}: x1 = x[..., :{d // 2}] and x2 = x[..., {d // 2}:] are turned together, so dimension i "
        f"pairs with i + {d // 2}. The original paper and Meta's code pair neighbours: 1 with 2.",
        low=1, high=d, gives_away=(f"dims 1 & {partner}",))
    return [same, keeps, pairs]
