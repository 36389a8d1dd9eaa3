"""What a timing says, in words that follow its numbers: faster, slower or about the same, and whether the
course version's time grew as its T × T work predicts.

Two medians on a shared processor can say anything: a fused kernel "0.8× faster", a quadratic method whose
time grew × 0.2 when T doubled. The sentences here never call a slower kernel faster, and when the growth
is far from the × 4 that doubling T should give, they say so and give the likely reason the numbers show:
calls that varied a lot (other programs on the processor), calls too short for the T² work to dominate, or
tensors that outgrew the processor's cache. Plain Python: no Streamlit.
"""
from attention_core.drawing.numbers import size_in_bytes
from attention_core.lessons.claims import change_words

SAME_WITHIN = 1.1  # medians within 10 % of each other: "about as fast"
QUADRATIC = 4.0  # doubling T quadruples the T × T work
NEAR = (3.0, 16 / 3)  # growth within a factor 4/3 of × 4 reads as close to quadratic
NOISY = 1.5  # the median call took 1.5× the fastest or more: other work shared the processor
FIXED_COST_S = 2e-3  # calls shorter than this are mostly fixed costs (dispatch, threads), not T² arithmetic


def speed(course_s: float, fused_s: float) -> str:
    """The fused kernel against the course version, from their medians: "2.1× faster", "1.2× slower" (never
    "0.8× faster"), or "about as fast" within 10 %."""
    ratio = course_s / fused_s
    if ratio >= SAME_WITHIN:
        return f"{ratio:.1f}× faster"
    if ratio <= 1 / SAME_WITHIN:
        return f"{1 / ratio:.1f}× slower"
    return "about as fast"


def growth_words(growth: float) -> str:
    """How a doubling of T changed the course version's time, against the × 4 of quadratic work."""
    if NEAR[0] <= growth <= NEAR[1]:
        return f"× {growth:.1f}, close to the × {QUADRATIC:.0f} that its T × T work predicts"
    side = "below" if growth < NEAR[0] else "above"
    return f"× {growth:.1f}, well {side} the × {QUADRATIC:.0f} that its T × T work predicts"


def ms(seconds: float) -> str:
    """Milliseconds written one way in every sentence of the verdict (a teacher's read found 44.4 and 44.44 ms for
    one call): one decimal from 1 ms, two below."""
    value = seconds * 1e3
    return f"{value:,.1f}" if value >= 1 else f"{value:.2f}"


def growth_sentence(found: dict) -> str:
    """From T/2 to T, how the course version's time moved, with both times. A time that fell or stayed the same
    while the work grew fourfold, or calls that varied a lot, cannot be read against the × 4: the sentence says so
    instead of "grew × 0.4, well below the × 4"."""
    t, growth, half_s, now_s = found["tokens"], found["growth_from_half"], found["course_half_s"], found["course_s"]
    start = f"From T = {t // 2:,} to {t:,} the course version's time"
    times = f"({ms(half_s)} → {ms(now_s)} ms)"
    if growth < SAME_WITHIN:  # fell, or about the same
        return (f"{start} {change_words(half_s, now_s, SAME_WITHIN)} {times} while its T × T work grew × "
                f"{QUADRATIC:.0f}: the measurement is too noisy to read.")
    spread = found.get("spread")
    if spread is not None and spread >= NOISY:
        return (f"{start} grew × {growth:.1f} {times}, but its calls varied too much for that to be read against "
                f"the × {QUADRATIC:.0f} that its T × T work predicts: the measurement is too noisy to read.")
    return f"{start} grew {growth_words(growth)} {times}."


def reasons(found: dict, far: bool, faster: bool) -> list[str]:
    """Why the growth is far from × 4 (far) or the fused kernel not faster: the likeliest reasons these numbers
    show. Calls that varied a lot, or a time that fell as T grew, make every other reading moot: that is said alone."""
    spread, half_s, t, growth = found.get("spread"), found.get("course_half_s"), found["tokens"], found.get("growth_from_half")
    if spread is not None and spread >= NOISY:
        return [f"These calls varied a lot (a median call took {spread:.1f}× as long as the fastest): other "
                "programs were using the processor, and even the fastest calls may be slowed. Press **Measure** "
                "again, or raise the repeats."]
    if growth is not None and growth < 1:
        return [f"A time that falls while the work grows fourfold cannot be the arithmetic: other programs were "
                f"probably using the processor during the calls at T = {t // 2:,}, so the times are not reliable. "
                "Press **Measure** again, or raise the repeats."]
    found_reasons = []
    if far and growth > NEAR[1]:
        found_reasons.append(f"From T = {t // 2:,} to {t:,} the (b, h, T, T) tensors grew four times and probably "
                             "no longer fit in the processor's cache, so every pass over them waits on main memory.")
    elif far:
        short_call = (f"At T = {t // 2:,} a call of the course version took {ms(half_s)} ms: too short for "
                      "the T² arithmetic to dominate. " if half_s is not None and half_s < FIXED_COST_S else "")
        found_reasons.append(short_call + "Fixed costs that do not grow with T (PyTorch's dispatch, starting "
                             "threads) are still a large part of each call at these sizes; a larger T shows the "
                             "quadratic.")
    if not faster:
        found_reasons.append("At this size the fused kernel's saving does not show: both do the same T² arithmetic, "
                             "and while the T × T tensors fit in the processor's cache the course version's extra "
                             "passes over them cost little. The fused kernel is expected to pull ahead as T grows.")
    return found_reasons


def verdict(found: dict) -> str:
    """The measurement in Markdown: found is efficiency.summary's dict (tokens, course_s, sdpa_s: fastest calls;
    course_bytes, sdpa_bytes, course_half_s, growth_from_half, spread)."""
    t, words = found["tokens"], speed(found["course_s"], found["sdpa_s"])
    said = (f"the fused kernel was **{words}**" if words != "about as fast"
            else f"the two took about the same time (within {SAME_WITHIN - 1:.0%})")
    text = (f"At T = {t:,} the fused kernel's fastest call took **{ms(found['sdpa_s'])} ms** and the course "
            f"version's **{ms(found['course_s'])} ms**: {said}. Their new tensors peaked at "
            f"{size_in_bytes(found['sdpa_bytes'])} (fused) and {size_in_bytes(found['course_bytes'])} (course).")
    growth = found.get("growth_from_half")
    if growth is not None:
        text += " " + growth_sentence(found)
    far = growth is not None and not NEAR[0] <= growth <= NEAR[1]
    return " ".join([text, *reasons(found, far, words.endswith("faster"))])
