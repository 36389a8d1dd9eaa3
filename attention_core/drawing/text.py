"""Numbers and user text as they appear in markdown and LaTeX."""
import re

import torch

from attention_core.drawing.numbers import latex, latex_fixed, latex_whole, short


def md_escape(text: str) -> str:
    """User text (typed tokens) made literal inside st.markdown: no bold, links, math or HTML."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|$<>~])", r"\\\1", text)


def dot_product_latex(lhs: str, a_name: str, b_name: str, a, b, max_terms: int = 6) -> str:
    """`lhs = a . b = a1*b1 + a2*b2 + ... = total` with the real numbers (long sums abridged)."""
    a, b = torch.as_tensor(a).float().cpu(), torch.as_tensor(b).float().cpu()
    terms = [rf"{short(x)} \cdot {short(y)}" for x, y in zip(a.tolist(), b.tolist())]
    if len(terms) > max_terms:
        terms = terms[: max_terms - 1] + [rf"\dots\ ({latex_whole(len(terms))} \text{{ terms}})"]
    total = float(torch.dot(a, b))
    return rf"{lhs} = {a_name} \cdot {b_name} = " + " + ".join(terms).replace("+ -", "- ") + rf" = {total:.4f}"


def head_split_latex(num_tokens: int, d_out: int, num_heads: int, head_dim: int) -> tuple[str, str]:
    """The shapes of the split into heads and of the merge back, as two LaTeX lines with the real sizes."""
    T, h, d = num_tokens, num_heads, head_dim
    split = (rf"(b, T, d_{{out}}) = (1, {T}, {d_out}) \xrightarrow{{\texttt{{view}}}} (b, T, h, d_{{head}}) = "
             rf"(1, {T}, {h}, {d}) \xrightarrow{{\texttt{{transpose(1, 2)}}}} (b, h, T, d_{{head}}) = (1, {h}, {T}, {d})")
    merge = (rf"\text{{merge: }} (1, {h}, {T}, {d}) \xrightarrow{{\texttt{{transpose(1, 2)}}}} (1, {T}, {h}, {d}) "
             rf"\xrightarrow{{\texttt{{contiguous().view}}}} (1, {T}, {d_out}) \xrightarrow{{\texttt{{out\_proj}}}} "
             rf"(1, {T}, {d_out})")
    return split, merge


def query_in_heads_latex(queries, q: int, shown_heads: int = 4, shown_values: int = 4, budget: int = 8) -> str:
    """One token's query cut into heads: queries (b, h, T, head_dim); the first values of the first heads.

    At most `budget` numbers in all, so the line fits a screen at any size: up to `shown_heads` heads every
    head, beyond them the first two, a gap and the last; each with as many of its first values as the budget
    leaves (GPT-2 small's 12 heads of 64: heads 1, 2 and 12, two values each)."""
    num_heads, head_dim = queries.shape[1], queries.shape[-1]
    heads = list(range(num_heads)) if num_heads <= shown_heads else [0, 1, None, num_heads - 1]
    values = max(1, min(shown_values, head_dim, budget // sum(i is not None for i in heads)))

    def head(i: int) -> str:
        shown = r",\ ".join(short(float(v)) for v in queries[0, i, q, :values])
        more = r",\dots" if head_dim > values else ""
        return rf"\underbrace{{{shown}{more}}}_{{\text{{head {i + 1}}}}}"

    parts = [r"\dots" if i is None else head(i) for i in heads]
    return rf"q^{{({q + 1})}} = [\," + r"\ \big|\ ".join(parts) + r"\,]"


def softmax_cell_latex(row_scores, q: int, k: int, weight: float, divisor: str = "") -> tuple[str, float]:
    """α_{q,k} = exp(ω_qk) / Σ_j exp(ω_qj) with the real numbers, and the shift it subtracted (0 or the row's
    maximum when exp would overflow even in float64, as torch.softmax does). row_scores: (T,) already
    divided (divisor names the division for the formula, e.g. "/\\sqrt{2}"); weight: the α computed."""
    s_row = torch.as_tensor(row_scores).double()  # (T,)
    shift = float(s_row.max()) if not torch.isfinite(s_row.exp()).all() else 0.0
    terms = (s_row - shift).exp()  # (T,)
    arg = {j: rf"\omega_{{{q + 1},{j}}}{divisor}" for j in (k + 1, "j")}
    cut = len(s_row) if len(s_row) <= 6 else 5
    # Fixed decimals, not short(): the terms of one sum side by side (e^{-0.09} beside e^{-0.3873} read as a typo).
    shown = [rf"e^{{{latex_fixed(float(s - shift))}}}" for s in s_row[:cut]] + (
        [rf"\dots\ ({latex_whole(len(s_row))} \text{{ terms}})"] if cut < len(s_row) else [])
    minus = rf" - {latex(shift)}" if shift else ""
    return (rf"\alpha_{{{q + 1},{k + 1}}} = \frac{{\exp({arg[k + 1]}{minus})}}{{\sum_j \exp({arg['j']}{minus})}}"
            rf" = \frac{{e^{{{latex_fixed(float(s_row[k] - shift))}}}}}{{{' + '.join(shown)}}}"
            rf" = \frac{{{latex_fixed(float(terms[k]))}}}{{{latex_fixed(float(terms.sum()))}}} = {weight:.4f}"), shift


def abridged_sum_latex(show, count: int, future: int = 0, blocked: str = r"e^{-\infty}") -> str:
    """`show(0) + ... + show(count-1)` abridged to four terms, then the `future` masked keys' `blocked`
    terms under one brace (never T terms)."""
    shown = list(range(count)) if count <= 4 else [0, 1, None, count - 1]
    parts = [r"\dots" if j is None else show(j) for j in shown]
    if future:
        masked = " + ".join([blocked] * future) if future <= 2 else rf"{blocked} + \dots + {blocked}"
        parts.append(rf"\underbrace{{{masked}}}_{{{latex_whole(future)}\text{{ future}}}}")
    return " + ".join(parts)


def causal_softmax_latex(raw_row, scaled_row, weight: float, q: int, k: int, d_k: int) -> tuple[str, str]:
    """α_{q,k} of a causal row worked out: the exponentials of the visible scores over their sum, the
    future's e^{−∞} = 0 under a brace. raw_row: (T,) masked scores; scaled_row: (T,) the same / √d_k."""
    tokens = len(raw_row)
    exps = torch.exp(torch.as_tensor(scaled_row).double())  # (T,): e^(ω / √d_k); e^-inf = 0
    root = rf"\sqrt{{{d_k}}}"
    term = lambda j: rf"e^{{{float(raw_row[j]):.4f}/{root}}}"  # noqa: E731
    top = term(k) if k <= q else r"e^{-\infty}"
    first = rf"\alpha_{{{q + 1},{k + 1}}} = \frac{{{top}}}{{{abridged_sum_latex(term, q + 1, tokens - q - 1)}}}"
    exp_sum = abridged_sum_latex(lambda j: f"{float(exps[j]):.4f}", q + 1, tokens - q - 1, "0")
    second = (rf"= \frac{{{float(exps[k]):.4f}}}{{{exp_sum}}}"
              + (rf" = \frac{{{float(exps[k]):.4f}}}{{{float(exps.sum()):.4f}}}" if tokens > 1 else "")
              + rf" = {weight:.4f}")
    return first, second
