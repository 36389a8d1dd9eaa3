"""End-to-end in Debian's Chromium: shared links, every screen, a slider, the URL and a reload."""
import pytest

from browser import chromium_page, exceptions, require_browser, streamlit_server, wait_idle
from screens.registry import BY_NAME, SCREENS


@pytest.fixture(scope="module")
def server():
    require_browser()
    with streamlit_server() as base:
        yield base


def test_a_shared_link_works_as_the_first_request_to_a_fresh_server():
    require_browser()
    with streamlit_server() as base, chromium_page() as page:
        page.goto(f"{base}/mask?query=3")
        wait_idle(page)
        assert exceptions(page) == []
        assert page.locator('[role="dialog"]').count() == 0  # no "Page not found" over the page
        assert page.locator('[data-testid="stSidebar"] .st-key-preset').count() == 1
        assert page.locator("h1").first.inner_text().startswith(BY_NAME["mask"].title)


@pytest.mark.parametrize("screen", SCREENS, ids=[s.name for s in SCREENS])
def test_every_screen_loads_without_an_exception(server, screen):
    with chromium_page() as page:
        page.goto(f"{server}/{screen.url_path}")
        wait_idle(page)
        assert exceptions(page) == []
        heading = page.locator("h1").first.inner_text()  # waits for a heading; fails if none comes
        if screen.stage:  # a stage screen's heading begins with its title in the navigation
            assert heading.startswith(screen.title), heading


def test_the_views_query_slider_draws_in_the_browser_writes_the_url_and_survives_a_reload(server):
    with chromium_page() as page:
        sent = []
        page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
        page.goto(f"{server}/scores")
        wait_idle(page)
        worked = page.locator(".av-arith").first
        # The cell worked by hand: ω(2,1) = x2·x1 = 0.9544 becomes ω(3,1) = x3·x1 = 0.9422 (the book's scores).
        assert worked.inner_text() == "ω(2,1) = x2·x1 = 0.5500×0.4300 + 0.8700×0.1500 + 0.6600×0.8900 = 0.9544"
        before = len(sent)
        page.locator("input[data-control=query]").first.focus()
        page.keyboard.press("ArrowRight")
        assert worked.inner_text().startswith("ω(3,1) = x3·x1 = ") and worked.inner_text().endswith("= 0.9422")
        page.wait_for_function("location.search.includes('query=3')", timeout=5_000)
        assert len(sent) == before  # drawn in the browser: nothing went to the server
        page.keyboard.press("Enter")  # commit: Python learns the query (one rerun)
        wait_idle(page)
        assert len(sent) > before and exceptions(page) == []
        page.reload()
        wait_idle(page)
        assert page.locator("input[data-control=query]").first.input_value() == "3"
        assert page.locator(".av-arith").first.inner_text().endswith("= 0.9422")


def test_a_sidebar_control_leaves_the_book_preset_and_is_shared_across_screens(server):
    with chromium_page() as page:
        page.goto(f"{server}/scores")
        wait_idle(page)
        page.locator(".st-key-d_out input[type=range]").focus()
        page.keyboard.press("ArrowRight")
        wait_idle(page)
        assert "d_out=3" in page.url and "preset=custom" in page.url
        page.get_by_role("link", name=BY_NAME["heads"].title).click()
        wait_idle(page)
        # On the heads screen now (the URL kept d_out=3 even if the click had done nothing).
        assert page.locator("h1").first.inner_text().startswith(BY_NAME["heads"].title)
        assert "/heads?" in page.url and "d_out=3" in page.url
        assert page.locator(".st-key-d_out input[type=range]").input_value() == "3"
        assert exceptions(page) == []
