"""In Chromium: a control that only its own part of a screen depends on reruns only that part. A fragment rerun
sends its own elements and nothing else: at the book's size a move that redraws a whole screen's lesson took
160-240 ms to show, one that redraws a handful of elements 70-110 ms (docs/benchmark-llm-stages-2026-11-28.md)."""
from browser import chromium_page, exceptions, require_browser, streamlit_server, wait_idle


def _messages_received(page) -> list:
    """A list that grows by one entry (its size in bytes) for every websocket message the server sends the page."""
    received = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: received.append(len(payload))))
    return received


def test_gemmas_schedule_slider_reruns_only_its_own_part():
    require_browser()
    with streamlit_server() as base, chromium_page(height=1000) as page:
        received = _messages_received(page)
        page.goto(f"{base}/sliding-window?open=memory")
        wait_idle(page)
        saved = page.locator('[data-testid="stMetric"]').filter(has_text="saved")
        before = saved.inner_text()
        page.locator(".st-key-swa_ratio input[type=range]").focus()
        received.clear()
        page.keyboard.press("ArrowRight")  # Gemma 3's 5 : 1 -> 6 : 1
        page.wait_for_function("[...document.querySelectorAll('[data-testid=\"stMetric\"]')]"
                               ".some(m => m.innerText.includes('6 : 1'))", timeout=60_000)
        wait_idle(page)
        assert saved.inner_text() != before  # the schedule's saving followed the slider
        # the schedule's slider, metrics and sentence (about a dozen messages with the run's start and end), not the
        # screen's forty-odd elements: the view, the masks, the other sections
        assert 0 < len(received) <= 20, len(received)
        assert exceptions(page) == []
