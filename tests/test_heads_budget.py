"""No head count a visitor picks makes a stage compute more maps than the heads screen's budget (12 heads at 1,024
tokens): a URL with 384 heads at GPT-2 small once took /sliding-window 19 s and 9.9 GB."""
from conftest import open_screen
from attention_core.lessons.traces import MAX_HEAD_CELLS, head_counts_within
from screens.registry import STAGES


def test_the_budget_keeps_every_count_at_the_book_and_twelve_at_gpt2():
    assert head_counts_within(2, 6) == [1, 2]  # the book's sizes: every divisor
    assert head_counts_within(768, 1024) == [1, 2, 3, 4, 6, 8, 12]  # GPT-2 small: its own 12 heads at most
    assert head_counts_within(768, 512)[-1] == 48  # a quarter of the cells a head: four times the heads
    assert head_counts_within(7, 10**6) == [1]  # one head always, the chapter's own layer
    assert all(h * 1024 * 1024 <= MAX_HEAD_CELLS for h in head_counts_within(768, 1024))


def heads_slider(at):
    return next((s for s in at.select_slider if s.key == "heads"), None)


def test_a_url_asking_for_too_many_heads_gets_a_note_and_the_budget():
    """Every stage screen with a num_heads control at GPT-2 small (/heads keeps its own refusal, with exercise 3.3's
    shapes: tests/test_screen_heads.py); the chapter's single-head stages have none."""
    checked = []
    for screen in (s.name for s in STAGES if s.name != "heads"):
        at = open_screen(screen, preset="gpt2-small", heads=384)
        slider = heads_slider(at)
        if slider is not None:
            assert max(slider.options, key=int) == "12" and int(slider.value) <= 12, screen
            assert "divisors of d_out = 768, at most 12 at 1,024 tokens" in slider.label, screen  # checkable
            assert any("384 heads at 1,024 tokens would hold more attention weights" in w.value for w in at.warning), screen
            checked.append(screen)
    assert {"kv-cache", "sliding-window", "gqa", "latent", "rope"} <= set(checked)
