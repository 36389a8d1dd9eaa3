"""ui.stage_call: a new stage's own trace, cached like the chapter's (docs/architecture.md, "Adding a stage")."""
import torch

from attention_core.book.inputs import BOOK_INPUTS, BOOK_TOKENS
from ui.compute.cache import stage_call
from ui.state.settings import Settings


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
