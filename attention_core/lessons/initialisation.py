"""Which projection weights a screen uses: the book's torch.rand, or nn.Linear's beyond the book's example.

The book's SelfAttention_v1 draws W_q, W_k, W_v with `torch.rand`: every weight lies in [0, 1). With
the book's six 3-d inputs that is harmless, and the book's printed numbers depend on it, so the
book's inputs keep it. With any other input (a typed sentence, random vectors up to GPT-2's size)
all-positive weights give queries and keys that all point the same way: the scores get a large
mean, and softmax puts all the weight on one key however it is scaled (experiments.saturation
measures it). That is why the book moves on to SelfAttention_v2, whose nn.Linear layers draw
zero-mean weights, uniform in ±1/√d_in. So beyond the book's inputs a screen's SelfAttention_v1
gets exactly the weights SelfAttention_v2 would get under the same seed, copied in as in the
book's exercise 3.1. The class itself stays the book's.
"""
import torch

from attention_core.book.modules import SelfAttention_v1, SelfAttention_v2
from attention_core.book.seeding import build_seeded


def book_weights(input_kind: str) -> bool:
    """True where SelfAttention_v1 keeps the book's torch.rand weights: with the book's own inputs."""
    return input_kind == "book"


def linear_bound(d_in: int) -> float:
    """nn.Linear's weights are uniform in ±1/√d_in (so their std is 1/√(3·d_in))."""
    return d_in ** -0.5


def v1_with_linear_weights(seed: int, d_in: int, d_out: int) -> SelfAttention_v1:
    """SelfAttention_v1 holding the weights that `torch.manual_seed(seed); SelfAttention_v2(d_in, d_out)` draws."""
    v2 = build_seeded(SelfAttention_v2, seed, d_in, d_out)
    v1 = build_seeded(SelfAttention_v1, seed, d_in, d_out)
    with torch.no_grad():
        for name in ("W_query", "W_key", "W_value"):
            getattr(v1, name).copy_(getattr(v2, name).weight.T)  # nn.Linear stores (d_out, d_in)
    return v1


def build_v1(seed: int, d_in: int, d_out: int, book: bool) -> SelfAttention_v1:
    """The screens' SelfAttention_v1: the book's torch.rand weights, or nn.Linear's (see the module's note)."""
    if book:
        return build_seeded(SelfAttention_v1, seed, d_in, d_out)
    return v1_with_linear_weights(seed, d_in, d_out)


def weights_line(which: str, seed: int, book: bool) -> str:
    """One line saying which weights and which seed a screen's numbers come from."""
    if which == "none":
        return "No weights: ω = x · x, the inputs' own dot products (§3.3), so no seed is involved."
    if which == "v1":
        if book:
            return (f"Weights: `SelfAttention_v1` after `torch.manual_seed({seed})`, drawn with `torch.rand` "
                    "as in the book (§3.4.2).")
        return (f"Weights: `SelfAttention_v1` holding the nn.Linear weights that `torch.manual_seed({seed})` gives "
                "`SelfAttention_v2` (zero mean, uniform in ±1/√d_in; copied as in exercise 3.1). The book's "
                "`torch.rand` weights are all positive and would saturate softmax beyond its six 3-d inputs.")
    module = {"v2": "SelfAttention_v2", "causal": "CausalAttention", "mha": "MultiHeadAttention"}[which]
    return f"Weights: `{module}`'s nn.Linear layers after `torch.manual_seed({seed})`."
