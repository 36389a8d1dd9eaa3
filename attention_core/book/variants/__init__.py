"""Attention as LLMs run it: the book's chapter-4 bonus code, one module per file of the book's repository.

rasbt/LLMs-from-scratch writes each variant of the chapter's MultiHeadAttention in a file of its own; each module
here carries the same name as that file and its classes keep the book's names, signatures, buffers and forward,
with `trace()` beside them (the app's addition, as for chapter 3's classes in attention_core/book/modules.py):

  gpt_with_kv_cache.py  ch04/03_kv-cache/gpt_with_kv_cache.py   MultiHeadAttention with a KV cache
  gpt_with_kv_swa.py    ch04/06_swa/gpt_with_kv_swa.py          MultiHeadAttentionWithSWA (a sliding window)
  gpt_with_kv_gqa.py    ch04/04_gqa/gpt_with_kv_gqa.py          GroupedQueryAttention
  gpt_with_kv_mla.py    ch04/05_mla/gpt_with_kv_mla.py          MultiHeadLatentAttention
  llama3_rope.py        pkg/llms_from_scratch/llama3.py          compute_rope_params, apply_rope

`MultiHeadAttention` here is the KV-cache one, the book's name for it in that file; chapter 3's is
attention_core.book.modules.MultiHeadAttention.
"""
# Each variant's module adds its own import line below its marker.
# @variant:kv-cache
from attention_core.book.variants.gpt_with_kv_cache import MultiHeadAttention  # noqa: F401
# @variant:swa
from attention_core.book.variants.gpt_with_kv_swa import MultiHeadAttentionWithSWA  # noqa: F401
# @variant:gqa
from attention_core.book.variants.gpt_with_kv_gqa import GroupedQueryAttention  # noqa: E402,F401
# @variant:mla
from attention_core.book.variants.gpt_with_kv_mla import MultiHeadLatentAttention  # noqa: E402,F401
# @variant:rope
from attention_core.book.variants.llama3_rope import apply_rope, compute_rope_params  # noqa: F401
