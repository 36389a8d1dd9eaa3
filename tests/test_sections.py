"""Lazy sections (ui/state/sections.py): a closed section's body does not run, opening it shows it, it stays open, and
the URL can open one. Checked on /mask (the other stage screens have tests of their own sections)."""
from conftest import open_screen, open_sections, page_text

from attention_core.lessons.presets import parse_param


def _codes(at) -> list[str]:
    return [e.value for e in at.get("code")]


def test_a_closed_section_runs_nothing_and_opening_it_shows_it():
    at = open_screen("mask")
    labels = [e.label for e in at.expander]
    assert "The PyTorch code of this step" in labels and "The tensors" in labels
    assert not _codes(at) and not at.dataframe  # the code and the tables of closed sections were never drawn
    assert "def mask_scores" not in page_text(at)
    open_sections(at, "mask", ["code"])
    assert any("def mask_scores" in c for c in _codes(at))
    assert not at.dataframe  # the tensors' section is still closed
    assert at.query_params["open"] == "code"  # the URL says what is open: a link to "the code of /mask"


def test_an_open_section_stays_open_across_reruns_and_page_switches():
    at = open_screen("mask", sections=["tensors"])
    assert at.dataframe
    at.run()  # any rerun (a slider, a commit from the view)
    assert at.dataframe
    at.switch_page("screens/home.py").run()
    assert not at.exception
    at.switch_page("screens/mask.py").run()
    assert at.dataframe and at.query_params["open"] == "tensors"


def test_the_url_opens_sections_of_the_screen_it_links_to():
    at = open_screen(None, open="code")  # ?open=code on the first screen opened (here, home)
    at.switch_page("screens/mask.py").run()
    assert not _codes(at)  # a later screen opens closed: the link named home's sections, not /mask's


def test_old_links_with_pitfalls_and_readers_switches_open_those_sections(monkeypatch):
    from ui.state import sections
    seen = []
    monkeypatch.setattr(sections, "unknown_note", lambda: seen.append(set(sections.st.session_state[sections._OPEN]["home"])))
    at = open_screen(None, pitfalls="1", readers="1")
    assert seen == [{"mistakes", "questions"}]  # what the first screen was asked to open
    assert "pitfalls" not in at.query_params and "readers" not in at.query_params  # said as open=... from now on
    monkeypatch.undo()
    at = open_screen(None, pitfalls="1")
    assert not at.warning  # home has no mistakes to open: an old link gets no note about it


def test_an_unknown_section_in_the_url_gets_a_note_and_the_screen_works():
    at = open_screen(None, open="nonsense")
    notes = [w.value for w in at.warning]
    assert any("no section `nonsense`" in n for n in notes), notes
    assert "open" not in at.query_params  # dropped from the URL


def test_a_malformed_open_parameter_is_refused_with_a_note():
    value, note = parse_param("open", "code,<script>")
    assert value == "" and "section names" in note
    assert parse_param("open", "code,tensors") == ("code,tensors", None)
    assert parse_param("open", "x" * 201)[1]
    at = open_screen(None, open="<b>hi</b>")
    assert any("is not a list of section names" in w.value for w in at.warning)
