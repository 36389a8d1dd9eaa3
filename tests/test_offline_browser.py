"""The app makes no network calls of its own: every request a page makes goes to the app's own server.

A Material icon as page_icon made the browser fetch the favicon from a font server (issue 38), which fails on a
school network without internet and contradicts .streamlit/config.toml's promise. The favicon is a shipped file now.
"""
from urllib.parse import urlparse

from browser import chromium_page, exceptions, require_browser, streamlit_server, wait_idle


def test_a_screen_asks_only_its_own_server_for_anything_favicon_included():
    require_browser()
    with streamlit_server() as base, chromium_page() as page:
        asked = []
        page.on("request", lambda request: asked.append(request.url))
        page.goto(f"{base}/softmax")
        wait_idle(page)
        assert exceptions(page) == []
        icon = page.locator('link[rel~="icon"]').first.get_attribute("href")
        own = urlparse(base).netloc
        assert icon and urlparse(icon).netloc in ("", own), icon  # served by the app (a relative or own address)
        elsewhere = [url for url in asked if urlparse(url).scheme in ("http", "https", "ws", "wss")
                     and urlparse(url).netloc != own]
        assert elsewhere == [], elsewhere
