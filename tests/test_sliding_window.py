"""MultiHeadAttentionWithSWA (ch04/06_swa) against the book's own file, cached against uncached, W >= T against causal,
the cached prefill's W + C - 1 keys (the book's fix #1013) and the code before it, memory, questions and sentences.

The golden numbers were made by running the book's own file in /tmp, not copied from this app:
  git show HEAD:ch04/06_swa/gpt_with_kv_swa.py > book_swa.py              (rasbt/LLMs-from-scratch, after #1013)
  git show 4612d20:ch04/06_swa/gpt_with_kv_swa.py > book_swa_before.py    (the commit before #1013)
  torch.manual_seed(123); m = MultiHeadAttentionWithSWA(3, 2, 0.0, 2, sliding_window_size=W)
  m(BOOK_INPUTS[None]); m(x[:, t:t+1], use_cache=True) for t in 0..5; and chunks x[:, :3], x[:, 3:] with the cache
and printing `.tolist()` (Python's repr of float32 values is exact: the tests compare bit for bit).
"""
import hashlib
import math

import pytest
import torch

from attention_core.book.inputs import BOOK_INPUTS
from attention_core.book.modules import MultiHeadAttention
from attention_core.book.seeding import build_seeded
from attention_core.book.variants import MultiHeadAttentionWithSWA
from attention_core.lessons import cache_bytes, questions as quiz
from attention_core.lessons import sliding_window as swa

NAN = float("nan")
# The book's file at HEAD: at W = None (causal) uncached, one token at a time and in chunks all give CAUSAL
# (chapter 3's printed MultiHeadAttention: 0.3190, 0.4858, ...); at W = 3 and W = 1 all three give these.
CAUSAL = [[0.31901830434799194, 0.48576289415359497], [0.29434600472450256, 0.3896762728691101],
          [0.28557467460632324, 0.3592776954174042], [0.26926368474960327, 0.3873266577720642],
          [0.2638705372810364, 0.39279571175575256], [0.25747358798980713, 0.4027826189994812]]
WINDOW_3 = [[0.31901830434799194, 0.48576289415359497], [0.29434600472450256, 0.3896762728691101],
            [0.28557467460632324, 0.3592776954174042], [0.2529864013195038, 0.3552076816558838],
            [0.24322344362735748, 0.3942497670650482], [0.22976002097129822, 0.4474039673805237]]
WINDOW_1 = [[0.31901830434799194, 0.48576289415359497], [0.2679489850997925, 0.2996041774749756],
            [0.2674761414527893, 0.3001924157142639], [0.22155077755451202, 0.471560001373291],
            [0.23817619681358337, 0.4184522330760956], [0.22954995930194855, 0.4520918130874634]]
# The book's file before #1013, chunks of 3 with the cache: rows 4 and 5 lost keys at W = 3; at W = 1 the early
# queries of each chunk kept no key of their own window (softmax of only -inf: nan).
BEFORE_FIX_CHUNKS_3 = [[0.31901830434799194, 0.48576289415359497], [0.29434600472450256, 0.3896762728691101],
                       [0.28557467460632324, 0.3592776954174042], [0.22155077755451202, 0.471560001373291],
                       [0.22985611855983734, 0.4450165629386902], [0.22976002097129822, 0.4474039673805237]]
BEFORE_FIX_CHUNKS_1 = [[NAN, NAN], [NAN, NAN], [0.2674761414527893, 0.3001924157142639], [NAN, NAN], [NAN, NAN],
                       [0.22954995930194855, 0.4520918130874634]]
# sha256 of the class's text in the book's file at HEAD (from "class MultiHeadAttentionWithSWA" to the line before
# "# Chapter 4"'s banner, trailing blank lines stripped, one newline added)
BOOK_CLASS_SHA256 = "35633f2ea3ff3258708f4aa59ff80630ecd5f885b81fa15531e6bdfda4cf2c31"
X = BOOK_INPUTS[None]  # (1, 6, 3)


def book_layer(window, d_in=3, d_out=2, num_heads=2, seed=123):
    return build_seeded(MultiHeadAttentionWithSWA, seed, d_in, d_out, 0.0, num_heads, sliding_window_size=window)


def same_bits(found: torch.Tensor, expected: list) -> bool:
    """The same nan cells, and the same numbers within float32 rounding: the golden lists were printed by the book's
    file on one machine, and another processor may round the last bit differently."""
    return torch.equal(found.isnan(), torch.tensor(expected).isnan()) and torch.allclose(
        found.nan_to_num(7.0), torch.tensor(expected, dtype=torch.float32).nan_to_num(7.0), atol=1e-6, rtol=0)


@pytest.mark.parametrize("window, golden", [(None, CAUSAL), (3, WINDOW_3), (1, WINDOW_1)])
def test_the_class_gives_the_books_numbers_bit_for_bit_uncached_step_by_step_and_in_chunks(window, golden):
    layer = book_layer(window)
    with torch.no_grad():
        assert same_bits(layer(X)[0], golden)
        layer.reset_cache()
        steps = torch.cat([layer(X[:, t:t + 1], use_cache=True) for t in range(6)], dim=1)[0]
        assert same_bits(steps, golden)
        assert layer.cache_k.shape[1] == (6 if window is None else window) == layer.cache_v.shape[1]
        assert layer.ptr_current_pos == 6
        layer.reset_cache()
        chunks = torch.cat([layer(X[:, :3], use_cache=True), layer(X[:, 3:], use_cache=True)], dim=1)[0]
        assert same_bits(chunks, golden)


def test_the_screen_shows_the_books_class_as_printed_and_its_buffers_are_the_books():
    from ui.draw.code import source
    shown = source(MultiHeadAttentionWithSWA).rstrip("\n") + "\n"  # trace() cut out, as the screen shows it
    assert hashlib.sha256(shown.encode()).hexdigest() == BOOK_CLASS_SHA256
    layer = book_layer(3)
    assert [name for name, _ in layer.named_parameters()] == [
        "W_query.weight", "W_key.weight", "W_value.weight", "out_proj.weight", "out_proj.bias"]
    layer(X, use_cache=True)
    assert set(dict(layer.named_buffers())) == {"cache_k", "cache_v"} and not layer.state_dict().keys() & {"cache_k"}


@pytest.mark.parametrize("window", [None, 1, 2, 3, 6, 10])
@pytest.mark.parametrize("chunk", [1, 2, 4, 12])
def test_trace_follows_forward_step_by_step_with_the_same_cache(window, chunk):
    x = torch.randn(1, 12, 5, generator=torch.Generator().manual_seed(3))
    a, b = book_layer(window, 5, 6, 3, seed=4), book_layer(window, 5, 6, 3, seed=4)
    with torch.no_grad():
        assert torch.equal(a.trace(x)["context_vec"], b(x))
        for start, end in swa.chunks_of(12, chunk):
            record = a.trace(x[:, start:end], use_cache=True)
            assert torch.equal(record["context_vec"], b(x[:, start:end], use_cache=True))
            assert torch.equal(a.cache_k, b.cache_k) and a.ptr_current_pos == b.ptr_current_pos


@pytest.mark.parametrize("window", [1, 2, 4, 7, 20, None])
def test_cached_generation_equals_the_uncached_layer_at_every_step(window):
    x = torch.randn(20, 8, generator=torch.Generator().manual_seed(1))
    found, used, _ = swa.generation_check(x, d_out=8, seed=5, device="cpu", num_heads=2, window=window, steps=20)
    assert used == "cpu" and len(found["gaps"]) == 20 and max(found["gaps"]) <= 1e-6
    assert found["cache_lengths"] == [t if window is None else min(window, t) for t in range(1, 21)]


def test_a_window_of_at_least_t_tokens_is_the_causal_layer_exactly():
    with torch.no_grad():
        causal = book_layer(None)(X)
        for window in (6, 7, 1000):
            assert torch.equal(book_layer(window)(X), causal)
        assert not torch.equal(book_layer(5)(X), causal)  # one token short: the last query loses key 1
        chapter3 = build_seeded(MultiHeadAttention, 123, 3, 2, 6, 0.0, 2)(X)  # the same seed, the same weights
    assert (chapter3 - causal).abs().max() <= 1e-7
    record, _, _ = swa.window_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, window=3)
    assert record["full_vs_causal"] == 0.0 and record["window_vs_causal"] > 0.04
    assert torch.equal(record["causal_context"], causal[0]) and torch.equal(record["context_vec"], book_layer(3)(X)[0])
    assert record["visible"].tolist() == [1, 2, 3, 3, 3, 3] and record["vs_sdpa"] <= 1e-6
    assert torch.equal(record["causal_mask"], torch.triu(torch.ones(6, 6, dtype=torch.bool), diagonal=1))
    assert torch.equal(record["mask_bool"], swa.band_mask(6, 3)) and bool(record["mask_bool"][5, 2])


@pytest.mark.parametrize("num_tokens, window, chunk", [(6, 3, 3), (12, 1, 5), (12, 4, 5), (12, 4, 1), (12, 20, 7),
                                                       (9, 2, 9), (10, 3, 4)])
def test_the_cached_prefill_keeps_w_plus_c_minus_1_keys_and_equals_the_uncached_forward(num_tokens, window, chunk):
    x = torch.randn(num_tokens, 4, generator=torch.Generator().manual_seed(num_tokens)) if num_tokens != 6 else BOOK_INPUTS
    d_in = x.shape[1]
    found, _, _ = swa.prefill_trace(x, d_out=4, seed=2, device="cpu", num_heads=2, window=window, chunk=chunk)
    assert found["right_vs_uncached"] <= 1e-6
    for c in found["chunks"]:
        size = c["end"] - c["start"]
        assert len(c["right_keys"]) == min(window + size - 1, c["end"]) and c["right_keys"][-1] == c["end"] - 1
        assert len(c["wrong_keys"]) == min(window, c["end"]) and c["cache_len"] == min(window, c["end"])
    assert len(found["chunks"][-1]["right_keys"]) == (swa.last_chunk_keys(num_tokens, window, chunk)
                                                       or len(found["chunks"][-1]["right_keys"]))
    assert d_in in (3, 4)


def test_the_prefill_before_the_fix_is_the_books_code_before_1013_and_differs():
    for window, golden in ((3, BEFORE_FIX_CHUNKS_3), (1, BEFORE_FIX_CHUNKS_1)):
        with torch.no_grad():
            wrong, kept = swa.prefill_before_fix(book_layer(window), X, 3)
        assert same_bits(wrong, golden)
        assert kept == [[3 - window + i for i in range(window)], [6 - window + i for i in range(window)]]
    found, _, _ = swa.prefill_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, window=3, chunk=3)
    assert same_bits(found["right"], WINDOW_3) and same_bits(found["wrong"], BEFORE_FIX_CHUNKS_3)
    assert found["wrong_vs_uncached"] > 0.1 and found["wrong_nan_rows"] == 0
    one, _, _ = swa.prefill_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, window=1, chunk=3)
    assert one["wrong_nan_rows"] == 4 and "4 rows came out nan" in swa.prefill_sentence(one)
    tokenwise, _, _ = swa.prefill_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, window=3, chunk=1)
    assert tokenwise["wrong_vs_uncached"] == 0.0 and "nothing differs" in swa.prefill_sentence(tokenwise)


def test_every_window_in_the_stack_is_the_class_at_that_window():
    x = torch.randn(9, 4, generator=torch.Generator().manual_seed(8))
    stack = swa.window_stack(x, d_out=6, seed=3, device="cpu", num_heads=3)
    assert stack["weights"].shape == (27, 9, 9) and stack["context_vec"].shape == (27, 9, 6)
    for window in range(1, 10):
        record, _, _ = swa.window_trace(x, d_out=6, seed=3, device="cpu", num_heads=3, window=window)
        start = swa.frame_of(window, 0, 3)
        assert (stack["weights"][start:start + 3] - record["attn_weights"]).abs().max() <= 1e-7
        assert (stack["context_vec"][start + 2] - record["context_vec"]).abs().max() <= 1e-6
        assert (stack["causal_weights"][start:start + 3] - record["causal_weights"]).abs().max() <= 1e-7
        assert ((stack["weights"][start] > 0) == ~swa.band_mask(9, window)).all()  # each query: its last W keys
        assert torch.equal(stack["masked_scores"][start].isinf(), swa.band_mask(9, window))  # what ranks the bars
    assert swa.stack_fits(6, 2) and swa.stack_fits(56, 2) and not swa.stack_fits(64, 12)


def test_the_memory_figures_follow_the_books_estimator():
    assert swa.layer_split(62, 5) == (52, 10) and swa.layer_split(32, 5) == (27, 5)  # Gemma 3 27B; the book's README
    assert swa.layer_split(12, 12) == (12, 0) and swa.layer_split(6, 0) == (0, 6)
    # The book's README run of memory_estimator_swa.py (emb 4096, 32 heads, 32 layers, 32,768 tokens, bf16,
    # W 1,024, 5:1) prints "MHA KV total: 17.18 GB" and "MHA + SWA (Ratio: 5:1): 3.14 GB"
    readme = cache_bytes.ModelSize("README", layers=32, heads=32, kv_heads=32, head_dim=128, dtype="bf16", context=32768)
    found = swa.schedule_bytes(readme, 1024, 5)
    assert (f"{found['all_full'] / 1e9:.2f}", f"{found['mixed'] / 1e9:.2f}") == ("17.18", "3.14")
    gemma = swa.schedule_bytes(swa.GEMMA3, swa.GEMMA3_WINDOW, swa.GEMMA3_SWA_PER_FULL)
    assert gemma["all_full"] == 131072 * 62 * 2 * 16 * 128 * 2
    assert gemma["mixed"] == (52 * 1024 + 10 * 131072) * 2 * 16 * 128 * 2
    assert math.isclose(gemma["saved"], 1 - gemma["mixed"] / gemma["all_full"]) and 0.83 < gemma["saved"] < 0.84
    assert swa.schedule_bytes(swa.GEMMA3, 1024, 0)["saved"] == 0.0  # every layer full: nothing saved
    assert swa.layer_bytes(6, 3, 2, 1) == (6 * 2 * 2 * 4, 3 * 2 * 2 * 4)  # the book: 2 heads of 1, float32
    assert swa.layer_bytes(6, 100, 2, 1) == (96, 96)  # a window longer than the text holds the text


def test_the_questions_are_computed_from_the_current_numbers():
    tokens = ["Your", "journey", "starts", "with", "one", "step"]
    record, _, _ = swa.window_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, window=3)
    keys, same, chunk = swa.sliding_window_questions(record, 3, swa.last_chunk_keys(6, 3, 3), 3, tokens)
    assert "query “step” (token 6)" in keys.prompt and keys.answer == 4.0  # keys 4, 5, 6
    assert quiz.check(keys, "4").ok and not quiz.check(keys, "3").ok and not quiz.check(keys, "1").ok
    assert same.answer is False and quiz.check(same, "no").ok and not quiz.check(same, "yes").ok
    assert chunk.answer == 5.0 and quiz.check(chunk, "5").ok and not quiz.check(chunk, "3").ok  # W + C - 1, not W
    wide, _, _ = swa.window_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, window=6)
    assert swa.sliding_window_questions(wide, 6, None, 6, tokens)[0].answer == 1.0  # every key back to token 1
    assert len(swa.sliding_window_questions(wide, 6, None, 6, tokens)) == 2  # one chunk: no prefill question
    short, _, _ = swa.window_trace(BOOK_INPUTS[:2], d_out=2, seed=123, device="cpu", num_heads=2, window=1)
    assert swa.sliding_window_questions(short, 1, 1, 1, tokens[:2])[0].answer == 2.0  # query 2 of 2 sees itself
    x = torch.randn(10, 3, generator=torch.Generator().manual_seed(0))
    longer, _, _ = swa.window_trace(x, d_out=2, seed=123, device="cpu", num_heads=2, window=8)
    assert swa.sliding_window_questions(longer, 8, 9, 5, [str(i) for i in range(10)])[0].answer == 1.0  # 6 keys, all


def test_the_mistakes_differ_from_the_right_mask_on_the_lessons_numbers():
    found, _, _ = swa.mistakes(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, window=3)
    assert found["right"]["vs_right"] == 0.0 and found["right"]["visible"].tolist() == [1, 2, 3, 3, 3, 3]
    assert torch.equal(found["right"]["context_vec"], book_layer(3)(X)[0].detach())
    assert found["off_by_one"]["visible"].tolist() == [1, 2, 3, 4, 4, 4] and found["off_by_one"]["vs_right"] > 0.01
    assert found["no_causal"]["future_weight"] > 0.5 and found["no_causal"]["vs_right"] > 0.01
    assert found["right"]["future_weight"] == 0.0


def test_the_sentences_follow_the_numbers():
    assert "equal the causal layer's" in swa.window_sentence(6, 6, 0.0)
    assert "last 3 queries (tokens 4 … 6)" in swa.window_sentence(3, 6, 0.04)
    assert "the last query (token 6) loses its oldest key" in swa.window_sentence(5, 6, 0.01)
    assert "(the last column) grows at each smaller W" in swa.sweep_sentence((6, 3, 1), [0.0, 0.04, 0.09], 6)
    assert "does not grow at every smaller W" in swa.sweep_sentence((6, 3, 1), [0.0, 0.09, 0.04], 6)
    assert "No window changes anything" in swa.sweep_sentence((1,), [0.0], 1)
    assert swa.sweep_windows(6) == (6, 5, 4, 3, 2, 1) and swa.sweep_windows(1024) == (1024, 512, 256, 64, 8, 3, 1)
    assert swa.sweep_windows(13) == (13, 8, 6, 3, 1) and swa.default_chunk(6) == 3 and swa.default_chunk(1) == 1
    assert swa.last_chunk_keys(6, 3, 6) is None and swa.last_chunk_keys(6, 3, 4) == 4  # chunk 5 … 6: 3 + 2 - 1
