"""The training pool (ui/server/jobs.py) with real training processes: a queue beyond the pool,
shared runs, runs that finish, and runs that stop when nobody watches (a 1 s timeout here, 20 s on a server)."""
import os
import time

import pytest

from ui.server import jobs

LONG = dict(layers=1, heads=1, d_model=64, steps=5000, seed=0, lr=3e-3, device="cpu")  # minutes: never finishes here
QUICK = dict(LONG, steps=20)


def key_of(config: dict, task: str = "repeat") -> tuple:
    return (task,) + tuple(config.values())


def wait_for(condition, seconds: float = 90, watching=()) -> None:
    """Poll until condition() holds, watching the given jobs meanwhile (as the screen's poll does)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        for job in watching:
            job.watch()
        time.sleep(0.1)


@pytest.fixture
def pools():
    """Pools made by a test; every job they still hold is stopped afterwards."""
    made = []

    def make(**kwargs):
        made.append(jobs.Pool(**kwargs))
        return made[-1]
    yield make
    for pool in made:
        with pool._lock:
            for job in pool.jobs.values():
                pool._cancel(job)


def test_more_jobs_than_the_pool_wait_in_a_queue_and_know_their_place(pools):
    pool = pools(size=1, unwatched_after=600)
    first, second, third = (pool.submit(key_of(dict(LONG, seed=s)), "repeat", dict(LONG, seed=s)) for s in range(3))
    assert [j.state for j in (first, second, third)] == ["running", "queued", "queued"]
    assert [pool.place(j) for j in (first, second, third)] == [0, 1, 2]
    assert second.process is None and third.process is None  # a queued job costs no process
    pool._cancel(first)
    pool.tick()
    assert second.state == "running" and pool.place(third) == 1


def test_identical_settings_share_one_run_and_the_queue_moves_on_when_it_finishes(pools):
    pool = pools(size=1, unwatched_after=600)
    job = pool.submit(key_of(QUICK), "repeat", dict(QUICK))
    assert pool.submit(key_of(QUICK), "repeat", dict(QUICK)) is job and len(pool.jobs) == 1
    waiting = pool.submit(key_of(LONG), "repeat", dict(LONG))
    assert pool.place(waiting) == 1
    wait_for(lambda: job.done)
    assert job.state == "done", job.error
    assert job.result.history["step"] == list(range(1, 21)) and job.step == 20
    assert job.history["step"] == [10, 20]  # what the child reported while it ran
    assert 0 <= job.accuracy <= 1 and set(job.scores) >= {"induction", "previous"}
    assert len(job.scores["induction"]) == 1 and len(job.scores["induction"][0]) == 1  # (layers, heads)
    wait_for(lambda: waiting.state == "running")
    assert pool.submit(key_of(QUICK), "repeat", dict(QUICK)) is job  # a finished run is kept for the next visitor


def test_a_job_nobody_watches_stops_and_a_watched_one_keeps_running(pools):
    pool = pools(size=2, unwatched_after=1.0, tick=0.1)
    watched = pool.submit(key_of(LONG), "repeat", dict(LONG))
    left = pool.submit(key_of(dict(LONG, seed=1)), "repeat", dict(LONG, seed=1))
    process = left.process
    wait_for(lambda: left.state == "cancelled", seconds=5, watching=[watched])
    wait_for(lambda: process.poll() is not None, seconds=5, watching=[watched])  # the process is gone too
    assert watched.state == "running" and watched.process.poll() is None
    again = pool.submit(key_of(dict(LONG, seed=1)), "repeat", dict(LONG, seed=1))
    assert again is not left and again.state == "running"  # pressing Train again starts a fresh run


def test_a_queued_job_nobody_watches_leaves_the_queue(pools):
    pool = pools(size=1, unwatched_after=1.0, tick=0.1)
    running = pool.submit(key_of(LONG), "repeat", dict(LONG))
    queued = pool.submit(key_of(dict(LONG, seed=1)), "repeat", dict(LONG, seed=1))
    wait_for(lambda: queued.state == "cancelled", seconds=5, watching=[running])
    assert queued.process is None and running.state == "running"


def test_a_job_runs_at_nice_19_on_one_torch_thread(pools):
    pool = pools(size=1, unwatched_after=600)
    job = pool.submit(key_of(LONG), "repeat", dict(LONG))
    wait_for(lambda: job.step > 0)  # torch is imported and training runs
    assert os.getpriority(os.PRIO_PROCESS, job.process.pid) == 19
    if hasattr(os, "sched_getscheduler"):
        assert os.sched_getscheduler(job.process.pid) == os.SCHED_IDLE  # behind every session, not beside it
    threads = int(next(line.split()[1] for line in open(f"/proc/{job.process.pid}/status")
                       if line.startswith("Threads:")))
    assert threads <= 2  # the interpreter's own thread (and at most one helper); torch adds no pool at 1 thread


def test_a_failing_run_reports_why(pools):
    pool = pools(size=1, unwatched_after=600)
    job = pool.submit(("repeat", "bad"), "repeat", dict(QUICK, heads=3))  # 64 is not divisible by 3 heads
    wait_for(lambda: job.done)
    assert job.state == "failed" and "divisible" in job.error
