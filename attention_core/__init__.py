"""The math of chapter 3 of *Build a Large Language Model (From Scratch)*, in plain PyTorch.

    from attention_core import MultiHeadAttention, stages, BOOK_INPUTS

One subpackage per concern, none of which imports Streamlit (the app's layer is ui/, outside):
    book/      chapter 3 as printed: inputs, the steps, the five classes, seeding, device
    lessons/   what the screens teach, computed: traces, the controls table, checks, pitfalls,
               exercises, questions, experiments, efficiency, the bonus implementations
    models/    trained and pretrained attention: toy tasks, training, head scores, GPT-2
    drawing/   numbers to pictures: colour scales, matrix images, chart specs, number formats
"""
from attention_core.book import stages
from attention_core.book.device import available_devices, pick_device, run_with_fallback
from attention_core.book.inputs import (BOOK_INPUTS, BOOK_SENTENCE, BOOK_TOKENS, embed_tokens,
                                   random_inputs, tokenize)
from attention_core.book.modules import (CausalAttention, MultiHeadAttention, MultiHeadAttentionWrapper,
                                    SelfAttention_v1, SelfAttention_v2, count_parameters)
from attention_core.book.seeding import build_seeded

__all__ = [
    "stages", "SelfAttention_v1", "SelfAttention_v2", "CausalAttention", "MultiHeadAttentionWrapper",
    "MultiHeadAttention", "count_parameters", "build_seeded", "BOOK_INPUTS", "BOOK_TOKENS",
    "BOOK_SENTENCE", "tokenize", "embed_tokens", "random_inputs", "available_devices",
    "pick_device", "run_with_fallback",
]
