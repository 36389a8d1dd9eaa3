"""The book's KV-cache MultiHeadAttention against the book's own numbers; the KV-cache stage's lesson: cached equals
uncached at every step, the multiply-adds counted, the memory formula, the mistakes, the speed verdict, the
questions."""
import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from attention_core.book.inputs import BOOK_INPUTS, BOOK_TOKENS
from attention_core.book.modules import MultiHeadAttention as ChapterThreeMHA
from attention_core.book.seeding import build_seeded
from attention_core.book.variants import MultiHeadAttention
from attention_core.lessons import cache_bytes
from attention_core.lessons import kv_cache as lesson
from attention_core.lessons import questions as quiz

TOKENS = list(BOOK_TOKENS)

# Golden numbers: the book's own ch04/03_kv-cache/gpt_with_kv_cache.py (rasbt/LLMs-from-scratch at 28c65cd), run
# in /tmp with torch 2.13 CPU: torch.manual_seed(123); MultiHeadAttention(3, 2, 6, 0.0, num_heads=2) on the book's
# six inputs (batch of 1). Uncached m(x), and cached m(x[:, :2]) then one token a call, printed with .tolist(): the
# two printed the same twelve floats, and torch.equal was True.
BOOK_OUTPUT = [[0.31901830434799194, 0.48576289415359497], [0.29434600472450256, 0.3896762728691101],
               [0.28557467460632324, 0.3592776954174042], [0.26926368474960327, 0.3873266577720642],
               [0.2638705372810364, 0.39279571175575256], [0.25747358798980713, 0.4027826189994812]]
# The same file: torch.manual_seed(7); x = torch.rand(1, 5, 4); torch.manual_seed(123);
# MultiHeadAttention(4, 6, 8, 0.0, num_heads=3); the five tokens fed one per call with use_cache=True: the last output.
ONE_AT_A_TIME_LAST = [-0.058768659830093384, -0.11040983349084854, 0.1545063853263855, -0.43880003690719604,
                      0.18100711703300476, 0.1554781198501587]


def _book_module(context_length=6):
    return build_seeded(MultiHeadAttention, 123, 3, 2, context_length, 0.0, 2).eval()


def test_the_class_gives_the_books_numbers_cached_and_uncached():
    x = BOOK_INPUTS.unsqueeze(0)  # (1, 6, 3)
    module = _book_module()
    with torch.no_grad():
        uncached = module(x)
        cached = torch.cat([module(x[:, :2], use_cache=True)] + [module(x[:, t:t + 1], use_cache=True)
                                                                  for t in range(2, 6)], dim=1)
    assert torch.allclose(uncached[0], torch.tensor(BOOK_OUTPUT), atol=1e-6, rtol=0)
    assert torch.allclose(cached, uncached, atol=1e-6, rtol=0)  # equal here; other processors may round apart
    assert module.ptr_current_pos == 6 and module.cache_k.shape == (1, 6, 2, 1)


def test_one_token_a_call_gives_the_books_numbers():
    torch.manual_seed(7)
    x = torch.rand(1, 5, 4)
    module = build_seeded(MultiHeadAttention, 123, 4, 6, 8, 0.0, 3)
    with torch.no_grad():
        outputs = [module(x[:, t:t + 1], use_cache=True) for t in range(5)]
        uncached = module(x)
    assert torch.allclose(outputs[-1][0, 0], torch.tensor(ONE_AT_A_TIME_LAST), atol=1e-6, rtol=0)
    assert torch.allclose(torch.cat(outputs, dim=1), uncached, atol=1e-6, rtol=0)


def test_buffers_pointer_and_reset_as_the_book_declares_them():
    module = _book_module()
    chapter_three = build_seeded(ChapterThreeMHA, 123, 3, 2, 6, 0.0, 2)
    assert [n for n, _ in module.named_parameters()] == [n for n, _ in chapter_three.named_parameters()]
    assert module.cache_k is None and module.cache_v is None and module.ptr_current_pos == 0
    with torch.no_grad():
        module(BOOK_INPUTS[:4].unsqueeze(0), use_cache=True)
    assert "cache_k" not in module.state_dict() and "mask" not in module.state_dict()  # persistent=False
    assert module.ptr_current_pos == 4 and module.cache_v.shape == (1, 4, 2, 1)
    module.reset_cache()
    assert module.cache_k is None and module.cache_v is None and module.ptr_current_pos == 0


def test_use_cache_false_is_chapter_threes_layer_bit_for_bit():
    x = torch.rand(2, 7, 5, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        mine = build_seeded(MultiHeadAttention, 5, 5, 8, 7, 0.0, 4)(x)
        book = build_seeded(ChapterThreeMHA, 5, 5, 8, 7, 0.0, 4)(x)
    assert torch.equal(mine, book)


@pytest.mark.parametrize("use_cache", [False, True])
def test_trace_is_forward_and_moves_the_cache_the_same_way(use_cache):
    x = BOOK_INPUTS.unsqueeze(0)
    traced, run = _book_module(), _book_module()
    with torch.no_grad():
        for start, stop in [(0, 3), (3, 4), (4, 6)]:
            record = traced.trace(x[:, start:stop], use_cache=use_cache)
            assert torch.equal(record["context_vec"], run(x[:, start:stop], use_cache=use_cache))
            assert traced.ptr_current_pos == run.ptr_current_pos
    if use_cache:
        assert torch.equal(traced.cache_k, run.cache_k) and record["ptr_before"] == 4
        assert record["mask_bool"].shape == (2, 6) and not record["mask_bool"][1].any()
        assert record["mask_bool"][0].tolist() == [False] * 5 + [True]


@pytest.mark.parametrize("prompt", [1, 2, 6])
def test_book_generation_cached_equals_uncached_at_every_step(prompt):
    record = lesson.generation_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, prompt=prompt)
    assert record["calls"][0] == (0, prompt) and len(record["calls"]) == 6 - prompt + 1
    # 0.0 at every step on this machine; within float32 rounding wherever another processor's kernels round apart
    assert len(record["difference"]) == len(record["calls"]) and max(record["difference"]) <= 1e-6
    assert torch.allclose(record["context_cached"], record["context_uncached"], atol=1e-6, rtol=0)
    assert torch.allclose(record["context_cached"], torch.tensor(BOOK_OUTPUT), atol=1e-6, rtol=0)
    assert [m.shape for m in record["masks"]] == [(stop - start, stop) for start, stop in record["calls"]]
    assert record["ptrs"] == [start for start, _ in record["calls"]]
    assert all(not m[-1].any() for m in record["masks"])  # the newest query sees every cached key


def test_larger_generation_agrees_at_every_step_and_keeps_the_first_64_tokens():
    x = torch.randn(80, 48, generator=torch.Generator().manual_seed(3))
    record = lesson.generation_trace(x, d_out=48, seed=123, device="cpu", num_heads=4, prompt=3)
    assert record["run"] == lesson.MAX_RUN and len(record["calls"]) == lesson.MAX_RUN - 3 + 1
    assert max(record["difference"]) < 1e-5
    weights = record["weights_cached"]  # (h, n, n)
    assert torch.allclose(weights.sum(-1), torch.ones(4, lesson.MAX_RUN), atol=1e-5)
    assert torch.equal(weights, weights.tril()) and torch.allclose(weights, record["weights_uncached"], atol=1e-6)
    assert record["cache_k"].shape == (4, lesson.MAX_RUN, 12)


def test_frames_fill_in_one_row_per_step():
    record = lesson.generation_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, prompt=2)
    stack = lesson.frames_of(record["weights_cached"][1], record["calls"])  # (5, 6, 6)
    assert stack.shape == (5, 6, 6)
    for f, (_, stop) in enumerate(record["calls"]):
        assert torch.equal(stack[f, :stop], record["weights_cached"][1, :stop])
        assert all(torch.isnan(stack[f, i, :i + 1]).all() for i in range(stop, 6))  # not fed yet: empty
        assert (stack[f].triu(1).nan_to_num(1.0) == 0).all()  # nothing above the diagonal: not in the cache


@pytest.mark.parametrize("new, keys", [(1, 5), (3, 3), (1, 1)])
def test_multiply_adds_are_what_pytorch_counts(new, keys):
    d_in, d_out = 5, 8
    module = build_seeded(MultiHeadAttention, 0, d_in, d_out, 8, 0.0, 2)
    x = torch.rand(1, keys, d_in)
    with torch.no_grad():
        if keys > new:
            module(x[:, :keys - new], use_cache=True)
        with FlopCounterMode(display=False) as counter:
            module(x[:, keys - new:], use_cache=True)
    assert counter.get_total_flops() == 2 * lesson.multiply_adds(new, keys, d_in, d_out)


def test_memory_formula_gives_the_books_readme_figure_and_the_models_sizes():
    # ch04/04_gqa/README.md: emb_dim 4096, 32 heads, 32 layers, 32,768 tokens, bf16: "MHA total KV cache: 17.18 GB"
    total = cache_bytes.kv_cache_bytes(tokens=32768, layers=32, kv_heads=32, head_dim=4096 // 32, bytes_per_elem=2)
    assert f"{total / 1e9:.2f} GB" == "17.18 GB"
    rows = lesson.memory_rows(num_heads=2, head_dim=1, tokens=6)
    assert [r["per_token"] for r in rows] == [2 * 2 * 1 * 4, 2 * 12 * 12 * 64 * 4, 2 * 32 * 8 * 128 * 2]
    assert rows[0]["after_tokens"] == 96 and rows[1]["after_context"] == 1024 * 73_728


def test_each_mistake_differs_from_the_right_generation_and_the_fix_does_not():
    record = lesson.mistakes_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, prompt=2)
    right = record["right"]
    assert torch.allclose(right, torch.tensor(BOOK_OUTPUT), atol=1e-6, rtol=0)
    assert torch.equal(record["reset"], right) and record["ptr_no_reset"] == 12
    assert lesson.largest_difference(record["no_reset"], right) > 1e-2
    from_zero = record["mask_from_0"]
    assert torch.equal(from_zero[:2], right[:2])  # the prompt starts at position 0 anyway
    assert (from_zero[2:] - right[2:]).abs().amax(-1).min() > 1e-3  # every one-token step is wrong
    everything_at_once = lesson.mistakes_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, prompt=6)
    assert torch.equal(everything_at_once["mask_from_0"], everything_at_once["right"])


@pytest.mark.parametrize("cached, uncached, words", [(200, 100, "pays: 2.0× as fast"), (105, 100, "does not pay: 1.05×"),
                                                     (100, 105, "does not pay: 0.95×"), (50, 100, "slower, 0.50×")])
def test_speed_verdict_follows_the_numbers(cached, uncached, words):
    assert words in lesson.speed_verdict({"cached": cached, "uncached": uncached})


def test_the_speed_verdict_is_the_ratio_of_the_rates_as_printed():
    # A teacher's read: "pays: 2.4×" beside rates printed as 59 and 24 (2.46). Printed as 24.5 and 10.0, the ratio a
    # reader computes is 2.45: 2.5×, though the unrounded one (24.46 / 10.04) is 2.44.
    row = {"cached": 24.46, "uncached": 10.04}
    assert (lesson.rate_text(row["cached"]), lesson.rate_text(row["uncached"])) == ("24.5", "10.0")
    assert lesson.speed_verdict(row) == "pays: 2.5× as fast"


def test_a_run_without_the_cache_cut_short_gives_no_verdict_against_the_cache():
    # A slide at GPT-2 sizes said "does not pay: slower, 0.89×" from 38 and 43 tokens of 64: the uncached run never
    # reached its dearest steps. Only a win for the cache can be read from such a pair.
    cut = {"cached": 38, "uncached": 43, "cached_tokens": 38, "uncached_tokens": 43}
    assert lesson.speed_verdict(cut).startswith("not comparable: without the cache the run stopped at 43 of 64")
    assert lesson.speed_verdict(dict(cut, cached=120)) == "pays: 2.8× as fast or more"
    assert "does not pay" in lesson.speed_verdict(dict(cut, uncached_tokens=lesson.SPEED_NEW))


def test_the_note_on_runs_cut_short_names_each_run_that_stopped():
    # A teacher read: the caption blamed only the run without the cache, while the cached run had stopped at 20 of 64.
    whole = lesson.SPEED_NEW
    rows = [{"sizes": "the book's", "cached_tokens": 20, "uncached_tokens": whole},
            {"sizes": "GPT-2 small's", "cached_tokens": 30, "uncached_tokens": 12}]
    note = lesson.cut_short_note(rows)
    assert f"at the book's sizes, with the cache 20 of {whole} tokens;" in note
    assert f"at GPT-2 small's sizes, with the cache 30 of {whole} and without it 12 of {whole} tokens." in note
    assert lesson.cut_short_note([dict(rows[0], cached_tokens=whole)]) is None  # both ran the whole way


def test_speed_is_measured_at_fixed_sizes_within_its_budget(monkeypatch):
    monkeypatch.setattr(lesson, "SPEED_SIZES", {"tiny": (3, 2, 2), "small": (16, 16, 2)})
    result = lesson.speed_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", budget_s=0.0)
    assert [r["sizes"] for r in result["rows"]] == ["tiny", "small"] and result["device"] == "cpu"
    assert all(r["cached"] > 0 and r["uncached"] > 0 for r in result["rows"])
    assert all(r["cached_tokens"] == r["uncached_tokens"] == 1 for r in result["rows"])  # cut short at once


def test_speed_runs_every_token_when_the_budget_allows(monkeypatch):
    monkeypatch.setattr(lesson, "SPEED_SIZES", {"tiny": (3, 2, 2)})
    monkeypatch.setattr(lesson, "SPEED_RUNS", 1)
    row = lesson.speed_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", budget_s=30.0)["rows"][0]
    assert row["cached_tokens"] == row["uncached_tokens"] == lesson.SPEED_NEW


def _record(**changes):
    return lesson.generation_trace(BOOK_INPUTS, d_out=2, seed=123, device="cpu", num_heads=2, prompt=2) | changes


def test_questions_have_the_right_answers():
    rows, differs, memory = lesson.kv_cache_questions(_record(), 3, TOKENS)
    assert "“with”" in rows.prompt
    assert quiz.check(rows, "1").ok is True and quiz.check(rows, "4").ok is False
    assert quiz.check(differs, "no").ok is True and quiz.check(differs, "yes").ok is False
    assert quiz.check(memory, "96").ok is True and quiz.check(memory, "48").ok is False
    prompt_rows = lesson.kv_cache_questions(_record(), 1, TOKENS)[0]
    assert quiz.check(prompt_rows, "2").ok is True  # step 1 feeds the two prompt tokens at once
    broken = lesson.kv_cache_questions(_record(difference=[0.0, 0.0, 0.1, 0.0, 0.0]), 3, TOKENS)[1]
    assert quiz.check(broken, "yes").ok is True  # the answer is read off the difference, not assumed
    assert not [w for q in (rows, differs, memory) for w in quiz.HIDDEN_REFERENCES if w in q.prompt.lower()]
