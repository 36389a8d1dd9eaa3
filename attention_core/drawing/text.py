"""Numbers and user text as they appear in markdown and LaTeX."""
import math
import re

import torch

from attention_core.drawing.numbers import latex, latex_fixed, latex_whole, reproducing_digits, short, significant


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
    divided (divisor names the division for the formula, e.g. "/\\sqrt{2}"); weight: the α computed. Each number
    is what the shown numbers before it give by hand (worked_fraction)."""
    s_row = torch.as_tensor(row_scores).double()  # (T,)
    shift = float(s_row.max()) if not torch.isfinite(s_row.exp()).all() else 0.0
    exponents = [float(v) for v in s_row - shift]
    arg = {j: rf"\omega_{{{q + 1},{j}}}{divisor}" for j in (k + 1, "j")}
    cut = len(s_row) if len(s_row) <= 6 else 5
    d, terms, total, eq = worked_fraction(lambda j, d: round(exponents[j], d), exponents, k, weight,
                                          full=cut == len(s_row))
    # Fixed decimals, not short(): the terms of one sum side by side (e^{-0.09} beside e^{-0.3873} read as a typo).
    shown = [rf"e^{{{latex_fixed(x, d)}}}" for x in exponents[:cut]] + (
        [rf"\dots\ ({latex_whole(len(s_row))} \text{{ terms}})"] if cut < len(s_row) else [])
    minus = rf" - {latex(shift)}" if shift else ""
    return (rf"\alpha_{{{q + 1},{k + 1}}} = \frac{{\exp({arg[k + 1]}{minus})}}{{\sum_j \exp({arg['j']}{minus})}}"
            rf" = \frac{{e^{{{latex_fixed(exponents[k], d)}}}}}{{{' + '.join(shown)}}}"
            rf" {eq} \frac{{{latex_fixed(terms[k], d)}}}{{{latex_fixed(total, d)}}} {eq} {weight:.4f}"), shift


def worked_fraction(exponent, exact: list, k: int, weight: float, full: bool) -> tuple[int, list, float, str]:
    """A fraction of exponentials, e^{x_k} / Σ_j e^{x_j}, worked by hand from rounded numbers: each shown number is
    what the shown ones before it give, as a student with a calculator redoes it. exponent(j, d): x_j as the
    student computes it from its inputs shown to d decimals (ω_j rounded, then / √d_k); exact: the exponents
    unrounded; full: every term is shown (else the sum, abridged with …, is the exact one rounded).
    Returns (d, the terms to d decimals, their sum to d decimals, "=" or "≈"): the fewest decimals, 4 to 6, at
    which the shown fraction gives the 4-decimal weight; where none does, 4 decimals and ≈ for the rounded steps."""
    def chain(d: int) -> tuple[list, float]:
        terms = [round(math.exp(exponent(j, d)), d) for j in range(len(exact))]
        return terms, round(sum(terms) if full else sum(math.exp(x) for x in exact), d)

    def agrees(d: int) -> bool:
        terms, total = chain(d)
        return round(terms[k] / total, 4) == round(weight, 4)

    d = reproducing_digits(agrees)
    return (d, *chain(d), "=") if d else (4, *chain(4), r"\approx")


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
    future's e^{−∞} = 0 under a brace, each number what the shown ones before it give (worked_fraction).
    raw_row: (T,) masked scores; scaled_row: (T,) the same / √d_k."""
    tokens = len(raw_row)
    raw = [float(v) for v in raw_row[:q + 1]]  # the visible scores
    d, terms, total, eq = worked_fraction(lambda j, d: round(raw[j], d) / math.sqrt(d_k),
                                          [float(v) for v in scaled_row[:q + 1]], min(k, q),
                                          weight if k <= q else 0.0, full=q + 1 <= 4)
    root = rf"\sqrt{{{d_k}}}"
    term = lambda j: rf"e^{{{raw[j]:.{d}f}/{root}}}"  # noqa: E731
    top = term(k) if k <= q else r"e^{-\infty}"
    first = rf"\alpha_{{{q + 1},{k + 1}}} = \frac{{{top}}}{{{abridged_sum_latex(term, q + 1, tokens - q - 1)}}}"
    exp_sum = abridged_sum_latex(lambda j: f"{terms[j]:.{d}f}", q + 1, tokens - q - 1, "0")
    shown_top = f"{terms[k]:.{d}f}" if k <= q else "0"
    second = (rf"{eq} \frac{{{shown_top}}}{{{exp_sum}}}"
              + (rf" {eq} \frac{{{shown_top}}}{{{total:.{d}f}}}" if tokens > 1 else "")
              + rf" {eq} {weight:.4f}")
    return first, second


def renormalised_latex(kept: float, unmasked_row, weight: float, q: int, k: int) -> str:
    """Variant 1 of the mask for one cell: the kept weight over the sum of the visible unmasked weights, each to the
    fewest significant digits (4 to 6) at which the shown fraction gives the shown weight, never in exponent form
    (0.00007189, not 7.189e-05). kept: the cell after zeroing the future; unmasked_row: (T,) softmax over every
    key; weight: the renormalised cell."""
    visible = [float(v) for v in unmasked_row[:q + 1]]
    text = significant  # weights below 1: never in exponent form, "0" for 0

    def agrees(g: int) -> bool:  # a sum abridged with … cannot be redone by hand: only the full one is checked
        return q + 1 > 4 or round(float(text(kept, g)) / sum(float(text(v, g)) for v in visible), 4) == round(weight, 4)

    g = reproducing_digits(agrees)
    eq = "=" if g else r"\approx"
    g = g or 4
    terms = abridged_sum_latex(lambda j: text(visible[j], g), q + 1)
    return rf"\alpha_{{{q + 1},{k + 1}}} = \frac{{{text(kept, g)}}}{{{terms}}} {eq} {weight:.4f}"
