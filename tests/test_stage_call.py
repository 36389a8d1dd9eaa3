"""ui.stage_call: a new stage's own trace, cached like the chapter's (docs/architecture.md, "Adding a stage")."""
import torch

from attention_core.book.inputs import BOOK_INPUTS, BOOK_TOKENS
from screens import registry
from ui.compute.cache import stage_call
from ui.state import catalog
from ui.state.settings import Settings

catalog.declare(registry.SCREENS)  # seed_for reads a stage's book seed there (main.py declares it in the app)


def _settings(d_out=2, seed=7) -> Settings:
    tokens = list(BOOK_TOKENS)
    return Settings(preset="custom", x=BOOK_INPUTS, inputs_id=("book", "", False, 6, 3, seed), text="", tokens=tokens,
                    labels=tokens, d_out=d_out, seed=seed, device="cpu", device_note=None, colour="auto",
                    presenter=False, downloads=False, quiz=False, room=None, notes=[])


def test_a_stage_trace_runs_once_per_settings_and_options_and_gets_the_stages_seed():
    calls = []

    def trace(x, *, d_out, seed, device, scale=1.0):
        calls.append((d_out, seed, device, scale))
        return {"out": x[:, :d_out] * scale}  # (T, d_out)

    first = stage_call(trace, _settings(), "scores", scale=2.0)
    again = stage_call(trace, _settings(), "scores", scale=2.0)
    assert again is first and calls == [(2, 7, "cpu", 2.0)]  # the same settings and options: cached
    assert torch.equal(first["out"], BOOK_INPUTS[:, :2] * 2.0)
    stage_call(trace, _settings(), "scores", scale=3.0)  # another option: computed
    stage_call(trace, _settings(d_out=3), "scores", scale=2.0)  # another size: computed
    book = _settings()
    book.preset = "book"
    stage_call(trace, book, "mask", scale=2.0)  # the book preset: the stage's own seed from the registry (789)
    assert calls[1:] == [(2, 7, "cpu", 3.0), (3, 7, "cpu", 2.0), (2, 789, "cpu", 2.0)]


def test_a_trace_of_the_first_rows_only_is_reused_by_a_tokens_move_that_keeps_them():
    # /kv-cache generates through the first 64 tokens: at GPT-2 small a Tokens move 1,024 -> 1,023 rebuilt 64 steps
    # of the same tokens. With rows=, the trace gets x[:rows], keyed on those rows' contents.
    calls = []

    def trace(x, *, d_out, seed, device):
        calls.append(x.shape[0])
        return {"out": x[:, :d_out].clone()}  # (rows, d_out)

    long, short, other = _settings(), _settings(), _settings()
    long.x, long.inputs_id = torch.arange(30.0).view(10, 3), ("random", 10)
    short.x, short.inputs_id = long.x[:8].clone(), ("random", 8)  # the same first rows, fewer tokens
    other.x, other.inputs_id = long.x.flip(0), ("random", 10, "flipped")  # other first rows
    first = stage_call(trace, long, "scores", rows=4)
    assert stage_call(trace, short, "scores", rows=4) is first and calls == [4]
    assert torch.equal(first["out"], long.x[:4, :2])
    assert torch.equal(stage_call(trace, other, "scores", rows=4)["out"], other.x[:4, :2]) and calls == [4, 4]
    assert stage_call(trace, _settings(), "scores", rows=6)["out"].shape == (6, 2)  # rows >= T: the whole x


def test_a_tokens_move_down_cuts_the_maps_out_of_a_longer_cached_count(monkeypatch):
    # /heads at GPT-2 small: the (12, 1,024, 1,024) maps of 1,023 tokens are the corner of those of 1,024 (the same
    # random rows, a causal layer): a Tokens move down cut 0.2-0.6 s of computing out of every move.
    from attention_core.book.inputs import random_inputs
    from attention_core.lessons import head_counts
    from ui.compute import cache

    calls = []
    real = head_counts.one_head_count
    monkeypatch.setattr(head_counts, "one_head_count", lambda x, *a: calls.append(x.shape[0]) or real(x, *a))

    def at(tokens, seed=5):
        s = _settings(d_out=6, seed=seed)
        s.x, s.inputs_id = random_inputs(tokens, 4, seed), ("random", "", False, tokens, 4, seed)
        return s

    cache._one_head_count.cache.clear()
    long, _, _ = cache.one_head_count(at(64), 3)  # (3, 64, 64)
    short, _, _ = cache.one_head_count(at(48), 3)  # 48 × 4 random numbers are the first of 64 × 4
    assert calls == [64] and short.shape == (3, 48, 48)
    direct, _, _ = real(at(48).x, 6, 3, 5, "cpu")  # the layer built for 48 tokens
    assert torch.allclose(short, direct, atol=1e-6, rtol=0) and torch.equal(short, long[:, :48, :48])
    cache.one_head_count(at(25), 3)  # 25 × 4 are not the first of 64 × 4 (randn draws 16 at a time): computed
    assert not torch.equal(random_inputs(64, 4, 5)[:25], random_inputs(25, 4, 5))
    cache.one_head_count(at(80), 3)  # more tokens than any cached: computed
    cache.one_head_count(at(48, seed=6), 3)  # other inputs (another seed): computed
    cache.one_head_count(at(48), 2)  # another count of heads: computed
    assert calls == [64, 25, 80, 48, 48]
