"""Every browser-handled control on every screen with an attention view, in Debian's Chromium: each slider of
each view moves, nothing reaches the server, the address bar follows, and the value drawn for the selected
cell is the one Python sent for it (tests/test_screen_*.py check those numbers against the tensors)."""
import os
import re
import time
from pathlib import Path

import pytest

from browser import chromium_page, exceptions, require_browser, streamlit_server, wait_idle
from conftest import code_text, open_screen, view_row, views
from gpt2_tiny import save_tiny
from screens.registry import SCREENS as REGISTRY

ROOT = Path(__file__).resolve().parent.parent

# Every screen of the registry whose lesson draws the attention view (its file calls ui.show_view): a new stage with a
# view is tested here without an edit (/gpt2 needs a tiny model: its own test below).
SCREENS = [s.name for s in REGISTRY if s.name != "gpt2" and "ui.show_view(" in (ROOT / s.file).read_text()]
SLIDERS = """root => [...root.querySelectorAll('.av-slider:not([hidden]) input')].map(i => i.dataset.control)"""


@pytest.fixture(scope="module")
def server():
    require_browser()
    with streamlit_server() as base:
        yield base


@pytest.fixture(scope="module")
def gpt2_server(tmp_path_factory):
    """A server whose /gpt2 reads a tiny GPT-2 built here (no download, no real weights)."""
    require_browser()
    directory = tmp_path_factory.mktemp("gpt2-view")
    save_tiny(directory, n_layer=2, n_head=4, n_embd=64, n_positions=80)
    before = os.environ.get("GPT2_DIR")
    os.environ["GPT2_DIR"] = str(directory)  # the server inherits it; so does this process's AppTest
    try:
        with streamlit_server() as base:
            yield base
    finally:
        if before is None:
            os.environ.pop("GPT2_DIR", None)
        else:
            os.environ["GPT2_DIR"] = before


def _expected(view: dict, state: dict) -> str:
    """The readout's value for the view's state, decoded from what Python sent (as the browser must)."""
    meta = view["meta"]
    i, j, frame = state["query"], state["key"], state["frame"]
    if "dropped" in view:  # the cells Python marked as removed by this dropout draw (view_data.dropped_bits)
        import numpy as np
        bits = np.unpackbits(view["dropped"]["bits"].to_numpy().astype(np.uint8), bitorder="little")
        if bits[((frame if meta["framed"] else 0) * meta["rows"] + i) * meta["cols"] + j]:
            return f"{code_text(0)}: dropped by this draw"
    shown = view_row(view, i, frame=frame)
    if j in shown:
        return shown[j]
    if meta.get("causal") and j > i:
        return "masked"
    return f"a smaller value: at this size only each row's {meta['top']} largest are printed"


@pytest.mark.parametrize("screen", SCREENS)
def test_every_view_slider_moves_in_the_browser_and_draws_what_python_sent(server, screen):
    check_every_slider(server, screen)


def test_the_gpt2_screens_layer_and_head_grid_moves_in_the_browser(gpt2_server):
    check_every_slider(gpt2_server, "gpt2")


def check_every_slider(server: str, screen: str) -> None:
    sent_by_title = {v["meta"]["title"]: v for v in views(open_screen(screen)).values()}
    with chromium_page() as page:
        sent = []
        page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
        page.goto(f"{server}/{screen}")
        wait_idle(page)
        assert exceptions(page) == []
        roots = page.locator(".av")
        assert roots.count() == len(sent_by_title) >= 1
        before, moved = len(sent), 0
        for n in range(roots.count()):
            root = roots.nth(n)
            view = sent_by_title[root.locator(".av-title").inner_text()]
            for control in root.evaluate(SLIDERS):
                thumb = root.locator(f"input[data-control={control}]")
                if int(thumb.get_attribute("max")) < 2:
                    continue
                start = thumb.input_value()
                thumb.focus()
                page.keyboard.press("End")  # the far end of the slider (or its start, if it opened at the end)
                if thumb.input_value() == start:
                    page.keyboard.press("Home")
                assert thumb.input_value() != start, (screen, control)
                moved += 1
                state = root.evaluate("r => r.attentionView.state")
                readout = root.locator(".av-readout")
                if readout.is_visible():
                    assert readout.inner_text().split(": ", 1)[1] == _expected(view, state), (screen, control, state)
        assert moved >= 2
        time.sleep(0.4)  # the address bar is written 150 ms after the last move
        assert len(sent) == before, f"{len(sent) - before} message(s) went to the server on {screen}"
        address = page.evaluate("() => location.href")  # page.url lags behind history.replaceState
        params = dict(re.findall(r"[?&]([a-z_]+)=([^&]*)", address))
        titles = [roots.nth(n).locator(".av-title").inner_text() for n in range(roots.count())]
        # The last view moved that writes the app's query (an experiment's map, /softmax's d_k, writes only its frame).
        # /trained's probe is not the sidebar's tokens: its view opens on a cell of its own and follows none.
        follows = [n for n, title in enumerate(titles) if sent_by_title[title]["meta"].get("url_selection", True)]
        query = roots.nth(follows[-1]).evaluate("r => r.attentionView.state")["query"] + 1 if follows else None
        assert params.get("query") == (None if query is None else str(query)), (screen, address)
        for n in sorted(set(range(len(titles))) - set(follows)):  # its own query moves leave the app's alone
            roots.nth(n).locator("input[data-control=query]").focus()
            page.keyboard.press("Home")
            time.sleep(0.4)
            assert params.get("query") == dict(re.findall(r"[?&]([a-z_]+)=([^&]*)", page.evaluate("() => location.href"))).get("query"), (screen, titles[n])
        for n, title in enumerate(titles):  # each one-dimensional stack's frame is in the address too
            frames = sent_by_title[title]["meta"]["frames"]
            if frames and len(frames["dims"]) == 1:
                dim, frame = frames["dims"][0], roots.nth(n).evaluate("r => r.attentionView.state.frame")
                assert float(params.get(dim["param"], "nan")) == float(dim["values"][frame]), (screen, title, address)


def test_the_heads_view_scrubs_every_head_count_and_enter_makes_the_lesson_follow(server):
    # d_out = 12 at the book's 6 tokens: every divisor's heads are in the view. Its Head slider is as long as the
    # count picked (head 5 of 4 heads does not exist), and Enter commits both to the lesson (one rerun).
    metrics = """() => [...document.querySelectorAll('[data-testid="stMetric"]')].map(m => m.innerText.split('\\n').filter(Boolean))"""
    with chromium_page() as page:
        page.goto(f"{server}/heads?d_out=12")
        wait_idle(page)
        root = page.locator(".av").first
        count, head = root.locator("input[data-control=frame0]"), root.locator("input[data-control=frame1]")
        assert (count.get_attribute("max"), count.input_value(), head.get_attribute("max")) == ("6", "2", "2")
        head.focus()
        page.keyboard.press("End")  # head 2 of 2
        count.focus()
        for _ in range(2):
            page.keyboard.press("ArrowRight")  # 2 -> 3 -> 4 heads
        assert head.get_attribute("max") == "4" and head.input_value() == "2"  # the head it was on still exists
        page.keyboard.press("End")  # 12 heads, then back down to 4: head 12 becomes the last of 4
        head.focus()
        page.keyboard.press("End")
        count.focus()
        for _ in range(2):
            page.keyboard.press("ArrowLeft")
        assert (count.input_value(), head.get_attribute("max"), head.input_value()) == ("4", "4", "4")
        assert exceptions(page) == []
        page.keyboard.press("Enter")  # (the address bar already says heads=4: the view writes it on every move)
        page.wait_for_function(f"() => ({metrics})()[0]?.[1] === '4'", timeout=10_000)
        wait_idle(page)
        assert page.evaluate(metrics)[:2] == [["num_heads", "4"], ["head_dim", "3"]]
        assert "head=4" in page.evaluate("() => location.href") and exceptions(page) == []
