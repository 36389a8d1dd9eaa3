"""Sections that run only while open: the tensors, the code, the checks, the mistakes, the longer experiments.

A stage screen opens on its lesson (controls, the view, the numbers the lesson turns on). Everything else
sits in a folded section whose body runs, and is sent to the browser, only while it is open: Streamlit 1.67
runs an expander's body lazily when the expander has a key and an on_change, and its `.open` says whether it
is open. A section the visitor opened stays open across reruns and page switches (session state, per screen);
the URL's `open` names the current screen's open sections (`?open=code,tensors`, or `?open=all` for the slides
command), so a teacher can share "the code of /mask".

    with ui.section("code", "The code") as shown:
        if shown:
            ui.show_code(...)

Class mode (quiz=1, or a class room) asks before it shows: on a screen with questions, a section's body would
answer them (the "Why it works" of /trained said which head costs the most). So until ui/teach/quiz.py
releases the screen at the reveal, a section is not drawn at all and its body does not run, whatever the URL's
`open` or a default says; it still counts as the screen's (no "no such section" note), and opens after the reveal.
"""
from contextlib import contextmanager

import streamlit as st

from attention_core.lessons.presets import SECTION_NAME, code
from ui.state.session import set_value, value

ALL = "all"  # ?open=all: every section of the screen (the slides command uses it)
NAME = SECTION_NAME
LEGACY = {"mistakes": "pitfalls", "questions": "readers"}  # section: the URL switch it replaced
_OPEN = "sections:open"  # {screen: set of open section names}
_SEEN = "sections:seen"  # {screen: names of the sections its last run drew}
_SCREEN = "sections:screen"  # the screen this run draws (main.py sets it before the page runs)
_DRAWN = "sections:drawn"  # {section key: whether it was drawn open}: tells a change from code from a stale state
_LEGACY_ASKED = "sections:legacy"  # names opened by an old ?pitfalls=1 / ?readers=1 link (no note if missing)
_HELD = "sections:held"  # True while this run's screen asks first and its answers are not yet revealed


def parse(text: str) -> tuple[set[str], list[str]]:
    """The URL's `open`: the names it holds, and those that cannot be section names (left out)."""
    names = {part.strip() for part in text.split(",") if part.strip()}
    bad = sorted(n for n in names if not NAME.fullmatch(n))
    return names - set(bad), bad


def enter(screen: str, asks_first: bool = False) -> None:
    """Before a screen runs: its open sections become the URL's `open` (the first screen takes the URL's).
    asks_first: class mode (or a room) is on and the screen has questions; its sections are then held shut."""
    opened = st.session_state.setdefault(_OPEN, {})
    if screen not in opened:
        if not opened:  # the first screen of the session: the link that was opened says what is open
            names, _ = parse(value("open"))
            # Links from before sections: ?pitfalls=1 and ?readers=1 were switches; they open those sections.
            legacy = {name for name, old in LEGACY.items() if value(old)}
            st.session_state[_LEGACY_ASKED] = legacy - names
            opened[screen] = names | legacy
            for old in LEGACY.values():
                set_value(old, False)  # the URL says it as open=... from now on
        else:
            opened[screen] = set()
    st.session_state[_SCREEN] = screen
    st.session_state[_HELD] = asks_first  # released by the reveal (ui/teach/quiz.py), not before
    st.session_state.setdefault(_SEEN, {})[screen] = []
    set_value("open", ",".join(sorted(opened[screen])))


def hold(held: bool = True) -> None:
    """Class mode's questions on this screen are waiting (True) or revealed (False): ui/teach/quiz.py says which."""
    st.session_state[_HELD] = held


def held() -> bool:
    """Whether this screen's sections are held shut until the reveal."""
    return bool(st.session_state.get(_HELD, False))


def _screen() -> str:
    return st.session_state.get(_SCREEN, "home")


def _toggled(screen: str, name: str, key: str) -> None:
    """The visitor opened or closed a section: remember it for this screen and the URL."""
    opened = st.session_state[_OPEN].setdefault(screen, set())
    if ALL in opened:  # closing one section of "all": the others stay open
        opened.discard(ALL)
        opened.update(st.session_state.get(_SEEN, {}).get(screen, []))
    (opened.add if st.session_state[key] else opened.discard)(name)
    if screen == _screen():
        set_value("open", ",".join(sorted(opened)))


def is_open(name: str) -> bool:
    """Whether this screen's section `name` is open (for work that sits outside its `with` block)."""
    opened = st.session_state.get(_OPEN, {}).get(_screen(), set())
    return not held() and (name in opened or ALL in opened)


@contextmanager
def section(name: str, title: str, icon: str | None = None):
    """A folded section of the current screen: yields True while it is open, and only then should the body
    compute or draw anything."""
    assert NAME.fullmatch(name), name
    screen = _screen()
    if held():  # before the reveal: nothing of it on the screen, its body not run (the URL keeps it open for later)
        _see(screen, name)
        yield False
        return
    key = f"section:{screen}:{name}"
    drawn = st.session_state.get(_DRAWN, {})
    if key in st.session_state and key in drawn and st.session_state[key] != drawn[key]:
        _toggled(screen, name, key)  # its state was set from code (a test) rather than by a click's on_change
    st.session_state[key] = drawn[key] = is_open(name)
    st.session_state[_DRAWN] = drawn
    _see(screen, name)
    with st.expander(title, key=key, icon=icon, on_change=_toggled, args=(screen, name, key)) as box:
        yield bool(box.open)


def _see(screen: str, name: str) -> None:
    seen = st.session_state.setdefault(_SEEN, {}).setdefault(screen, [])
    if name not in seen:
        seen.append(name)


def unknown_note() -> str | None:
    """After a screen ran: a note for URL section names this screen does not have (None when all exist)."""
    if held():  # a screen that asks first stopped before its sections: they are not known yet, the URL keeps them
        return None
    opened = st.session_state.get(_OPEN, {}).get(_screen(), set())
    seen = set(st.session_state.get(_SEEN, {}).get(_screen(), []))
    missing = sorted(opened - seen - {ALL})
    opened.difference_update(missing)
    set_value("open", ",".join(sorted(opened)))
    missing = [n for n in missing if n not in st.session_state.get(_LEGACY_ASKED, set())]  # an old ?pitfalls=1
    if not missing:
        return None
    have = ", ".join(sorted(seen)) or "none"
    return (f"This screen has no section {', '.join(code(n) for n in missing)} to open; its sections are: {have}.")
