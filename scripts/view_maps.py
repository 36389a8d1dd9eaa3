"""The known matrix the view's tests and benchmark draw (plain PyTorch, no Streamlit)."""
import torch


def seeded_map(tokens: int, d: int = 4):
    """(q, k, scores, weights) for the test app: seed 123, causal, scaled by √d."""
    gen = torch.Generator().manual_seed(123)
    q, k = torch.randn(tokens, d, generator=gen), torch.randn(tokens, d, generator=gen)  # (T, d)
    scores = q @ k.T  # (T, T)
    return q, k, scores, tempered(scores, 1.0)


def tempered(scores: torch.Tensor, temperature: float) -> torch.Tensor:
    """Causal weights softmax(ω / (√d · τ)) of (T, T) scores from seeded_map (d = 4)."""
    tokens = scores.shape[0]
    masked = torch.triu(torch.ones(tokens, tokens, dtype=torch.bool), diagonal=1)
    return torch.softmax(scores.masked_fill(masked, float("-inf")) / (4 ** 0.5 * temperature), dim=-1)  # (T, T)
