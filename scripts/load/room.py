"""The room mode (--room): one class room, every student answering every stage's questions, the teacher's panel live.

Every session speaks Streamlit's websocket protocol (protocol.py), and each one reruns its page's timed fragments
(st.fragment(run_every=...)) on their timer, as the browser does: a student's wait for the reveal and the teacher's
counts, each at the interval the page declares (ui/teach/room_quiz.py). One session sends one request at a time (a lock), so a click may wait for a poll in flight, as
in the browser. The class follows the projector stage by stage, in four phases whose server CPU is measured apart:

    open     the teacher, then each student (within --spread s), opens the stage: in a room its questions come first
    answer   each student thinks (up to --answer-window s), picks every question's value (one rerun each, as a click
             does) and presses "Send my predictions", timed from the press to the "Sent" message; a --resend share
             changes one answer and sends again (the latest counts)
    discuss  --discuss s in which nobody clicks and every page polls: what the room costs at rest
    lesson   the teacher presses "Reveal to the room"; each student's poll finds it and runs the lesson (timed from
             the press); then --lesson-time s of the lesson's moves, as the class load test's students make them

The teacher's panel is read after each of its polls: the script notes when it first shows every answer sent, and
compares its counts, and the store's (read directly), with what the students were told was stored.
"""
import asyncio
import random
import re
import time
from collections import Counter

from streamlit.proto.WidgetStates_pb2 import WidgetState

from .protocol import MOVABLE, VIEW_MOVES, Student
from .students import Interaction, switch, timed

QUIZ = re.compile(r"^quiz:[a-z0-9_-]+:round:[0-9a-f]+:(?P<qid>[^:]+:[^:]+:[0-9a-f]+)$")  # a question's widget key
ANSWERED = re.compile(r"^(\d+) answered")  # the teacher's panel, one caption per question (ui/teach/room_quiz.py)
SENT = re.compile(r"^Sent (\d+) of (\d+)")
REFUSED = re.compile(r"^Question (\d+):")
NUMBERS = ("0", "1", "2")  # a number question's answer: inside every stage's allowed range at the book preset


class Seat:
    """One browser tab in the room: its Student, one request at a time, and its timed fragments."""

    def __init__(self, student: Student, rng: random.Random, role: str):
        self.student, self.rng, self.role = student, rng, role
        self.lock = asyncio.Lock()
        self.stored = {}  # qid -> the value the store holds for this student (what the app said it stored)
        self.revealed_at = None  # when this student's page showed the lesson after the reveal

    async def request(self, results, kind, screen, **rerun_args):
        """(the run or None, when the request went out): timed from then, so a wait behind a poll counts."""
        asked = time.perf_counter()
        async with self.lock:
            return await timed(self.student, results, kind, screen, **rerun_args), asked

    async def poll(self, results, screen, stop: asyncio.Event, after=None):
        """Rerun each timed fragment every `interval` s, as the browser's timers do, until `stop`."""
        due = {}
        while not stop.is_set():
            now = time.perf_counter()
            timers = dict(self.student.auto_reruns)
            due = {f: due.get(f, now + every * self.rng.random()) for f, every in timers.items()}  # tabs out of step
            for fragment, at in sorted(due.items(), key=lambda item: item[1]):
                if time.perf_counter() >= at and not stop.is_set():
                    due[fragment] = max(at + timers[fragment], time.perf_counter())
                    async with self.lock:  # a whole-page run meanwhile (a click) may have dropped the fragment
                        if fragment not in self.student.auto_reruns:
                            continue  # and with it the browser's timer
                        run = await timed(self.student, results, f"poll ({self.role})", screen, fragment_id=fragment)
                    if after and run is not None:
                        after(run)
            wake = min(due.values(), default=time.perf_counter() + 0.25) - time.perf_counter()
            try:
                await asyncio.wait_for(stop.wait(), max(0.01, min(wake, 0.25)))
            except asyncio.TimeoutError:
                pass

    def questions(self) -> list[tuple[str, str, object]]:
        """(widget key, qid, (type, proto, fragment)) of the questions on the page, in the page's order."""
        return [(key, QUIZ.match(key)["qid"], w) for key, w in self.student.widgets.items() if QUIZ.match(key)]

    def send_key(self) -> str | None:
        return next((k for k in self.student.widgets if k.startswith("quiz:") and k.endswith(":send")), None)


def stored_form(etype: str, options, value: str) -> str:
    """What the store keeps for a value picked in a widget (room_quiz.canonical): an option's index, yes/no, a number."""
    if etype == "text_input":
        return f"{float(value):.6g}"
    return value if list(options) == ["yes", "no"] else str(list(options).index(value))


async def answer(seat: Seat, results, screen: str, resend: float, sent: list) -> None:
    """Pick a value for every question (one rerun each), press Send; perhaps change one answer and send again."""
    picks = {}
    for key, qid, (etype, proto, _fragment) in seat.questions():
        await asyncio.sleep(seat.rng.uniform(0.3, 1.2))  # reading the question
        if etype in ("radio", "selectbox"):
            value = seat.rng.choice([o for o in proto.options if o != picks.get(qid, (None,))[0]] or proto.options)
            picks[qid] = (value, stored_form(etype, proto.options, value))
        elif etype == "text_input":
            value = seat.rng.choice(NUMBERS)
            picks[qid] = (value, stored_form(etype, (), value))
        else:
            continue
        await seat.request(results, "answer: pick", screen, widgets=[WidgetState(id=proto.id, string_value=value)])
    await press_send(seat, results, screen, picks, sent)
    if picks and seat.rng.random() < resend:  # a change of mind before the reveal: the latest answer counts
        key, qid, (etype, proto, _fragment) = seat.rng.choice(seat.questions())
        if etype in ("radio", "selectbox") and len(proto.options) > 1:
            value = seat.rng.choice([o for o in proto.options if o != picks[qid][0]])
            picks[qid] = (value, stored_form(etype, proto.options, value))
            await asyncio.sleep(seat.rng.uniform(1, 3))
            await seat.request(results, "answer: pick", screen, widgets=[WidgetState(id=proto.id, string_value=value)])
            await press_send(seat, results, screen, picks, sent)


async def press_send(seat: Seat, results, screen: str, picks: dict, sent: list) -> None:
    """Press "Send my predictions"; time the press to the "Sent" message; note what the app says it stored."""
    key = seat.send_key()
    if key is None:
        results.append(Interaction(seat.student.number, "answer: press → Sent", screen, 0.0, "no Send button"))
        return
    state = WidgetState(id=seat.student.widgets[key][1].id, trigger_value=True)
    run, asked = await seat.request(results, "answer: send (to script_finished)", screen, widgets=[state])
    texts = [(text, at) for etype, text, at in (run.texts if run else []) if etype == "alert"]
    said = next(((SENT.match(t), at) for t, at in texts if SENT.match(t)), None)
    if said is None:
        results.append(Interaction(seat.student.number, "answer: press → Sent", screen, time.perf_counter() - asked,
                                   "no 'Sent' message: " + " | ".join(t for t, _ in texts)[:200]))
        return
    arrived = run.started + said[1]
    results.append(Interaction(seat.student.number, "answer: press → Sent", screen, arrived - asked,
                               server=seat.student.server))
    refused = {int(m[1]) for t, _ in texts if (m := REFUSED.match(t))}
    for i, (_key, qid, _widget) in enumerate(seat.questions(), 1):
        if qid in picks and i not in refused:
            seat.stored[qid] = picks[qid][1]
    sent.append((arrived, seat.student.number, int(said[0][1])))


class Panel:
    """What the teacher's panel showed after each of its polls: (when it arrived, answered per question)."""

    def __init__(self):
        self.reads = []

    def after(self, run):
        counts = [(int(m[1]), at) for etype, text, at in run.texts if etype == "markdown" and (m := ANSWERED.match(text))]
        if counts:
            self.reads.append((run.started + max(at for _, at in counts), [n for n, _ in counts]))

    def first_showing(self, wanted: list[int], since: float = 0.0) -> float | None:
        return next((t for t, counts in self.reads if counts == wanted and t >= since), None)


async def lesson_moves(seat: Seat, results, screen: str, until: float, think: float) -> None:
    """The class load test's moves on this one screen (students.student_session): a move the attention view draws
    sends nothing; one of a widget above it reruns the page. No screen switch, no sidebar move (a new round)."""
    while time.perf_counter() < until:
        await asyncio.sleep(seat.rng.uniform(0.5, 1.5) * think)
        if time.perf_counter() >= until:
            return
        student = seat.student
        keys = [k for k in MOVABLE if k in student.widgets or (student.has_view() and screen in (VIEW_MOVES[k] or {screen}))]
        key = seat.rng.choice(keys) if keys else None
        if key is None:
            continue
        if key not in student.widgets:
            results.append(Interaction(student.number, f"view move {key}", screen, 0.0, server=student.server))
            continue
        state = student.move(key)
        if state is not None:
            await seat.request(results, f"move {key}", screen, widgets=[state], fragment_id=student.fragment_of(key))


async def open_stage(seat: Seat, results, screen: str, delay: float) -> None:
    await asyncio.sleep(delay)
    async with seat.lock:
        await switch(seat.student, results, screen)


def expected_counts(seats, qids) -> dict[str, Counter]:
    """qid -> Counter of stored values over the students (what the app told each student it stored)."""
    return {qid: Counter(s.stored[qid] for s in seats if qid in s.stored) for qid in qids}
