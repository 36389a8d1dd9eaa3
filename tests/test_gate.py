"""ui/server/run_gate.py: one script run at a time per process, nested uses sharing it, and a wait on the network giving it back."""
import threading
import time

import pytest

from conftest import open_screen
from ui.server import run_gate


class Recording:
    """A one-slot semaphore that counts how often it was taken and how many held it at once."""

    def __init__(self):
        self.inner, self.taken, self.inside, self.most = threading.BoundedSemaphore(1), 0, 0, 0

    def acquire(self):
        self.inner.acquire()
        self.taken += 1
        self.inside += 1
        self.most = max(self.most, self.inside)

    def release(self):
        self.inside -= 1
        self.inner.release()


@pytest.fixture
def slots(monkeypatch):
    recording = Recording()
    monkeypatch.setattr(run_gate, "_slots", recording)
    return recording


def test_runs_wait_in_line_and_a_nested_use_shares_the_slot(slots):
    order = []

    def run(name):
        with run_gate.one_script_run():
            with run_gate.one_script_run():  # a fragment inside the full run: no second slot, no deadlock
                order.append(f"{name} in")
                time.sleep(0.05)
                order.append(f"{name} out")

    threads = [threading.Thread(target=run, args=(n,)) for n in "abc"]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert slots.most == 1 and slots.taken == 3
    assert all(order[i].endswith("in") and order[i + 1] == order[i].replace("in", "out") for i in range(0, 6, 2))


def test_released_lets_another_run_in_while_this_one_waits_on_the_network(slots):
    inside_other = threading.Event()

    def other():
        with run_gate.one_script_run():
            inside_other.set()

    with run_gate.one_script_run():
        with run_gate.released():
            t = threading.Thread(target=other)
            t.start()
            assert inside_other.wait(5)  # the other run got the slot meanwhile
            t.join(5)
        assert run_gate.holding()  # and this one has it back
    assert not run_gate.holding() and slots.inside == 0


def test_the_app_holds_a_slot_for_the_whole_run_sidebar_included(slots, monkeypatch):
    import ui
    seen, sidebar = [], ui.sidebar
    monkeypatch.setattr(ui, "sidebar", lambda: (seen.append(run_gate.holding()), sidebar())[1])
    at = open_screen("mask")
    assert not at.exception and seen and all(seen) and slots.inside == 0


def test_a_fragments_own_rerun_takes_a_slot_too(slots, monkeypatch):
    from ui.state import session as state
    monkeypatch.setattr(state.st, "fragment", lambda function: function)  # what Streamlit calls on a fragment rerun
    monkeypatch.setattr(state, "sync_url", lambda: None)
    seen = []
    state.fragment(lambda: seen.append(run_gate.holding()))()  # outside any full run, as a fragment's own rerun is
    assert seen == [True] and slots.taken == 1 and slots.inside == 0


def test_the_operators_setting_is_read_safely():
    assert [run_gate._slots_from(t) for t in ("1", "3", "0", "-2", "many", "")] == [1, 3, 0, 0, 1, 1]
