"""A class as one room: a join code and its QR code, the teacher's private link, and the teacher's view in every hand.

The room itself (answers, counts, reveals) lives in rooms/ (plain Python: SQLite shared by every process on the
machine, or Redis for several machines), so students behind HAProxy who land on different app processes share it.
What this module keeps in a browser session: the room's code (also in the URL, `?room=CODE`, so a reload stays in
the room), the teacher's token (never in the URL: `take_teacher_token` moves it out of the address bar that the
projector shows) and a random seat (the student's id: in the student's own URL, so a reload is the same student, and
in no link the app shows).
"""
import functools
import io
import time
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit

import segno
import streamlit as st

from attention_core.lessons.presets import PARAMS, parse_param, url_params
from rooms import address, codes
from rooms.backends import open_store
from rooms.store import Store, StoreUnavailable, start_room
from ui.state import catalog
from ui.state.session import set_value, value

TOKEN_KEY, VIEW_KEY, START_NOTE = "room:token", "room:view-sent", "room:start-note"
JOINED_KEY, CLOSE_KEY = "room:just-joined", "room:close-sidebar"  # one-shot flags: this run's student just came in
STARTED_KEY = "room:just-started"  # one-shot: this run's teacher just pressed Start a room (focus follows)
PRIVATE = ("room", "seat", "quiz")  # never part of the teacher's view: each student keeps their own
RETRY_S = 30  # after the store failed to open, how long the app runs without rooms before it tries again
OFF = ("Rooms are off on this server right now: the room store does not answer. Everything else works; a room's "
       "answers are not counted meanwhile.")


@dataclass(frozen=True)
class Seat:
    """Where this browser session sits: in which room, and as its teacher or as a student."""
    code: str
    teacher: bool
    student: str  # this session's random id: one answer per student and question (never shown to anyone)


_failed_at = [0.0]


@functools.lru_cache(maxsize=1)  # one store (one connection pool) per process
def _open() -> Store:
    return open_store()  # ATTENTION_ROOMS_STORE, or the default SQLite file (rooms/backends.py)


def store() -> Store | None:
    """The process's store, or None while it cannot be opened (retried every RETRY_S seconds, not every run)."""
    if time.monotonic() - _failed_at[0] < RETRY_S:
        return None
    try:
        return _open()
    except StoreUnavailable:
        _failed_at[0] = time.monotonic()
        return None


def take_teacher_token() -> None:
    """Move `?teacher=` out of the URL into this session, before anything syncs the URL: the address bar is on the
    projector, and the token is the only thing that opens the teacher's panel."""
    if "teacher" in st.query_params:
        given = st.query_params.get_all("teacher")[-1]
        del st.query_params["teacher"]
        if len(given) <= 64 and given.replace("-", "").replace("_", "").isalnum():
            st.session_state[TOKEN_KEY] = given  # checked against the room's own token at every run (seat)


def seat() -> tuple[Seat | None, str | None]:
    """This session's seat in the room the URL names, or (None, why not) for a code that is malformed, unknown or
    expired, a store that is off, or (None, None) outside any room."""
    raw = value("room")
    if not raw:
        return None, None
    code = codes.parse_code(raw)
    found = store()
    if found is None:
        return None, OFF
    try:
        checked = found.check_room(code) if code else None
        if checked is None or not checked.ok:
            set_value("room", "")  # out of the room (a note says why); a new code can be typed at once
            return None, checked.message if checked else f"URL parameter `room` is not a room code: {_REASON}"
        token = st.session_state.get(TOKEN_KEY)  # a student has none: no second read of the room
        teacher = token is not None and found.is_teacher(code, token)
    except StoreUnavailable:
        return None, OFF
    if not teacher and not codes.valid_student_id(value("seat")):
        set_value("seat", codes.new_student_id())  # in the URL: a reload is the same student, not a second one
        st.session_state[JOINED_KEY] = True  # a student's first run in this room: to the teacher's screen
    return Seat(code, teacher, value("seat")), None


_REASON = f"{codes.CODE_LEN} letters and digits, such as {codes.format_code(codes.ALPHABET[:codes.CODE_LEN])}."


def sidebar_block(seated: Seat | None) -> None:
    """The sidebar's "Class room": start or join a room; in one, its code, the QR code, and the links."""
    st.markdown("**Class room**")
    if seated is None:
        # First in the sidebar: a student on a phone types the code without scrolling past the settings.
        typed = st.text_input("Join with a code", key="room:typed", max_chars=16, placeholder="e.g. K7M-P3X")
        if st.button("Join", key="room:join", type="primary") and typed:
            code = codes.parse_code(typed)
            if code is None:
                st.warning(f"That is not a room code: a room code is {_REASON}", icon=":material/info:")
            else:
                set_value("room", code)
                st.rerun()
        # A callback: it runs before this run's widgets exist, so it may switch the "quiz" toggle on.
        st.button("Start a room", icon=":material/groups:", on_click=_start, help="Students join with a code or a "
                  "QR code; their predictions are counted on your screen.")
        if note := st.session_state.pop(START_NOTE, None):
            st.warning(note, icon=":material/info:")
        return
    st.markdown(f"Room **{codes.format_code(seated.code)}**" + (" · you teach it" if seated.teacher else ""))
    if seated.teacher:
        if st.button("Show the join code", key="room:show-code", icon=":material/qr_code_2:", type="primary"):
            join_dialog(seated.code)
        if st.session_state.pop(STARTED_KEY, False):  # the Start button is gone: its keyboard focus goes here
            _focus_join_button(key="room:focus")
        with st.expander("Your private teacher link"):
            st.caption("It opens this room's panel: keep it off the projector and out of students' hands.")
            st.code(f"{own_base()}/?room={seated.code}&teacher={st.session_state[TOKEN_KEY]}", language=None,
                    wrap_lines=True)  # this browser's own address: the teacher opens it here
    elif st.button("Open the teacher's screen", icon=":material/cast_for_education:") or \
            st.session_state.pop(JOINED_KEY, False):  # a student who joins lands on the teacher's lesson
        open_teacher_view(seated.code)
    if st.session_state.pop(CLOSE_KEY, False):
        _close_sidebar(key="room:close-sidebar")
    if st.button("Leave the room", key="room:leave"):
        set_value("room", "")
        set_value("seat", "")
        st.session_state.pop(TOKEN_KEY, None)
        st.rerun()


# On a phone the sidebar covers most of the screen (about 77 % at 390 px wide) and Streamlit keeps it open across
# st.switch_page: once the student is on the teacher's lesson, the browser closes it, as the student's own tap on its
# close button would (which Streamlit also remembers). Only where the sidebar overlays the lesson (Streamlit's md
# breakpoint); a wide screen keeps it. Static code: nothing a visitor typed reaches it.
_close_sidebar = st.components.v2.component("room_close_sidebar", js="""
export default function ({ parentElement }) {
  const page = parentElement.ownerDocument;
  if (page.defaultView.innerWidth >= 768) return;
  if (page.querySelector('[data-testid="stSidebar"]')?.getAttribute('data-collapsed') !== 'false') return;
  page.querySelector('[data-testid="stSidebarCollapseButton"] button')?.click();
}
""")


# "Start a room" is replaced by the room's own buttons, and the browser's focus would fall back to the page's start:
# a keyboard user continues on "Show the join code" instead. Static code: nothing a visitor typed reaches it.
_focus_join_button = st.components.v2.component("room_focus_join", js="""
export default function ({ parentElement }) {
  parentElement.ownerDocument.querySelector('.st-key-room-show-code button')?.focus();
}
""")


def _start() -> None:
    """The Start button's callback: the run that follows is already in the room (or says why not)."""
    found = store()
    try:
        result, code, token = start_room(found) if found is not None else (None, "", "")
    except StoreUnavailable:
        result = None
    if result is None or not result.ok:
        st.session_state[START_NOTE] = result.message if result is not None else OFF
        return
    st.session_state[TOKEN_KEY] = token
    st.session_state[STARTED_KEY] = True
    set_value("room", code)
    set_value("quiz", True)  # the room's questions are class mode's: the teacher sees them with the counts


def own_base() -> str:
    """The app's address as this browser opened it, without the screen's path or a trailing slash."""
    parts = urlsplit(st.context.url or "http://localhost:8501/")
    path = parts.path.rstrip("/")
    page = st.session_state.get("page_path", "")
    if page and path.endswith("/" + page):
        path = path[: -len(page) - 1]
    return f"{parts.scheme}://{parts.netloc}{path}"


def join_address(code: str) -> tuple[str, str | None]:
    """(the link a student scans: an address phones can open and `?room=CODE`, nothing else (no token, no settings);
    the loopback address it replaced, or None). rooms/address.py picks the address."""
    base, loopback = address.reachable_base(own_base())
    return f"{base}/?room={code}", loopback


def qr_png(link: str) -> bytes:
    """The join link as a QR code (error correction M: a projector's glare and a phone at 10 m still read it)."""
    buffer = io.BytesIO()
    segno.make(link, error="m").save(buffer, kind="png", scale=12, border=2)
    return buffer.getvalue()


@st.dialog("Join the room", width="large")
def join_dialog(code: str) -> None:
    link, loopback = join_address(code)
    left, right = st.columns([3, 2], vertical_alignment="center")
    left.image(qr_png(link), width=520, caption="Scan to join")
    right.markdown(f"# {codes.format_code(code)}")
    right.markdown("or type the code under **Class room** in the sidebar, or open")
    right.code(link, language=None, wrap_lines=True)
    if loopback is None:
        return  # (in code spans below: a browser sends an address %-encoded, so it holds no backtick)
    if link.startswith(loopback + "/"):  # no network address found: the code leads nowhere for a phone
        st.warning(f"This browser opened the app at `{loopback}`, an address only this computer can open, and this "
                   f"computer has no network address: phones cannot open this code. Set `{address.ENV_VAR}` to the "
                   "address students can open (docs/teaching.md).", icon=":material/wifi_off:")
    else:
        st.info(f"This browser opened the app at `{loopback}`, an address only this computer can open; the code "
                f"carries this computer's network address instead, for phones on the same network. If they cannot "
                f"open it (a guest network, a firewall), set `{address.ENV_VAR}` (docs/teaching.md).",
                icon=":material/wifi:")


def share_view(seated: Seat | None, page_path: str) -> None:
    """The teacher's screen and settings, written to the room when they change, for students to open in one click."""
    if seated is None or not seated.teacher:
        return
    query = urlencode(url_params({name: value(name) for name in PARAMS if name not in PRIVATE}))
    view = f"{page_path}?{query}"
    if st.session_state.get(VIEW_KEY) == view:
        return
    found = store()
    try:
        if found is not None and found.set_teacher_view(seated.code, view).ok:
            st.session_state[VIEW_KEY] = view
    except StoreUnavailable:
        pass


def open_teacher_view(code: str) -> None:
    """Switch to the teacher's screen with the teacher's settings (each value validated like any URL's)."""
    found = store()
    try:
        view = found.teacher_view(code) if found is not None else None
    except StoreUnavailable:
        view = None
    if not view:
        st.info("The teacher has not opened a screen in this room yet.", icon=":material/info:")
        return
    page_path, _, query = view.partition("?")
    screen = catalog.SCREENS.get(page_path or "home")
    if screen is None:
        st.info("The teacher's screen is not one this app has.", icon=":material/info:")
        return
    params = {name: raw for name, raw in parse_qsl(query)[:64] if name in PARAMS and name not in PRIVATE
              and parse_param(name, raw)[1] is None}
    st.session_state.pop("url_notes", None)  # the next run reads its settings from the URL again (ui/state/session.py)
    st.session_state[CLOSE_KEY] = True  # the lesson, not the sidebar, fills a phone's screen on arrival
    st.switch_page(screen.file, query_params=params | {"room": code, "seat": value("seat"), "quiz": "1"})
