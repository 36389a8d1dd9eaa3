"""Numbers and user text as they appear in markdown and LaTeX."""
import re

import torch

from attention_core.drawing.numbers import short


def md_escape(text: str) -> str:
    """User text (typed tokens) made literal inside st.markdown: no bold, links, math or HTML."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|$<>~])", r"\\\1", text)


def dot_product_latex(lhs: str, a_name: str, b_name: str, a, b, max_terms: int = 6) -> str:
    """`lhs = a . b = a1*b1 + a2*b2 + ... = total` with the real numbers (long sums abridged)."""
    a, b = torch.as_tensor(a).float().cpu(), torch.as_tensor(b).float().cpu()
    terms = [rf"{short(x)} \cdot {short(y)}" for x, y in zip(a.tolist(), b.tolist())]
    if len(terms) > max_terms:
        terms = terms[: max_terms - 1] + [rf"\dots\ ({len(terms)} \text{{ terms}})"]
    total = float(torch.dot(a, b))
    return rf"{lhs} = {a_name} \cdot {b_name} = " + " + ".join(terms).replace("+ -", "- ") + rf" = {total:.4f}"
