"""Class mode asks before it shows, and no folded section gives an answer away: on every screen the registry gives
questions, with every section asked open (?open=all, what the slides command uses), no section is drawn and none of
their bodies runs before the reveal; after it, they all open. A class room's students follow the same rule.
(/trained's open "Why it works" said which head costs the most right under the question asking it.)"""
import pytest

from conftest import open_screen, open_sections, page_text
from screens.registry import SCREENS
from test_rooms_app import room  # noqa: F401 (the fixture: a fresh room in a store of the test's own)

ASKING = [s.name for s in SCREENS if s.questions]  # a screen added with questions is checked here at once
TEXT = ("markdown", "caption", "code", "latex", "info", "success", "warning")


def _sections(at) -> tuple[set[str], set[str]]:
    """The titles of the folded sections on the page, and the text their bodies drew."""
    return {e.label for e in at.expander}, {t.value for e in at.expander for kind in TEXT for t in e.get(kind)}


def _headings(at) -> list[str]:
    return [h.value for kind in ("header", "subheader") for h in at.get(kind)]


@pytest.mark.parametrize("name", ASKING)
def test_no_section_is_drawn_or_run_before_the_reveal_and_all_open_after_it(name):
    titles, bodies = _sections(open_sections(open_screen(name), name))  # without class mode: every section open
    assert titles and bodies, name
    at = open_sections(open_screen(name, quiz=1), name)  # class mode, every section asked open
    assert "Predict first" in _headings(at)
    shown = page_text(at)
    assert not titles & {e.label for e in at.expander}, name
    assert not [body for body in bodies if body in shown], name
    assert at.query_params.get("open") == "all"  # still asked for: they open at the reveal
    next(b for b in at.button if str(b.key).endswith(":skip")).click().run()  # "show me without predicting"
    assert not at.exception, [e.value for e in at.exception]
    after_titles, after_bodies = _sections(at)
    assert titles <= after_titles and bodies <= after_bodies, (titles - after_titles, bodies - after_bodies)


def test_a_rooms_students_see_no_section_before_the_teachers_reveal(room):  # noqa: F811
    code, token = room
    teacher = open_screen("trained", room=code, teacher=token)
    student = open_sections(open_screen("trained", room=code), "trained")
    assert "Predict first" in _headings(student) and not student.expander
    next(b for b in teacher.button if str(b.key).endswith(":room-reveal")).click().run()
    assert not teacher.exception
    student.run()  # the student's wait finds the reveal
    assert not student.exception and "Why it works" in {e.label for e in student.expander}
    assert any("induction" in t for t in _sections(student)[1])  # its body ran: the section is open


def test_an_intro_above_the_questions_gives_no_answer_away_in_class_mode():
    # /memory's intro said that contiguous() is the one step that copies, above "does contiguous() copy here?".
    told = "`contiguous()` is the one that may copy"
    assert told in page_text(open_screen("memory"))
    assert told not in page_text(open_screen("memory", quiz=1))
