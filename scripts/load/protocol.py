"""One browser tab as the server sees it: Streamlit's websocket protocol, spoken without a browser.

The websocket is /_stcore/stream with the subprotocol "streamlit"; the browser sends BackMsg
protobufs (a rerun request with the widgets' values) and receives ForwardMsg ones (the elements,
then `script_finished`). Behind HAProxy a Student keeps the APP_SERVER cookie, as a browser does.
"""
import asyncio
import random
import re
import time
from dataclasses import dataclass, field

import websockets  # installed with streamlit
from cluster import COOKIE
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

MOVABLE = ("query", "key", "dropout", "heads")  # page widgets a student drags (keys; see presets.PARAMS and each screen's params in screens/registry.py)
# Where a screen has an attention view, these moves are its sliders: the browser draws them and sends nothing
# (a student still makes them, and the report counts them as browser moves).
# key -> the screens whose view has that slider (None: every view). A size the view scrubs only at small sizes
# (dropout up to the byte budget, heads at the book's sizes) is a widget above them, and a widget wins.
VIEW_MOVES = {"query": None, "key": None, "dropout": {"dropout"}, "heads": {"heads"}}
SIDEBAR_MOVE = "d_out"  # moved now and then (it leaves the preset, as a curious student would)
WIDGET_ID = re.compile(r"^\$\$ID-[0-9a-f]{32}-(?P<key>.+)$")  # Streamlit's id of a keyed widget
FINISHED = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}


@dataclass
class RunResult:
    """What one rerun request brought back, up to the server's `script_finished`."""

    seconds: float
    status: int | None
    errors: list[str]
    widgets: dict  # key -> (element type, widget proto)
    bytes: int
    texts: list = field(default_factory=list)  # (element type, text, s after the request) of alerts and markdown
    started: float = 0.0  # time.perf_counter() when the request went out


class Student:
    """One browser tab, as the server sees it: a websocket and the client state the browser keeps."""

    largest_seen = 0  # the largest single ForwardMsg any student received, bytes

    def __init__(self, base: str, number: int, timeout: float, rng: random.Random, params: str = "",
                 server: str = ""):
        self.ws_url = base.replace("http://", "ws://").replace("https://", "wss://").rstrip("/") + "/_stcore/stream"
        self.number, self.timeout, self.rng, self.params = number, timeout, rng, params
        self.server = server  # the balancer's cookie: which app server this browser sticks to
        self.first_server = ""  # where the student landed first (its share in the report)
        self.ws = None
        self.query_string = params  # the address bar: the shared link first, then what the app writes
        self.left_preset = False  # a size move took this student off a fixed-size preset (students.move_kind)
        self.page_hash = ""
        self.pages = {}  # URL path -> page script hash (from the navigation message)
        self.widgets = {}  # key -> (element type, proto) of the last run
        self.last_sent = {}  # key -> value this student last chose
        self.auto_reruns = {}  # fragment id -> seconds: fragments with run_every, which the browser reruns on a timer

    async def connect(self):
        cookie = {"Cookie": f"{COOKIE}={self.server}"} if self.server else None
        self.ws = await asyncio.wait_for(
            websockets.connect(self.ws_url, subprotocols=["streamlit"], max_size=None, open_timeout=self.timeout,
                               ping_interval=20, ping_timeout=self.timeout, close_timeout=5,
                               additional_headers=cookie),
            self.timeout)
        # HAProxy names the server in the handshake's answer when it picks one (a first visit, or
        # the cookie's server is down); a browser keeps that cookie, and so does the student.
        for header in self.ws.response.headers.get_all("Set-Cookie"):
            name, _, value = header.split(";")[0].partition("=")
            if name.strip() == COOKIE:
                self.server = value.strip()
        self.first_server = self.first_server or self.server

    async def close(self):
        if self.ws is not None:
            try:
                await asyncio.wait_for(self.ws.close(), 5)
            except Exception:
                pass
            self.ws = None

    async def rerun(self, page_name: str | None = None, page_hash: str | None = None, widgets=(),
                    fragment_id: str = "") -> RunResult:
        """Send a rerun request (what the browser sends on load, page switch or widget change).

        A widget inside an @st.fragment reruns only that fragment: the browser then sends the
        fragment's id, and the server answers with the fragment's elements only.
        """
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query_string
        if page_name is not None:
            state.page_name = page_name
        state.page_script_hash = page_hash if page_hash is not None else self.page_hash
        if fragment_id:
            state.fragment_id = fragment_id
        for widget in widgets:
            state.widget_states.widgets.append(widget)
        start = time.perf_counter()
        await self.ws.send(msg.SerializeToString())
        errors, found, total, texts, timers = [], {}, 0, [], {}
        deadline = start + self.timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise asyncio.TimeoutError
            data = await asyncio.wait_for(self.ws.recv(), left)
            total += len(data)
            Student.largest_seen = max(Student.largest_seen, len(data))
            fwd = ForwardMsg()
            fwd.ParseFromString(data)
            kind = fwd.WhichOneof("type")
            if kind == "new_session":
                self.page_hash = fwd.new_session.page_script_hash
            elif kind == "navigation":
                self.pages = {p.url_pathname: p.page_script_hash for p in fwd.navigation.app_pages}
                self.page_hash = fwd.navigation.page_script_hash or self.page_hash
            elif kind == "page_info_changed":
                self.query_string = fwd.page_info_changed.query_string  # the browser's address bar
            elif kind == "auto_rerun":  # st.fragment(run_every=...): the browser sets a timer for it
                timers[fwd.auto_rerun.fragment_id] = fwd.auto_rerun.interval
            elif kind == "stop_auto_rerun":
                for gone in fwd.stop_auto_rerun.fragment_ids:
                    self.auto_reruns.pop(gone, None)
            elif kind == "page_not_found":
                errors.append(f"page not found: {fwd.page_not_found.page_name!r}")
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                element = fwd.delta.new_element
                etype = element.WhichOneof("type")
                if etype == "exception":
                    errors.append(f"{element.exception.type}: {element.exception.message}"[:300])
                proto = getattr(element, etype, None)
                if etype in ("alert", "markdown"):
                    texts.append((etype, proto.body, time.perf_counter() - start))
                match = WIDGET_ID.match(getattr(proto, "id", "") or "")
                if match:
                    found[match["key"]] = (etype, proto, fwd.delta.fragment_id)
            elif kind == "script_finished":
                status = fwd.script_finished
                if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:  # st.rerun(): the server runs the page again
                    found, fragment_id, timers = {}, "", {}  # a whole-page run follows: its widgets replace the fragment's
                    continue  # the student waits for that run, as the browser does
                if status not in FINISHED:
                    errors.append(f"script finished with status {ForwardMsg.ScriptFinishedStatus.Name(status)}")
                self.widgets = (self.widgets | found) if fragment_id else found
                # A whole-page run registers every timer the page still has; a fragment's run only adds its own.
                self.auto_reruns = (self.auto_reruns | timers) if fragment_id else timers
                return RunResult(time.perf_counter() - start, status, errors, found, total, texts, start)

    def move(self, key: str) -> WidgetState | None:
        """A new value for widget `key` on the current screen, as the browser would send it."""
        if key not in self.widgets:
            return None
        etype, proto, _fragment = self.widgets[key]
        state = WidgetState(id=proto.id)
        if etype == "slider" and proto.options:  # st.select_slider: the formatted option
            choices = [o for o in proto.options if o != self.last_sent.get(key)]
            if not choices:
                return None
            value = self.rng.choice(choices)
            state.string_array_value.data.append(value)
        elif etype == "slider":  # st.slider: a number
            low, high, step = proto.min, proto.max, proto.step or 1
            if key == SIDEBAR_MOVE:
                high = min(high, 8)  # a few dims, not a size experiment
            steps = int(round((high - low) / step))
            if steps < 1:
                return None
            value = low + step * self.rng.randint(0, steps)
            if value == self.last_sent.get(key):
                value = low + step * ((int(round((value - low) / step)) + 1) % (steps + 1))
            state.double_array_value.data.append(value)
        else:
            return None
        self.last_sent[key] = value
        return state

    def has_view(self) -> bool:
        """Whether the current screen drew an attention view (a components-v2 element)."""
        return any(etype == "bidi_component" for etype, _proto, _fragment in self.widgets.values())

    def fragment_of(self, key: str) -> str:
        """The id of the fragment that drew widget `key` ("" for the page itself)."""
        return self.widgets[key][2] if key in self.widgets else ""
