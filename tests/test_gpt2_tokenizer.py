"""GPT-2's tokenizer (attention_core.models.gpt2_tokenizer: tiktoken, read from local files) against
tiktoken's own "gpt2" construction and transformers' GPT2Tokenizer, on a small vocabulary.

tiktoken's "gpt2" encoding is built by `data_gym_to_mergeable_bpe_ranks(vocab.bpe, encoder.json)` with
the r50k pattern; here the same function reads the test's own merges.txt and vocab.json (no download).
"""
import json

import pytest

from attention_core.models import gpt2
from attention_core.models.gpt2_tokenizer import Tokenizer, bytes_to_unicode
from gpt2_tiny import write_tokenizer

TEXTS = [
    "the cat sat on the mat",
    "Your journey starts with one step",
    "the cat's hat, in 1234 cafés!  twice  spaced\nnew line\ttab",
    "café ÉCOLE naïve 東京 🙂 don't we'll they're I'm you've he'd",
    "   leading and trailing   ",
    "",
]


@pytest.fixture(scope="module")
def directory(tmp_path_factory):
    d = tmp_path_factory.mktemp("bpe")
    write_tokenizer(d)
    return d


def tiktoken_encoding(directory, monkeypatch):
    import tiktoken
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks
    from tiktoken_ext.openai_public import r50k_pat_str
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # read the local files directly, cache nothing
    ranks = data_gym_to_mergeable_bpe_ranks(str(directory / "merges.txt"), str(directory / "vocab.json"))
    return tiktoken.Encoding("gpt2-tiny", pat_str=r50k_pat_str, mergeable_ranks=ranks, special_tokens={})


@pytest.mark.parametrize("text", TEXTS)
def test_ids_match_tiktokens_gpt2_construction(directory, monkeypatch, text):
    assert Tokenizer.from_dir(directory).encode(text) == tiktoken_encoding(directory, monkeypatch).encode(text)


@pytest.mark.parametrize("text", TEXTS)
def test_ids_match_transformers_gpt2_tokenizer(directory, text):
    from transformers import GPT2Tokenizer
    reference = GPT2Tokenizer(str(directory / "vocab.json"), str(directory / "merges.txt"))
    assert Tokenizer.from_dir(directory).encode(text) == reference.encode(text)


def test_merges_apply_in_rank_order_and_tokens_read_back(directory):
    ids, tokens = gpt2.tokenize("the cat sat on the mat", directory)
    assert tokens == ["t", "he", " cat", " sat", " on", " the", " mat"]  # "the" at the start has no space: no " the"
    ids2, tokens2 = gpt2.tokenize(" café", directory)
    assert tokens2 == [" café"] and len(ids2) == 1  # "Ã©" (é's two UTF-8 bytes) merged, then " caf" + "é"
    tokenizer = Tokenizer.from_dir(directory)
    text = TEXTS[3]
    assert tokenizer.decode(tokenizer.encode(text)) == text


def test_every_byte_has_a_printable_character():
    chars = bytes_to_unicode()
    assert len(set(chars.values())) == 256
    assert all(c.isprintable() and not c.isspace() for c in chars.values())
    assert chars[ord(" ")] == "Ġ" and chars[ord("\n")] == "Ċ"


def test_an_id_beyond_the_vocabulary_reads_as_its_number(directory):
    assert Tokenizer.from_dir(directory).token_text(50000) == "<50000>"


def test_end_of_text_is_its_own_id_and_typed_text_stays_text(tmp_path):
    vocab = write_tokenizer(tmp_path)
    vocab["<|endoftext|>"] = len(vocab)  # where GPT-2's vocab.json has it: last, after every merge
    (tmp_path / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    tokenizer = Tokenizer.from_dir(tmp_path)
    assert tokenizer.token_text(vocab["<|endoftext|>"]) == "<|endoftext|>"
    ids = tokenizer.encode("the<|endoftext|>")
    assert vocab["<|endoftext|>"] not in ids and tokenizer.decode(ids) == "the<|endoftext|>"


def test_a_vocabulary_out_of_merge_order_is_refused(tmp_path):
    vocab = write_tokenizer(tmp_path)
    vocab["he"], vocab["Ġt"] = vocab["Ġt"], vocab["he"]  # tiktoken would merge "he" before " t"
    (tmp_path / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ValueError, match="merges.txt's order"):
        Tokenizer.from_dir(tmp_path)
