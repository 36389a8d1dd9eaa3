"""The warm-up (ui/server/warmup.py) opens stage screens in a headless session of a real Streamlit Runtime, so the
process-wide caches hold what a visitor's first screen asks for: afterwards that screen computes nothing new."""
import asyncio
import sys
import threading
import time
from contextlib import contextmanager

from streamlit import config
from streamlit.runtime import Runtime, RuntimeConfig
from streamlit.runtime.caching.storage.dummy_cache_storage import MemoryCacheStorageManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager

from conftest import APP, ROOT, open_screen

from attention_core.lessons import traces
from ui.compute import byte_cache
from screens.registry import STAGE_PATHS
from ui.server import warmup

sys.path.insert(0, str(ROOT / "scripts"))
import local_server  # noqa: E402


@contextmanager
def live_runtime():
    """A started Runtime on an event loop of its own, as `streamlit run` makes one (without the web server)."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    watcher = config.get_option("server.fileWatcherType")
    config.set_option("server.fileWatcherType", "none")
    live = Runtime(RuntimeConfig(script_path=APP, media_file_storage=MemoryMediaFileStorage("/media"),
                                 uploaded_file_manager=MemoryUploadedFileManager("/upload"),
                                 cache_storage_manager=MemoryCacheStorageManager()))
    try:
        asyncio.run_coroutine_threadsafe(live.start(), loop).result(30)
        yield live
    finally:
        async def stop():
            live.stop()
            await live.stopped
        asyncio.run_coroutine_threadsafe(stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        Runtime._instance = None  # AppTest (the visitor below) installs its own
        config.set_option("server.fileWatcherType", watcher)


def entries() -> dict[str, int]:
    return {cache.name: len(cache.items) for cache in byte_cache._ALL}


def test_the_warmup_fills_the_caches_and_a_first_visitor_then_computes_nothing(monkeypatch):
    monkeypatch.setenv(warmup.ENV_VAR, "0")  # main.py's own start_once() in the warm-up's runs stays off
    computed = []
    real = traces.projection_trace
    monkeypatch.setattr(traces, "projection_trace", lambda *a, **k: computed.append(a[1]) or real(*a, **k))
    with live_runtime() as live:
        opened = warmup.warm(live, warmup.targets(["scores", "softmax"], ["book"]))
    assert [(o.preset, o.screen, o.ok, o.why) for o in opened] == [("book", "scores", True, ""),
                                                                   ("book", "softmax", True, "")]
    assert sorted(computed) == ["none", "v1"]  # /scores' x·x scores, then /softmax's SelfAttention_v1
    warmed = entries()
    assert warmed["payload"] >= 2  # the views' data: a map on each screen (ui/compute/built.py)

    for screen in ("scores", "softmax"):  # a visitor's first screen, in this process: the caches are shared
        assert not open_screen(screen).exception
    assert sorted(computed) == ["none", "v1"] and entries() == warmed


def test_the_warmup_is_off_under_apptest_and_by_its_switch(monkeypatch):
    stages = STAGE_PATHS  # the registry's stages, /heads (the dearest) first, then in its order
    assert warmup.start_once(stages) is None  # no live Runtime here (AppTest installs a mock one while it runs)
    monkeypatch.setenv(warmup.ENV_VAR, "0")
    assert warmup.targets(stages) == []
    monkeypatch.setenv(warmup.ENV_VAR, "book")
    assert stages[:5] == ["scores", "softmax", "mask", "dropout", "heads"]
    assert warmup.targets(stages) == [("book", s) for s in ["heads"] + [s for s in stages if s != "heads"]]
    monkeypatch.delenv(warmup.ENV_VAR)
    n = len(stages)
    assert [p for p, _ in warmup.targets(stages)] == ["book"] * n + ["gpt2-small"] * n  # the teacher's first page first


def test_the_server_starts_the_warmup_before_any_visitor(monkeypatch):
    """`streamlit run app.py` runs app.py's st.App: its lifespan starts the warm-up when the server starts, so the
    screens are computed with nobody on the page (a plain Streamlit script runs nothing before its first visit)."""
    monkeypatch.setenv(warmup.ENV_VAR, "book")  # the server inherits it: the book's screens, a few tenths of a s each
    with local_server.streamlit_server(ROOT / "app.py") as (_base, _proc, log):
        deadline = time.time() + 120
        while "warm-up: /heads at preset book" not in log.read_text(errors="replace") and time.time() < deadline:
            time.sleep(0.5)
        text = log.read_text(errors="replace")
    assert "warm-up: /heads at preset book in" in text, text[-2000:]  # /heads first, the dearest screen
