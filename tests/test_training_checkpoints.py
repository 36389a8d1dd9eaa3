"""The shipped checkpoints: small, loaded safely, reproducible, and they meet the targets."""
import pytest
import torch

from attention_core import head_scores, training


@pytest.fixture(scope="module")
def repeat():
    return training.load("repeat")


@pytest.mark.parametrize("task", list(training.TASKS))
def test_checkpoints_are_small_and_load_with_weights_only(task):
    path = training.checkpoint_path(task)
    assert path.stat().st_size < 600_000  # well under 1 MB
    saved = torch.load(path, map_location="cpu", weights_only=True)  # no pickled code
    run = training.load_run(task)
    assert saved["config"] == training.DEFAULTS | {"steps": training.STEPS[task]}
    assert sorted(run.snapshots) == list(range(0, training.STEPS[task] + 1, training.DEFAULTS["snapshot_every"]))
    assert len(run.history["step"]) == training.STEPS[task]
    assert not run.model.training


def test_repeat_predicts_the_copy(repeat):
    assert head_scores.accuracy(repeat, "repeat") >= 0.95
    assert head_scores.accuracy(repeat, "repeat", seed=7) >= 0.95  # another fresh batch


def test_repeat_has_a_previous_token_head_and_an_induction_head(repeat):
    scores = head_scores.batch_scores(repeat, "repeat")
    assert scores["previous"][0].max() >= 0.5  # layer 1
    assert scores["induction"][1].max() >= 0.5  # layer 2


def test_switching_heads_off_breaks_the_circuit(repeat):
    full = head_scores.accuracy(repeat, "repeat")
    single = head_scores.ablation(repeat, "repeat")
    assert full - single.min() >= 0.30  # one head is a bottleneck (the previous-token head)
    induction = head_scores.batch_scores(repeat, "repeat")["induction"]
    strong = [(l, h) for l in range(2) for h in range(4) if induction[l, h] >= 0.3]
    assert strong and full - head_scores.accuracy(head_scores.with_heads_off(repeat, strong), "repeat") >= 0.50


def test_sort_model_sorts():
    assert head_scores.accuracy(training.load("sort"), "sort") >= 0.95


def test_the_script_reproduces_the_smallest_checkpoint_bit_for_bit():
    """scripts/train_checkpoints.py trains with training.train_shipped: re-run it for reverse."""
    fresh, shipped = training.train_shipped("reverse"), training.load_run("reverse")
    weights = shipped.model.state_dict()
    assert all(torch.equal(v, weights[k]) for k, v in fresh.model.state_dict().items())
    assert fresh.history == shipped.history
    assert all(torch.equal(training.dequantize(training.quantize(fresh.snapshots[s])), shipped.snapshots[s])
               for s in shipped.snapshots)


def test_the_first_steps_of_every_checkpoint_reproduce():
    for task in ("repeat", "sort"):
        fresh = training.train_shipped(task, stop_after=30)
        assert fresh.history["loss"] == training.load_run(task).history["loss"][:30], task
