"""What a key/value cache holds, in bytes: one formula for every stage that caches (KV cache, sliding window,
grouped-query, latent cache), so their figures can be compared.

The book's estimators (ch04/04_gqa/memory_estimator_gqa.py, ch04/06_swa/memory_estimator_swa.py) compute
batch × tokens × head_dim × kv_heads × 2 (keys and values) × bytes per element, per layer. The models' sizes below
are their published configurations; every figure shown is computed from them here, never typed.
"""
from dataclasses import dataclass

import torch

# Bytes per element, the book's estimators' table (plus float64, which the app computes in for its checks)
DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1}


def bytes_per_element(dtype: torch.dtype | str) -> int:
    """4 for float32, 2 for bfloat16/float16, ...; a name from DTYPE_BYTES or a torch dtype."""
    if isinstance(dtype, str):
        return DTYPE_BYTES[dtype]
    return torch.empty((), dtype=dtype).element_size()


def kv_cache_bytes(*, tokens: int, layers: int, kv_heads: int, head_dim: int, bytes_per_elem: int,
                   batch: int = 1) -> int:
    """Bytes a key/value cache holds: batch × tokens × layers × 2 (K and V) × kv_heads × head_dim × bytes.
    The book's calc_kv_bytes_total, with kv_heads = n_heads for multi-head attention and
    n_heads // n_kv_groups for grouped-query attention."""
    for name, n in (("tokens", tokens), ("layers", layers), ("kv_heads", kv_heads), ("head_dim", head_dim),
                    ("bytes_per_elem", bytes_per_elem), ("batch", batch)):
        if n < 0:
            raise ValueError(f"{name} must not be negative, got {n}")
    return batch * tokens * layers * 2 * kv_heads * head_dim * bytes_per_elem


def bytes_per_token(*, layers: int, kv_heads: int, head_dim: int, bytes_per_elem: int) -> int:
    """2 × layers × kv_heads × head_dim × bytes per element: what each new token adds to the cache."""
    return kv_cache_bytes(tokens=1, layers=layers, kv_heads=kv_heads, head_dim=head_dim,
                          bytes_per_elem=bytes_per_elem)


def latent_cache_bytes(*, tokens: int, layers: int, latent_dim: int, bytes_per_elem: int, batch: int = 1) -> int:
    """Bytes a latent cache holds (multi-head latent attention, ch04/05_mla): batch × tokens × layers × latent_dim ×
    bytes, one latent vector a token and no factor 2 (keys and values are both rebuilt from it). The book's
    calc_mla_bytes_total (memory_estimator_mla.py)."""
    for name, n in (("tokens", tokens), ("layers", layers), ("latent_dim", latent_dim),
                    ("bytes_per_elem", bytes_per_elem), ("batch", batch)):
        if n < 0:
            raise ValueError(f"{name} must not be negative, got {n}")
    return batch * tokens * layers * latent_dim * bytes_per_elem


@dataclass(frozen=True)
class ModelSize:
    """The sizes of a published model that decide its cache."""
    name: str
    layers: int
    heads: int  # query heads
    kv_heads: int  # key/value heads (= heads without grouped-query attention)
    head_dim: int
    dtype: str  # the dtype the model is usually run in
    context: int  # its context length, in tokens

    @property
    def bytes_per_token(self) -> int:
        return bytes_per_token(layers=self.layers, kv_heads=self.kv_heads, head_dim=self.head_dim,
                               bytes_per_elem=DTYPE_BYTES[self.dtype])


# GPT-2 small (OpenAI's 124M, the book's chapter 4-5 model) and Llama 3 8B (Meta's, 8 key/value heads).
GPT2_SMALL = ModelSize("GPT-2 small (124M)", layers=12, heads=12, kv_heads=12, head_dim=64, dtype="fp32",
                       context=1024)
LLAMA3_8B = ModelSize("Llama 3 8B", layers=32, heads=32, kv_heads=8, head_dim=128, dtype="bf16", context=8192)
KNOWN_MODELS = (GPT2_SMALL, LLAMA3_8B)
# Gemma 3 27B (Google's; its published config: 62 layers, 32 query heads, 16 key/value heads of 128, 128k context), the
# book's example of sliding-window layers (ch04/06_swa/README.md: five 1,024-token window layers to one full layer).
GEMMA3_27B = ModelSize("Gemma 3 27B", layers=62, heads=32, kv_heads=16, head_dim=128, dtype="bf16", context=131072)
