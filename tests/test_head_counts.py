"""Every head count at once (attention_core/lessons/head_counts.py) against the book's MultiHeadAttention built and
run one count at a time."""
import pytest
import torch

from attention_core.book.inputs import BOOK_INPUTS
from attention_core.book.modules import MultiHeadAttention
from attention_core.book.seeding import build_seeded
from attention_core.book.stages import divisors
from attention_core.lessons import head_counts


def _one_at_a_time(x, d_out, num_heads, seed):
    mha = build_seeded(MultiHeadAttention, seed, x.shape[1], d_out, x.shape[0], 0.0, num_heads)
    with torch.no_grad():
        return mha.trace(x[None])["attn_weights"][0]  # (h, T, T)


def test_the_parameters_at_one_seed_do_not_depend_on_num_heads():
    # What lets one projection serve every count: the same tensors under the same seed, whatever num_heads is.
    built = {h: build_seeded(MultiHeadAttention, 123, 5, 12, 7, 0.0, h).state_dict() for h in divisors(12)}
    for h, state in built.items():
        assert state.keys() == built[1].keys()
        assert all(torch.equal(state[name], built[1][name]) for name in state), h


@pytest.mark.parametrize("tokens, d_in, d_out, seed", [(6, 3, 2, 123), (7, 5, 12, 4), (1, 3, 1, 9), (9, 16, 24, 123)],
                         ids=["book", "12-out", "one-token", "24-out"])
def test_every_head_count_agrees_with_multiheadattention_run_one_count_at_a_time(tokens, d_in, d_out, seed):
    x = BOOK_INPUTS if (tokens, d_in) == (6, 3) else torch.randn(tokens, d_in, generator=torch.Generator().manual_seed(seed))
    stack = head_counts.every_head_count(x, d_out, seed)  # (σ(d_out), T, T)
    assert stack.shape == (sum(divisors(d_out)), tokens, tokens) and stack.dtype == torch.float32
    for num_heads in divisors(d_out):
        start = head_counts.frame_of(d_out, num_heads, 0)
        ours = stack[start:start + num_heads]  # (h, T, T)
        book = _one_at_a_time(x, d_out, num_heads, seed)
        assert ours.shape == book.shape
        # The running sum adds the products in another order than the book's matrix product: float rounding only.
        assert float((ours - book).abs().max()) <= 1e-6, num_heads
    assert torch.equal(stack[head_counts.frame_of(d_out, 1, 0)].triu(1), torch.zeros(tokens, tokens))  # causal


def test_one_head_count_is_the_books_module():
    x = torch.randn(8, 6, generator=torch.Generator().manual_seed(3))
    weights, used, note = head_counts.one_head_count(x, 6, 3, 123, "cpu")
    assert used == "cpu" and note is None
    assert torch.equal(weights, _one_at_a_time(x, 6, 3, 123))


def test_the_browser_gets_every_count_only_within_the_stated_budget():
    assert head_counts.stack_size(2, 6) == 3 * 36 and head_counts.fits(2, 6)  # the book: 1 + 2 heads of 6 x 6
    assert not head_counts.fits(768, 1024)  # GPT-2 small: 2,044 maps of 1,024 x 1,024
    assert head_counts.fits(64, 64) and not head_counts.fits(768, 64)
    assert head_counts.frame_of(12, 4, 2) == 1 + 2 + 3 + 2  # after the heads of 1, 2 and 3
