"""Shared keys (/gqa): the book's GroupedQueryAttention at the sidebar's sizes, computed for the screen.

What the stage teaches, as numbers: which key/value head each query head meets (repeat_interleave, and the
mistake `repeat`), what the cache holds against multi-head attention (cache_bytes.kv_cache_bytes, the book's
formula), how W_key and W_value shrink, the book's README example, the book's issue #922 (num_kv_groups means two
things), the agreement checks and the questions. Plain PyTorch: the screen caches these through ui.stage_call.
"""
import math

import torch
import torch.nn.functional as F

from attention_core.book.device import run_with_fallback
from attention_core.book.modules import MultiHeadAttention
from attention_core.book.seeding import build_seeded
from attention_core.book.stages import divisors
from attention_core.book.variants.gpt_with_kv_gqa import GroupedQueryAttention, kv_head_of
from attention_core.lessons import cache_bytes
from attention_core.lessons.head_counts import STACK_WEIGHTS
from attention_core.lessons.questions import Question, _identity

FLOAT32_BYTES = 4  # the app computes in float32

# The book's README (ch04/04_gqa/README.md): `memory_estimator_gqa.py --emb_dim 4096 --n_heads 32 --n_layers 32
# --context_length 32768 --n_kv_groups 4 --batch_size 1 --dtype bf16` prints 17.18 GB (MHA) and 4.29 GB (GQA).
# Its --n_kv_groups 4 is the group size: 32 / 4 = 8 key/value heads, which the class writes num_kv_groups=8.
README = {"emb_dim": 4096, "n_heads": 32, "n_layers": 32, "context_length": 32768, "dtype": "bf16",
          "estimator_n_kv_groups": 4}


def kv_options(num_heads: int) -> list[int]:
    """num_kv_groups from num_heads (multi-head attention) down to 1 (multi-query): the divisors, descending."""
    return divisors(num_heads)[::-1]


def stack_fits(num_heads: int, num_tokens: int) -> bool:
    """Whether every (num_kv_groups, head) map goes to the browser at once: d(H) · H · T² weights within
    head_counts.STACK_WEIGHTS (the book's sizes: 2 settings × 2 heads × 36)."""
    return len(divisors(num_heads)) * num_heads * num_tokens * num_tokens <= STACK_WEIGHTS


def frame_of(num_heads: int, num_kv_groups: int, head: int) -> int:
    """Where (num_kv_groups, head 0-based) sits in every_setting's stack: settings in kv_options order."""
    return kv_options(num_heads).index(num_kv_groups) * num_heads + head


def build(d_in: int, d_out: int, num_heads: int, num_kv_groups: int, seed: int) -> GroupedQueryAttention:
    """`torch.manual_seed(seed); GroupedQueryAttention(d_in, d_out, 0.0, num_heads, num_kv_groups)` (no dropout)."""
    return build_seeded(GroupedQueryAttention, seed, d_in, d_out, 0.0, num_heads, num_kv_groups)


def gqa_trace(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int, num_kv_groups: int,
              heads: tuple | None = None) -> dict:
    """GroupedQueryAttention on x (T, d_in), built under `seed`, on `device` (CPU fallback); CPU tensors back.
    heads: the query heads (0-based) whose (T, T) maps come back (None: all; at 1,024 tokens one group's few
    keep the cached record small), and the counted parameters."""
    module = build(x.shape[-1], d_out, num_heads, num_kv_groups, seed)
    heads = tuple(range(num_heads)) if heads is None else tuple(heads)

    def compute(dev):
        with torch.no_grad():
            m, xd = module.to(dev), x.to(dev)[None]  # (1, T, d_in)
            right = m.trace(xd)
            return {"weights": right["attn_weights"][0, list(heads)].cpu(),  # (len(heads), T, T)
                    "keys_new": right["keys_new"][0].cpu(), "values_new": right["values_new"][0].cpu(),  # (g, T, hd)
                    "queries": right["queries"][0].cpu(),  # (h, T, hd)
                    "context_vec": right["context_vec"][0].cpu()}  # (T, d_out)
    record, used, note = run_with_fallback(compute, device)
    return record | {"heads": heads, "params": parameter_counts(module), "device": used, "note": note}


def every_setting(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int) -> torch.Tensor:
    """attn_weights of every query head at every num_kv_groups (kv_options order), each setting built under
    `seed` as the book builds it: (d(H) · H, T, T) on the CPU, for the browser to scrub (small by stack_fits)."""
    maps = []
    for groups in kv_options(num_heads):
        module = build(x.shape[-1], d_out, num_heads, groups, seed)
        with torch.no_grad():
            maps.append(module.trace(x[None])["attn_weights"][0])  # (h, T, T)
    return torch.cat(maps)


# --- which key/value head each query head meets ---------------------------------------------------------

def pairing(num_heads: int, num_kv_groups: int, expand: str = "repeat_interleave") -> list[int]:
    """The key/value head (0-based) of every query head: [0, 0, 1, 1] (repeat_interleave, 4 heads, 2 groups)
    or [0, 1, 0, 1] (repeat)."""
    return [kv_head_of(i, num_heads, num_kv_groups, expand) for i in range(num_heads)]


def orders_differ(num_heads: int, num_kv_groups: int) -> bool:
    """Whether repeat pairs a query head with another key/value head than repeat_interleave: only when
    1 < num_kv_groups < num_heads (one group, or one head a group, gives the same list either way)."""
    return pairing(num_heads, num_kv_groups) != pairing(num_heads, num_kv_groups, "repeat")


def repeat_mistake(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int, num_kv_groups: int) -> dict:
    """`repeat` in place of `repeat_interleave` at a setting where the two differ: this one when they do, else
    the smallest that does (4 heads, 2 groups, d_out a multiple of 4): the outputs of both, and the setting.
    Causal attention's first rows depend only on the first tokens: the first 64 give the rows shown, exactly."""
    x = x[:64]  # (≤ 64, d_in)
    if not orders_differ(num_heads, num_kv_groups):
        num_heads, num_kv_groups, d_out = 4, 2, 4 * max(1, math.ceil(d_out / 4))
    module = build(x.shape[-1], d_out, num_heads, num_kv_groups, seed)
    with torch.no_grad():
        right, wrong = module.trace(x[None]), module.trace(x[None], expand="repeat")
    return {"num_heads": num_heads, "num_kv_groups": num_kv_groups, "d_out": d_out,
            "right": right["context_vec"][0], "wrong": wrong["context_vec"][0],  # (T, d_out) each
            "right_pairs": pairing(num_heads, num_kv_groups), "wrong_pairs": pairing(num_heads, num_kv_groups, "repeat")}


# --- parameters and the cache -----------------------------------------------------------------------------

def parameter_counts(module: GroupedQueryAttention) -> dict:
    """The module's parameters, counted (numel), by projection; MultiHeadAttention's W_key at the same sizes
    is d_in · d_out (+ d_out with bias)."""
    counts = {name: sum(p.numel() for p in part.parameters())
              for name, part in (("W_query", module.W_query), ("W_key", module.W_key), ("W_value", module.W_value),
                                 ("out_proj", module.out_proj))}
    d_in, d_out = module.W_query.in_features, module.d_out
    mha_key = d_in * d_out + (d_out if module.W_key.bias is not None else 0)
    return counts | {"total": sum(counts.values()), "mha_key": mha_key,
                     "shrink": module.num_heads // module.num_kv_groups}


def cache_at(num_tokens: int, d_out: int, num_heads: int, num_kv_groups: int, layers: int = 1,
             bytes_per_elem: int = FLOAT32_BYTES) -> dict:
    """This layer's key/value cache for num_tokens tokens, grouped-query against multi-head (float32, batch 1)."""
    head_dim = d_out // num_heads
    sizes = dict(tokens=num_tokens, layers=layers, head_dim=head_dim, bytes_per_elem=bytes_per_elem)
    mha = cache_bytes.kv_cache_bytes(kv_heads=num_heads, **sizes)
    gqa = cache_bytes.kv_cache_bytes(kv_heads=num_kv_groups, **sizes)
    return {"mha": mha, "gqa": gqa, "ratio": mha / gqa if gqa else math.inf, "head_dim": head_dim,
            "numbers": gqa // bytes_per_elem}


def readme_example() -> dict:
    """The book's README example computed with the same function: 17.18 GB (MHA), 4.29 GB (8 key/value heads);
    and what the estimator gives when it is handed the class's num_kv_groups = 8 (the book's issue #922)."""
    n_heads, group_size = README["n_heads"], README["estimator_n_kv_groups"]
    sizes = dict(tokens=README["context_length"], layers=README["n_layers"], head_dim=README["emb_dim"] // n_heads,
                 bytes_per_elem=cache_bytes.DTYPE_BYTES[README["dtype"]])
    kv_heads = n_heads // group_size  # what the class calls num_kv_groups
    return {"mha": cache_bytes.kv_cache_bytes(kv_heads=n_heads, **sizes),
            "gqa": cache_bytes.kv_cache_bytes(kv_heads=kv_heads, **sizes), "kv_heads": kv_heads,
            "class_num_kv_groups": kv_heads,
            # passing the class's number to the estimator: n_heads // 8 = 4 key/value heads
            "confused": cache_bytes.kv_cache_bytes(kv_heads=n_heads // kv_heads, **sizes),
            "confused_kv_heads": n_heads // kv_heads}


def book_gb(count: int) -> str:
    """Bytes as the book's estimators print them (convert_bytes): decimal GB with 2 decimals."""
    return f"{count / 1000**3:,.2f} GB"


# --- the agreement checks ----------------------------------------------------------------------------------

def checks(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int, num_kv_groups: int,
           prefix: int = 64) -> dict:
    """Max |difference| of the class against PyTorch and against itself: F.scaled_dot_product_attention with
    enable_gqa=True (PyTorch's own grouped-query attention) on the same projections; the chapter's
    MultiHeadAttention given the same weights at num_kv_groups = num_heads; the cache fed one token at a time
    against all tokens at once (the first `prefix` tokens). On the CPU (`device` unused): float rounding differs
    between devices' kernels, and these checks compare the class with itself and PyTorch, not a device."""
    d_in, T = x.shape[-1], x.shape[0]
    module = build(d_in, d_out, num_heads, num_kv_groups, seed)
    with torch.no_grad():
        record = module.trace(x[None])
        fused = F.scaled_dot_product_attention(record["queries"], record["keys_new"], record["values_new"],
                                               is_causal=True, enable_gqa=True)  # (1, h, T, hd)
        sdpa = float((fused - record["heads_context"]).abs().max())
        full = build(d_in, d_out, num_heads, num_heads, seed)
        mha = mha_from_gqa(full, T)
        as_mha = float((mha(x[None]) - full(x[None])).abs().max())
        cached = float((cached_run(module, x[:prefix]) - module(x[None, :prefix])).abs().max())
    return {"sdpa": sdpa, "mha": as_mha, "cache": cached}


def mha_from_gqa(module: GroupedQueryAttention, context_length: int) -> MultiHeadAttention:
    """The chapter's MultiHeadAttention holding a GroupedQueryAttention's weights (num_kv_groups = num_heads);
    its out_proj's bias, which GroupedQueryAttention does not have, set to 0."""
    assert module.num_kv_groups == module.num_heads, "only multi-head attention has a key head per query head"
    mha = build_seeded(MultiHeadAttention, 0, module.W_query.in_features, module.d_out, context_length, 0.0,
                       module.num_heads, qkv_bias=module.W_query.bias is not None)  # seeded: no global draws
    with torch.no_grad():
        for name in ("W_query", "W_key", "W_value"):
            getattr(mha, name).load_state_dict(getattr(module, name).state_dict())
        mha.out_proj.weight.copy_(module.out_proj.weight)
        mha.out_proj.bias.zero_()
    return mha


def cached_run(module, x: torch.Tensor) -> torch.Tensor:
    """forward(use_cache=True) one token at a time over x (T, d_in), as generation feeds it: (1, T, d_out)."""
    module.reset_cache()
    with torch.no_grad():
        steps = [module(x[None, t:t + 1], use_cache=True) for t in range(x.shape[0])]
    module.reset_cache()
    return torch.cat(steps, dim=1)


# --- predict first --------------------------------------------------------------------------------------

def gqa_questions(num_heads: int, num_kv_groups: int, d_in: int, d_out: int, num_tokens: int,
                  tokens=None) -> list[Question]:
    """How many key heads at num_kv_groups = 2; does multi-query change the output's shape; the cache's bytes."""
    # num_kv_groups = 2 must divide the heads asked about, and a group must hold more than 2 heads: 8 heads give
    # 2 key heads to the class and 8 // 2 = 4 to a reader who divides (the book's issue #922)
    heads_asked = num_heads if num_heads % 2 == 0 and num_heads > 4 else 8
    key_heads = Question(
        _identity("gqa", "key_heads", heads_asked),
        f"GroupedQueryAttention(d_in, d_out, dropout, num_heads={heads_asked}, num_kv_groups=2): how many key heads "
        "does W_key make?", "number", 2.0,
        f"2: num_kv_groups is the number of key/value heads in the class (W_key has 2 · head_dim columns); each is "
        f"shared by num_heads / num_kv_groups = {heads_asked // 2} query heads. (The book's memory estimator uses "
        f"n_kv_groups for the group size instead, issue #922.)", low=0, high=heads_asked)
    shape = Question(
        _identity("gqa", "shape", num_tokens, d_out),
        f"Set num_kv_groups = 1 (multi-query attention: one key/value head shared by "
        f"{'both' if num_heads == 2 else f'all {num_heads}'} query heads). Does the output's "
        f"shape change from (1, {num_tokens:,}, {d_out:,})?", "yesno", False,
        f"No: it stays (1, {num_tokens:,}, {d_out:,}). repeat_interleave hands the one key/value head to every query "
        f"head, each head still gives head_dim = {d_out // num_heads} columns, and out_proj maps d_out to d_out.")
    cache = cache_at(num_tokens, d_out, num_heads, num_kv_groups)
    size = Question(
        _identity("gqa", "cache", num_tokens, d_out, num_heads, num_kv_groups),
        f"With num_heads = {num_heads}, num_kv_groups = {num_kv_groups} and d_out = {d_out:,}, how many bytes does "
        f"this one layer's key/value cache hold for {num_tokens:,} tokens in float32 (4 bytes a number)?", "number",
        float(cache["gqa"]),
        f"{cache['gqa']:,} bytes = 2 (K and V) × {num_tokens:,} tokens × {num_kv_groups} key/value "
        f"head{'' if num_kv_groups == 1 else 's'} × head_dim "
        f"{cache['head_dim']} × 4 bytes; multi-head attention would hold {cache['mha']:,}.",
        low=0, high=math.inf, tolerance=0.5, gives_away=(f"{cache['gqa']:,} bytes", f"{cache['gqa']:,} B"))
    return [key_heads, shape, size]
