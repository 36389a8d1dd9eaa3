"""The rooms' store (rooms/store.py): one suite, run against SQLite and a real Debian redis-server.

The Redis tests start their own `redis-server` on a free loopback port (no disk: --save '' --appendonly no)
and stop it. Without redis-server they skip on a laptop and fail in CI, as the browser and HAProxy tests do.
Time is a fake clock passed to the store, so expiry and the rate limit's window take no waiting.
"""
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import redis

from rooms import sqlite_pool, sqlite_store
from rooms.codes import new_student_id, new_teacher_token
from rooms.redis_store import GRACE_S, RedisStore
from rooms.sqlite_store import SQLiteStore
from rooms.backends import ENV, open_store
from rooms.store import EXPIRY_S, MAX_ANSWERS, MAX_ROOMS, MAX_VIEW_LEN, Limits, Reason, StoreUnavailable, refused, start_room

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from local_server import REDIS_SERVER, free_port, redis_server  # noqa: E402  (scripts/local_server.py, shared with cluster.py)
Q1, Q2, Q3 = "scores:largest:0123456789abcdef", "softmax:sum:fedcba9876543210", "mask:zeros:00112233aabbccdd"
S = [new_student_id() for _ in range(8)]


class Clock:
    def __init__(self, t: float = 1_800_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def require_redis_server():
    if REDIS_SERVER is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("redis-server not found (Debian: apt-get install redis-server); .ci/run installs it")
        pytest.skip("redis-server not found (Debian: apt-get install redis-server)")


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    require_redis_server()
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture(params=["sqlite", "redis"])
def store_url(request, tmp_path):
    """The URL of an empty store of each kind (ATTENTION_ROOMS_STORE's form)."""
    if request.param == "sqlite":
        return f"sqlite://{tmp_path / 'rooms.sqlite3'}"
    url = request.getfixturevalue("redis_url")
    redis.Redis.from_url(url).flushdb()
    return url


@pytest.fixture
def make(store_url):
    """make(clock=..., **limits) -> a store on that backend (several may share it, as app processes do)."""
    made = []

    def make_store(clock=None, **limits):
        made.append(open_store(store_url, limits=Limits(**limits), clock=clock or Clock()))
        return made[-1]
    yield make_store
    for store in made:
        store.close()


def new_room(store):
    result, code, token = start_room(store)
    assert result.ok, result
    return code, token


def test_answers_are_counted_per_question_and_value(make):
    store = make()
    code, _ = new_room(store)
    for student, value in zip(S, ["key 3", "key 3", "key 2", "key 3"]):
        assert store.answer(code, Q1, student, value).ok
    assert store.answer(code, Q2, S[0], "yes").ok
    counts = store.counts(code, [Q1, Q2, Q3])
    assert counts[Q1].answered == 4 and counts[Q1].values == Counter({"key 3": 3, "key 2": 1})
    assert counts[Q2].answered == 1 and counts[Q2].values == Counter({"yes": 1})
    assert counts[Q3].answered == 0 and counts[Q3].values == Counter()
    room = store.room(code)
    assert (room.students, room.questions, room.answers) == (4, 2, 5)
    assert store.my_answer(code, Q1, S[2]) == "key 2" and store.my_answer(code, Q3, S[2]) is None


def test_one_answer_per_student_per_question_and_the_latest_counts(make):
    store, other_process = make(), make()  # two handles on one store: as two app processes
    code, _ = new_room(store)
    for value in ["0.5", "0.25", "0.5", "2"]:
        assert store.answer(code, Q1, S[0], value).ok
    assert other_process.answer(code, Q1, S[0], "3").ok
    assert store.counts(code, [Q1])[Q1].values == Counter({"3": 1})
    assert other_process.counts(code, [Q1])[Q1].answered == 1
    assert store.room(code).answers == 1 and store.my_answer(code, Q1, S[0]) == "3"


def test_the_reveal_closes_a_question_and_keeps_its_counts(make):
    store = make()
    code, _ = new_room(store)
    store.answer(code, Q1, S[0], "key 2"), store.answer(code, Q1, S[1], "key 3")
    assert store.revealed(code, Q1) is None
    assert store.reveal(code, Q1, "key 2").ok
    assert store.revealed(code, Q1) == "key 2"
    assert store.answer(code, Q1, S[0], "key 3") == refused(Reason.REVEALED)  # no change after the reveal
    assert store.answer(code, Q1, S[5], "key 1") == refused(Reason.REVEALED)  # and no late first answer
    assert store.counts(code, [Q1])[Q1].values == Counter({"key 2": 1, "key 3": 1})
    assert store.answer(code, Q2, S[0], "no").ok  # other questions stay open


def test_rooms_expire_after_their_last_write_not_their_last_read(make):
    assert EXPIRY_S == 4 * 3600
    clock = Clock()
    store = make(clock=clock, expiry_s=100)
    code, token = new_room(store)
    clock.t += 60
    assert store.answer(code, Q1, S[0], "2").ok  # a write: the room now lives until t + 100
    clock.t += 99.5
    assert store.room(code) is not None and store.counts(code, [Q1])[Q1].answered == 1  # reads do not extend it
    assert store.is_teacher(code, token) and store.teacher_view(code) is None
    clock.t += 0.5
    assert store.check_room(code) == refused(Reason.EXPIRED) and store.room(code) is None
    for refusal in [store.answer(code, Q1, S[1], "2"), store.reveal(code, Q1, "2"),
                    store.set_teacher_view(code, "mask?seed=3")]:
        assert refusal == refused(Reason.EXPIRED)
    assert not store.is_teacher(code, token) and store.counts(code, [Q1]) == {}
    assert store.my_answer(code, Q1, S[0]) is None and store.revealed(code, Q1) is None
    # The code may then start a new room, which has nothing of the old one.
    new_token = new_teacher_token()
    assert store.create_room(code, new_token).ok
    assert store.counts(code, [Q1])[Q1].answered == 0 and store.room(code).answers == 0
    assert store.is_teacher(code, new_token) and not store.is_teacher(code, token)


def test_bounds_are_refused_with_the_bound_named(make):
    store = make(questions=2, students=3, answers=4, value_len=5)
    code, _ = new_room(store)
    assert store.answer(code, Q1, S[0], "1").ok and store.answer(code, Q2, S[0], "1").ok
    assert store.answer(code, Q3, S[0], "1") == refused(Reason.TOO_MANY_QUESTIONS)
    assert store.reveal(code, Q3, "1") == refused(Reason.TOO_MANY_QUESTIONS)
    assert store.answer(code, Q1, S[1], "1").ok and store.answer(code, Q1, S[2], "1").ok
    assert store.answer(code, Q1, S[3], "1") == refused(Reason.TOO_MANY_STUDENTS)
    assert store.answer(code, Q2, S[1], "1") == refused(Reason.TOO_MANY_ANSWERS)
    assert store.answer(code, Q1, S[1], "2").ok  # changing an answer adds none
    for question, student, value in [(Q1, S[0], "123456"), (Q1, S[0], ""), (Q1, S[0], "a\nb"), (Q1, S[0], 2),
                                     ("<b>x</b>", S[0], "1"), ("q" * 97, S[0], "1"), (Q1, "short", "1"),
                                     (Q1, "id with spaces", "1"), (Q1, None, "1")]:
        assert store.answer(code, question, student, value) == refused(Reason.BAD_INPUT), (question, student, value)
    assert store.reveal(code, Q1, "x" * 501) == refused(Reason.BAD_INPUT)
    for view in ["mask?x=<script>", "mask?x=a b", "m" * (MAX_VIEW_LEN + 1), None]:
        assert store.set_teacher_view(code, view) == refused(Reason.BAD_INPUT)
    assert store.counts(code, [Q1, Q2])[Q1].values == Counter({"1": 2, "2": 1})
    assert all(reason.message for reason in Reason)  # every refusal has words for the screen


def test_rooms_per_store_are_bounded_until_one_expires(make):
    assert MAX_ROOMS * MAX_ANSWERS <= 1_000_000  # the storage bound store.py writes down
    clock = Clock()
    store = make(clock=clock, rooms=2, expiry_s=100)
    new_room(store)
    clock.t += 50
    new_room(store)
    result, code, token = start_room(store)
    assert result == refused(Reason.TOO_MANY_ROOMS) and code == token == ""
    clock.t += 50  # the first room expires
    new_room(store)


def test_a_student_spamming_answers_is_refused_until_the_minute_passes(make):
    clock = Clock()
    store = make(clock=clock, rate=3, rate_window_s=60)
    code, _ = new_room(store)
    for value in "123":
        assert store.answer(code, Q1, S[0], value).ok
    for value in "4567":
        assert store.answer(code, Q1, S[0], value) == refused(Reason.RATE_LIMITED)
    assert store.answer(code, Q1, S[1], "9").ok  # the others are not held up
    assert store.counts(code, [Q1])[Q1].values == Counter({"3": 1, "9": 1})
    clock.t += 60
    assert store.answer(code, Q1, S[0], "8").ok


@pytest.mark.parametrize("code", ["", "K7MP3", "K7MP30", "k7mp3x", "K7M-P3X", "K7MP3X;", "K" * 10_000, None, 7])
def test_malformed_codes_are_refused(make, code):
    """The store takes codes in parse_code's form only (the app parses what a person typed first)."""
    store = make()
    assert store.check_room(code) == refused(Reason.BAD_CODE) and store.room(code) is None
    assert store.answer(code, Q1, S[0], "1") == refused(Reason.BAD_CODE)
    assert store.reveal(code, Q1, "1") == refused(Reason.BAD_CODE)
    assert store.set_teacher_view(code, "mask") == refused(Reason.BAD_CODE)
    assert store.create_room(code, new_teacher_token()) == refused(Reason.BAD_INPUT)
    assert not store.is_teacher(code, "x" * 32) and store.counts(code, [Q1]) == {}


def test_an_unknown_code_is_refused(make):
    store = make()
    new_room(store)
    assert store.check_room("K7MP3X") == refused(Reason.UNKNOWN_ROOM)
    assert store.answer("K7MP3X", Q1, S[0], "1") == refused(Reason.UNKNOWN_ROOM)
    assert store.teacher_view("K7MP3X") is None and store.revealed("K7MP3X", Q1) is None


def test_only_the_rooms_own_token_opens_the_teachers_panel(make):
    store = make()
    code, token = new_room(store)
    other_code, other_token = new_room(store)
    assert store.is_teacher(code, token) and store.is_teacher(other_code, other_token)
    for forged in [other_token, token[:-1], token + "A", "", None, new_teacher_token(), "x" * 100_000]:
        assert not store.is_teacher(code, forged)
    # A second room on a live code is refused and leaves the first one's token as it was.
    assert store.create_room(code, new_teacher_token()) == refused(Reason.CODE_TAKEN)
    assert store.is_teacher(code, token)
    assert store.create_room(code, "short") == refused(Reason.BAD_INPUT)


def test_the_teachers_view_is_shared_but_never_the_token(make):
    store = make()
    code, token = new_room(store)
    assert store.set_teacher_view(code, "mask?seed=3&open=code").ok
    assert store.set_teacher_view(code, "scores?q=2").ok
    assert store.teacher_view(code) == "scores?q=2"  # the latest
    assert store.set_teacher_view(code, f"scores?teacher={token}") == refused(Reason.TOKEN_IN_VIEW)
    assert store.teacher_view(code) == "scores?q=2"


def test_two_processes_writing_one_room_lose_no_answers(store_url):
    """Two OS processes answer at once: each for its own students (twice: the second answer counts) and for
    the same shared students (each shared student counts once, whichever process wrote last)."""
    store = open_store(store_url)
    code, _ = new_room(store)
    students, qids = 30, [Q1, Q2, Q3]
    writer = (
        "import sys, time\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from rooms.backends import open_store\n"
        "url, code, who, start = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])\n"
        "store = open_store(url)\n"
        "while time.time() < start: time.sleep(0.002)\n"  # both start together, so their writes interleave
        "refused = []\n"
        f"for s in range({students}):\n"
        f"    for q in {qids!r}:\n"
        "        for student, value in ((f'{who}-own-{s:03d}', 'first'), (f'{who}-own-{s:03d}', who),\n"
        "                               (f'shared-student-{s:03d}', who)):\n"
        "            result = store.answer(code, q, student, value)\n"
        "            refused += [] if result.ok else [result.reason]\n"
        "print(refused)\n")
    start = time.time() + 1.5
    procs = [subprocess.Popen([sys.executable, "-c", writer, store_url, code, who, str(start)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for who in "AB"]
    outputs = [proc.communicate(timeout=120) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], [err for _, err in outputs]
    assert [out.strip() for out, _ in outputs] == ["[]", "[]"]
    counts = store.counts(code, qids)
    for q in qids:
        tally = counts[q]
        assert tally.answered == 3 * students  # 30 A's, 30 B's and 30 shared students
        assert "first" not in tally.values and tally.values["A"] >= students and tally.values["B"] >= students
        assert tally.values["A"] + tally.values["B"] == 3 * students
    room = store.room(code)
    assert (room.students, room.questions, room.answers) == (3 * students, len(qids), 3 * students * len(qids))
    store.close()


def test_threads_sharing_one_store_lose_no_answers(make):
    """Streamlit runs every session's reruns on threads of one process, all sharing one store object."""
    store = make()
    code, _ = new_room(store)
    students = [new_student_id() for _ in range(48)]

    def answer_all(mine):
        return [store.answer(code, q, s, v).reason for s in mine for q in (Q1, Q2) for v in ("first", "last")]
    with ThreadPoolExecutor(8) as pool:
        refusals = [r for rs in pool.map(answer_all, [students[i::8] for i in range(8)]) for r in rs if r]
    assert refusals == []
    counts = store.counts(code, [Q1, Q2])
    assert counts[Q1].values == counts[Q2].values == Counter({"last": 48})
    if isinstance(store, SQLiteStore):
        assert len(store.pool._idle) <= sqlite_pool.IDLE_CONNECTIONS  # open files stay few, however many threads


# --- the store unavailable: rooms are off, quickly, with one exception type --------------------------------

def test_a_redis_store_on_a_closed_port_is_unavailable_at_once():
    start = time.monotonic()
    with pytest.raises(StoreUnavailable):
        open_store(f"redis://127.0.0.1:{free_port()}/0")
    assert time.monotonic() - start < 1.0


def test_a_redis_server_that_never_answers_is_unavailable_within_the_socket_timeout():
    with socket.socket() as silent:  # accepts connections (the backlog) and never replies
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        start = time.monotonic()
        with pytest.raises(StoreUnavailable):
            open_store(f"redis://127.0.0.1:{silent.getsockname()[1]}/0")
        assert time.monotonic() - start < 3.0


def test_a_redis_server_that_stops_makes_every_call_unavailable(tmp_path):
    require_redis_server()
    with redis_server(tmp_path) as url:
        store = open_store(url)
        code, _ = new_room(store)
        assert store.answer(code, Q1, S[0], "1").ok
    start = time.monotonic()
    for call in [lambda: store.answer(code, Q1, S[0], "2"), lambda: store.room(code),
                 lambda: store.counts(code, [Q1]), lambda: store.create_room("K7MP3X", new_teacher_token())]:
        with pytest.raises(StoreUnavailable):
            call()
    assert time.monotonic() - start < 4.0


@pytest.mark.parametrize("url", ["off", "OFF", "mysql://localhost/rooms", "redis://:notaport/0"])
def test_settings_that_name_no_store_are_unavailable(url):
    with pytest.raises(StoreUnavailable):
        open_store(url)


def test_an_sqlite_file_that_cannot_be_opened_is_unavailable(tmp_path):
    with pytest.raises(StoreUnavailable):
        open_store(f"sqlite://{tmp_path}")  # a folder, not a file
    (tmp_path / "file").write_text("")
    with pytest.raises(StoreUnavailable):
        open_store(f"sqlite://{tmp_path / 'file' / 'rooms.sqlite3'}")  # under a file
    (tmp_path / "junk.sqlite3").write_bytes(b"not a database" * 100)
    with pytest.raises(StoreUnavailable):
        open_store(f"sqlite://{tmp_path / 'junk.sqlite3'}")


# --- the setting, and what each backend promises of its own -----------------------------------------------

def test_the_setting_picks_the_backend(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV, f"sqlite://{tmp_path / 'chosen.sqlite3'}")
    store = open_store()
    assert isinstance(store, SQLiteStore) and store.path == tmp_path / "chosen.sqlite3"
    monkeypatch.setenv(ENV, "")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the default: one file in the per-user temp dir
    store = open_store()
    assert isinstance(store, SQLiteStore) and store.path.parent.parent == tmp_path
    assert store.path.parent.stat().st_mode & 0o077 == 0  # the user's own folder
    monkeypatch.setenv(ENV, "off")
    with pytest.raises(StoreUnavailable):
        open_store()


def test_sqlite_runs_in_wal_mode_and_sweeps_a_bounded_number_of_expired_rooms(tmp_path):
    import sqlite3
    clock = Clock()
    store = SQLiteStore(tmp_path / "rooms.sqlite3", limits=Limits(expiry_s=100), clock=clock)
    with sqlite3.connect(store.path) as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    codes = []
    for _ in range(sqlite_store.SWEEP_ROOMS + 2):
        code, _ = new_room(store)
        assert store.answer(code, Q1, S[0], "1").ok
        codes.append(code)
        clock.t += 1
    clock.t += 100
    new_room(store)
    with sqlite3.connect(store.path) as con:
        left = {row[0] for row in con.execute("SELECT DISTINCT code FROM answers")}
    assert left == set(codes[sqlite_store.SWEEP_ROOMS:])  # the oldest went first, the rest wait their turn
    assert store.check_room(codes[-1]) == refused(Reason.EXPIRED)  # still says "closed", not "unknown"


def test_every_redis_key_expires(redis_url):
    redis.Redis.from_url(redis_url).flushdb()
    store = open_store(redis_url)
    code, _ = new_room(store)
    store.answer(code, Q1, S[0], "1"), store.answer(code, Q1, S[1], "2"), store.reveal(code, Q1, "1")
    store.set_teacher_view(code, "mask")
    client = redis.Redis.from_url(redis_url)
    keys = client.keys("*")
    assert len(keys) == 7  # six hashes of the room and the index of live rooms
    assert all(0 < client.ttl(key) <= EXPIRY_S + GRACE_S for key in keys), {k: client.ttl(k) for k in keys}
    assert isinstance(store, RedisStore)
