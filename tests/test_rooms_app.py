"""AppTest: a teacher and two students (three sessions) in one room: the panel's counts, the reveal, where each
student stood, and what a session without the teacher's token, or with a bad code, gets."""
import pytest

from conftest import open_screen, page_text


@pytest.fixture()
def room(tmp_path, monkeypatch):
    """A fresh room in a SQLite store of this test's own: (code, teacher token)."""
    from rooms.backends import open_store
    from rooms.store import start_room
    from ui.teach import room as room_ui
    url = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    monkeypatch.setenv("ATTENTION_ROOMS_STORE", url)
    room_ui._open.cache_clear()  # the app's store is one per process: this test's file
    result, code, token = start_room(open_store(url))
    assert result.ok
    yield code, token
    room_ui._open.cache_clear()


def _headings(at):
    return [h.value for kind in ("header", "subheader") for h in at.get(kind)]


def _answer_first_option(at):
    """Pick each question's first option, or type 1 (what a student does), and send."""
    for widget in at.main.radio:
        if str(widget.key).startswith("quiz:"):
            widget.set_value(widget.options[0])
    for widget in at.main.text_input:
        if str(widget.key).startswith("quiz:"):
            widget.input("1")
    next(b for b in at.button if str(b.key).endswith(":send")).click().run()
    assert not at.exception, [e.value for e in at.exception]


def test_a_teacher_and_two_students_count_reveal_and_see_where_they_stood(room):
    code, token = room
    teacher = open_screen("scores", room=code, teacher=token)
    assert "Predict first: the room" in _headings(teacher)
    assert "0 answered" in page_text(teacher)
    assert "teacher" not in teacher.query_params  # the token left the address bar (the projector shows it)
    one, two = open_screen("scores", room=code), open_screen("scores", room=code)
    for student in (one, two):
        assert "Predict first" in _headings(student) and "Predict first: the room" not in _headings(student)
        assert not any(str(b.key).endswith(":room-reveal") for b in student.button)  # no token, no panel
    _answer_first_option(one)
    assert "Sent 2 of 2" in page_text(one)
    _answer_first_option(one)  # again: the latest counts, still one answer per question
    _answer_first_option(two)
    teacher.run()
    assert page_text(teacher).count("2 answered") == 2
    assert "Scores, one query at a time" not in _headings(one)  # the lesson waits for the teacher
    next(b for b in teacher.button if str(b.key).endswith(":room-reveal")).click().run()
    assert "Scores, one query at a time" in _headings(teacher)
    # the teacher's screen keeps how the room split, beside the answer, the right bars marked
    assert "The room's answers" in _headings(teacher) and page_text(teacher).count("2 answered") == 2
    marked = [p.proto.text for p in teacher.get("progress") if "the answer" in p.proto.text]
    assert len(marked) == 2 and any("**yes**, the answer: **2** (100%)" in m for m in marked), marked  # both said yes
    one.run()  # the student's wait (a timer in the browser) finds the reveal and shows the lesson
    assert "Scores, one query at a time" in _headings(one)
    said = [e.value.replace("\\", "") for kind in ("success", "info", "warning") for e in one.get(kind) if "You and" in e.value]
    assert len(said) == 2 and all("and 1 other said" in s and "(2 answered)" in s for s in said), said
    # a student whose screen has not seen the reveal yet sends another answer: refused, their answers stay
    qids = [":".join(str(w.key).split(":")[-3:]) for w in two.main.radio if str(w.key).startswith("quiz:")]
    for widget in two.main.radio:
        if str(widget.key).startswith("quiz:"):
            widget.set_value(widget.options[-1])
    next(b for b in two.button if str(b.key).endswith(":send")).click().run()
    from rooms.backends import open_store
    seat = two.session_state["keep:seat"]
    assert len(qids) == 2 and [open_store().my_answer(code, q, seat) for q in qids] == ["0", "yes"]


def test_a_forged_token_opens_no_panel(room):
    code, token = room
    forged = open_screen("scores", room=code, teacher="x" * len(token))
    assert "Predict first: the room" not in _headings(forged)
    assert "Predict first" in _headings(forged)  # a student, like everyone without the token


@pytest.mark.parametrize("raw, says", [("ZZZZZZ", "not a room code"), ("<b>x", "not a room code"),
                                       ("K7MP3X", "No room has that code")])
def test_a_bad_or_unknown_code_gets_a_clear_note_and_the_lesson(room, raw, says):
    at = open_screen(room=raw)  # the first screen this link opens says why (here: home)
    assert says in page_text(at)
    at.switch_page("screens/scores.py").run()
    assert "Scores, one query at a time" in _headings(at) and not at.exception  # the app works on without the room
    assert "keep:room" not in at.session_state or not at.session_state["keep:room"]


def test_the_store_unavailable_leaves_the_app_working_and_says_rooms_are_off(monkeypatch, tmp_path):
    from ui.teach import room as room_ui
    monkeypatch.setenv("ATTENTION_ROOMS_STORE", "redis://127.0.0.1:1/0")  # nothing listens on port 1
    room_ui._open.cache_clear()
    monkeypatch.setattr(room_ui, "_failed_at", [0.0])
    at = open_screen(room="K7MP3X")
    assert "Rooms are off" in page_text(at)
    at.switch_page("screens/scores.py").run()
    assert "Scores, one query at a time" in _headings(at) and not at.exception
    room_ui._open.cache_clear()
