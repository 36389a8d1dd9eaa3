"""One live training run in a process of its own, for the app's job pool (ui/server/jobs.py).

    python -m attention_core.models.train_job '{"task": "repeat", "steps": 500, "layers": 2, ...}' run.pt

Prints one JSON line every 10 steps ({"step", "loss", "accuracy"}), saves the run with
training.save, then prints the final model's accuracy and head scores on a fresh batch and
{"saved": path}. The server only reads these lines, so the run costs it no Python time at all.

Why a process and not a thread of the server: measured on 2 cores (2026-11-23), two training
threads inside one Python process made an interactive workload 1.8x slower (they share its GIL,
and a tiny model's step is mostly Python), while two of these processes at nice 19 with one torch
thread each left it as fast as idle. torch.set_num_threads is no help inside the server either:
in torch 2.13 it sets the calling thread's OpenMP count *and* the default that every thread
started later picks up, so the next Streamlit script threads would compute on one thread too.
"""
import json
import os
import sys
from pathlib import Path

import torch

from attention_core.models import head_scores, training


def main(config_json: str, out: str) -> None:
    if hasattr(os, "nice"):
        os.nice(19)  # the server's sessions come first whenever the cores are busy
    if hasattr(os, "sched_setscheduler"):  # Linux: run only when no session wants the core (nice 19 still
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))  # takes a slice of every period)
    torch.set_num_threads(1)  # a process of its own: this touches no one else's threads
    config = json.loads(config_json)
    task = config.pop("task")
    parent = os.getppid()

    def progress(step, steps, loss, accuracy, model):
        if os.getppid() != parent:  # the server is gone: nobody can read this run any more
            sys.exit(1)
        print(json.dumps({"step": step, "loss": loss, "accuracy": accuracy}), flush=True)

    result = training.train(task, progress=progress, **config)
    training.save(result, Path(out))
    with torch.no_grad():
        accuracy = head_scores.accuracy(result.model, task)
        scores = {name: v.tolist() for name, v in head_scores.batch_scores(result.model, task).items()}
    print(json.dumps({"final_accuracy": accuracy, "scores": scores}), flush=True)
    print(json.dumps({"saved": out}), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:3])
