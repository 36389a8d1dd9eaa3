"""In Chromium: num_heads on /heads sits inside the screen's fragment, so moving it reruns only that part; at GPT-2
small it leaves the preset, and the page must rerun whole for the sidebar, the URL and the note to say so."""
from browser import chromium_page, exceptions, require_browser, streamlit_server, wait_idle


def test_moving_num_heads_at_gpt2_small_says_custom_everywhere():
    require_browser()
    with streamlit_server() as base, chromium_page(height=1000) as page:
        page.goto(f"{base}/heads?preset=gpt2-small")
        wait_idle(page)
        page.locator(".st-key-heads input[type=range]").focus()
        page.keyboard.press("ArrowLeft")  # 12 -> 8 heads (the divisors of 768)
        page.wait_for_function("location.search.includes('preset=custom')", timeout=60_000)
        wait_idle(page)
        assert "heads=8" in page.url
        notes = page.locator('[data-testid="stAlert"]').all_inner_texts()
        said = "heads 12 → 8: you left the GPT-2 small preset; these sizes are custom."
        assert any(said in n for n in notes), notes
        assert page.locator(".st-key-preset input").first.input_value() == "Custom"  # the sidebar redrew too
        assert exceptions(page) == []


def test_a_control_whose_range_moves_keeps_its_value():
    # W's slider runs from 1 to the tokens: a Tokens move changes its max, and Streamlit then makes a new widget,
    # which took the slider's minimum (W = 3 became 1 at GPT-2 small, and the window's maps were rebuilt for it)
    # unless its value was set from Session State in that run (ui.state.session.control now always does).
    require_browser()
    with streamlit_server() as base, chromium_page(height=1000) as page:
        page.goto(f"{base}/sliding-window?input=random&tokens=100&sliding_window=7")
        wait_idle(page)
        window = page.locator(".st-key-sliding_window input[type=range]")
        assert window.input_value() == "7"
        page.locator(".st-key-tokens input[type=range]").focus()
        page.keyboard.press("ArrowLeft")  # 100 -> 99 tokens: W's slider now ends at 99
        page.wait_for_function("location.search.includes('tokens=99')", timeout=60_000)
        wait_idle(page)
        assert window.input_value() == "7" and "sliding_window=7" in page.url
        assert exceptions(page) == []
