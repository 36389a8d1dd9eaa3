"""Warm-up: as the server starts, it opens each stage screen at each preset once, so that the first student at
?preset=gpt2-small finds GPT-2 small's screens computed instead of waiting for a 1,024-token layer.

When: `streamlit run app.py` serves main.py through app.py's st.App, whose lifespan starts this warm-up when the
server starts, before any visitor (a plain Streamlit script cannot: Streamlit runs no app code before the first
visit, and that visitor waited for the cold screen). main.py's first run calls start_once() too, for a server
started as `streamlit run main.py`; it starts the thread once per process either way.

How: one background thread per process opens every stage screen in a headless session of the server's own
Streamlit Runtime: an ordinary AppSession whose client drops what it is sent, the way Streamlit's agent sessions
work. Each open is a real run of main.py and the screen, the same path a browser tab's first run takes, so it fills
the process-wide caches (ui/compute/cache.py's byte caches, the views' payloads in ui/draw/view_route.py,
st.cache_data and st.cache_resource, the PNG images) with exactly the keys a visitor's first screen asks for. Every
session then shares those results: one copy in memory, not one per session. Nothing is kept on disk: a start
computes everything again (all 20 screens took 24 s on 2 cores, GPT-2 small's ten 17 s of it), so no result can outlive the
code or the torch build that made it.

Why not streamlit.testing's AppTest in this thread: AppTest.run swaps Streamlit's Runtime singleton for a mock
during its run, sets it to None afterwards and patches config.get_option process-wide, which would break every
live session of the server; its st.cache_data also lives in a storage of its own, not the server's.

Polite and bounded: the warm-up's runs go through main.py, so each waits for the gate (ui/server/run_gate.py) in line
like any visitor's run; it opens one screen at a time, so a student who arrives meanwhile waits for at most one
screen of it; each open has a time limit, and there is one open per stage screen and preset. A failure is logged and
never reaches a visitor.

ATTENTION_WARMUP=0 turns it off (the test servers do); ATTENTION_WARMUP=book names the presets to warm
(comma-separated; default: book, then gpt2-small).
"""
import asyncio
import os
import threading
import time
from dataclasses import dataclass

from streamlit import config, runtime
from streamlit.logger import get_logger
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime.session_manager import SessionClient

from attention_core.lessons.presets import PRESETS, url_params

ENV_VAR = "ATTENTION_WARMUP"
# The book first: its ten screens take 0.6 s each, so the teacher who opens the app as the server starts waits for
# one of them, not for a 1,024-token screen (the home page opened at once took 8.0-12.5 s from the visit with GPT-2 small first, 2026-11-27);
# GPT-2 small's screens are still computed about 30 s after the start, before a class arrives.
PRESETS_WARMED = ("book", "gpt2-small")
SCREEN_TIMEOUT_S = 120  # one screen's run, gate wait included; a cold GPT-2-sized /heads takes a few seconds here
_LOG = get_logger(__name__)  # Streamlit's handler and level: the lines reach the server's log

_lock = threading.Lock()
_thread: threading.Thread | None = None


@dataclass
class Opened:
    preset: str
    screen: str
    seconds: float
    ok: bool
    why: str = ""


def presets_wanted() -> tuple[str, ...]:
    """The presets to warm from ATTENTION_WARMUP: none for 0/off/no/false, else the names given (default both)."""
    given = os.environ.get(ENV_VAR, "").strip().lower()
    if given in {"0", "off", "no", "false"}:
        return ()
    if not given or given in {"1", "on", "yes", "true"}:
        return PRESETS_WARMED
    return tuple(name for name in (part.strip() for part in given.split(",")) if name in PRESETS)


def targets(stages, presets=None) -> list[tuple[str, str]]:
    """(preset, url path) pairs: every stage screen (URL paths, in the registry's order) at every preset to warm,
    /heads first (the dearest: a student who opens it while the warm-up runs would otherwise wait for the others)."""
    ordered = sorted(stages, key=lambda name: name != "heads")
    return [(preset, screen) for preset in (presets_wanted() if presets is None else presets) for screen in ordered]


def start_once(stages) -> threading.Thread | None:
    """Start the warm-up thread for these stage screens (URL paths; the caller, above this floor, reads the
    registry), once per process, inside a real server (never under AppTest, never when off)."""
    global _thread
    wanted = targets(stages)
    with _lock:
        if _thread is not None:
            return _thread
        live = _live_runtime()
        if live is None or not wanted:
            return None
        _thread = threading.Thread(target=warm, args=(live, wanted), name="attention-warmup", daemon=True)
        _thread.start()
        return _thread


def _live_runtime():
    """The server's Runtime, or None under AppTest (whose mock Runtime stands in while it runs) or outside a server."""
    if not runtime.exists() or config.get_option("global.appTest"):
        return None
    return runtime.get_instance()


def warm(live, wanted: list[tuple[str, str]]) -> list[Opened]:
    """Open each (preset, screen) in turn in a headless session of `live`; returns (and logs) what happened."""
    try:
        loop = live._get_async_objs().eventloop  # the Runtime's event loop: sessions are made and closed on it
    except Exception as error:  # a Runtime not started: nothing to warm, and nothing a visitor must see
        _LOG.warning("warm-up skipped: %s", error)
        return []
    started, opened = time.perf_counter(), []
    for preset, screen in wanted:
        if not loop.is_running():  # the server is stopping: each screen would only wait out its time limit
            _LOG.info("warm-up stopped: the server's event loop is not running")
            break
        begun = time.perf_counter()
        try:
            future = asyncio.run_coroutine_threadsafe(_open(live, preset, screen), loop)
            ok, why = future.result(SCREEN_TIMEOUT_S + 10)
        except Exception as error:  # a timeout or a stopped server: go on with the next one, or stop quietly
            ok, why = False, f"{type(error).__name__}: {error}"
        opened.append(Opened(preset, screen, time.perf_counter() - begun, ok, why))
        _LOG.info("warm-up: /%s at preset %s in %.2f s%s", screen, preset, opened[-1].seconds,
                  "" if ok else f" ({why})")
        time.sleep(0.05)  # a visitor whose run waits at the gate gets the slot before the next screen
    _LOG.info("warm-up: %d screens in %.1f s", len(wanted), time.perf_counter() - started)
    return opened


async def _open(live, preset: str, screen: str) -> tuple[bool, str]:
    """One screen's first run, as a browser tab opening /<screen>?preset=<preset> makes it; runs on the event loop."""
    client = _Discard()
    session_id = live.connect_session(client=client, user_info={})
    try:
        live.mark_session_nonresumable(session_id)
        session = live.get_app_session(session_id)
        session.track_settling()  # settled: the run is over and its messages were handed to the client
        session.set_run_on_save(False)
        query = "&".join(f"{k}={v}" for k, v in url_params({"preset": preset}).items())
        session.request_rerun(ClientState(query_string=query, page_name=screen))
        await asyncio.wait_for(session.wait_until_settled(), SCREEN_TIMEOUT_S)
    finally:
        live.close_session(session_id)
    return client.outcome()


class _Discard(SessionClient):
    """A session client that keeps no message: it only notes whether the run finished and raised nothing."""

    def __init__(self):
        self.finished, self.errors = False, []

    def write_forward_msg(self, msg: ForwardMsg) -> None:
        try:  # the Runtime's message loop calls this for every session: an exception here would end it for all
            kind = msg.WhichOneof("type")
            if kind == "script_finished":
                self.finished = msg.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                if msg.delta.new_element.WhichOneof("type") == "exception":
                    self.errors.append(msg.delta.new_element.exception.message[:200])
        except Exception as error:
            self.errors.append(f"{type(error).__name__}: {error}")

    @property
    def client_context(self):
        return None

    def outcome(self) -> tuple[bool, str]:
        if self.errors:
            return False, "; ".join(self.errors)
        return self.finished, "" if self.finished else "the run did not finish"
