"""The toy tasks, the model's protocol, determinism, and that training really learns."""
import pytest
import torch

from attention_core.models import head_scores, training
from attention_core.book.modules import MultiHeadAttention
from attention_core.models.toy_tasks import LIST_LENGTH, from_text, make_sequences, to_text


@pytest.mark.parametrize("task", list(training.TASKS))
def test_make_batch_shapes_and_determinism(task):
    spec = training.TASKS[task]
    inputs, targets, mask = training.make_batch(task, 8, torch.Generator().manual_seed(1))
    assert inputs.shape == targets.shape == mask.shape == (8, spec.context_length)
    assert inputs.dtype == targets.dtype == torch.int64 and mask.dtype == torch.bool
    assert int(inputs.max()) < spec.vocab_size and int(inputs.min()) >= 0
    assert torch.equal(inputs[:, 1:], targets[:, :-1])  # targets are the inputs shifted by one
    again = training.make_batch(task, 8, torch.Generator().manual_seed(1))
    assert all(torch.equal(a, b) for a, b in zip((inputs, targets, mask), again))
    other = training.make_batch(task, 8, torch.Generator().manual_seed(2))
    assert not torch.equal(inputs, other[0])


def test_repeat_masks_exactly_the_predictable_part_of_the_copy():
    seq, mask, starts = make_sequences("repeat", 64, torch.Generator().manual_seed(3))
    lengths = set()
    for row, (first, second, length) in enumerate(starts):
        lengths.add(length)
        assert 4 <= length <= 12 and second >= first + length and second + length <= seq.shape[1]
        assert torch.equal(seq[row, second:second + length], seq[row, first:first + length])
        expected = torch.zeros(seq.shape[1] - 1, dtype=torch.bool)
        expected[second:second + length - 1] = True  # input i predicts token i+1: the copy's 2nd token on
        assert torch.equal(mask[row], expected)
    assert len({s[1] - s[0] for s in starts}) > 5 and len(lengths) > 4  # random offsets and lengths


def test_sort_and_reverse_answers():
    for task, answer in (("sort", lambda x: x.sort().values), ("reverse", lambda x: x.flip(0))):
        seq, mask, _ = make_sequences(task, 4, torch.Generator().manual_seed(0))
        for row in seq:
            assert torch.equal(row[LIST_LENGTH + 1:], answer(row[:LIST_LENGTH]))
        assert mask[:, LIST_LENGTH:].all() and not mask[:, :LIST_LENGTH].any()


def test_symbols_round_trip_and_bad_text():
    ids = torch.tensor([0, 25, 26, 31])
    assert to_text("repeat", ids) == "AZ27"
    assert torch.equal(from_text("repeat", "a z 2 7")[0], ids)
    assert from_text("repeat", "AB!")[0] is None and "'!'" in from_text("repeat", "AB!")[1]
    assert from_text("sort", "1" * 25)[0] is None


def test_model_follows_the_shared_protocol():
    model = training.build_model("repeat", 0, 2, 4, 64)
    ids = torch.randint(0, 32, (3, 32))
    assert model(ids).shape == (3, 32, model.vocab_size) and model.context_length == 32
    weights, inputs = model.attention_weights(ids), model.attention_inputs(ids)
    assert [w.shape for w in weights] == [(3, 4, 32, 32)] * 2 and [x.shape for x in inputs] == [(3, 32, 64)] * 2
    for mha, x, w in zip(model.attention_modules, inputs, weights):
        assert type(mha) is MultiHeadAttention
        assert torch.equal(mha.trace(x)["attn_weights"], w)
    assert torch.equal(model.run(ids, record=True)[0], model(ids))  # the traced pass is the forward pass
    assert torch.allclose(weights[0].sum(-1), torch.ones(3, 4, 32)) and weights[0][0, 0].triu(1).abs().max() == 0


def test_training_is_deterministic_from_the_seed():
    with training.one_thread():  # quick on a busy machine
        a = training.train("repeat", steps=15, seed=5, snapshot_every=5)
        b = training.train("repeat", steps=15, seed=5, snapshot_every=5)
        c = training.train("repeat", steps=15, seed=6, snapshot_every=5)
    assert a.history == b.history and a.history != c.history
    assert all(torch.equal(v, b.model.state_dict()[k]) for k, v in a.model.state_dict().items())
    assert sorted(a.snapshots) == [0, 5, 10, 15] and a.snapshots[15].shape == (2, 4, 32, 32)
    assert a.history["step"] == list(range(1, 16)) and len(a.history["loss"]) == 15


def test_learning_happens_within_a_small_budget():
    """Reverse: from chance to nearly perfect in 200 steps (a few seconds)."""
    seen = []
    result = training.train("reverse", steps=200, seed=0, progress=lambda *args: seen.append(args[0]))
    assert seen[-1] == 200 and len(seen) == 20
    before = head_scores.accuracy(training.build_model("reverse", 0, 2, 4, 64), "reverse")
    after = head_scores.accuracy(result.model, "reverse")
    assert before < 0.15 and after > 0.9, (before, after)
    assert result.history["loss"][-1] < result.history["loss"][0] / 4


def test_the_seed_sets_both_the_weights_and_the_data():
    """Step 1's loss is the seeded model's loss on the first batch of a generator seeded the same way."""
    for seed in (5, 6):
        with training.one_thread():
            first = training.train("repeat", steps=1, seed=seed).history["loss"][0]
            inputs, targets, mask = training.make_batch("repeat", 64, torch.Generator().manual_seed(seed))
            with torch.no_grad():
                loss, _ = training.masked_loss(training.build_model("repeat", seed, 2, 4, 64)(inputs), targets, mask)
        assert first == float(loss)


def test_save_and_load_run_round_trip(tmp_path):
    with training.one_thread():
        result = training.train("sort", steps=12, seed=1, snapshot_every=4)
    training.save(result, tmp_path / "sort.pt")
    loaded = training.load_run("sort", tmp_path / "sort.pt")
    assert loaded.history == result.history and loaded.config == result.config
    assert all(torch.equal(v, loaded.model.state_dict()[k]) for k, v in result.model.state_dict().items())
    assert sorted(loaded.snapshots) == [0, 4, 8, 12] and torch.equal(loaded.probe, result.probe)
    assert (loaded.snapshots[12].float() - result.snapshots[12].float()).abs().max() <= 1 / 255
