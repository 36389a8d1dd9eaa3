"""Sentences whose wording depends on the numbers they describe, so that no screen says "flatter"
or "different" about numbers that are not. Plain Python on tensors: tests check each wording."""
import math

import torch

from attention_core.book import stages
from attention_core.drawing.numbers import places, scientific, short, whole
from attention_core.lessons.experiments import ONE_HOT

_SUP = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")  # x⁽²⁾, the book's token superscript

HEADS_ALIKE = 0.1  # mean total-variation distance below which two heads' maps count as nearly the same


def row_sharpness(row: torch.Tensor) -> tuple[float, float]:
    """(largest weight, entropy ÷ ln n) of one row of n weights: (1/n, 1) when even, (1, 0) when one-hot."""
    n = row.numel()
    ratio = float(stages.entropy(row.double())) / math.log(n) if n > 1 else 0.0
    return float(row.max()), max(ratio, 0.0)


def precedence_claim(right: torch.Tensor, wrong: torch.Tensor) -> str:
    """What `/ d_k*0.5` did to one query's weights, compared with `/ d_k**0.5`, in measured words."""
    (r_max, r_ent), (w_max, w_ent) = row_sharpness(right), row_sharpness(wrong)
    numbers = (f"largest weight {w_max:.4g} instead of {r_max:.4g}, entropy ÷ uniform {w_ent:.4g} instead of "
               f"{r_ent:.4g}")
    if w_ent > r_ent + 1e-4:
        return f"The bug still gives weights that sum to 1, so nothing crashes, but they are flatter than intended: {numbers}."
    if w_ent < r_ent - 1e-4:
        return f"The bug still gives weights that sum to 1, so nothing crashes, but they are sharper than intended: {numbers}."
    return (f"Here the two agree to 4 decimals ({numbers}): this row is "
            + ("already one-hot" if r_max > 0.99 else "already even" if r_ent > 0.9999 else "barely affected")
            + ", so the bug only shows on other rows or sizes, and nothing crashes.")


def head_distance(weights: torch.Tensor) -> float:
    """Mean total-variation distance between the rows of every pair of heads: 0 when the heads' maps
    are the same, 1 when no query shares any weight between two heads. weights: (h, T, T)."""
    h = weights.shape[0]
    if h < 2:
        return 0.0
    w = weights.double()
    pairs = [(0.5 * (w[i] - w[j]).abs().sum(dim=-1)).mean() for i in range(h) for j in range(i + 1, h)]  # (T,) -> mean
    return float(torch.stack(pairs).mean())


def heads_claim(distance: float, heads: int, trained: bool) -> str:
    """Whether the heatmaps of the heads really differ, given their head_distance, as a sentence.
    Random heads that differ do so by chance, not "for that reason": they have learned no role yet."""
    if heads < 2:
        return "With one head there is nothing to compare."
    measured = (f"on average two heads here spread a query's weight differently by {short(distance)} "
                "(total-variation distance: 0 = the same map, 1 = no key in common)")
    if distance < HEADS_ALIKE:
        return (f"The maps above are nearly the same: {measured}. "
                + ("" if trained else "With untrained, random weights every head mixes its keys almost evenly; "
                   "the differences appear with training (see *What heads learn*)."))
    if trained:
        return f"The maps above differ for that reason: {measured}."
    return (f"The maps above differ, {measured}, but only by chance: with untrained, random weights no head has "
            "learned a role yet (see *What heads learn* for heads that have).")


def overflow_claim(naive: torch.Tensor) -> str | None:
    """None when the naive softmax of these scores is finite; else how many rows it turned into nan."""
    bad = ~torch.isfinite(naive).all(dim=-1)  # (T,)
    if not bool(bad.any()):
        return None
    return (f"The naive exp / sum overflows on {whole(int(bad.sum()))} of {whole(bad.numel())} rows of these scores "
            "(nan): the failure the section “Large scores” demonstrates, so it is not compared with torch.softmax.")


def leak_claim(unmasked_row: torch.Tensor, q: int, names: list[str], who: str) -> str:
    """What query q would give to the future without a mask, in markdown. unmasked_row: (T,) its softmax over
    every key; names: the tokens and who: the query's label, already escaped for markdown. Names at most the 5
    largest future keys."""
    future = unmasked_row[q + 1:]  # (T - q - 1,)
    if future.numel() == 0:
        return (f"**No mask at all.** {who} is the last token: nothing lies in its future, so its row is "
                "the same with or without the mask. Pick an earlier query to see the leak.")
    top_w, top_j = torch.topk(future, min(5, future.numel()))
    leaks = ", ".join(f"“{names[q + 1 + int(top_j[i])]}” {float(top_w[i]):.4f} ({float(top_w[i]):.1%})"
                      for i in torch.argsort(top_j))
    more = f" (the {len(top_j)} largest of {whole(future.numel())} future tokens)" if future.numel() > len(top_j) else ""
    return (f"**No mask at all: the future leaks.** Without the mask “{names[q]}” gives {float(future.sum()):.1%} "
            f"of its attention to tokens it should not have seen yet: {leaks}{more}. "
            "A model trained like this copies the answer instead of learning to predict it.")


def self_match(scores: torch.Tensor, weights: torch.Tensor, inputs: torch.Tensor, context: torch.Tensor, q: int) -> dict:
    """Query q's score with itself against its largest with any other key, for ω = x · x.

    scores, weights: (T, T); inputs, context: (T, d) x and z = α x. Returns own (x_q · x_q), other (the largest
    x_q · x_j, j ≠ q) and its key, weight (α_qq), drift (max |z_q − x_q|), one_hot (queries whose α_ii > ONE_HOT)."""
    row = scores[q].double().clone()  # (T,)
    row[q] = -math.inf
    key = int(row.argmax())
    return {"own": float(scores[q, q]), "other": float(row[key]), "key": key, "weight": float(weights[q, q]),
            "drift": float((context[q].double() - inputs[q].double()).abs().max()),
            "one_hot": int((weights.diagonal() > ONE_HOT).sum()), "queries": scores.shape[0], "d": inputs.shape[-1]}


def self_match_claim(scores: torch.Tensor, weights: torch.Tensor, inputs: torch.Tensor, context: torch.Tensor,
                     q: int) -> str | None:
    """None unless query q's x · x weights are one-hot on itself (GPT-2's 768 dimensions, not the book's 3); then
    why, with the numbers: its squared length dwarfs every score with another token, so z_q is x_q."""
    if scores.shape[-1] < 2:
        return None
    m = self_match(scores, weights, inputs, context, q)
    if m["weight"] <= ONE_HOT:
        return None
    n, j = (f"⁽{str(i + 1).translate(_SUP)}⁾" for i in (q, m["key"]))
    same = ("equals x" + n + " to 4 decimals" if m["drift"] < 5e-5 else
            f"is within {places(m['drift'])} of x{n}")
    every = (f"every one of the {whole(m['queries'])} queries" if m["one_hot"] == m["queries"] else
             f"{whole(m['one_hot'])} of the {whole(m['queries'])} queries")
    return (f"**Each token attends only to itself here.** With d = {whole(m['d'])} dimensions, query {q + 1}'s score "
            f"with itself, x{n} · x{n} = {places(m['own'])} (its squared length), dwarfs its largest score with any "
            f"other token, x{n} · x{j} = {places(m['other'])} (key {m['key'] + 1}). Softmax gives that key "
            f"e^({places(m['other'])} − {places(m['own'])}) = {scientific(math.exp(m['other'] - m['own']), 1)} "
            f"of its own share, so its weight on itself is {places(m['weight'])} and its context vector z{n} {same}: "
            f"attention changed nothing. The same holds for {every} (α on itself above {ONE_HOT}). "
            "A vector's squared length grows like d, while the dot product of two unrelated vectors grows only "
            "like √d, so with many dimensions and inputs like these a token is its own best match by far. That is "
            "why §3.4 gives attention trainable projections W_q and W_k (a query's best key need no longer be "
            "itself) and divides the scores by √d_k (so that softmax does not saturate into a one-hot).")
