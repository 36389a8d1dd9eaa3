"""The attention view in Debian's Chromium: keyboard moves draw the tensor's numbers, write the URL,
and send nothing to the server; Enter commits; a broken payload shows a plain error."""
import re
import time
from pathlib import Path

import pytest

from browser import chromium_page, exceptions, require_browser, streamlit_server, wait_idle
from view_maps import seeded_map, tempered  # scripts/, on the path through browser.py

APP = Path(__file__).resolve().parents[1] / "scripts" / "view_app.py"


@pytest.fixture(scope="module")
def server():
    require_browser()
    with streamlit_server(APP) as base:
        yield base


def _open(page, url: str) -> list:
    """Load the page; returns the list that collects every websocket frame the browser sends."""
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    page.goto(url)
    wait_idle(page)
    page.wait_for_selector(".av, .av-error", state="attached", timeout=30_000)
    assert exceptions(page) == []
    return sent


def _view(page, what: str):
    return page.locator(".av").evaluate(f"e => e.attentionView.{what}")


def _press(page, keys: list[str]) -> None:
    page.locator(".av").focus()
    for key in keys:
        page.keyboard.press(key)
    time.sleep(0.5)  # the address bar is written 150 ms after the last move


def _bars(page) -> tuple[int, str]:
    """(bars drawn, their title) of the view's first list of bars."""
    first = page.locator(".av-row-set").first
    return first.locator(".av-bar:visible").count(), first.locator(".av-bars-title").inner_text()


def _params(page) -> dict:
    url = page.evaluate("() => location.href")
    return dict(re.findall(r"[?&]([a-z_]+)=([^&]*)", url))


def test_small_map_moves_draw_the_tensor_write_the_url_and_send_nothing(server):
    q, k, scores, weights = seeded_map(6)
    w = weights.double().numpy()
    with chromium_page() as page:
        sent = _open(page, f"{server}/?tokens=6")
        drawn = {(i, j): text for i, j, text in _view(page, "drawn")}
        assert drawn == {(i, j): f"{w[i, j]:.4f}" for i in range(6) for j in range(i + 1)}
        before = len(sent)
        _press(page, ["ArrowDown", "ArrowDown", "ArrowRight", "ArrowRight", "ArrowLeft"])  # query 4, key 2
        assert len(sent) == before  # the moves never reached the server
        assert page.locator(".av-readout").inner_text() == f"Query “4 t4”, key “2 t2”: {w[3, 1]:.4f}"
        assert page.locator(".av-arith").inner_text().endswith(f"= {scores[3, 1].item():.4f}")
        values = page.locator(".av-bar:not([hidden]) .av-bar-value").all_inner_texts()
        assert values == [f"{w[3, j]:.4f}" for j in range(4)]
        assert {"query": "4", "key": "2"}.items() <= _params(page).items()
        box = page.locator(".av-grid").bounding_box()  # a click on cell (query 6, key 3) picks it
        page.mouse.click(box["x"] + 2.5 / 6 * box["width"], box["y"] + 5.5 / 6 * box["height"])
        assert page.locator(".av-readout").inner_text() == f"Query “6 t6”, key “3 t3”: {w[5, 2]:.4f}"
        _press(page, ["ArrowUp"])  # back to query 5; then key 2 and query 4 again
        _press(page, ["ArrowLeft", "ArrowUp"])
        assert len(sent) == before
        page.keyboard.press("Enter")  # the one move that reaches Python
        wait_idle(page)
        assert len(sent) > before
        assert "'query': 4, 'key': 2" in page.get_by_text("committed:").inner_text()


def _largest(w, i: int) -> list[int]:
    """The 32 keys whose exact weights a 1,024-token map sends for query i (0-based), as the bars pick them."""
    return sorted(sorted(range(i + 1), key=lambda j: (-round(w[i, j], 4), j))[:32])


def _readout_of(w, i: int, j: int) -> str | tuple[float, float]:
    """The exact text for a cell among its row's largest; else the band the readout states, parsed (× even share)."""
    return f"{w[i, j]:.4f}" if j in _largest(w, i) else (w[i, j] * (i + 1), w[i, j] * (i + 1))


def _check_readout(text: str, w, i: int, j: int) -> None:
    expected = _readout_of(w, i, j)
    if isinstance(expected, str):
        assert text.endswith(f": {expected}"), text
        return
    band = re.search(r": a smaller value: at this size only each row's 32 largest are printed; cells of this colour hold "
                     r"(\d+\.\d{4}) to (\d+\.\d{4}) \(× even share\)$", text)
    assert band, text
    low, high = float(band.group(1)), float(band.group(2))
    assert low <= expected[0] <= high and high / low < 1.1, (text, expected)  # a narrow band around the true share


def test_large_map_zoom_window_moves_in_the_browser_with_the_values_python_sent(server):
    _, _, _, weights = seeded_map(1024)
    w = weights.double().numpy()
    with chromium_page() as page:
        sent = _open(page, f"{server}/?tokens=1024&query=100&key=90&window=80&window_key=70")
        before = len(sent)
        _press(page, ["Shift+ArrowDown"] * 3 + ["Shift+ArrowRight", "+", "ArrowDown", "ArrowRight"])
        assert len(sent) == before
        state = _view(page, "state")
        assert state == {"query": 100, "key": 90, "window": 82, "windowKey": 70, "size": 40, "frame": 0}
        assert page.locator(".av-range").inner_text().startswith("Zoom: queries 83–122, keys 71–110")
        _check_readout(page.locator(".av-readout").inner_text(), w, 100, 90)
        assert {"query": "101", "key": "91", "window": "83", "window_key": "71", "window_size": "40"}.items() \
            <= _params(page).items()
        box = page.locator(".av-grid").bounding_box()  # hover the zoom window's cell (row 5, column 7)
        page.mouse.move(box["x"] + (7.5 / 40) * box["width"], box["y"] + (5.5 / 40) * box["height"])
        hover = page.locator(".av-hover").inner_text()
        assert "key “78 t78”: " in hover
        _check_readout(hover, w, 87, 77)
        # A cell of the window among its row's largest (one exact value) and one that is not (a band), both hovered.
        for wanted in (True, False):
            i, j = next((i, j) for i in range(82, 122) for j in range(70, min(i + 1, 110)) if (j in _largest(w, i)) == wanted)
            page.mouse.move(box["x"] + (j - 70 + 0.5) / 40 * box["width"], box["y"] + (i - 82 + 0.5) / 40 * box["height"])
            _check_readout(page.locator(".av-hover").inner_text(), w, i, j)
        labels = page.locator(".av-bar:not([hidden]) .av-bar-label").all_inner_texts()
        shown = [int(t.removeprefix("selected: ").split()[0]) - 1 for t in labels]
        ranked = sorted(_largest(w, 100), key=lambda j: (-round(w[100, j], 4), j))  # largest first, ties: lower key
        apart = [] if 90 in ranked else [90]  # the selected key (91), when not among them, after them and labelled
        assert shown == ranked + apart and [t.startswith("selected: ") for t in labels] == [False] * 32 + [True] * len(apart)
        values = page.locator(".av-bar:not([hidden]) .av-bar-value").all_inner_texts()
        assert values == [f"{w[100, j]:.4f}" for j in ranked] + [f"≤ {w[100, ranked[-1]]:.4f}"] * len(apart)
        assert page.locator(".av-bars-title").first.inner_text().endswith(
            "of 101 keys, largest first" + ("; then the selected key" if apart else ""))
        overview = page.locator(".av-overview canvas").bounding_box()  # a click centres the window there
        page.mouse.click(overview["x"] + 0.5 * overview["width"], overview["y"] + 0.25 * overview["height"])
        state = _view(page, "state")  # one screen pixel of the 300 px overview is 3.4 tokens
        assert abs(state["window"] - (256 - 20)) <= 4 and abs(state["windowKey"] - (512 - 20)) <= 4
        assert len(sent) == before
        time.sleep(0.5)
        link = page.evaluate("() => location.href")  # a copied link reopens the same view
    with chromium_page() as page:
        _open(page, link)
        assert _view(page, "state") == state


def test_the_lessons_key_prints_its_number_where_it_is_not_among_its_rows_largest(server):
    # GPT-2's slides worked query 2, key 1 by hand beside a readout of "a smaller value" and a bar of "≤ 0.0022".
    _, _, _, weights = seeded_map(1024)
    w = weights.double().numpy()
    assert 1 not in _largest(w, 99)  # key 2 is not among query 100's 32 largest: only its own column carries it
    with chromium_page() as page:
        _open(page, f"{server}/?tokens=1024&query=100&key=2")
        assert page.locator(".av-readout").inner_text().endswith(f": {w[99, 1]:.4f}")
        apart = page.locator(".av-bar.av-apart:not([hidden])")
        assert apart.locator(".av-bar-label").inner_text() == "selected: 2 t2"
        assert apart.locator(".av-bar-value").inner_text() == f"{w[99, 1]:.4f}"


def test_a_payload_the_view_cannot_read_shows_a_plain_error(server):
    with chromium_page() as page:
        _open(page, f"{server}/?tokens=6&broken=1")
        error = page.locator(".av-error")
        assert error.inner_text().startswith("The attention view could not be drawn:")
        assert page.locator(".av").count() == 0


def test_parts_choose_the_pictures_shown(server):
    with chromium_page() as page:
        _open(page, f"{server}/?tokens=6&parts=row")
        assert page.locator(".av-bars").is_visible() and page.locator(".av-readout").is_hidden()
        assert page.locator(".av-grid").is_hidden() and page.locator(".av-arith").is_hidden()


def test_the_views_sliders_and_a_stack_of_frames_move_in_the_browser(server):
    q, _, scores, _ = seeded_map(6)
    with chromium_page() as page:
        sent = _open(page, f"{server}/?tokens=6&frames=1")
        before = len(sent)
        assert page.locator(".av-slider:not([hidden]) .av-slider-name").all_inner_texts() == \
            ["Temperature τ", "Query token", "Key token"]
        frame = page.locator("input[data-control=frame0]")
        frame.focus()
        page.keyboard.press("ArrowRight")  # τ 1 -> 2
        hot = tempered(scores, 2.0).double().numpy()
        assert page.locator(".av-readout").inner_text() == f"Query “1 t1”, key “1 t1”: {hot[0, 0]:.4f}"
        query = page.locator("input[data-control=query]")
        query.focus()
        for _ in range(3):
            page.keyboard.press("ArrowRight")  # query 1 -> 4
        page.locator("input[data-control=key]").focus()
        page.keyboard.press("ArrowRight")
        assert page.locator(".av-readout").inner_text() == f"Query “4 t4”, key “2 t2”: {hot[3, 1]:.4f}"
        bars = page.locator(".av-row-set:not([hidden])")
        assert bars.count() == 2  # the weights' row, then the scores' row
        assert bars.nth(0).locator(".av-bar:not([hidden]) .av-bar-value").all_inner_texts() == \
            [f"{hot[3, j]:.4f}" for j in range(4)]
        assert bars.nth(1).locator(".av-bar:not([hidden]) .av-bar-value").all_inner_texts() == \
            [f"{scores[3, j].item():.4f}" for j in range(6)]
        assert page.locator(".av-vector").inner_text() == "q(4) = [" + ", ".join(f"{v:.4f}" for v in q[3].tolist()) + "]"
        frame.focus()
        page.keyboard.press("Home")  # τ = 0.5
        cold = tempered(scores, 0.5).double().numpy()
        assert page.locator(".av-readout").inner_text().endswith(f": {cold[3, 1]:.4f}")
        time.sleep(0.5)
        assert {"temperature": "0.5", "query": "4", "key": "2"}.items() <= _params(page).items()
        assert len(sent) == before  # every move above stayed in the browser


def test_presenter_mode_prints_a_cells_number_only_where_a_room_can_read_it(server):
    # At 1.6 x fonts a 6-token map's cells hold 21 px numbers; 12 tokens' cells would hold 15 px ones (a slide of
    # /rope at GPT-2 drew 256 at 10.6 px, 16 tokens): those cells carry their value in colour and in the readout.
    with chromium_page() as page:
        _open(page, f"{server}/?tokens=6&presenter=1&query=6")
        assert len(_view(page, "drawn")) == 21
        count, title = _bars(page)
        assert count == 6 and title.endswith("all 6 keys")  # the book's rows: every key
    with chromium_page() as page:
        _open(page, f"{server}/?tokens=12&presenter=1&query=12")
        assert _view(page, "drawn") == []
        # A longer row: its 5 largest and the selected key apart, so that the view fits one slide with its controls.
        count, title = _bars(page)
        assert "the 5 largest of 12 keys" in title and count == 5 + ("then the selected key" in title)
        assert re.search(r": \d\.\d{4}$", page.locator(".av-readout").inner_text())
        # The keyboard help is for the teacher: not drawn for the room, still the map's description for a screen reader.
        assert page.locator(".av-help").is_hidden() and "Shift + arrows" in page.locator(".av-help").text_content()
        assert page.locator(".av").get_attribute("aria-describedby") == "av-help"
    with chromium_page() as page:
        _open(page, f"{server}/?tokens=12")  # on a screen one leans into, 9 px numbers stay
        assert len(_view(page, "drawn")) == 12 * 13 // 2
        assert page.locator(".av-help").bounding_box()["height"] > 10
