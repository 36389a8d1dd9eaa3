"""Inputs to attention: the book's six vectors, typed sentences, seeded random tensors.

Everything here is deterministic: the same text, sizes and seed always give the same tensor,
on every machine, without touching PyTorch's global random state (many users share one process).
"""
import hashlib
import re

import torch

# The book's running example, "Your journey starts with one step", as 3-d embeddings (section 3.3).
BOOK_TOKENS = ["Your", "journey", "starts", "with", "one", "step"]
BOOK_SENTENCE = " ".join(BOOK_TOKENS)
BOOK_INPUTS = torch.tensor(
    [[0.43, 0.15, 0.89],  # Your     (x^1)
     [0.55, 0.87, 0.66],  # journey  (x^2)
     [0.57, 0.85, 0.64],  # starts   (x^3)
     [0.22, 0.58, 0.33],  # with     (x^4)
     [0.77, 0.25, 0.10],  # one      (x^5)
     [0.05, 0.80, 0.55]]  # step     (x^6)
)

# Limits stated on screen. A typed sentence is read by people, so it stays short; seeded random
# inputs go up to GPT-2 small's context length for size experiments.
MAX_TEXT_CHARS = 2000
MAX_SENTENCE_TOKENS = 64
MAX_TOKENS = 1024
MAX_D_IN = 1024

# Chapter 2's SimpleTokenizer splits on punctuation, double dashes and whitespace and keeps the
# punctuation as tokens of its own.
_SPLIT = re.compile(r'([,.:;?_!"()\']|--|\s)')


def tokenize(text: str) -> list[str]:
    """Split text into tokens the way the book's chapter 2 tokenizer does."""
    return [piece.strip() for piece in _SPLIT.split(text) if piece.strip()]


def _seed_from(*parts) -> int:
    """A 63-bit seed from any strings or numbers, stable across runs and machines."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "little") & (2**63 - 1)


def _seeded_randn(d_in: int, *parts) -> torch.Tensor:
    generator = torch.Generator().manual_seed(_seed_from(*parts))
    return torch.randn(d_in, generator=generator)  # (d_in,)


def embed_tokens(tokens: list[str], d_in: int, seed: int, positions: bool = False) -> torch.Tensor:
    """Token embeddings that depend only on (token string, d_in, seed).

    Like a row of `nn.Embedding`, each token gets a standard-normal vector; the same word always
    gets the same row, so without positions a repeated word gives identical rows. With
    `positions=True` an absolute positional embedding (one seeded vector per position, as the
    book's `pos_embedding_layer`) is added, and repeated words become different rows.
    """
    rows = [_seeded_randn(d_in, "token", seed, d_in, tok) for tok in tokens]
    x = torch.stack(rows) if rows else torch.empty(0, d_in)  # (T, d_in)
    if positions:
        pos = [_seeded_randn(d_in, "position", seed, d_in, i) for i in range(len(tokens))]
        x = x + (torch.stack(pos) if pos else torch.empty(0, d_in))
    return x


def random_inputs(num_tokens: int, d_in: int, seed: int) -> torch.Tensor:
    """Seeded standard-normal inputs: zero mean, unit variance, like rows of a trained `nn.Embedding`.

    Not `torch.rand` (all in [0, 1)): all-positive inputs make every score large and positive, and
    softmax saturates at GPT-2's sizes however the scores are scaled (experiments.saturation shows it).
    The stream is derived from the seed, not the seed itself: the projections are built with
    `torch.manual_seed(seed)`, and inputs drawn from that same stream would repeat the weights'
    own random numbers (x[t] would line up with row t of W_query, and head h's queries of tokens
    64h to 64h + 63 would stand out as a bright band in every map).
    """
    generator = torch.Generator().manual_seed(_seed_from("random inputs", seed))
    return torch.randn(num_tokens, d_in, generator=generator)  # (T, d_in)


def random_token_names(num_tokens: int) -> list[str]:
    """Labels for random inputs: t1, t2, ... (they stand for no words)."""
    return [f"t{i + 1}" for i in range(num_tokens)]
