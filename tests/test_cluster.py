"""Two app servers behind Debian's HAProxy (scripts/cluster.py), driven by Chromium: stickiness and failover.

Loopback only. The screen is scores at 80 random tokens: above 64 tokens a matrix is drawn as an
image, and an image lives in the media store of the ONE process that drew it. Media URLs are content
hashes, so two processes that drew the same picture both have it: each browser here gets its own
seed (its own pictures), as students exploring on their own do.
"""
import asyncio
import os
import random
import shutil
import subprocess
import threading
import time
import urllib.error
import urllib.request
from contextlib import contextmanager

import pytest

from browser import CHROMIUM, CHROMIUM_ARGS, ROOT, exceptions, require_browser, wait_idle
from cluster import COOKIE, app_servers, balancer, cluster, haproxy_binary, render_config
from load.protocol import Student
from load.students import timed

SCREEN = "mask?input=random&tokens=80&open=variants"  # its two variants at 80 tokens are images from the media store
VIEW_QUERY = "input[data-control=query]"  # the attention view's query slider (drawn in the browser)
MEDIA_IMAGES = "[...document.images].filter(i => i.src.includes('/media/'))"


def require_haproxy():
    """Skip (a laptop) or fail (CI) without Debian's haproxy, as require_browser() does for Chromium."""
    if not (shutil.which("haproxy") or os.path.exists("/usr/sbin/haproxy")):
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("haproxy not found (Debian: apt-get install haproxy); .ci/run installs it")
        pytest.skip("haproxy not found (Debian: apt-get install haproxy)")


@pytest.fixture(scope="module")
def servers(chromium):
    """Two app servers, shared by a sticky and an unsticky balancer (the failover test has its own)."""
    with app_servers(2) as started:
        yield started


@pytest.fixture(scope="module")
def chromium():
    require_browser()
    require_haproxy()
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def status_of(url: str) -> int:
    try:
        return urllib.request.urlopen(url, timeout=10).status
    except urllib.error.HTTPError as error:
        return error.code


def server_of(context) -> str | None:
    return next((c["value"] for c in context.cookies() if c["name"] == COOKIE), None)


def open_screen(context, url: str, wait: bool = True):
    """A page on `url`, its run over and every image of the media store loaded or failed; (page, media statuses).

    wait=False returns once the page has loaded, so that several browsers' runs can overlap.
    """
    page = context.new_page()
    statuses = []
    page.on("response", lambda r: statuses.append(r.status) if "/media/" in r.url else None)
    page.goto(url)
    if wait:
        settle(page)
    return page, statuses


def settle(page) -> None:
    # Generous: four browsers open an 80-token screen at once on two app servers sharing this machine's
    # cores with Chromium; the test is about which server answers, not how fast (30 s timed out once).
    wait_idle(page, timeout_ms=90_000)
    page.wait_for_function(f"{MEDIA_IMAGES}.length >= 2 && {MEDIA_IMAGES}.every(i => i.complete)", timeout=90_000)


def images(page) -> tuple[int, int, list[str]]:
    """(images drawn from the media store, how many of them loaded, their paths)."""
    found = page.evaluate(f"{MEDIA_IMAGES}.map(i => [i.naturalWidth > 0, new URL(i.src).pathname])")
    return len(found), sum(ok for ok, _ in found), [path for _, path in found]


def test_deploy_config_is_valid_and_the_local_one_differs_only_in_its_servers():
    require_haproxy()
    check = subprocess.run([haproxy_binary(), "-c", "-f", str(ROOT / "deploy" / "haproxy.cfg")],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    local = render_config({"app1": "127.0.0.1:1", "app2": "127.0.0.1:2", "app3": "127.0.0.1:3"})
    original = (ROOT / "deploy" / "haproxy.cfg").read_text()
    differ = set(local.splitlines()) ^ set(original.splitlines())
    assert differ == {"    server app1 app1:8501 cookie app1 init-addr last,libc,none",
                      "    server app2 app2:8501 cookie app2 init-addr last,libc,none",
                      "    server app1 127.0.0.1:1 cookie app1", "    server app2 127.0.0.1:2 cookie app2",
                      "    server app3 127.0.0.1:3 cookie app3"}
    unsticky = render_config({"app1": "127.0.0.1:1"}, sticky=False)
    assert "cookie" not in "".join(line.split("#")[0] for line in unsticky.splitlines())


def test_each_browser_keeps_its_server_by_cookie_loads_every_image_and_keeps_its_state(chromium, servers):
    with balancer(servers) as c:
        # Four students, each with its own seed; their pages load side by side, as in a class.
        contexts = [chromium.new_context() for _ in range(4)]
        opened = [open_screen(context, f"{c.url}/{SCREEN}&seed={n + 1}", wait=False)
                  for n, context in enumerate(contexts)]
        landed, chosen = [], []
        for context, (page, statuses) in zip(contexts, opened):
            settle(page)
            server = server_of(context)
            assert server in c.servers, f"no {COOKIE} cookie naming an app server: {context.cookies()}"
            landed.append(server)
            count, loaded, paths = images(page)
            assert exceptions(page) == [] and count == loaded >= 2 and set(statuses) == {200}
            # The images live in that one process: straight from it they load, from the other the matrix does not.
            other = next(name for name in c.servers if name != server)
            assert [status_of(c.servers[server].url + p) for p in paths] == [200] * count
            # (The colour bar is the same picture for every seed, so the other process may have drawn it too.)
            assert 404 in [status_of(c.servers[other].url + p) for p in paths]
        for page, _ in opened:  # each moves the view's query and commits it (Enter): the server learns it
            page.locator(VIEW_QUERY).first.focus()
            page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
        for page, _ in opened:
            wait_idle(page)
            page.wait_for_function("location.search.includes('query=3')", timeout=30_000)
            chosen.append(page.locator(VIEW_QUERY).first.input_value())
            page.reload(wait_until="commit")
        for context, (page, _), server, value in zip(contexts, opened, landed, chosen):
            settle(page)
            assert server_of(context) == server  # still the same process
            assert page.locator(VIEW_QUERY).first.input_value() == value
            assert images(page)[0] == images(page)[1] >= 2 and exceptions(page) == []
            context.close()
        print(f"\nsticky: 4 browsers landed on {landed}")
        assert sorted(set(landed)) == ["app1", "app2"], landed  # round robin spread the browsers
        assert {name: row["status"] for name, row in c.status().items()} == {"app1": "UP", "app2": "UP"}


def test_without_stickiness_the_session_runs_but_its_images_are_asked_of_the_wrong_process(chromium, servers):
    """What breaks without the cookie, and why the cookie is still required.

    The websocket is one long connection, so the session (its script runs, its state) stays on
    one process even without stickiness. The images are separate HTTP requests, and HAProxy
    balances every request on its own: about half of them reach the other process, whose media
    store has never seen them (404, a broken image). A reconnect (a network blip, a laptop lid)
    would also land on any process and start a new session there.
    """
    with balancer(servers, sticky=False) as c:
        context = chromium.new_context()
        page, statuses = open_screen(context, f"{c.url}/{SCREEN}&seed=11")
        assert server_of(context) is None
        assert exceptions(page) == [] and page.locator("h1").count() >= 1  # the session itself works
        count, loaded, paths = images(page)
        # Round robin per request: asked again and again, this seed's matrix is found on one process
        # only (the colour bar, the same picture for every seed, may be in both stores by now).
        answers = {path: {status_of(c.url + path) for _ in range(4)} for path in paths}
        assert {200, 404} in answers.values(), answers
        print(f"\nwithout stickiness: {loaded} of {count} images loaded in Chromium; "
              f"media responses {sorted(statuses)}")
        context.close()


@contextmanager
def students_running(url: str, count: int, results: list):
    """`count` protocol students moving sliders back to back through the balancer, in a thread."""
    stop = threading.Event()

    async def student(number):
        rng = random.Random(number)
        s = Student(url, number, 15, rng, "")
        await s.connect()
        await timed(s, results, "open", "scores", page_name="scores")
        while not stop.is_set():
            key = rng.choice([k for k in ("query", "key") if k in s.widgets] or ["query"])
            state = s.move(key)
            if state is None:
                await timed(s, results, "open", "scores", page_name="scores")
            else:
                await timed(s, results, f"move {key}", "scores", widgets=[state], fragment_id=s.fragment_of(key))
            await asyncio.sleep(0.2)
        await s.close()

    async def all_students():
        await asyncio.gather(*(student(n) for n in range(count)))
    thread = threading.Thread(target=asyncio.run, args=(all_students(),), daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=60)


def test_failover_takes_a_stopped_server_out_and_its_students_get_a_fresh_session(chromium):
    inter, fall = 0.25, 2
    with cluster(2, check_inter=f"{int(inter * 1000)}ms", check_fall=fall, check_rise=1) as c:
        browsers = {}  # app server -> (context, page): one browser on each (round robin alternates)
        while len(browsers) < 2:
            contexts = [chromium.new_context() for _ in range(2)]
            pages = [open_screen(context, f"{c.url}/{SCREEN}&query=3&seed={21 + n}", wait=False)[0]
                     for n, context in enumerate(contexts)]
            for context, page in zip(contexts, pages):
                settle(page)
                browsers.setdefault(server_of(context), (context, page))
        results = []
        with students_running(c.url, 4, results):
            time.sleep(2)
            stopped_at = time.monotonic()
            c.stop_server("app2")  # SIGTERM, and wait until the process is gone
            exited_after = time.monotonic() - stopped_at
            c.wait_status("app2", "DOWN", timeout=10)
            down_after = time.monotonic() - stopped_at
            # A fresh browser goes to the healthy server.
            context = chromium.new_context()
            page, _ = open_screen(context, f"{c.url}/{SCREEN}")
            assert server_of(context) == "app1" and images(page)[0] == images(page)[1]
            # The browser that was on app2 reconnects by itself: a fresh session on app1, its URL state kept.
            _, moved = browsers["app2"]
            moved.wait_for_function(f"{MEDIA_IMAGES}.length >= 2 && {MEDIA_IMAGES}.every(i => i.complete "
                                    "&& i.naturalWidth > 0)", timeout=30_000)
            settle(moved)
            assert server_of(browsers["app2"][0]) == "app1"
            assert moved.locator(VIEW_QUERY).first.input_value() == "3"  # query=3, from the URL
            assert exceptions(moved) == []
            time.sleep(1)  # the students keep working on app1
        failed = [i for i in results if i.error]
        after = [i for i in results if i.at > stopped_at]
        students = {i.session for i in results}
        last = {n: [i for i in results if i.session == n][-1] for n in students}
        print(f"\nfailover: app2 exited {exited_after:.2f} s after SIGTERM, DOWN in HAProxy {down_after:.2f} s after "
              f"SIGTERM (checks every {inter} s, fall {fall}); {len(failed)} of {len(after)} interactions after the stop failed, on "
              f"{len({i.session for i in failed})} of {len(students)} students; last failure "
              f"{max((i.at for i in failed), default=stopped_at) - stopped_at:.2f} s after the stop")
        # The interval × fall after the process is gone (its port closes during shutdown), plus slack for a busy machine
        assert down_after <= exited_after + inter * (fall + 1) + 1.0
        assert all(i.server == "app2" and i.at >= stopped_at for i in failed)  # only the stopped server's
        assert len(failed) <= 2 * len({i.session for i in failed})  # each of its students: one, at most two
        assert all(i.error is None and i.server == "app1" for i in last.values())  # everyone works, on app1
        assert c.servers["app1"].proc.poll() is None
        for context, _ in browsers.values():
            context.close()
