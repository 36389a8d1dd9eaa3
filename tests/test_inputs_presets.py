"""Inputs (tokenizer, embeddings, random tensors), URL presets and the device choice."""
import pytest
import torch

from attention_core import BOOK_TOKENS, embed_tokens, random_inputs, tokenize
from attention_core.book import device
from attention_core.lessons import traces as lesson, presets
from attention_core.book.inputs import MAX_SENTENCE_TOKENS

# --- inputs ------------------------------------------------------------------------------------


def test_tokenize_like_chapter_2():
    assert tokenize("Hello, world. Is this-- a test?") == [
        "Hello", ",", "world", ".", "Is", "this", "--", "a", "test", "?"]
    assert tokenize(" ".join(BOOK_TOKENS)) == BOOK_TOKENS
    assert tokenize("") == [] and tokenize("   \n\t ") == []


def test_embed_tokens_deterministic_and_seed_dependent():
    tokens = ["Your", "journey", "starts"]
    a = embed_tokens(tokens, 8, 123)
    assert a.shape == (3, 8)
    assert torch.equal(a, embed_tokens(tokens, 8, 123))
    assert not torch.equal(a, embed_tokens(tokens, 8, 124))
    # a row depends only on its own token, not its neighbours
    assert torch.equal(embed_tokens(["journey"], 8, 123)[0], a[1])


def test_embed_tokens_leaves_global_rng_alone():
    before = torch.get_rng_state()
    embed_tokens(["a", "b"], 4, 1, positions=True)
    assert torch.equal(before, torch.get_rng_state())


def test_repeated_word_with_and_without_positions():
    tokens = ["the", "cat", "saw", "the", "dog"]
    plain = embed_tokens(tokens, 6, 7)
    assert torch.equal(plain[0], plain[3])
    positioned = embed_tokens(tokens, 6, 7, positions=True)
    assert not torch.allclose(positioned[0], positioned[3])
    assert positioned.shape == plain.shape == (5, 6)


def test_embed_tokens_empty():
    assert embed_tokens([], 4, 1).shape == (0, 4)
    assert embed_tokens([], 4, 1, positions=True).shape == (0, 4)


def test_random_inputs():
    x = random_inputs(5, 7, 42)
    assert x.shape == (5, 7)
    assert torch.equal(x, random_inputs(5, 7, 42))
    assert not torch.equal(x, random_inputs(5, 7, 43))
    big = random_inputs(256, 256, 0)  # zero mean, unit variance, like a trained embedding's rows
    assert abs(float(big.mean())) < 0.02 and abs(float(big.std()) - 1) < 0.02
    assert (big < 0).float().mean() > 0.45  # not torch.rand: about half the entries are negative


def test_make_inputs_book_and_random():
    book = lesson.make_inputs("book", "", False, 6, 3, 123)
    assert book.tokens == BOOK_TOKENS and book.x.shape == (6, 3) and book.notes == []
    rnd = lesson.make_inputs("random", "", False, 4, 5, 1)
    assert rnd.x.shape == (4, 5) and rnd.tokens == ["t1", "t2", "t3", "t4"]


@pytest.mark.parametrize("text", ["", "   ", None])
def test_make_inputs_empty_sentence_falls_back_with_note(text):
    result = lesson.make_inputs("sentence", text, False, 6, 4, 1)
    assert result.tokens == BOOK_TOKENS
    assert result.x.shape == (6, 4)
    assert len(result.notes) == 1 and "book" in result.notes[0]


def test_make_inputs_long_sentence_truncated_with_note():
    text = " ".join(f"w{i}" for i in range(MAX_SENTENCE_TOKENS + 10))
    result = lesson.make_inputs("sentence", text, True, 6, 4, 1)
    assert len(result.tokens) == MAX_SENTENCE_TOKENS
    assert result.tokens[-1] == f"w{MAX_SENTENCE_TOKENS - 1}"
    assert result.x.shape == (MAX_SENTENCE_TOKENS, 4)
    assert len(result.notes) == 1 and str(MAX_SENTENCE_TOKENS) in result.notes[0]


@pytest.mark.parametrize("text", [
    "🙂 hello 👋🏽 world",
    "你好，世界。我爱你",
    "שלום עולם",
    "مرحبا بالعالم",
    "e\u0301te\u0301 cafe\u0301",
    "<script>alert(1)</script>",
    "a\u200bb \u00a0 c",
])
def test_unusual_text_tokenizes_and_embeds(text):
    tokens = tokenize(text)
    assert tokens and all(isinstance(t, str) and t for t in tokens)
    result = lesson.make_inputs("sentence", text, True, 6, 3, 5)
    assert result.tokens == tokens
    assert result.x.shape == (len(tokens), 3)
    assert torch.isfinite(result.x).all()


# --- presets and URL values -------------------------------------------------------------------

@pytest.mark.parametrize("name, raw, expected", [
    ("tokens", "12", 12), ("tokens", " 7 ", 7), ("dropout", "0.25", 0.25), ("dropout", "1", 1.0),
    ("scale", "0", False), ("scale", "yes", True), ("positions", "TRUE", True),
    ("preset", "gpt2-small", "gpt2-small"), ("device", "cpu", "cpu"), ("seed", "0", 0),
    ("text", "Hello there", "Hello there"),
])
def test_parse_param_good_values(name, raw, expected):
    value, note = presets.parse_param(name, raw)
    assert note is None
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize("name, raw", [
    ("tokens", "abc"), ("dropout", "nan"), ("dropout", "inf"), ("dropout", "-inf"), ("tokens", "-3"),
    ("tokens", "2000"), ("tokens", "2.5"), ("tokens", ""), ("scale", "maybe"), ("preset", "gpt5"),
    ("dropout", "1.5"), ("device", "tpu"), ("text", "x" * 5000), ("room", "<b>x</b>"), ("room", "K" * 40),
    ("seat", "short"), ("seat", "a b c d e f"),
])
def test_parse_param_bad_values_fall_back_with_note(name, raw):
    value, note = presets.parse_param(name, raw)
    assert value == presets.PARAMS[name].default
    assert note and f"`{name}=" in note
    assert len(note) < 300  # long values are shortened in the note


def test_a_room_code_and_a_seat_in_their_shape_are_taken():
    assert presets.parse_param("room", " k7m-p3x ") == (" k7m-p3x ", None)  # as typed: rooms/codes.py normalises it
    assert presets.parse_param("seat", "Ab3_-xyz9") == ("Ab3_-xyz9", None)
    assert "is not a room code" in presets.parse_param("room", "<script>")[1]


@pytest.mark.parametrize("preset", sorted(presets.PRESETS))
def test_presets_round_trip_through_url(preset):
    for name, value in presets.PRESETS[preset].items():
        assert name in presets.PARAMS
        parsed, note = presets.parse_param(name, presets.url_value(name, value))
        assert note is None, note
        assert parsed == value and type(parsed) is type(value)


def test_param_defaults_round_trip_through_url():
    for name, spec in presets.PARAMS.items():
        parsed, note = presets.parse_param(name, presets.url_value(name, spec.default))
        assert note is None and parsed == spec.default


def test_book_preset_uses_the_book_sizes():
    book = presets.PRESETS["book"]
    assert (book["tokens"], book["d_in"], book["d_out"], book["heads"]) == (6, 3, 2, 2)


# --- device ----------------------------------------------------------------------------------------

def test_pick_device_auto_is_first_available():
    chosen, note = device.pick_device("auto")
    assert note is None and chosen == device.available_devices()[0]
    if not torch.cuda.is_available():
        assert chosen in ("cpu", "mps")
    assert device.pick_device("cpu") == ("cpu", None)


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_pick_device_cuda_without_cuda():
    chosen, note = device.pick_device("cuda")
    assert chosen == "cpu" and note and "CUDA" in note


def test_run_with_fallback_to_cpu_on_runtime_error():
    calls = []

    def compute(dev):
        calls.append(dev)
        if dev == "cuda":
            raise RuntimeError("CUDA error: device-side assert triggered\nsecond line")
        return torch.ones(2, device=dev).sum().item()

    result, used, note = device.run_with_fallback(compute, "cuda")
    assert (result, used) == (2.0, "cpu") and calls == ["cuda", "cpu"]
    assert "CUDA" in note and "device-side assert" in note and "second line" not in note


def test_run_with_fallback_cpu_and_success_have_no_note():
    assert device.run_with_fallback(lambda dev: dev, "cpu") == ("cpu", "cpu", None)
    assert device.run_with_fallback(lambda dev: dev, "mps") == ("mps", "mps", None)


def test_run_with_fallback_does_not_hide_other_errors():
    def compute(dev):
        raise ValueError("a bug, not a device failure")

    with pytest.raises(ValueError):
        device.run_with_fallback(compute, "cuda")


def test_random_inputs_do_not_repeat_the_projection_weights_random_numbers():
    # Same seed for inputs and weights (the GPT-2 preset): x must not share W_query's stream, or
    # token t's query lines up with column t and each head shows a band of 64 bright rows.
    from attention_core.book.modules import MultiHeadAttention
    from attention_core.book.seeding import build_seeded
    x = random_inputs(256, 256, 123)
    mha = build_seeded(MultiHeadAttention, 123, 256, 256, 256, 0.0, 4)
    q = mha.W_query(x)  # (T, d_out)
    diagonal, off = q.diagonal().abs().mean(), q.abs().mean()
    assert diagonal < 1.5 * off, (float(diagonal), float(off))
