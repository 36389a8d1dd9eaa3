"""The known matrix the view's tests and benchmark draw (plain PyTorch, no Streamlit)."""
import torch


def seeded_map(tokens: int, d: int = 4):
    """(q, k, scores, weights) for the test app: seed 123, causal, scaled by √d."""
    gen = torch.Generator().manual_seed(123)
    q, k = torch.randn(tokens, d, generator=gen), torch.randn(tokens, d, generator=gen)  # (T, d)
    scores = q @ k.T  # (T, T)
    masked = torch.triu(torch.ones(tokens, tokens, dtype=torch.bool), diagonal=1)
    weights = torch.softmax(scores.masked_fill(masked, float("-inf")) / d ** 0.5, dim=-1)  # (T, T)
    return q, k, scores, weights
