"""A class room in Debian's Chromium: the QR code on the projector decodes (here, with zxing-cpp) to the join link and
nothing else, a student who types the code joins, and the teacher's token never stays in an address bar."""
import io
import re
from urllib.parse import urlsplit

import pytest

from browser import chromium_page, exceptions, require_browser, streamlit_server, wait_idle
from rooms import address

SIDEBAR = '[data-testid="stSidebar"]'
DIALOG = '[data-testid="stDialog"]'
CODE = re.compile(r"\b([A-Z0-9]{3})-([A-Z0-9]{3})\b")  # the dialog's code as shown: 'K7M-P3X'


@pytest.fixture(scope="module")
def store_url(tmp_path_factory):
    return f"sqlite:///{tmp_path_factory.mktemp('rooms') / 'rooms.sqlite3'}"


@pytest.fixture(scope="module")
def server(store_url):
    """A server whose rooms live in a SQLite file of this test's own (the server inherits the setting), on 127.0.0.1
    with no join address set: what a teacher running it on a laptop has."""
    require_browser()
    pytest.importorskip("zxingcpp", reason="zxing-cpp decodes the QR code (pip install -r requirements-dev.txt)")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATTENTION_ROOMS_STORE", store_url)
        patch.delenv(address.ENV_VAR, raising=False)
        with streamlit_server() as base:
            yield base


def decode_qr(png: bytes) -> list[str]:
    """Every QR code zxing-cpp finds in a picture: what a phone's camera would read."""
    import zxingcpp
    from PIL import Image
    return [found.text for found in zxingcpp.read_barcodes(Image.open(io.BytesIO(png)).convert("RGB"))]


def no_token_ever(page, seen: list[str]) -> None:
    """Watch the address bar: every URL the page's main frame shows from now on goes into `seen`."""
    page.on("framenavigated", lambda frame: seen.append(frame.url) if frame == page.main_frame else None)


def test_the_qr_code_is_the_join_link_and_a_typed_code_joins(server):
    with chromium_page(width=1600, height=1100) as teacher:
        teacher.goto(server + "/")
        wait_idle(teacher)
        teacher.locator(SIDEBAR).get_by_role("button", name="Start a room").focus()
        teacher.keyboard.press("Enter")  # a keyboard user: the focus moves on to the room's first button
        wait_idle(teacher)
        teacher.wait_for_function("() => document.activeElement?.innerText.includes('Show the join code')",
                                  timeout=10_000)
        teacher.keyboard.press("Enter")
        dialog = teacher.locator(DIALOG)
        image = dialog.locator('[data-testid="stImage"] img')
        image.wait_for(state="visible", timeout=30_000)
        teacher.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
        shown = CODE.search(dialog.inner_text())
        assert shown, dialog.inner_text()
        code = shown[1] + shown[2]

        # What a phone at the back of the room reads: the image as drawn on the screen, decoded here. The teacher's
        # browser is on 127.0.0.1, which no phone can open: the code carries this machine's network address, and
        # the dialog says so (a machine with no network address gets a warning instead).
        box = image.bounding_box()
        assert box["width"] >= 400 and box["height"] >= 400, box
        decoded = decode_qr(image.screenshot())
        reachable, loopback = address.reachable_base(server)
        assert loopback == server
        if address.network_ip() is not None:
            assert not address.is_loopback(urlsplit(decoded[0]).hostname), decoded
        link = f"{reachable}/?room={code}"
        assert decoded == [link], (decoded, link)
        said = " ".join(dialog.inner_text().split())
        assert f"opened the app at {server}, an address only this computer can open" in said, said
        assert ("this computer's network address instead" if address.network_ip() else "phones cannot open") in said
        assert address.ENV_VAR in said and link in said
        # The same link in the image file the server sent (what a projector at any size shows).
        assert decode_qr(teacher.request.get(image.get_attribute("src")).body()) == [link]
        assert "teacher" not in decoded[0]
        assert f"room={code}" in teacher.url and "teacher=" not in teacher.url
        assert exceptions(teacher) == []

        # The private link, opened (as a teacher would on the projector's laptop): the token leaves the address bar.
        teacher.keyboard.press("Escape")
        dialog.wait_for(state="detached", timeout=10_000)
        teacher.locator(SIDEBAR).get_by_text("Your private teacher link").click()
        private = teacher.locator(SIDEBAR).locator('[data-testid="stCode"]').inner_text().strip()
        token = private.rsplit("teacher=", 1)[1]
        assert private == f"{server}/?room={code}&teacher={token}" and len(token) >= 16  # this browser's address
        assert token not in decoded[0]
        seen = []
        no_token_ever(teacher, seen)
        projector = teacher.context.browser.new_page(viewport={"width": 1600, "height": 1000})  # a fresh session
        no_token_ever(projector, seen)
        projector.goto(private)
        wait_idle(projector)
        assert "you teach it" in projector.locator(SIDEBAR).inner_text()  # the token was taken...
        assert "teacher=" not in projector.url and f"room={code}" in projector.url, projector.url  # ...and dropped
        projector.locator('[data-testid="stSidebarNav"] a[href$="/scores"]').click()
        wait_idle(projector)
        projector.get_by_text("Predict first: the room").wait_for(timeout=30_000)
        # A projector 900 px high shows the Reveal button without scrolling, and the counts' labels in large type
        reveal = projector.get_by_role("button", name="Reveal to the room").bounding_box()
        assert reveal["y"] + reveal["height"] <= 900, reveal
        projector.locator('.st-key-room-counts [data-testid="stProgress"] p').first.wait_for(timeout=30_000)
        label_px = projector.evaluate("""() => parseFloat(getComputedStyle(
            document.querySelector('.st-key-room-counts [data-testid="stProgress"] p')).fontSize)""")
        assert label_px >= 24, label_px  # Streamlit's own: 14 px
        assert projector.get_by_text("within a few seconds").count() == 1
        projector.wait_for_timeout(2500)  # the counts panel reruns on its timer meanwhile
        assert "teacher=" not in projector.url, projector.url
        assert [u for u in seen if "teacher=" in u] == [private]  # only the link as opened, never after

        # A student, in a browser session of their own, types the code as one does: lowercase, with the dash.
        student = teacher.context.browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        student.goto(server + "/")
        wait_idle(student)
        student.locator(SIDEBAR).get_by_label("Join with a code").fill(shown[0].lower())
        student.locator(SIDEBAR).get_by_role("button", name="Join").click()
        wait_idle(student)
        sidebar = student.locator(SIDEBAR)
        sidebar.get_by_text(f"Room {shown[0]}").wait_for(timeout=30_000)
        student.wait_for_url(re.compile(r"/scores\?"), timeout=30_000)  # joining lands on the teacher's screen
        assert "you teach it" not in sidebar.inner_text()
        assert f"room={code}" in student.url and "seat=" in student.url and "teacher=" not in student.url
        student.locator('[data-testid="stSidebarNav"] a[href$="/scores"]').click()
        wait_idle(student)
        student.get_by_role("button", name="Send my predictions").wait_for(timeout=30_000)
        assert student.get_by_text("Predict first: the room").count() == 0  # no token: no panel
        assert f"Room {shown[0]}" in student.locator(SIDEBAR).inner_text()
        assert exceptions(student) == [] and exceptions(projector) == []


PHONE = dict(width=390, height=844, is_mobile=True, has_touch=True, device_scale_factor=3)  # tests/test_phone_browser.py


def test_on_a_phone_the_join_box_comes_first_and_a_student_lands_on_the_lesson_with_the_sidebar_closed(server, store_url):
    from rooms.backends import open_store
    from rooms.store import start_room
    found = open_store(store_url)
    result, code, _token = start_room(found)
    assert result.ok and found.set_teacher_view(code, "mask").ok  # the teacher is on /mask
    with chromium_page(**PHONE) as student:
        student.goto(server + "/")
        wait_idle(student)
        student.locator('[data-testid="stExpandSidebarButton"]').click()  # closed on a phone until opened
        sidebar = student.locator(SIDEBAR)
        sidebar.get_by_label("Join with a code").wait_for(timeout=30_000)
        first = student.evaluate("""() => {
            const widget = document.querySelector('[data-testid="stSidebarUserContent"]')
                .querySelector('input, button, [role="combobox"], [role="radiogroup"], [role="switch"]');
            return widget.getAttribute('aria-label') || widget.textContent; }""")
        assert first == "Join with a code"  # before the nine settings
        sidebar.get_by_label("Join with a code").fill(code.lower())
        sidebar.get_by_role("button", name="Join").click()
        student.wait_for_url(re.compile(r"/mask\?"), timeout=60_000)
        wait_idle(student)
        student.wait_for_selector(f'{SIDEBAR}[data-collapsed="true"]', timeout=30_000)
        student.get_by_role("button", name="Send my predictions").wait_for(timeout=30_000)
        assert "seat=" in student.url and exceptions(student) == []
