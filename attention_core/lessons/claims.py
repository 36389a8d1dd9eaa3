"""Sentences whose wording depends on the numbers they describe, so that no screen says "flatter"
or "different" about numbers that are not. Plain Python on tensors: tests check each wording."""
import math

import numpy as np
import torch

from attention_core.book import stages
from attention_core.drawing.view_data import ranked_keys
from attention_core.drawing.numbers import places, scientific, whole
from attention_core.lessons.experiments import ONE_HOT

_SUP = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")  # x⁽²⁾, the book's token superscript

HEADS_ALIKE = 0.1  # mean total-variation distance below which two heads' maps count as nearly the same


def row_sharpness(row: torch.Tensor) -> tuple[float, float]:
    """(largest weight, entropy ÷ ln n) of one row of n weights: (1/n, 1) when even, (1, 0) when one-hot."""
    n = row.numel()
    ratio = float(stages.entropy(row.double())) / math.log(n) if n > 1 else 0.0
    return float(row.max()), max(ratio, 0.0)


SAME_WITHIN = 1.1  # two numbers within 10 % of each other "stayed about the same"


def change_words(before: float, after: float, same_within: float = SAME_WITHIN) -> str:
    """How a positive number moved from `before` to `after`, in words that follow the two: "grew × 2.1",
    "fell to 42 % of it" (a ratio below 1 is a fall, never "grew × 0.4"), or "stayed about the same (× 1.03)"."""
    ratio = after / before
    if ratio >= same_within:
        return f"grew × {ratio:.1f}"
    if ratio <= 1 / same_within:
        return f"fell to {ratio:.0%} of it"
    return f"stayed about the same (× {ratio:.2f})"


def sharpness_verdict(right: torch.Tensor, wrong: torch.Tensor) -> str:
    """How one query's wrong weights compare with its right ones, by entropy: "flatter than intended", "sharper
    than intended", or "the same to 4 decimals" with why (one-hot, even, or barely affected). right, wrong: (T,)."""
    (r_max, r_ent), (w_max, w_ent) = row_sharpness(right), row_sharpness(wrong)
    if w_ent > r_ent + 1e-4:
        return "flatter than intended"
    if w_ent < r_ent - 1e-4:
        return "sharper than intended"
    return "the same to 4 decimals: this row is " + ("already one-hot" if r_max > 0.99 else "already even"
                                                    if r_ent > 0.9999 else "barely affected")


def precedence_claim(right: torch.Tensor, wrong: torch.Tensor) -> str:
    """What `/ d_k*0.5` did to one query's weights, compared with `/ d_k**0.5`, in measured words."""
    (r_max, r_ent), (w_max, w_ent) = row_sharpness(right), row_sharpness(wrong)
    # 4 decimals, as every weight the app prints: "0.0009973 instead of 0.00296, 1 instead of 0.9917" mixed four widths
    numbers = (f"largest weight {w_max:.4f} instead of {r_max:.4f}, entropy ÷ uniform {w_ent:.4f} instead of "
               f"{r_ent:.4f}")
    verdict = sharpness_verdict(right, wrong)
    if not verdict.startswith("the same"):
        return f"The bug still gives weights that sum to 1, so nothing crashes, but they are {verdict}: {numbers}."
    return (f"Here the two agree to 4 decimals ({numbers}): this row is {verdict.split('this row is ')[1]}, so the "
            "bug only shows on other rows or sizes, and nothing crashes.")


def head_distance(weights: torch.Tensor) -> float:
    """Mean total-variation distance between the rows of every pair of heads: 0 when the heads' maps
    are the same, 1 when no query shares any weight between two heads. weights: (h, T, T)."""
    h = weights.shape[0]
    if h < 2:
        return 0.0
    w = weights.double()
    block = max(1, 2**22 // w[0].numel())  # heads compared at once: about 32 MB of differences
    total = 0.0
    for i in range(h - 1):  # head i against every later head, a block at a time (1,024 heads: 0.5 M pairs)
        for start in range(i + 1, h, block):
            others = w[start:start + block]  # (n, T, T)
            total += float((0.5 * (others - w[i]).abs().sum(dim=-1)).mean(dim=-1).sum())  # (n, T) -> (n,) -> sum
    return total / (h * (h - 1) / 2)


def heads_claim(distance: float, heads: int, trained: bool) -> str:
    """Whether the heatmaps of the heads really differ, given their head_distance, as a sentence.
    Random heads that differ do so by chance, not "for that reason": they have learned no role yet."""
    if heads < 2:
        return "With one head there is nothing to compare."
    measured = (f"on average two heads here spread a query's weight differently by {distance:.4f} "
                "(total-variation distance: 0 = the same map, 1 = no key in common)")
    if distance < HEADS_ALIKE:
        return (f"The maps above are nearly the same: {measured}. "
                + ("" if trained else "With untrained, random weights every head mixes its keys almost evenly; "
                   "the differences appear with training (see *What heads learn*)."))
    if trained:
        return f"The maps above differ for that reason: {measured}."
    return (f"The maps above differ: {measured}. That is chance alone: with untrained, random weights no head has "
            "learned a role yet (see *What heads learn* for heads that have).")


def overflow_claim(naive: torch.Tensor) -> str | None:
    """None when the naive softmax of these scores is finite; else how many rows it turned into nan."""
    bad = ~torch.isfinite(naive).all(dim=-1)  # (T,)
    if not bool(bad.any()):
        return None
    return (f"The naive exp / sum overflows on {whole(int(bad.sum()))} of {whole(bad.numel())} rows of these scores "
            "(nan): the failure the section “Large scores” demonstrates, so it is not compared with torch.softmax.")


def largest_keys(row, n: int, hidden=None) -> list[int]:
    """A "largest" list of one row: its n largest keys, largest first as printed (4 decimals), ties to the lower
    key, masked (hidden, or −∞) keys never; fewer when fewer are visible. The view's bars rank the same way
    (view_data.ranked_keys, the browser's rowKeys). row: (T,) values; hidden: (T,) bool or None."""
    values = np.asarray(row, dtype=np.float64)[None]  # (1, T)
    mask = np.zeros(values.shape, bool) if hidden is None else np.asarray(hidden, bool).reshape(values.shape)
    if values.shape[1] == 0 or n <= 0:
        return []
    return [int(j) for j in ranked_keys(values, mask, n)[0] if j < values.shape[1]]


def leak_claim(unmasked_row: torch.Tensor, q: int, names: list[str], who: str) -> str:
    """What query q would give to the future without a mask, in markdown. unmasked_row: (T,) its softmax over
    every key; names: the tokens and who: the query's label, already escaped for markdown. Names at most the 5
    largest future keys."""
    future = unmasked_row[q + 1:]  # (T - q - 1,)
    if future.numel() == 0:
        return (f"**No mask at all.** {who} is the last token: nothing lies in its future, so its row is "
                "the same with or without the mask. Pick an earlier query to see the leak.")
    top_j = largest_keys(future.double(), 5)  # largest first
    leaks = ", ".join(f"“{names[q + 1 + j]}” {float(future[j]):.4f} ({float(future[j]):.1%})" for j in top_j)
    more = (f" (the {len(top_j)} largest of {whole(future.numel())} future tokens, largest first)"
            if future.numel() > len(top_j) else "")
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


COSTS_LITTLE = 5.0  # accuracy points: switching a head off that costs at most this "costs little"


def _points(cost: float) -> str:
    """A cost in accuracy points, never negative: a head whose loss raised the accuracy costs 0.0 (it rose)."""
    return f"{cost:.1f} points" if cost >= 0 else "0.0 points (accuracy rose)"


def ablation_claim(accuracy: float, ablated: list, previous=None) -> str:
    """What switching single heads off did, measured: the costliest head and the cheapest, whether every layer-2
    head costs little (they back each other up), and whether the previous-token head is the bottleneck.

    accuracy: with every head on; ablated: (layers, heads) accuracy with each head off alone; previous: (layers,
    heads) previous-token scores, or None. Heads are named "layer.head", counted from 1; costs in points (× 100),
    compared as printed (1 decimal), ties to the lower head."""
    names = {(l, h): f"{l + 1}.{h + 1}" for l in range(len(ablated)) for h in range(len(ablated[0]))}
    # From the accuracies as printed (3 decimals): 0.961 → 0.386 is 57.5 points on the slide, where the unrounded
    # 0.9606 − 0.3866 gave 57.4.
    cost = {k: round((round(accuracy, 3) - round(ablated[k[0]][k[1]], 3)) * 100, 1) for k in names}
    ranked = sorted(names, key=lambda k: (-cost[k], k))  # costliest first, ties to the lower head
    worst, cheapest = ranked[0], ranked[-1]
    tied = [k for k in ranked if cost[k] == cost[worst]]

    def off(k):
        return f"head {names[k]} ({accuracy:.3f} → {ablated[k[0]][k[1]]:.3f}, {_points(cost[k])})"
    if len(tied) == len(names):
        said = [f"Switched off alone, every head costs the same here: {_points(cost[worst])}."]
    else:
        said = [f"Switched off alone, the costliest head here is {off(worst)}"
                + (f" (tied with {', '.join(names[k] for k in tied[1:])})" if len(tied) > 1 else "")
                + f" and the cheapest {off(cheapest)}."]
    if len(ablated) > 1:
        second = sorted((k for k in names if k[0] == 1), key=lambda k: (-cost[k], k))
        top = second[0]
        said.append(f"Every layer-2 head costs at most {_points(cost[top])} (head {names[top]}): little, so they "
                    "back each other up." if cost[top] <= COSTS_LITTLE else
                    f"Not every layer-2 head is backed up: switching off head {names[top]} alone costs "
                    f"{_points(cost[top])}.")
    if previous is not None:
        head = (0, max(range(len(previous[0])), key=lambda h: (round(float(previous[0][h]), 2), -h)))
        score = f"previous-token score {float(previous[0][head[1]]):.2f}"
        if head == worst and len(tied) == 1 and cost[head] > COSTS_LITTLE:
            said.append(f"The previous-token head, {names[head]} ({score}), is the bottleneck: no other head costs "
                        f"as much ({_points(cost[head])}).")
        else:
            why = ("little" if cost[head] <= COSTS_LITTLE else
                   f"as much as head {names[tied[1]]}" if head in tied else f"less than head {names[worst]}")
            said.append(f"The previous-token head, {names[head]} ({score}), costs {_points(cost[head])}: {why}, so "
                        "it is not the single bottleneck here.")
    return " ".join(said)


EVEN_WITHIN = 2.0  # a row whose largest weight is under twice the even share 1/n spreads "almost evenly"


def evenness_claim(row: torch.Tensor) -> str:
    """Whether one row of n weights spreads almost evenly, from its largest weight against the even share 1/n:
    "spreads its weight almost evenly" or "does not spread its weight evenly", with both numbers."""
    n = row.numel()
    largest = float(row.max())
    words = "spreads its weight almost evenly" if largest < EVEN_WITHIN / n else "does not spread its weight evenly"
    return f"{words}: its largest weight is {largest:.4f}, where an even spread over {whole(n)} tokens gives {1 / n:.4f}"


def leak_rows_claim(leak: torch.Tensor) -> str:
    """How many queries put weight on later tokens without the mask, and the worst, from each query's future
    weight as printed (4 decimals). leak: (T,) from pitfalls.future_leak."""
    T = leak.numel()
    leaking = int((leak >= 5e-5).sum())  # printed as more than 0.0000
    if leaking == 0:
        return ("With one token there is no future to leak into." if T == 1 else
                f"None of the {whole(T)} rows puts weight on later tokens to 4 decimals here.")
    worst = int(leak.argmax())  # the first of equal maxima: the lower query
    rows = "Every row but the last puts" if leaking == T - 1 else \
        f"{whole(leaking)} of {whole(T)} rows put{'s' if leaking == 1 else ''}"
    return f"{rows} weight on later tokens; query {worst + 1} gives {float(leak[worst]):.4f} of its weight to the future."


def softmax_share_claim(by_sum: torch.Tensor, softmax: torch.Tensor, labels=None) -> str:
    """What softmax did to one query's largest share against dividing the same scores by their sum, from the two rows
    (T,) each: "a clearly larger share" (by more than 0.05), "only a slightly larger share", or "no larger share".
    labels: the keys' names, already escaped for markdown (default "key <n>", 1-based)."""
    key = int(torch.argmax(softmax))
    before, after = float(by_sum[key]), float(softmax[key])
    gain = after - before
    how = ("a clearly larger share than dividing by the sum does" if gain > 0.05 else
           "only a slightly larger share than dividing by the sum does here" if gain > 5e-5 else
           "no larger share than dividing by the sum does here")
    name = labels[key] if labels else f"key {key + 1}"
    return f"Softmax gives the best-matching key ({name}) {how}: {after:.4f} against {before:.4f}."
