"""The room's counts on the teacher's screen: before the reveal (the Reveal button above them, nothing that marks an
answer) and after it (the counts stay, the right bars marked, in the projector's type), and when students see it."""
from collections import Counter

import pytest
from streamlit.testing.v1 import AppTest

from attention_core.lessons.questions import Question
from conftest import open_screen
from ui.draw import style
from ui.teach import room_quiz

KEYS = Question(qid="scores:largest:00aa", prompt="Which key gets the largest score?", kind="choice", answer=(1,),
                explanation="Key 2 scores 0.9544.", options=("1 Your", "2 journey", "3 starts"))
YES = Question(qid="mask:sees:00bb", prompt="Can query 2 see key 3?", kind="yesno", answer=False,
               explanation="Key 3 is in its future.")
HOW_MANY = Question(qid="mask:count:00cc", prompt="How many keys can query 3 see?", kind="number", answer=3.0,
                    explanation="Keys 1 to 3.", tolerance=0.0)


def test_bars_mark_the_right_answers():
    assert room_quiz.bars(KEYS, Counter({"0": 1, "1": 2})) == \
        [("1 Your", 1, False), ("2 journey", 2, True), ("3 starts", 0, False)]
    assert room_quiz.bars(YES, Counter({"yes": 3})) == [("yes", 3, False), ("no", 0, True)]
    assert room_quiz.bars(HOW_MANY, Counter({"3": 2, "4": 1})) == [("3", 2, True), ("4", 1, False)]


def test_a_histogram_marks_the_bin_that_holds_a_right_number():
    given = Counter({str(n): 1 for n in (0, 1, 2, 3, 5, 6, 7, 8, 9, 10)})  # more distinct numbers than bars
    found = room_quiz.bars(HOW_MANY, given)
    assert len(found) == room_quiz.BINS and sum(c for _, c, _ in found) == 10
    assert [label for label, _, right in found if right] == ["2.5 to 3.75"]
    wrong_only = Counter({str(n): 1 for n in (10, 11, 12, 13, 14, 15, 16, 17, 18)})
    assert not any(right for _, _, right in room_quiz.bars(HOW_MANY, wrong_only))


def test_many_options_show_the_unanswered_answer_only_after_the_reveal():
    many = Question(qid="scores:largest:00dd", prompt="Which key?", kind="choice", answer=(7,), explanation="",
                    options=tuple(f"{i} key" for i in range(1, 13)))
    answered = Counter({"0": 2, "3": 1})
    assert [label for label, _, _ in room_quiz.bars(many, answered)] == ["1 key", "4 key"]  # nothing gives it away
    assert [(label, right) for label, _, right in room_quiz.bars(many, answered, revealed=True)] == \
        [("1 key", False), ("4 key", False), ("8 key", True)]


def test_the_note_says_students_see_the_reveal_within_a_few_seconds_from_the_polling_interval(monkeypatch):
    assert "within a few seconds" in room_quiz.reach_note() and "every 5 s" in room_quiz.reach_note()
    monkeypatch.setattr(room_quiz, "STUDENT_POLL_S", 2.5)
    assert "every 2.5 s" in room_quiz.reach_note()


@pytest.fixture()
def store(tmp_path, monkeypatch):
    from rooms.backends import open_store
    from ui.teach import room as room_ui
    url = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    monkeypatch.setenv("ATTENTION_ROOMS_STORE", url)
    room_ui._open.cache_clear()
    yield open_store(url)
    room_ui._open.cache_clear()


def _after_reveal_script():
    import streamlit as st
    from ui.draw import style
    from ui.teach import room_quiz
    style.inject(presenter=False)
    room_quiz.after_reveal(st.session_state["code"], st.session_state["questions"])


def test_after_the_reveal_the_counts_stay_beside_the_answer(store):
    from rooms.store import start_room
    _, code, _ = start_room(store)
    for student, (key, yes) in enumerate([("0", "yes"), ("1", "no"), ("1", "no")]):
        assert store.answer(code, KEYS.qid, f"student-{student:08d}", key).ok
        assert store.answer(code, YES.qid, f"student-{student:08d}", yes).ok
    for question in (KEYS, YES):
        store.reveal(code, question.qid, "x")
    at = AppTest.from_function(_after_reveal_script, default_timeout=60)
    at.session_state["code"], at.session_state["questions"] = code, (KEYS, YES)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [h.value for h in at.header] == ["The room's answers"]
    assert any("every 5 s" in c.value for c in at.caption)
    bars = [(p.proto.text, p.value) for p in at.get("progress")]
    assert bars == [("1 Your: **1** (33%)", 33),
                    (":green[:material/check_circle: **2 journey**, the answer: **2** (67%)]", 66),
                    ("3 starts: **0** (0%)", 0),
                    ("yes: **1** (33%)", 33),
                    (":green[:material/check_circle: **no**, the answer: **2** (67%)]", 66)], bars
    assert sum("3 answered" in c.value for c in at.caption) == 2
    # every bar sits in the keyed container that the app's style sheet sets in projector type
    assert ".st-key-room-counts [data-testid=\"stProgress\"] p { font-size: 1.6rem" in style.sheet(presenter=False)
    counts = [n for n in _walk(at.main, blocks=True) if str(getattr(n.proto, "id", "")).endswith("-room-counts")]
    assert len(counts) == 1 and len([n for n in _walk(counts[0]) if n.type == "progress"]) == len(bars)


def test_the_teachers_reveal_button_comes_before_the_counts(store):
    from rooms.store import start_room
    _, code, token = start_room(store)
    teacher = open_screen("scores", room=code, teacher=token)
    order = [node.type for node in _walk(teacher.main) if node.type in ("button", "progress")]
    assert order and order[0] == "button" and "progress" in order, order
    reveal = next(b for b in teacher.button if str(b.key).endswith(":room-reveal"))
    assert reveal.label == "Reveal to the room"
    assert any("within a few seconds" in c.value for c in teacher.caption)


def _walk(node, blocks=False):
    """The elements of an AppTest block in the order they are drawn (and the blocks themselves, with blocks=True)."""
    children = getattr(node, "children", None)
    if not children:
        yield node
        return
    if blocks:
        yield node
    for index in sorted(children):
        yield from _walk(children[index], blocks)
