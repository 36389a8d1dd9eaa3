"""Predict first: questions computed from the current inputs, each with its right answer.

A teacher asks before showing: "which key gets the largest weight?", "does the row still sum to
1 after dropout?". Every question here is built from the tensors a screen already computed, so a
new sentence, seed or slider position gives a new question whose answer is known. `check` reads a
student's answer (a choice, a number or yes/no) and never raises: an empty, non-numeric or
impossible answer gets a kind note instead of a verdict. Prompts and explanations are plain text
(the app escapes them: token names are user text).
"""
import hashlib
import math
from dataclasses import dataclass

import torch

from attention_core.book import stages
from attention_core.book.modules import mha_parameter_count, wrapper_parameter_count
from attention_core.lessons import exercises

SAME = 5e-5  # weights closer than this count as "the same" (float32 rounding is far below)
# Class mode shows a stage's questions before its pictures and numbers: a prompt may name the controls above it,
# never what is not on the screen yet (tests/test_quiz.py checks every prompt for these words).
HIDDEN_REFERENCES = ("below", "the view", "this draw", "the map", "the chart", "the table", "the bars", "shown",
                     "the picture", "the metric")


@dataclass(frozen=True)
class Question:
    qid: str  # stage, question and a digest of the numbers it was computed from
    prompt: str
    kind: str  # "choice", "number" or "yesno"
    answer: object  # choice: tuple of accepted option indices; number: float; yesno: bool
    explanation: str  # why, in one or two sentences, with the real numbers
    options: tuple[str, ...] = ()
    tolerance: float = 0.0  # numbers: |given - answer| <= tolerance is right
    low: float = -math.inf  # numbers outside [low, high] cannot be right: a note, not a verdict
    high: float = math.inf
    # Phrases that would state the answer: a screen must not show them above the question in class mode
    # (tests/test_screen_quiz.py reads every stage's text above its questions for them).
    gives_away: tuple[str, ...] = ()


@dataclass(frozen=True)
class Verdict:
    ok: bool | None  # None: the answer could not be read (the message says why, kindly)
    message: str


def _identity(stage: str, name: str, *parts) -> str:
    digest = hashlib.blake2b(digest_size=8)
    for part in parts:
        if isinstance(part, torch.Tensor):
            digest.update(part.detach().float().cpu().contiguous().numpy().tobytes())
        else:
            digest.update(repr(part).encode())
    return f"{stage}:{name}:{digest.hexdigest()}"


def _tok(tokens: list[str], i: int) -> str:
    return f"“{tokens[i]}” (token {i + 1})"


def _num(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.4f}"


# --- the questions of each stage ---------------------------------------------------------------

def scores_questions(scores: torch.Tensor, tokens: list[str], q: int, proj: str = "none") -> list[Question]:
    """scores: (T, T) attention scores, ω = x·x (proj "none") or q·k (proj "v1")."""
    row = scores[q]  # (T,)
    top = int(row.argmax())
    best = tuple(int(j) for j in torch.nonzero(row >= row[top] - 1e-6).flatten())
    runner = torch.topk(row, min(2, len(row))).indices[-1]
    largest = Question(
        _identity("scores", "largest", scores, q), f"Which key gets the largest score ω from query {_tok(tokens, q)}?",
        "choice", best,
        f"ω of {_tok(tokens, q)} is largest at {_tok(tokens, top)}: {float(row[top]):.4f}"
        + (f", ahead of {_tok(tokens, int(runner))} at {float(row[runner]):.4f}" if len(row) > 1 else "")
        + ". A dot product grows with the vectors' alignment and with their lengths, so a token does not always "
          "score highest with itself.",
        options=tuple(f"{j + 1} {t}" for j, t in enumerate(tokens)))
    k = (q + 1) % len(tokens)
    symmetric = bool(torch.allclose(scores, scores.T, atol=1e-5))
    why = ("x⁽ⁱ⁾·x⁽ʲ⁾ = x⁽ʲ⁾·x⁽ⁱ⁾: the same two vectors either way" if proj == "none" else
           "the query comes from W_q and the key from W_k, two different matrices, so swapping the tokens swaps "
           "which projection each one goes through")
    symmetry = Question(
        _identity("scores", "symmetric", scores, q, proj),
        f"Is the score matrix symmetric: is ω({q + 1},{k + 1}) equal to ω({k + 1},{q + 1})?", "yesno", symmetric,
        f"ω({q + 1},{k + 1}) = {float(scores[q, k]):.4f} and ω({k + 1},{q + 1}) = {float(scores[k, q]):.4f}: "
        f"{'yes' if symmetric else 'no'}, because {why}.")
    return [largest, symmetry]


def softmax_questions(record: dict, tokens: list[str], q: int, temperature: float | None = None) -> list[Question]:
    """record: SelfAttention_v1's trace (attn_scores (T, T), keys (T, d_k)); with `temperature` (the screen's
    τ), a third question: what doubling τ does to the largest weight."""
    scores, d_k = record["attn_scores"], record["keys"].shape[-1]
    scaled = stages.softmax(stages.scale_scores(scores[q], d_k))  # (T,)
    unscaled = stages.softmax(scores[q])
    gap = float(unscaled.max() - scaled.max())
    options = ("larger", "smaller", "the same")
    answer = 0 if gap > SAME else 1 if gap < -SAME else 2
    sharper = Question(
        _identity("softmax", "sharper", scores, q),
        f"Switch the √d_k scaling off. The largest weight of query {_tok(tokens, q)} becomes:", "choice", (answer,),
        f"With d_k = {d_k} the scores are divided by √{d_k} = {math.sqrt(d_k):.4f}; the largest weight is "
        f"{float(scaled.max()):.4f} scaled and {float(unscaled.max()):.4f} unscaled. "
        + ("Larger gaps between scores make softmax sharper." if d_k > 1 else "√1 = 1: scaling changes nothing."),
        options=options)
    top = int(scaled.argmax())
    best = tuple(int(j) for j in torch.nonzero(scaled >= scaled[top] - 1e-6).flatten())
    order = Question(
        _identity("softmax", "order", scores, q), f"Which key gets the largest weight α from query {_tok(tokens, q)}?",
        "choice", best,
        f"{_tok(tokens, top)}, the key with the largest score ω = {float(scores[q, top]):.4f}, gets "
        f"α = {float(scaled[top]):.4f}: exp grows with its input, so softmax keeps the order of the scores.",
        options=tuple(f"{j + 1} {t}" for j, t in enumerate(tokens)))
    if temperature is None:
        return [order, sharper]
    now = stages.softmax(stages.scale_scores(scores[q], d_k) / temperature)  # (T,)
    hotter = stages.softmax(stages.scale_scores(scores[q], d_k) / (2 * temperature))  # (T,)
    gap = float(hotter.max() - now.max())
    answer = 0 if gap > SAME else 1 if gap < -SAME else 2
    doubled = Question(
        _identity("softmax", "temperature", scores, q, temperature),
        f"Double the temperature τ from {temperature:g} to {2 * temperature:g}. The largest weight of query "
        f"{_tok(tokens, q)} becomes:", "choice", (answer,),
        f"softmax(ω / (√{d_k} · τ)): the largest weight is {float(now.max()):.4f} at τ = {temperature:g} and "
        f"{float(hotter.max()):.4f} at τ = {2 * temperature:g}. A larger τ shrinks the gaps between scores, so the "
        "weights move toward the even split; a smaller τ sharpens them.", options=options)
    return [order, sharper, doubled]


def mask_questions(record: dict, tokens: list[str], q: int, k: int) -> list[Question]:
    """record: CausalAttention's trace with `unmasked_weights` (lesson.causal_trace); 2-D tensors."""
    weights, unmasked = record["attn_weights"], record["unmasked_weights"]  # (T, T)
    T = weights.shape[-1]
    visible = int(torch.isfinite(record["masked_scores"][q]).sum())  # the keys the mask left at a real score
    count = Question(
        _identity("mask", "visible", weights, q),
        f"After the causal mask, how many keys can query {_tok(tokens, q)} still attend to?", "number",
        float(visible),
        f"{visible}: the query sees itself and the {q} token{'s' if q != 1 else ''} before it; "
        + (f"the {T - q - 1} later key{'s get' if T - q - 2 else ' gets'} exactly 0." if q < T - 1
           else "no token comes after it."), low=0, high=T,
        gives_away=(f"{visible} of {T}", f"{visible} visible"))
    masked, free = float(weights[q, k]), float(unmasked[q, k])
    options = ("larger", "smaller", "the same", "exactly 0")
    answer = 3 if k > q else 0 if masked > free + SAME else 1 if masked < free - SAME else 2
    future = float(unmasked[q, q + 1:].sum())
    change = Question(
        _identity("mask", "change", weights, unmasked, q, k),
        f"Compared with no mask, the weight of query {_tok(tokens, q)} on key {_tok(tokens, k)} with the mask is:",
        "choice", (answer,),
        f"Without the mask it is {free:.4f}, with the mask {masked:.4f}. "
        + ("The key lies in the query's future, so the mask removes it."
           if k > q else f"The {future:.4f} the future keys would have taken is shared out among the {q + 1} "
                         f"visible keys, in proportion to their weights." if future > SAME
           else "The query has no future keys, so nothing changes."),
        options=options)
    return [count, change]


SCALE_FORMULAS = ("1/(1 − p)", "1 / (1 − p)", "1/(1-p)", "1 / (1 - p)")  # the survivors' factor, as written
EVAL_WORDS = ("does nothing", "identity", "unchanged")  # what dropout does in eval mode, as said


def dropout_questions(weights: torch.Tensor, dropped: torch.Tensor, p: float, train: bool, tokens: list[str],
                      q: int, seed: int | None = None) -> list[Question]:
    """weights, dropped: (T, T) causal weights before and after one dropout draw; seed: the draw's (the
    screen's control, named in the prompt so the question points to nothing class mode hides)."""
    if train and p >= 1:
        factor = Question(_identity("dropout", "all", p), "At p = 1, what does every row sum to after dropout?",
                          "number", 0.0, "0: every weight is dropped and PyTorch returns zeros instead of dividing "
                                         "by 1 − p = 0.", tolerance=1e-4, low=0, high=1e6,
                          gives_away=("returns zeros", "all dropped", "all zero"))
    else:
        active = train and p > 0
        value = 1 / (1 - p) if active else 1.0
        factor = Question(
            _identity("dropout", "factor", p, train),
            f"Dropout with p = {p:g} in {'training' if train else 'eval'} mode: what are the weights that survive "
            "multiplied by?", "number", value,
            (f"1/(1 − p) = 1/{1 - p:g} = {value:.4f}: a weight survives with probability {1 - p:g}, so this scale "
             f"keeps its average. Not 1/p = {1 / p:.4f}" + (" (at p = 0.5 the two agree)." if abs(p - 0.5) < 1e-9
                                                           else ".")) if active else
            ("1: in eval mode dropout passes every weight through unchanged." if not train else
             "1: at p = 0 nothing is dropped and 1/(1 − 0) = 1."),
            tolerance=0.006 * max(1.0, value), low=0, high=1e6,
            gives_away=SCALE_FORMULAS if active else EVAL_WORDS if not train else ())
    total, kept = float(dropped[q].sum()), int((dropped[q] > 0).sum())
    still = abs(total - 1) < 1e-4
    row = Question(
        _identity("dropout", "row", weights, dropped, q),
        f"Draw dropout once ({'training' if train else 'eval'} mode, p = {p:g}"
        + (f", dropout seed {seed}" if seed is not None else "") + f"). Afterwards, does the row of query "
        f"{_tok(tokens, q)} still sum to 1?", "yesno", still,
        f"It sums to {total:.4f} (before dropout {float(weights[q].sum()):.4f}): {kept} of its {q + 1} visible "
        "weights are nonzero" + ("; rows sum to 1 only on average over many draws." if not still else "."))
    return [factor, row]


def heads_questions(d_in: int, d_out: int, num_heads: int, tokens=None) -> list[Question]:
    head_dim = d_out // num_heads
    width = Question(
        _identity("heads", "head_dim", d_out, num_heads),
        f"MultiHeadAttention with d_out = {d_out} and num_heads = {num_heads}: how wide is each head's query "
        "(head_dim)?", "number", float(head_dim),
        f"head_dim = d_out / num_heads = {d_out} / {num_heads} = {head_dim}: one {d_out}-wide projection is cut into "
        f"{num_heads} slices.", low=0, high=d_out,
        gives_away=(f"head_dim {head_dim}", f"head_dim = {head_dim}", f"{num_heads} × {head_dim} = {d_out}"))
    columns = Question(
        _identity("heads", "wrapper", d_out, num_heads),
        f"MultiHeadAttentionWrapper(d_in={d_in}, d_out={d_out}, num_heads={num_heads}): how many columns do its "
        "context vectors have?", "number", float(num_heads * d_out),
        f"{num_heads} × {d_out} = {num_heads * d_out}: each CausalAttention head projects to the full d_out = {d_out} "
        f"and torch.cat joins them; MultiHeadAttention gives {d_out}.", low=0, high=math.inf,
        gives_away=(f"{num_heads * d_out} columns", f"{num_heads * d_out:,} columns"))
    one, many = mha_parameter_count(d_in, d_out, 1), mha_parameter_count(d_in, d_out, num_heads)
    # At GPT-2 small's sizes the count is exercise 3.3's answer, asked for further down the screen: not given here.
    answers, wrapper = exercises.solution_counts(), wrapper_parameter_count(d_in, d_out, num_heads)
    counts = (f"the same count with 1 head and with {num_heads}, exercise 3.3's answer at these sizes"
              if answers & {one, many} else f"{one:,} with 1 head and {many:,} with {num_heads}")
    grows = ("exercise 3.3's worked solution gives it at these sizes" if wrapper in answers else f"{wrapper:,}")
    params = Question(
        _identity("heads", "params", d_in, d_out, num_heads),
        f"Does MultiHeadAttention({d_in} → {d_out}) have more parameters with {num_heads} heads than with 1?",
        "yesno", many > one,
        f"No: {counts} (3·d_in·d_out + d_out² + d_out); heads only cut the "
        f"projection. The wrapper's count grows: {grows}.")
    return [width, columns, params]


def trained_questions(task: str, ablated: list, accuracy: float, induction=None, tokens=None) -> list[Question]:
    """ablated: (layers, heads) accuracy with each head switched off alone; accuracy: every head on;
    induction: (layers, heads) induction scores (repeat only)."""
    names = [f"{l + 1}.{h + 1}" for l in range(len(ablated)) for h in range(len(ablated[0]))]
    flat = [a for row in ablated for a in row]
    worst = min(range(len(flat)), key=flat.__getitem__)
    tied = tuple(i for i, a in enumerate(flat) if a <= flat[worst] + 0.005)  # within half a point
    costs = sorted(((accuracy - a) * 100, n) for a, n in zip(flat, names))
    bottleneck = Question(
        _identity("trained", "bottleneck", task, tuple(flat)),
        f"Task {task}: which single head, switched off alone, costs the model the most accuracy?", "choice", tied,
        f"Head {names[worst]}: accuracy falls from {accuracy:.3f} to {flat[worst]:.3f} "
        f"({costs[-1][0]:.0f} points); the cheapest to lose is head {costs[0][1]} ({costs[0][0]:.1f} points). "
        "A head that others rely on, with no copy of its job, is the bottleneck.", options=tuple(names))
    result = [bottleneck]
    if induction is not None:
        scores = [float(s) for row in induction for s in row]
        strongest = max(range(len(scores)), key=scores.__getitem__)
        cost = (accuracy - flat[strongest]) * 100
        result.append(Question(
            _identity("trained", "backup", task, tuple(flat), tuple(scores)),
            # The prompt names the head, not its induction score: asked beside the first question ("which head costs
            # the most?"), "the strongest induction head" pointed at its answer (a teacher read of the quiz deck).
            f"Switch off head {names[strongest]} alone. Does accuracy fall by more than 10 points?", "yesno", cost > 10,
            f"It falls by {cost:.1f} points ({accuracy:.3f} → {flat[strongest]:.3f}). Head {names[strongest]} is the "
            f"strongest induction head (score {scores[strongest]:.2f}). "
            + ("Other layer-2 heads do the same induction and back it up." if cost <= 10 else
               "No other head does its job well enough to cover for it.")))
    return result


def memory_questions(rows: list[dict], tokens=None) -> list[Question]:
    """rows: memory_layout.step_rows of the chapter's split and merge (shape, stride, contiguity, what each did)."""
    split, after, packed = rows[1], rows[2], rows[6]  # view, transpose(1, 2), contiguous()
    b, h, T, d = after["shape"]
    contiguous = Question(
        _identity("memory", "contiguous", after["shape"], after["stride"]),
        f"queries of shape {split['shape']} go through transpose(1, 2). Is the result contiguous?", "yesno",
        after["contiguous"],
        f"Its strides are {after['stride']} for shape {after['shape']}: "
        + ("stepping along a dimension never skips over another's floats, so yes (a size-1 dimension moves "
           "nothing)." if after["contiguous"] else
           f"the token dimension now skips {after['stride'][2]} floats and the head dimension {after['stride'][1]}, "
           "so reading it in index order jumps around the storage: not contiguous."))
    stride = Question(
        _identity("memory", "stride", after["shape"], after["stride"]),
        f"After transpose(1, 2) the shape is {after['shape']} (b, h, T, head_dim). How many floats does PyTorch "
        "skip to go from one head to the next (the stride of dimension 1)?", "number", float(after["stride"][1]),
        f"{after['stride'][1]}: transpose only swaps strides, so the head dimension keeps the stride it had in "
        f"{split['shape']}, where one head's slice of a token is head_dim = {d} floats wide.", low=0, high=1e9)
    copied = packed["did"] == "copy"
    copy = Question(
        _identity("memory", "copy", packed["shape"], rows[5]["stride"]),
        "Before the heads are merged, does context_vec.contiguous() copy the floats here?", "yesno", copied,
        ("Yes: the transposed context is not contiguous, so contiguous() writes a new storage in (b, T, h, "
         "head_dim) order, after which view(b, T, d_out) only changes the strides." if copied else
         "No: with one head or one token the transposed tensor is already contiguous, and contiguous() returns "
         "the same tensor."))
    return [contiguous, stride, copy]


def round_id(stage: str, x: torch.Tensor, d_out: int, seed: int) -> str:
    """One round of predictions per stage and input: a new sentence, size or seed asks again."""
    return _identity(stage, "round", x, d_out, seed)


# --- reading and checking an answer --------------------------------------------------------------

_YES, _NO = {"yes", "y", "true", "1", "ja", "oui"}, {"no", "n", "false", "0", "nein", "non"}


def _read(question: Question, raw):
    """(value, None) for a readable answer, or (None, a kind note saying what to do)."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None, {"choice": "Pick one of the options first.", "yesno": "Pick yes or no first.",
                      "number": "Type a number first (for example 2 or 0.25)."}[question.kind]
    if question.kind == "choice":
        if isinstance(raw, int) and 0 <= raw < len(question.options):
            return raw, None
        if isinstance(raw, str) and raw in question.options:
            return question.options.index(raw), None
        return None, "That is not one of the options; pick one of them."
    if question.kind == "yesno":
        if isinstance(raw, bool):
            return raw, None
        text = str(raw).strip().lower()
        return (True, None) if text in _YES else (False, None) if text in _NO else (None, "Answer yes or no.")
    text = str(raw).strip().replace(" ", "").replace(",", ".") if not isinstance(raw, (int, float)) else raw
    try:
        if isinstance(text, str) and "/" in text:
            top, bottom = text.split("/", 1)
            value = float(top) / float(bottom)
        else:
            value = float(text)
    except (ValueError, ZeroDivisionError, OverflowError):
        shown = str(raw).strip()
        shown = shown if len(shown) <= 20 else shown[:20] + "…"
        return None, f"“{shown}” is not a number we can read; type digits such as 2, 0.25 or 1/0.8."
    if not math.isfinite(value):
        return None, "That is not a finite number; type an ordinary number such as 2 or 0.25."
    if not question.low <= value <= question.high:
        hint = f"between {_num(question.low)} and {_num(question.high)}" if math.isfinite(question.high) \
            else f"at least {_num(question.low)}"
        return None, f"{_num(value)} cannot be the answer here: it must be {hint}. Have another go."
    return value, None


def answer_text(question: Question) -> str:
    if question.kind == "choice":
        return " or ".join(question.options[i] for i in question.answer)
    if question.kind == "yesno":
        return "yes" if question.answer else "no"
    return _num(question.answer)


def revealed_text(question: Question) -> str:
    """The answer with its reason, as a reveal shows it (no verdict: nobody's answer is judged)."""
    return f"Answer: {answer_text(question)}. {question.explanation}"


def check(question: Question, raw) -> Verdict:
    """Right or not, and why, with the real numbers; never raises on a bad answer."""
    value, note = _read(question, raw)
    if note:
        return Verdict(None, note)
    if question.kind == "choice":
        ok, given = value in question.answer, question.options[value]
    elif question.kind == "yesno":
        ok, given = value == question.answer, "yes" if value else "no"
    else:
        ok, given = abs(value - question.answer) <= question.tolerance, _num(value)
    head = "Right." if ok else f"Not quite: you said {given}; the answer is {answer_text(question)}."
    return Verdict(ok, f"{head} {question.explanation}")
