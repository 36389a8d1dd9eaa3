"""Train the shipped toy models (attention_core/models/checkpoints/<task>.pt) and print what they learned.

    nice python scripts/train_checkpoints.py                 # all tasks (about a minute on 2 cores)
    nice python scripts/train_checkpoints.py --tasks repeat  # one task
    nice python scripts/train_checkpoints.py --check         # retrain, compare with the shipped files
    nice python scripts/train_checkpoints.py --time          # repeat from scratch: seconds to reach 0.9
    nice python scripts/train_checkpoints.py --speed         # the /trained screen's compute per view

Deterministic: the same torch build on the same kind of CPU writes the same bytes of weights.
Another CPU family (AVX-512, ARM) adds in other orders: --check then shows how far apart they are.
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attention_core.models import head_scores, training  # noqa: E402


def report(result: training.TrainResult) -> None:
    model, task = result.model, result.task
    scores = head_scores.batch_scores(model, task)
    print(f"  accuracy on a fresh batch: {head_scores.accuracy(model, task):.4f}")
    for name, table in scores.items():
        print(f"  {head_scores.SCORE_NAMES[name]:>15} score per head (rows = layers): "
              + " | ".join(" ".join(f"{v:.2f}" for v in row) for row in table.tolist()))
    print("  accuracy with one head off (rows = layers): "
          + " | ".join(" ".join(f"{v:.2f}" for v in row) for row in head_scores.ablation(model, task).tolist()))
    lookup = scores[training.TASKS[task].lookup]
    strong = [(l, h) for l in range(lookup.shape[0]) for h in range(lookup.shape[1]) if lookup[l, h] >= 0.3]
    if strong:
        off = head_scores.accuracy(head_scores.with_heads_off(model, strong), task)
        print(f"  every head with {head_scores.SCORE_NAMES[training.TASKS[task].lookup]} score >= 0.3 off "
              f"({len(strong)} heads): {off:.4f}")


def differences(a: training.TrainResult, b: training.TrainResult) -> str:
    """How far two runs are apart: the same bits on one machine, a little apart on another CPU family."""
    weights = a.model.state_dict()
    dw = max(float((v - weights[k]).abs().max()) for k, v in b.model.state_dict().items())
    dl = max(abs(x - y) for x, y in zip(a.history["loss"], b.history["loss"]))
    ds = max(int((training.quantize(a.snapshots[s]).int() - training.quantize(b.snapshots[s]).int()).abs().max())
             for s in a.snapshots)
    same = dw == dl == ds == 0 and a.history == b.history
    return ("same bits as the shipped checkpoint" if same else
            f"differs from the shipped checkpoint: weights by {dw:.2g}, losses by {dl:.2g}, snapshots by {ds}/255"
            " (tests/test_training_checkpoints.py allows 5e-4, 2e-5 and 1/255)")


def time_to_target(target: float = 0.9, every: int = 50) -> None:
    """Train repeat with the defaults; every `every` steps measure a fresh batch (not counted in the time)."""
    spent, reached, last = 0.0, None, [time.perf_counter()]

    def progress(step, steps, loss, accuracy, model):
        nonlocal spent, reached
        if step % every or reached:
            return
        spent += time.perf_counter() - last[0]
        measured = head_scores.accuracy(model, "repeat")
        print(f"  step {step}: {spent:.1f} s, accuracy on a fresh batch {measured:.3f}", flush=True)
        if measured >= target:
            reached = (step, spent)
        last[0] = time.perf_counter()

    with training.one_thread():  # the fastest here, and what train_shipped uses
        training.train("repeat", progress=progress)
    print("repeat from scratch (defaults, one CPU thread): "
          + (f"{target} reached at step {reached[0]} after {reached[1]:.1f} s of training" if reached
             else f"{target} not reached"))


def screen_speed(repeats: int = 3) -> None:
    """The /trained screen's script time in AppTest (no browser): opening it cold, then scrubbing a step."""
    from streamlit.testing.v1 import AppTest
    import streamlit as st
    app = str(Path(__file__).resolve().parents[1] / "main.py")
    at = AppTest.from_file(app, default_timeout=300)
    at.run()  # imports torch and the app: not part of opening the screen
    st.cache_data.clear()
    st.cache_resource.clear()
    start = time.perf_counter()
    at.switch_page("screens/trained.py").run()
    print(f"open /trained from the checkpoints, cold caches: {time.perf_counter() - start:.2f} s "
          f"({len(at.get('vega_lite_chart'))} charts, {len(at.dataframe)} table, {len(at.metric)} numbers)")
    start = time.perf_counter()
    at.switch_page("screens/trained.py").run()
    print(f"open /trained again (warm caches): {time.perf_counter() - start:.2f} s")
    steps = sorted(training.load_run("repeat").snapshots)[:-1]
    for step in steps[: repeats * 2: 2]:
        start = time.perf_counter()
        at.select_slider(key="step").set_value(step).run()
        print(f"scrub to step {step}: {time.perf_counter() - start:.2f} s")
    assert not at.exception, at.exception


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", nargs="+", default=list(training.TASKS), choices=list(training.TASKS))
    parser.add_argument("--check", action="store_true", help="compare with the shipped checkpoints, write nothing")
    parser.add_argument("--time", action="store_true", help="seconds for repeat to reach 0.9 from scratch")
    parser.add_argument("--speed", action="store_true", help="the /trained screen's compute: open, scrub")
    args = parser.parse_args()
    if args.time:
        return time_to_target()
    if args.speed:
        return screen_speed()
    training.CHECKPOINTS.mkdir(exist_ok=True)
    for task in args.tasks:
        start = time.perf_counter()
        result = training.train_shipped(task)
        print(f"{task}: {result.config['steps']} steps in {time.perf_counter() - start:.1f} s")
        path = training.checkpoint_path(task)
        if args.check:
            with tempfile.TemporaryDirectory() as folder:
                training.save(result, Path(folder) / "new.pt")
                fresh = training.load_run(task, Path(folder) / "new.pt")
            print("  " + differences(fresh, training.load_run(task)))
            continue
        training.save(result, path)
        print(f"  wrote {path.name}: {path.stat().st_size / 1024:.0f} KiB")
        report(training.load_run(task))


if __name__ == "__main__":
    main()
