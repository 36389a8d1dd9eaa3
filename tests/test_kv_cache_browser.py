"""In Chromium: /kv-cache at the book's size sends every head's steps, so Head moves in the view like Step: the bars
become the other head's row, and nothing goes to the server."""
import time

from browser import chromium_page, exceptions, require_browser, streamlit_server, wait_idle

from attention_core.book.inputs import BOOK_INPUTS
from attention_core.lessons import kv_cache as lesson


def test_head_moves_in_the_view_at_the_books_size():
    require_browser()
    record = lesson.generation_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, prompt=2)
    newest = [f"{w:.4f}" for w in record["weights_cached"][:, 3, :4].flatten().tolist()]  # step 3 adds token 4's row
    with streamlit_server() as base, chromium_page(height=1000) as page:
        sent = []
        page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
        page.goto(f"{base}/kv-cache")
        wait_idle(page)
        # the view draws its sliders after the run ends (its component's own script): wait for them, as
        # test_view_browser.py waits for the view (a slow processor failed here once, finding none yet)
        page.wait_for_selector(".av-slider:not([hidden]) .av-slider-name", timeout=30_000)
        assert page.locator(".av-slider:not([hidden]) .av-slider-name").all_inner_texts()[:2] == ["Step", "Head"]
        assert page.locator(".st-key-head").count() == 0  # no Head control on the screen: it is the view's
        bars = page.locator(".av-row-set:not([hidden])").nth(0).locator(".av-bar:not([hidden]) .av-bar-value")
        assert bars.all_inner_texts() == newest[:4]  # head 1
        before = len(sent)
        page.locator("input[data-control=frame1]").focus()
        page.keyboard.press("ArrowRight")  # head 1 -> 2
        time.sleep(0.5)
        assert bars.all_inner_texts() == newest[4:]
        assert len(sent) == before and exceptions(page) == []
