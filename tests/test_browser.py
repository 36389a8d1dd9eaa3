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


def test_a_slider_moved_by_keyboard_updates_the_chart_and_the_url_and_survives_a_reload(server):
    with chromium_page() as page:
        page.goto(f"{server}/scores")
        wait_idle(page)
        latex_before = page.locator('[data-testid="stMarkdownContainer"] .katex').first.inner_text()
        page.locator(".st-key-query input[type=range]").focus()
        page.keyboard.press("ArrowRight")
        wait_idle(page)
        assert "query=3" in page.url
        # "One cell, by hand": ω₂,₁ = x⁽²⁾·x⁽¹⁾ = 0.9544 becomes ω₃,₁ = x⁽³⁾·x⁽¹⁾ = 0.9422 (the book's scores).
        assert "0.9544" in latex_before
        assert "0.9422" in page.locator('[data-testid="stMarkdownContainer"] .katex').first.inner_text()
        page.reload()
        wait_idle(page)
        assert page.locator(".st-key-query input[type=range]").input_value() == "2"  # index of token 3


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
