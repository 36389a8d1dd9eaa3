"""In Chromium: /kv-cache at the book's size sends every head of every head count at every step, so num_heads and
Head move in the view like Step: the bars become the other head's row, or the 1-head layer's, and nothing goes to the
server until Enter commits the count."""
import time

from browser import chromium_page, exceptions, require_browser, streamlit_server, wait_idle

from attention_core.book.inputs import BOOK_INPUTS
from attention_core.lessons import kv_cache as lesson


def test_num_heads_and_head_move_in_the_view_at_the_books_size():
    require_browser()
    record = lesson.generation_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, prompt=2)
    newest = [f"{w:.4f}" for w in record["weights_cached"][:, 3, :4].flatten().tolist()]  # step 3 adds token 4's row
    one = lesson.generation_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=1, prompt=2)
    alone = [f"{w:.4f}" for w in one["weights_cached"][0, 3, :4].tolist()]
    with streamlit_server() as base, chromium_page(height=1000) as page:
        sent = []
        page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
        page.goto(f"{base}/kv-cache")
        wait_idle(page)
        # the view draws its sliders after the run ends (its component's own script): wait for them, as
        # test_view_browser.py waits for the view (a slow processor failed here once, finding none yet)
        page.wait_for_selector(".av-slider:not([hidden]) .av-slider-name", timeout=30_000)
        names = page.locator(".av-slider:not([hidden]) .av-slider-name").all_inner_texts()
        assert names[:3] == ["Step", "num_heads", "Head"]
        # no num_heads or Head control on the screen: they are the view's
        assert page.locator(".st-key-head").count() == 0 and page.locator(".st-key-heads").count() == 0
        bars = page.locator(".av-row-set:not([hidden])").nth(0).locator(".av-bar:not([hidden]) .av-bar-value")
        assert bars.all_inner_texts() == newest[:4]  # head 1
        before = len(sent)
        page.locator("input[data-control=frame2]").focus()
        page.keyboard.press("ArrowRight")  # head 1 -> 2
        time.sleep(0.5)
        assert bars.all_inner_texts() == newest[4:]
        page.locator("input[data-control=frame1]").focus()
        page.keyboard.press("ArrowLeft")  # 2 heads -> 1: the Head slider shrinks to the one head
        time.sleep(0.5)
        assert bars.all_inner_texts() == alone != newest[:4]
        assert page.locator("input[data-control=frame2]").get_attribute("max") == "1"
        assert len(sent) == before and exceptions(page) == []
        page.keyboard.press("Enter")  # the count goes to the lesson: the screen's line follows
        page.wait_for_function("document.body.innerText.includes('num_heads = 1')", timeout=30_000)
        wait_idle(page)
        assert len(sent) > before and exceptions(page) == []
