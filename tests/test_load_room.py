"""The load test's room mode (scripts/load/room*.py) against a real server: what it counts is what the app stored.

Three students in one room answer two stages through Streamlit's websocket protocol, and each changes one answer
before the reveal. The mode's three accounts of the answers (what each student was told was stored, what the
teacher's panel showed, what the store holds) must agree; and the mode must find every question, the Send button and
the panel on the page, or it would measure nothing (a renamed widget key or caption makes this test fail).
"""
import argparse
import asyncio

import browser  # noqa: F401 (puts scripts/ on sys.path)
import local_server
from load.room_run import room_run


def test_the_room_mode_counts_what_the_app_stored(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    monkeypatch.setenv("ATTENTION_ROOMS_STORE", url)  # the server inherits it
    args = argparse.Namespace(sessions=3, screens=["scores", "heads"], timeout=30, seed=0, params="", ramp=1.0,
                              spread=1.0, answer_window=2.0, discuss=2.5, lesson_time=1.0, think=1.0, resend=1.0)
    with local_server.streamlit_server() as (base, proc, _log):
        report, stages, errors = asyncio.run(room_run(base, proc.pid, args, url))
    assert errors == [], [(e.kind, e.error) for e in errors]
    assert [s.screen for s in stages] == ["scores", "heads"]
    for stage in stages:
        assert len(stage.qids) >= 2  # the questions were found on the page, by their widget keys
        sent = [sum(stage.wanted[q].values()) for q in stage.qids]
        assert sent == [3] * len(stage.qids)  # one answer per student and question, resends included
        assert stage.panel == sent  # the teacher's panel, read from its captions
        assert [stage.stored[q].answered for q in stage.qids] == sent
        assert all(dict(stage.stored[q].values) == dict(stage.wanted[q]) for q in stage.qids)  # the latest counts
        assert stage.panel_lag is not None and stage.students_revealed == 3 and not stage.notes
    assert "| 0 lost answers (panel = sent = store) | 0 | yes |" in report
    assert "answer: press → Sent" in report and "| discuss | polls only" in report
