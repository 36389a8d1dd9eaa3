"""GPT-2 small is its own layer: a size move leaves it for custom, with a one-line note; a public server bounds custom
sizes (attention_core.lessons.move_cost, ui/server/public.py) with a note, and a teacher's own server does not."""
import pytest

from conftest import open_screen

from attention_core.lessons import move_cost


def notes(at) -> str:
    return " ".join(w.value for w in at.warning)


def kept(at, *names):
    return tuple(at.session_state["keep:" + name] for name in names)


def test_a_size_move_at_gpt2_small_leaves_the_preset_and_says_so():
    at = open_screen(preset="gpt2-small")
    at.slider(key="d_out").set_value(512).run()
    assert kept(at, "preset", "tokens", "d_in", "d_out", "heads") == ("custom", 1024, 768, 512, 12)
    assert "d_out 768 → 512: you left the GPT-2 small preset; these sizes are custom." in notes(at)
    at.slider(key="d_out").set_value(256).run()  # already custom: nothing more to say
    assert "you left" not in notes(at)


def test_heads_belong_to_gpt2_small_but_are_a_lesson_control_at_the_book():
    at = open_screen("heads", preset="gpt2-small")
    at.select_slider(key="heads").set_value(6).run()
    assert not at.exception
    assert kept(at, "preset", "heads", "d_out") == ("custom", 6, 768)
    assert "heads 12 → 6: you left the GPT-2 small preset; these sizes are custom." in notes(at)
    book = open_screen("heads", heads="1")  # the book shows 1 and 2 heads: both are "the book"
    assert kept(book, "preset", "heads") == ("book", 1)
    assert "you left" not in notes(book) and "preset" not in notes(book)


def test_a_link_with_the_preset_and_a_size_override_is_custom_with_a_note():
    at = open_screen(preset="gpt2-small", d_out="512")  # the note is on the first screen the link opens
    assert kept(at, "preset", "tokens", "d_in", "d_out") == ("custom", 1024, 768, 512)
    assert ("The link asks for the GPT-2 small preset with d_out = 512 (the preset has d_out = 768): these settings "
            "are custom.") in notes(at)
    at.switch_page("screens/scores.py").run()
    assert not at.exception
    assert at.session_state["settings"].x.shape == (1024, 768) and at.session_state["settings"].d_out == 512
    assert open_screen("scores", preset="gpt2-small", d_out="768").session_state["keep:preset"] == "gpt2-small"


# --- the public bound --------------------------------------------------------------------------------------------

def test_the_bound_rule():
    assert not move_cost.within_bound(1024, 768, 768, 12)  # GPT-2 small's sizes: the preset, computed in advance
    assert move_cost.within_bound(6, 3, 2, 2)  # the book
    assert move_cost.within_bound(1024, 1024, 1024, 1)  # one head: the other stages' worst case
    most = move_cost.most_tokens(768, 768, 12)
    assert 64 <= most < 1024 and most % 8 == 0
    assert move_cost.within_bound(most, 768, 768, 12) and not move_cost.within_bound(most + 8, 768, 768, 12)
    costs = [move_cost.move_seconds(t, 768, 768, 12) for t in (64, 128, 256, 512, 1024)]
    assert costs == sorted(costs)
    assert move_cost.most_tokens(1024, 1024, 8) == 0  # eight 1,024-wide heads cost more than a second at any length


@pytest.fixture
def public(monkeypatch):
    monkeypatch.setenv("ATTENTION_PUBLIC", "1")


def test_a_public_link_past_the_bound_gets_the_most_tokens_that_fit_and_a_note(public):
    at = open_screen(preset="custom", input="random", tokens="1024", d_in="768", d_out="768", heads="12")
    most = move_cost.most_tokens(768, 768, 12)
    assert kept(at, "tokens", "d_in", "d_out", "heads") == (most, 768, 768, 12)
    assert f"A public server keeps each move under about 1 s of computing: 1,024 tokens at d_in 768, d_out 768 and " \
           f"12 heads would take about 3.5 s, so tokens are now {most:,}" in notes(at)
    at.switch_page("screens/heads.py").run()
    assert not at.exception
    assert [m.value for m in at.metric][:1] == ["12"]  # the heads screen works at the bounded size
    assert at.session_state["settings"].x.shape == (most, 768)


def test_a_public_move_past_the_bound_lowers_the_tokens_or_is_refused(public):
    at = open_screen(preset="custom", input="random", tokens="64", d_in="768", d_out="768", heads="12")
    assert "public server" not in notes(at)
    most = move_cost.most_tokens(768, 768, 12)
    assert f"at most about 1 s a move: up to {most:,} tokens at d_in 768, d_out 768 and 12 heads." in " ".join(
        c.value for c in at.sidebar.caption)  # the sidebar says the bound before anyone meets it
    at.slider(key="tokens").set_value(1024).run()
    assert at.session_state["keep:tokens"] == move_cost.most_tokens(768, 768, 12)
    assert "so tokens are now" in notes(at)
    wide = open_screen("heads", preset="custom", input="random", tokens="64", d_in="1024", d_out="1024", heads="4")
    wide.select_slider(key="heads").set_value(8).run()  # no token count fits eight 1,024-wide heads: refused
    assert not wide.exception
    assert kept(wide, "heads", "tokens") == (4, 64)
    assert "so heads stays 4." in notes(wide)


def test_the_gpt2_preset_is_not_bounded_and_a_teachers_server_is_unbounded(public, monkeypatch):
    at = open_screen(preset="gpt2-small")
    assert kept(at, "preset", "tokens") == ("gpt2-small", 1024)
    assert "public server" not in notes(at)
    monkeypatch.setenv("ATTENTION_PUBLIC", "0")
    at = open_screen(preset="custom", input="random", tokens="1024", d_in="768", d_out="768", heads="12")
    assert kept(at, "tokens") == (1024,)
    assert "public server" not in notes(at)
