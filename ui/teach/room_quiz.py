"""Class mode in a room: students send their predictions, the teacher's panel counts them live, one reveal for all.

The teacher's panel and each student's wait are fragments that rerun on a timer and only read the store:
an answer reruns nobody's page, and a student's lesson appears by itself once the teacher reveals. A student sees
the counts of their own answer only after the reveal, and never anyone else's answer.
"""
from collections import Counter

import streamlit as st

from attention_core.drawing.text import md_escape
from attention_core.lessons import questions as quiz
from rooms.store import StoreUnavailable
from ui.teach import room

# The teacher's counts are at most this old (issue 31: within 2 s, one poll's run included). One session polls.
TEACHER_POLL_S = 1.5
# A student's screen shows the lesson within this of the reveal. Sixty tabs polling every 2 s cost 30 reruns a second
# (about 5 ms of server CPU each, nearly all Streamlit's own), two thirds of what the lessons cost at the book preset
# (docs/load-room.md); every 5 s costs 60 % less, and a reveal is not a race.
STUDENT_POLL_S = 5.0
BINS = 8  # a number question's answers as at most this many bars


def canonical(question: quiz.Question, raw) -> str | None:
    """The answer as the store keeps it (an option's index, yes/no, or the number), None when unreadable."""
    read, note = quiz._read(question, raw)
    if note:
        return None
    if question.kind == "choice":
        return str(read)
    if question.kind == "yesno":
        return "yes" if read else "no"
    return f"{read:.6g}"


def shown(question: quiz.Question, stored: str) -> str:
    """A stored answer in words: an option's text (the results box escapes it: token names are visitors' text)."""
    return question.options[int(stored)] if question.kind == "choice" else stored


def ask_teacher(questions, state, round_key, seat: room.Seat) -> bool:
    """The questions, large, with the room's live counts under each; the Reveal button above them (a projector at
    900 px high shows it without scrolling)."""
    st.header("Predict first: the room", anchor=False)
    if st.button("Reveal to the room", type="primary", key=f"{round_key}:room-reveal", icon=":material/visibility:"):
        found = room.store()
        try:
            for question in questions:
                if found is not None:
                    found.reveal(seat.code, question.qid, quiz.answer_text(question)[:500])
        except StoreUnavailable:
            st.warning(room.OFF, icon=":material/info:")
        # "room": what after_reveal needs to keep the counts on this screen, beside the answer
        state.update(revealed=True, results=[(q.prompt, None, quiz.revealed_text(q)) for q in questions],
                     room=(seat.code, tuple(questions)))
        return True
    st.caption(reach_note())
    counts_panel(questions, seat.code)
    return False


def reach_note() -> str:
    """When students see the reveal: their screens ask every STUDENT_POLL_S seconds (the cost of polling stays)."""
    return (f"After the reveal, each student's screen shows the answer and the lesson within a few seconds: it "
            f"checks for the reveal every {STUDENT_POLL_S:g} s.")


@st.fragment(run_every=TEACHER_POLL_S)
def counts_panel(questions, code: str) -> None:
    found = room.store()
    try:
        tallies = found.counts(code, [q.qid for q in questions]) if found is not None else None
    except StoreUnavailable:
        tallies = None
    if tallies is None:
        st.warning(room.OFF, icon=":material/info:")
        return
    draw_counts(questions, tallies, revealed=False)


def after_reveal(code: str, questions) -> None:
    """The teacher's screen after the reveal: how the room split, the right bars marked, read once (the counts are
    final: the store takes no answer after a reveal)."""
    found = room.store()
    try:
        tallies = found.counts(code, [q.qid for q in questions]) if found is not None else None
    except StoreUnavailable:
        tallies = None
    st.header("The room's answers", anchor=False)
    st.caption(reach_note())
    if tallies is None:
        st.warning(room.OFF, icon=":material/info:")
        return
    draw_counts(questions, tallies, revealed=True)


def draw_counts(questions, tallies, revealed: bool) -> None:
    """One column a question (they stack on a narrow screen), a bar an answer with its count and share, in the large
    type of the room-counts style (ui/draw/style.py); after the reveal, the right answers' bars say so."""
    with st.container(key="room-counts"):
        for column, (i, question) in zip(st.columns(len(questions)), enumerate(questions, 1)):
            tally = tallies.get(question.qid)
            answered = tally.answered if tally else 0
            column.subheader(f"{i}. {md_escape(question.prompt)}", anchor=False)
            column.caption(f"{answered} answered" + ("" if answered or revealed else
                                                      ": the bars fill in as answers arrive"))
            for label, count, right in bars(question, tally.values if tally else Counter(), revealed):
                share = f" ({count / answered:.0%})" if answered else ""
                text = f"{label}: **{count}**{share}"
                if revealed and right:
                    text = f":green[:material/check_circle: **{label}**, the answer: **{count}**{share}]"
                column.progress(count / answered if answered else 0.0, text=text)
            if revealed:
                column.markdown(f"**{md_escape(quiz.revealed_text(question))}**")


def bars(question: quiz.Question, values: Counter, revealed: bool = False) -> list[tuple[str, int, bool]]:
    """(label, count, right) per bar: every option for a choice (above 8, those answered, and the answer once
    revealed: before, a lone empty bar would give it away), yes and no, or a histogram of the numbers given;
    right: the bar holds a right answer (a number bar, when any number in it is within the question's tolerance)."""
    if question.kind == "choice":
        return [(md_escape(option), values.get(str(i), 0), i in question.answer)
                for i, option in enumerate(question.options)
                if len(question.options) <= 8 or values.get(str(i)) or (revealed and i in question.answer)]
    if question.kind == "yesno":
        return [("yes", values.get("yes", 0), question.answer is True),
                ("no", values.get("no", 0), question.answer is False)]
    numbers = Counter()
    for text, count in values.items():
        numbers[float(text)] += count
    def right(n: float) -> bool:
        return abs(n - question.answer) <= question.tolerance
    if len(numbers) <= BINS:
        return [(f"{n:g}", c, right(n)) for n, c in sorted(numbers.items())]
    low, high = min(numbers), max(numbers)
    width = (high - low) / BINS
    binned, hits = Counter(), set()
    for n in numbers.elements():
        b = min(int((n - low) / width), BINS - 1)
        binned[b] += 1
        if right(n):
            hits.add(b)
    return [(f"{low + b * width:.3g} to {low + (b + 1) * width:.3g}", binned.get(b, 0), b in hits)
            for b in range(BINS)]


def ask_student(questions, state, round_key, seat: room.Seat, widgets) -> bool:
    """The usual questions; Send stores the answers (the latest counts until the reveal); the lesson waits for the
    teacher's reveal, then says where this student stood."""
    found = room.store()
    with st.container(border=True, key=f"predict-{round_key.split(':')[1]}"):
        st.subheader("Predict first", anchor=False)
        st.caption("Your answers go to the room, with no name. You can change them until the teacher reveals.")
        for i, question in enumerate(questions, 1):
            widgets(i, question, f"{round_key}:{question.qid}")
        if st.button("Send my predictions", type="primary", key=f"{round_key}:send"):
            send(questions, round_key, seat, found)
    wait_for_reveal(questions, state, seat)
    return False


def send(questions, round_key, seat: room.Seat, found) -> None:
    if found is None:
        st.warning(room.OFF, icon=":material/info:")
        return
    sent = 0
    for i, question in enumerate(questions, 1):
        raw = st.session_state.get(f"{round_key}:{question.qid}")
        stored = canonical(question, raw)
        if stored is None:
            st.info(f"Question {i}: {md_escape(quiz.check(question, raw).message)}", icon=":material/edit:")
            continue
        try:
            result = found.answer(seat.code, question.qid, seat.student, stored)
        except StoreUnavailable:
            st.warning(room.OFF, icon=":material/info:")
            return
        if result.ok:
            sent += 1
        else:
            st.info(f"Question {i}: {result.message}", icon=":material/info:")
    if sent:
        st.success(f"Sent {sent} of {len(questions)}. You can still change them until the teacher reveals.",
                   icon=":material/send:")


@st.fragment(run_every=STUDENT_POLL_S)
def wait_for_reveal(questions, state, seat: room.Seat) -> None:
    found = room.store()
    try:
        revealed = found is not None and found.revealed(seat.code, questions[0].qid) is not None
        if not revealed:
            st.caption("Waiting for the teacher to reveal the answers…")
            return
        tallies = found.counts(seat.code, [q.qid for q in questions])
        mine = [found.my_answer(seat.code, q.qid, seat.student) for q in questions]
    except StoreUnavailable:
        st.warning(room.OFF, icon=":material/info:")
        return
    state.update(revealed=True, results=[stood(q, tallies.get(q.qid), m) for q, m in zip(questions, mine)])
    st.rerun(scope="app")  # the lesson appears: one run of this student's page, once


def stood(question: quiz.Question, tally, mine: str | None) -> tuple[str, bool | None, str]:
    """(prompt, right or not, "you and 14 others said key 3; the answer is key 2") for the results box."""
    answer = quiz.answer_text(question)
    total = tally.answered if tally else 0
    if mine is None:
        return question.prompt, None, (f"You did not answer; {total} in the room did. The answer is {answer}. "
                                       f"{question.explanation}")
    same = tally.values.get(mine, 1) - 1 if tally else 0
    others = "no one else" if same == 0 else f"{same} other" + ("s" if same > 1 else "")
    ok = quiz.check(question, int(mine) if question.kind == "choice" else mine).ok
    return question.prompt, ok, (f"You and {others} said {shown(question, mine)} ({total} answered); the answer is "
                                 f"{answer}. {question.explanation}")
