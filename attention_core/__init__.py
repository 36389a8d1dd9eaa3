"""The math of chapter 3 of *Build a Large Language Model (From Scratch)*, in plain PyTorch.

    from attention_core import MultiHeadAttention, stages
"""
from attention_core import stages
from attention_core.device import available_devices, pick_device, run_with_fallback
from attention_core.inputs import (BOOK_INPUTS, BOOK_SENTENCE, BOOK_TOKENS, embed_tokens,
                                   random_inputs, tokenize)
from attention_core.modules import (CausalAttention, MultiHeadAttention, MultiHeadAttentionWrapper,
                                    SelfAttention_v1, SelfAttention_v2, count_parameters)
from attention_core.seeding import build_seeded

__all__ = [
    "stages", "SelfAttention_v1", "SelfAttention_v2", "CausalAttention", "MultiHeadAttentionWrapper",
    "MultiHeadAttention", "count_parameters", "build_seeded", "BOOK_INPUTS", "BOOK_TOKENS",
    "BOOK_SENTENCE", "tokenize", "embed_tokens", "random_inputs", "available_devices",
    "pick_device", "run_with_fallback",
]
