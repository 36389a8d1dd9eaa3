"""The live training runs of one server process: a small pool, a queue, and no work for nobody.

- One job per settings key: a class that presses "Train" with the same settings shares one run.
- At most `size` jobs run at once, each in its own process (attention_core/models/train_job.py says why:
  nice 19, one torch thread, no share of the server's GIL); the others wait in a queue.
- Every screen that shows a job calls job.watch() on each rerun or poll. A job nobody has watched
  for `unwatched_after` seconds is cancelled, queued or running, so closed tabs free the cores.
- Finished runs are kept (the last `keep_finished`) for whoever comes back to those settings.

Plain Python, no Streamlit: tests drive a Pool with a short timeout.
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import deque
from pathlib import Path

from attention_core.models import training

# One thread from the start: torch.set_num_threads(1) in the child cannot shrink an OpenMP pool that its import already
# started (PyTorch's CUDA build on a 16-core machine left 18 threads), but these variables size the pool before it exists.
ONE_THREAD_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}

ROOT = Path(__file__).resolve().parents[2]  # the folder that holds attention_core, for `python -m`
UNWATCHED_AFTER = 20.0  # seconds without a watcher before a job is cancelled (plus one tick: < 30 s)
KEEP_FINISHED = 8
RUNNING, QUEUED, DONE, FAILED, CANCELLED = "running", "queued", "done", "failed", "cancelled"


class Job:
    """One training run: its settings, where it is, its growing history and, once done, its result."""

    def __init__(self, key: tuple, task: str, config: dict, clock):
        self.key, self.task, self.config, self._clock = key, task, config, clock
        self.state, self.step, self.steps = QUEUED, 0, config["steps"]
        self.history = {"step": [], "loss": [], "accuracy": []}  # every 10th step while it runs
        self.result: training.TrainResult | None = None
        self.accuracy, self.scores, self.error = None, None, None
        self.last_seen = clock()
        self.process: subprocess.Popen | None = None

    def watch(self) -> None:
        """Someone is looking at this job (a rerun or a poll of the screen that shows it)."""
        self.last_seen = self._clock()

    @property
    def done(self) -> bool:
        return self.state in (DONE, FAILED, CANCELLED)


class Pool:
    def __init__(self, size: int, unwatched_after: float = UNWATCHED_AFTER, keep_finished: int = KEEP_FINISHED,
                 tick: float = 0.5, clock=time.monotonic):
        self.size, self.unwatched_after, self.keep_finished = size, unwatched_after, keep_finished
        self.tick_seconds, self.clock = tick, clock
        self.jobs: dict[tuple, Job] = {}  # in the order they were asked for: the queue's order
        self._lock = threading.RLock()
        self._supervisor: threading.Thread | None = None

    def submit(self, key: tuple, task: str, config: dict) -> Job:
        """The job of these settings: the running, queued or finished one, or a new one at the queue's end."""
        with self._lock:
            job = self.jobs.get(key)
            if job is None or job.state in (FAILED, CANCELLED):
                self.jobs.pop(key, None)
                job = self.jobs[key] = Job(key, task, config, self.clock)
            job.watch()
            self.tick()
            if self._supervisor is None or not self._supervisor.is_alive():
                self._supervisor = threading.Thread(target=self._supervise, daemon=True, name="training-pool")
                self._supervisor.start()
            return job

    def get(self, key: tuple) -> Job | None:
        with self._lock:
            return self.jobs.get(key)

    def place(self, job: Job) -> int:
        """0 while it runs (or is over); else its place in the queue, 1 = next to start."""
        with self._lock:
            queued = [j for j in self.jobs.values() if j.state == QUEUED]
            return queued.index(job) + 1 if job in queued else 0

    def running(self) -> list[Job]:
        with self._lock:
            return [j for j in self.jobs.values() if j.state == RUNNING]

    def tick(self) -> None:
        """Cancel what nobody watches, start queued jobs while there is room, forget old finished runs."""
        with self._lock:
            now = self.clock()
            for job in self.jobs.values():
                if not job.done and now - job.last_seen > self.unwatched_after:
                    self._cancel(job)
            room = self.size - len(self.running())
            for job in [j for j in self.jobs.values() if j.state == QUEUED][:max(room, 0)]:
                self._start(job)
            finished = [k for k, j in self.jobs.items() if j.done]
            for key in finished[:max(len(finished) - self.keep_finished, 0)]:
                del self.jobs[key]

    def _supervise(self) -> None:
        """Tick until nothing is queued or running (the next submit starts a new supervisor)."""
        while True:
            time.sleep(self.tick_seconds)
            with self._lock:
                self.tick()
                if all(j.done for j in self.jobs.values()):
                    self._supervisor = None
                    return

    def _cancel(self, job: Job) -> None:
        job.state = CANCELLED
        if job.process is not None and job.process.poll() is None:
            job.process.kill()  # the child holds nothing shared: stopping it mid-step loses only its own run

    def _start(self, job: Job) -> None:
        out = Path(tempfile.gettempdir()) / f"training-job-{uuid.uuid4().hex}.pt"  # the child writes it at the end
        config = json.dumps({"task": job.task} | job.config)
        job.process = subprocess.Popen([sys.executable, "-m", "attention_core.models.train_job", config, str(out)], cwd=ROOT,
                                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       text=True, env=dict(os.environ) | ONE_THREAD_ENV)
        job.state = RUNNING
        threading.Thread(target=self._read, args=(job, job.process, out), daemon=True,
                         name="training-job-reader").start()

    def _read(self, job: Job, process: subprocess.Popen, out: Path) -> None:
        """Follow the child's lines (this thread waits on a pipe, costing the server nothing) until it ends."""
        other = deque(maxlen=5)  # the last lines that were not progress: a traceback's end
        for line in process.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                other.append(line.rstrip())
                continue
            if "step" in message:
                for name in ("step", "loss", "accuracy"):
                    job.history[name].append(message[name])
                job.step = message["step"]
            elif "final_accuracy" in message:
                job.accuracy, job.scores = message["final_accuracy"], message["scores"]
            elif "saved" in message and job.state == RUNNING:
                job.result = training.load_run(job.task, out)
        process.wait()
        out.unlink(missing_ok=True)
        with self._lock:
            if job.state == RUNNING:
                if job.result is not None and process.returncode == 0:
                    job.step, job.state = job.steps, DONE
                else:
                    job.error = " / ".join(other) or f"the training process ended with code {process.returncode}"
                    job.state = FAILED
            self.tick()  # its place is free: the next in the queue starts now, not at the next tick
