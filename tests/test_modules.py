"""The book's classes: `forward` is the book's code, `trace` records the same computation."""
import pytest
import torch

from attention_core import BOOK_INPUTS
from attention_core.book.modules import (CausalAttention, MultiHeadAttention, MultiHeadAttentionWrapper,
                                    SelfAttention_v1, SelfAttention_v2)
from ui.draw.code import source

BATCH = torch.stack((BOOK_INPUTS, BOOK_INPUTS))  # (2, 6, 3)


def build(cls, dropout):
    torch.manual_seed(123)
    if cls in (SelfAttention_v1, SelfAttention_v2):
        return cls(3, 2), BOOK_INPUTS
    if cls is CausalAttention:
        return cls(3, 2, 6, dropout), BATCH
    return cls(3, 4 if cls is MultiHeadAttention else 2, 6, dropout, num_heads=2), BATCH


@pytest.mark.parametrize("cls", [SelfAttention_v1, SelfAttention_v2, CausalAttention,
                                 MultiHeadAttentionWrapper, MultiHeadAttention])
@pytest.mark.parametrize("dropout", [0.0, 0.5])
def test_trace_gives_what_forward_gives(cls, dropout):
    module, x = build(cls, dropout)
    torch.manual_seed(7)  # dropout draws from the global generator: the same draws for both
    expected = module(x)
    torch.manual_seed(7)
    traced = module.trace(x)["context_vec"]
    torch.testing.assert_close(traced, expected, rtol=0, atol=1e-6)


def test_the_shown_code_is_the_books_forward_without_the_apps_trace():
    shown = source(MultiHeadAttention)
    assert "def trace" not in shown and "record" not in shown
    for line in ("keys = keys.view(b, num_tokens, self.num_heads, self.head_dim)",
                 "attn_scores.masked_fill_(mask_bool, -torch.inf)",
                 "context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)"):
        assert line in shown, line
    assert "attn_scores = queries @ keys.T # omega" in source(SelfAttention_v1)
    # Verbatim from the chapter's notebook (ch03/01_main-chapter-code/ch03.ipynb), its comments and layout included
    assert "# We implicitly split the matrix by adding a `num_heads` dimension" in shown
    assert "self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1)) # New" \
        in source(CausalAttention)
    assert "def trace" not in source(CausalAttention)
    assert "return torch.cat([head(x) for head in self.heads], dim=-1)" in source(MultiHeadAttentionWrapper)
