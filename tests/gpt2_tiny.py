"""A tiny random GPT-2 (transformers, offline) saved in the hub's layout, with a small BPE vocabulary.

Test helper for tests/test_gpt2*.py and tests/test_screen_gpt2.py. The weights are drawn with
std 0.35 instead of GPT-2's 0.02 so that the attention is far from uniform: a loader that swapped
queries and keys, or forgot a transpose, would then change every map, not hide in the noise.
"""
import json
from pathlib import Path

import torch

# Merges of a small byte-level BPE (Ġ is the space byte): enough to make multi-character tokens
# out of the sentences the tests use, and to exercise merge order (" t" + "he" after "h" + "e").
MERGES = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("a", "t"), ("Ġ", "c"), ("Ġc", "at"), ("Ġ", "s"),
          ("Ġs", "at"), ("o", "n"), ("Ġ", "on"), ("Ġ", "m"), ("Ġm", "at"), ("i", "n"), ("Ġ", "in"),
          ("'", "s"), ("1", "2"), ("Ã", "©"), ("a", "f"), ("Ġc", "af"), ("Ġcaf", "Ã©")]


def byte_vocab() -> dict[str, int]:
    """Every byte as its GPT-2 character (ids 0-255 in GPT-2's order: printable bytes first), then one
    id per merge, in merge order (as in GPT-2's encoder.json, which tiktoken checks)."""
    from attention_core.models.gpt2_tokenizer import bytes_to_unicode
    chars = bytes_to_unicode()
    order = [b for b in range(256) if chars[b] == chr(b)] + [b for b in range(256) if chars[b] != chr(b)]
    vocab = {chars[b]: i for i, b in enumerate(order)}
    for first, second in MERGES:
        vocab.setdefault(first + second, len(vocab))
    return vocab


def write_tokenizer(directory: Path) -> dict[str, int]:
    vocab = byte_vocab()
    (directory / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    (directory / "merges.txt").write_text("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in MERGES),
                                          encoding="utf-8")
    return vocab


def reference_model(n_layer=2, n_head=4, n_embd=64, n_positions=80, seed=0, std=0.35):
    """transformers' GPT2LMHeadModel with eager attention (it returns the weights), random and sharp."""
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(n_layer=n_layer, n_head=n_head, n_embd=n_embd, vocab_size=len(byte_vocab()),
                     n_positions=n_positions, bos_token_id=0, eos_token_id=0)
    cfg._attn_implementation = "eager"
    torch.manual_seed(seed)
    model = GPT2LMHeadModel(cfg).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "ln" in name:  # LayerNorm gains near 1, biases small: a sane network, only sharper
                p.copy_(torch.randn_like(p) * 0.1 + (1.0 if name.endswith("weight") else 0.0))
            else:
                p.normal_(0, std)
    return model


def save_tiny(directory: Path, prefixed: bool = False, **sizes):
    """Write config.json, model.safetensors, vocab.json and merges.txt; return the reference model.

    prefixed=False: the hub's `gpt2` key layout (h.0.attn.c_attn.weight, wte.weight);
    prefixed=True: what GPT2LMHeadModel.save_pretrained writes (transformer.h.0...).
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    model = reference_model(**sizes)
    (model if prefixed else model.transformer).save_pretrained(directory, safe_serialization=True)
    write_tokenizer(directory)
    return model
