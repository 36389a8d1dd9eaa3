"""attention_core.models.gpt2 against transformers' GPT2LMHeadModel: same attention, same logits, both key layouts."""
import pytest
import torch

from attention_core.models import gpt2
from attention_core.book.modules import MultiHeadAttention
from gpt2_tiny import reference_model, save_tiny

SIZES = {"n_layer": 2, "n_head": 4, "n_embd": 64, "n_positions": 80}


@pytest.fixture(scope="module", params=[False, True], ids=["hub-layout", "transformer-prefixed"])
def saved(request, tmp_path_factory):
    directory = tmp_path_factory.mktemp("tiny-gpt2")
    reference = save_tiny(directory, prefixed=request.param, **SIZES)
    return directory, reference


def batch():
    torch.manual_seed(1)
    return torch.randint(0, 270, (2, 40))  # (b, T)


def test_sizes_come_from_config_json(saved):
    model = gpt2.load(saved[0])
    assert (model.config.n_layer, model.config.n_head, model.config.n_embd, model.config.vocab_size) == (2, 4, 64, 276)
    assert all(isinstance(m, MultiHeadAttention) for m in model.attention_modules)
    assert len(model.attention_modules) == 2 and model.attention_modules[0].num_heads == 4


def test_every_layers_attention_and_the_logits_match_transformers(saved):
    directory, reference = saved
    model, ids = gpt2.load(directory), batch()
    with torch.no_grad():
        expected = reference(ids, output_attentions=True)
    ours = model.attention_weights(ids)
    assert len(ours) == len(expected.attentions) == 2
    for layer, (a, b) in enumerate(zip(ours, expected.attentions)):
        assert a.shape == b.shape == (2, 4, 40, 40)
        assert (a - b).abs().max() <= 1e-5, f"layer {layer + 1}"
    # The weights are sharp (std 0.35), so a swapped or untransposed projection could not pass above.
    assert min(float(a.max(-1).values[..., 5:].mean()) for a in ours) > 0.5
    logits = model(ids)
    assert logits.shape == (2, 40, 276)
    assert (logits - expected.logits).abs().max() <= 1e-5 * max(1.0, float(expected.logits.abs().max()))


def test_the_book_trace_of_each_layer_input_gives_the_layers_weights(saved):
    """The shared protocol the heads screen relies on."""
    model, ids = gpt2.load(saved[0]), batch()
    inputs, weights = model.attention_inputs(ids), model.attention_weights(ids)
    assert len(inputs) == 2 and inputs[0].shape == (2, 40, 64)
    for module, x, w in zip(model.attention_modules, inputs, weights):
        assert torch.equal(module.trace(x)["attn_weights"], w)
    assert not model.training


def test_next_token_top_5_are_the_references_most_likely(saved):
    directory, reference = saved
    model, ids = gpt2.load(directory), batch()[:1]
    top = model.predict_next(ids)
    with torch.no_grad():
        probs = torch.softmax(reference(ids).logits[0, -1], -1)
    assert [i for i, _ in top] == torch.topk(probs, 5).indices.tolist()
    assert [p for _, p in top] == pytest.approx(torch.topk(probs, 5).values.tolist(), abs=1e-6)
    assert top[0][1] >= top[-1][1] > 0


def test_a_directory_missing_the_weights_is_reported_not_crashed(tmp_path):
    save_tiny(tmp_path, **SIZES)
    (tmp_path / "model.safetensors").unlink()
    with pytest.raises(gpt2.WeightsUnavailable, match="model.safetensors"):
        gpt2.load(tmp_path)


def test_a_different_model_in_the_same_family_loads_too(tmp_path):
    reference = save_tiny(tmp_path, n_layer=3, n_head=2, n_embd=32, n_positions=16, seed=5)
    model, ids = gpt2.load(tmp_path), torch.randint(0, 276, (1, 16))
    with torch.no_grad():
        expected = reference(ids, output_attentions=True).attentions
    assert [tuple(w.shape) for w in model.attention_weights(ids)] == [(1, 2, 16, 16)] * 3
    assert max(float((a - b).abs().max()) for a, b in zip(model.attention_weights(ids), expected)) <= 1e-5
