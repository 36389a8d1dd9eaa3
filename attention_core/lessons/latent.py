"""A latent cache (/latent): the book's MultiHeadLatentAttention at the sidebar's sizes, computed for the screen.

The cache holds one latent vector a token, latent_dim numbers, where multi-head attention keeps 2 · d_out (every
head's key and value) and grouped-query attention 2 · num_kv_groups · head_dim. What the stage computes: the trace
(the latent, the keys and values rebuilt from it), the cache's bytes against both (cache_bytes, the book's
formulas), the book's README examples, how close a latent of each size can stay to a multi-head layer's outputs,
the agreement checks, two mistakes and the questions. Plain PyTorch: the screen caches these through ui.stage_call.
"""
import math

import torch
import torch.nn.functional as F

from attention_core.book.device import run_with_fallback
from attention_core.book.modules import MultiHeadAttention
from attention_core.book.seeding import build_seeded
from attention_core.book.variants.gpt_with_kv_mla import MultiHeadLatentAttention
from attention_core.lessons import cache_bytes
from attention_core.lessons.questions import Question, _identity

FLOAT32_BYTES = 4  # the app computes in float32
CURVE_TOKENS = 64  # the closeness curve runs on the first tokens: causal rows depend only on the tokens before them

# The book's README (ch04/05_mla/README.md), 1: `memory_estimator_mla.py --context_length 8192 --emb_dim 2048
# --n_heads 24 --n_layers 48 --n_kv_groups 4 --batch_size 1 --dtype bf16 --latent_dim 1024` prints 3.25 GB (MHA),
# 0.81 GB (GQA: 24 // 4 = 6 key/value heads) and 0.81 GB (MLA). head_dim = ceil(2048 / 24) = 86, as it computes.
ESTIMATOR = {"context_length": 8192, "emb_dim": 2048, "n_heads": 24, "n_layers": 48, "n_kv_groups": 4,
             "dtype": "bf16", "latent_dim": 1024}
# 2: `gpt_with_kv_mha.py` and `gpt_with_kv_mla.py --latent_dim 192`, emb_dim 768, 24 heads, 12 layers, 32,768 new
# tokens after a 4-token prompt, the whole model in bf16 on a GPU: "Max memory allocated" 1.54 GB and 0.68 GB
# (torch.cuda.max_memory_allocated / 1024**3: weights, activations and cache together, measured by the book).
RUN = {"tokens": 32768 + 4, "emb_dim": 768, "n_heads": 24, "n_layers": 12, "dtype": "bf16", "latent_dim": 192,
       "measured_mha": "1.54 GB", "measured_mla": "0.68 GB"}


def auto_latent(d_out: int) -> int:
    """The screen's latent_dim when the URL names none (latent_dim = 0): d_out / 4, at least 1, so the cache is
    8 times smaller than multi-head attention's 2 · d_out (the README's run: 768 dims, latent 192)."""
    return max(1, d_out // 4)


def latent_choices(d_out: int) -> list[int]:
    """latent_dim from 1 to 2 · d_out: past 2 · d_out the latent holds more than every head's keys and values."""
    return list(range(1, 2 * d_out + 1))


def build(d_in: int, d_out: int, num_heads: int, latent_dim: int, seed: int) -> MultiHeadLatentAttention:
    """`torch.manual_seed(seed); MultiHeadLatentAttention(d_in, d_out, 0.0, num_heads, latent_dim=latent_dim)`."""
    return build_seeded(MultiHeadLatentAttention, seed, d_in, d_out, 0.0, num_heads, latent_dim=latent_dim)


def latent_trace(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int, latent_dim: int,
                 heads: tuple | None = None) -> dict:
    """MultiHeadLatentAttention on x (T, d_in), built under `seed`, on `device` (CPU fallback); CPU tensors back:
    latent_new (T, latent_dim), the cache; keys_all and values_all (T, d_out), rebuilt from it; the (T, T) weights of
    `heads` (0-based; None: all); context_vec (T, d_out); and the parameters, counted."""
    module = build(x.shape[-1], d_out, num_heads, latent_dim, seed)
    heads = tuple(range(num_heads)) if heads is None else tuple(heads)

    def compute(dev):
        with torch.no_grad():
            record = module.to(dev).trace(x.to(dev)[None])
            return {"latent_new": record["latent_new"][0].cpu(), "keys_all": record["keys_all"][0].cpu(),
                    "values_all": record["values_all"][0].cpu(),  # (T, d_out)
                    "weights": record["attn_weights"][0, list(heads)].cpu(),  # (len(heads), T, T)
                    "context_vec": record["context_vec"][0].cpu()}  # (T, d_out)
    record, used, note = run_with_fallback(compute, device)
    params = {name: sum(p.numel() for p in getattr(module, name).parameters())
              for name in ("W_query", "W_DKV", "W_UK", "W_UV", "out_proj")}
    return record | {"heads": heads, "params": params, "device": used, "note": note}


# --- the cache ---------------------------------------------------------------------------------------------

def cache_at(num_tokens: int, d_out: int, num_heads: int, latent_dim: int, num_kv_groups: int, layers: int = 1,
             bytes_per_elem: int = FLOAT32_BYTES) -> dict:
    """This layer's cache for num_tokens tokens (float32, batch 1): multi-head, grouped-query with num_kv_groups
    key/value heads, and the latent; and what each token adds (numbers)."""
    head_dim = d_out // num_heads
    sizes = dict(tokens=num_tokens, layers=layers, bytes_per_elem=bytes_per_elem)
    mha = cache_bytes.kv_cache_bytes(kv_heads=num_heads, head_dim=head_dim, **sizes)
    gqa = cache_bytes.kv_cache_bytes(kv_heads=num_kv_groups, head_dim=head_dim, **sizes)
    mla = cache_bytes.latent_cache_bytes(latent_dim=latent_dim, **sizes)
    return {"mha": mha, "gqa": gqa, "mla": mla, "per_token": {"mha": 2 * num_heads * head_dim,
                                                              "gqa": 2 * num_kv_groups * head_dim, "mla": latent_dim},
            "ratio": mha / mla if mla else math.inf, "num_kv_groups": num_kv_groups}


def readme_examples() -> dict:
    """The book's two README examples with the same formulas: the estimator's (3.25, 0.81, 0.81 GB) and the cache
    alone in the run whose whole model measured 1.54 and 0.68 GB."""
    e = ESTIMATOR
    head_dim = math.ceil(e["emb_dim"] / e["n_heads"])  # 86, as memory_estimator_mla.py rounds it
    sizes = dict(tokens=e["context_length"], layers=e["n_layers"], bytes_per_elem=cache_bytes.DTYPE_BYTES[e["dtype"]])
    estimator = {"mha": cache_bytes.kv_cache_bytes(kv_heads=e["n_heads"], head_dim=head_dim, **sizes),
                 "gqa": cache_bytes.kv_cache_bytes(kv_heads=e["n_heads"] // e["n_kv_groups"], head_dim=head_dim, **sizes),
                 "mla": cache_bytes.latent_cache_bytes(latent_dim=e["latent_dim"], **sizes), "head_dim": head_dim}
    r = RUN
    sizes = dict(tokens=r["tokens"], layers=r["n_layers"], bytes_per_elem=cache_bytes.DTYPE_BYTES[r["dtype"]])
    run = {"mha": cache_bytes.kv_cache_bytes(kv_heads=r["n_heads"], head_dim=r["emb_dim"] // r["n_heads"], **sizes),
           "mla": cache_bytes.latent_cache_bytes(latent_dim=r["latent_dim"], **sizes)}
    return {"estimator": estimator, "run": run}


def book_gb(count: int) -> str:
    """Bytes as the book's estimators print them (convert_bytes): decimal GB with 2 decimals."""
    return f"{count / 1000**3:,.2f} GB"


# --- how close a latent stays --------------------------------------------------------------------------------

def kv_factors(mha: MultiHeadAttention) -> tuple[torch.Tensor, torch.Tensor]:
    """[W_key; W_value] (2 · d_out × d_in) = up @ down by its singular value decomposition: up = U · S
    (2 · d_out, r), down = Vh (r, d_in), r = min(2 · d_out, d_in), largest singular values first (float64)."""
    stacked = torch.cat([mha.W_key.weight, mha.W_value.weight]).detach().double()  # (2 · d_out, d_in)
    U, S, Vh = torch.linalg.svd(stacked, full_matrices=False)  # (2d_out, r), (r,), (r, d_in)
    return U * S, Vh


def full_latent(mha: MultiHeadAttention) -> MultiHeadLatentAttention:
    """The book's MultiHeadLatentAttention with latent_dim = 2 · d_out holding a MultiHeadAttention's keys and values
    themselves: W_DKV = [W_key; W_value], W_UK = [I 0], W_UV = [0 I] (no decomposition needed). Its output is the
    layer's: a latent that large loses nothing (and saves nothing)."""
    d_in, d_out = mha.W_query.in_features, mha.d_out
    mla = build_seeded(MultiHeadLatentAttention, 0, d_in, d_out, 0.0, mha.num_heads, latent_dim=2 * d_out)
    eye = torch.eye(2 * d_out)  # (2 · d_out, 2 · d_out)
    with torch.no_grad():
        mla.W_query.load_state_dict(mha.W_query.state_dict())
        mla.out_proj.load_state_dict(mha.out_proj.state_dict())
        mla.W_DKV.weight.copy_(torch.cat([mha.W_key.weight, mha.W_value.weight]))
        mla.W_UK.weight.copy_(eye[:d_out])
        mla.W_UV.weight.copy_(eye[d_out:])
    return mla


def latent_from_mha(mha: MultiHeadAttention, latent_dim: int, factors=None) -> MultiHeadLatentAttention:
    """The book's MultiHeadLatentAttention closest to a MultiHeadAttention for a latent of latent_dim: the same
    W_query and out_proj, and [W_key; W_value] (2 · d_out × d_in) cut to its latent_dim largest singular directions
    (W_DKV = those directions, W_UK and W_UV = the rest of the factorisation): exact once latent_dim reaches the
    matrix's rank (at most min(2 · d_out, d_in)). factors: kv_factors(mha), computed once for many sizes."""
    d_in, d_out = mha.W_query.in_features, mha.d_out
    mla = build_seeded(MultiHeadLatentAttention, 0, d_in, d_out, 0.0, mha.num_heads, latent_dim=latent_dim)
    up_all, down_all = kv_factors(mha) if factors is None else factors  # (2d_out, r), (r, d_in)
    kept = min(latent_dim, down_all.shape[0])
    down = torch.zeros(latent_dim, d_in, dtype=torch.float64)  # (latent_dim, d_in): unused rows stay 0
    down[:kept] = down_all[:kept]
    up = torch.zeros(2 * d_out, latent_dim, dtype=torch.float64)  # (2 · d_out, latent_dim)
    up[:, :kept] = up_all[:, :kept]
    with torch.no_grad():
        mla.W_query.load_state_dict(mha.W_query.state_dict())
        mla.out_proj.load_state_dict(mha.out_proj.state_dict())
        mla.W_DKV.weight.copy_(down)
        mla.W_UK.weight.copy_(up[:d_out])
        mla.W_UV.weight.copy_(up[d_out:])
    return mla


def closeness(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int, latents: tuple) -> dict:
    """For each latent_dim in `latents`: how far the best latent of that size (latent_from_mha) lands from the
    seeded MultiHeadAttention's output, ‖MLA(x) − MHA(x)‖ / ‖MHA(x)‖ over the first CURVE_TOKENS tokens, and the
    share of [W_key; W_value]'s squared singular values it keeps. On the CPU (`device` unused: the SVD is small)."""
    x = x[:CURVE_TOKENS]  # (≤ 64, d_in)
    mha = build_seeded(MultiHeadAttention, seed, x.shape[-1], d_out, x.shape[0], 0.0, num_heads)
    with torch.no_grad():
        reference = mha(x[None])  # (1, T, d_out)
        factors = kv_factors(mha)  # one decomposition for every size (the dear part: seconds at 768 dims)
        spectrum = factors[0].norm(dim=0) ** 2  # (r,): the squared singular values (U's columns have length 1)
        rows = []
        for latent_dim in latents:
            out = latent_from_mha(mha, latent_dim, factors)(x[None])
            rows.append({"latent_dim": latent_dim, "relative error": float((out - reference).norm() / reference.norm()),
                         "kept": float(spectrum[:latent_dim].sum() / spectrum.sum())})
    return {"rows": rows, "rank": int((spectrum > spectrum.max() * 1e-10).sum()), "tokens": x.shape[0]}


def curve_latents(d_out: int, d_in: int, latent_dim: int) -> tuple:
    """Up to about 12 latent sizes from 1 to 2 · d_out for the closeness curve: powers of 2, the matrix's largest
    rank min(2 · d_out, d_in), 2 · d_out, and the screen's latent_dim."""
    top = 2 * d_out
    picks = {2**i for i in range(int(math.log2(top)) + 1)} | {min(top, d_in), top, latent_dim}
    return tuple(sorted(p for p in picks if 1 <= p <= top))


# --- the checks and the mistakes -----------------------------------------------------------------------------

def cached_run(module, x: torch.Tensor, keep_position: bool = True) -> torch.Tensor:
    """forward(use_cache=True) one token at a time over x (T, d_in): (1, T, d_out). keep_position=False is the
    mistake of a new query counted from position 0 at every step (ptr_current_pos reset): it then sees only the
    first key."""
    module.reset_cache()
    steps = []
    with torch.no_grad():
        for t in range(x.shape[0]):
            if not keep_position:
                module.ptr_current_pos = 0
            steps.append(module(x[None, t:t + 1], use_cache=True))
    module.reset_cache()
    return torch.cat(steps, dim=1)


def checks(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int, latent_dim: int,
           prefix: int = 64) -> dict:
    """Max |difference|: the class's heads against F.scaled_dot_product_attention on the same queries and rebuilt
    keys and values; the latent cache fed one token at a time against all tokens at once, and a latent of 2 · d_out
    holding a MultiHeadAttention's keys and values (full_latent) against that layer, both on the first `prefix`
    tokens. On the CPU (`device` unused)."""
    module = build(x.shape[-1], d_out, num_heads, latent_dim, seed)
    with torch.no_grad():
        record = module.trace(x[None])
        fused = F.scaled_dot_product_attention(record["queries"], record["keys"], record["values"], is_causal=True)
        sdpa = float((fused - record["heads_context"]).abs().max())
        cached = float((cached_run(module, x[:prefix]) - module(x[None, :prefix])).abs().max())
        mha = build_seeded(MultiHeadAttention, seed, x.shape[-1], d_out, prefix, 0.0, num_heads)
        exact = float((full_latent(mha)(x[None, :prefix]) - mha(x[None, :prefix])).abs().max())
    return {"sdpa": sdpa, "cache": cached, "full_rank": exact}


def mistakes(x: torch.Tensor, *, d_out: int, seed: int, device: str, num_heads: int, latent_dim: int) -> dict:
    """Two mistakes beside the right code, on the first 64 tokens: a step's query counted from position 0 (the
    output of each), and caching the rebuilt keys and values instead of the latent (the numbers a token each)."""
    x = x[:64]  # (≤ 64, d_in)
    module = build(x.shape[-1], d_out, num_heads, latent_dim, seed)
    return {"right": cached_run(module, x)[0], "wrong": cached_run(module, x, keep_position=False)[0],  # (T, d_out)
            "latent_numbers": latent_dim, "rebuilt_numbers": 2 * d_out}


# --- predict first --------------------------------------------------------------------------------------

def latent_questions(d_out: int, num_heads: int, latent_dim: int, num_tokens: int, tokens=None) -> list[Question]:
    """How many times fewer numbers a token the latent cache keeps than multi-head attention's; its bytes for
    these tokens."""
    # Asked against multi-head attention, not as a bare count: the screen's intro says the cache holds "latent_dim
    # numbers a token", which would answer that before the question is read (a class-mode slide did).
    times = 2 * d_out / latent_dim
    per_token = Question(
        _identity("latent", "times", d_out, latent_dim),
        f"MultiHeadLatentAttention(d_out={d_out:,}, latent_dim={latent_dim:,}): how many times fewer numbers does its "
        "cache keep for each new token than multi-head attention's cache (one layer)?", "number", round(times, 4),
        f"{times:g} times: the latent cache keeps the latent vector W_DKV(x), {latent_dim:,} numbers, and nothing else; "
        f"multi-head attention keeps 2 · d_out = {2 * d_out:,} (every head's key and value). Keys and values are "
        "rebuilt from the latent by W_UK and W_UV at every step.",
        tolerance=0.01, low=0, high=math.inf, gives_away=(f"{times:g} times", f"{times:g}×"))
    cache = cache_at(num_tokens, d_out, num_heads, latent_dim, num_heads)
    size = Question(
        _identity("latent", "bytes", num_tokens, d_out, latent_dim),
        f"In float32 (4 bytes a number), how many bytes does this layer's latent cache hold for {num_tokens:,} tokens "
        f"at latent_dim = {latent_dim:,}?", "number", float(cache["mla"]),
        f"{num_tokens:,} tokens × {latent_dim:,} × 4 = {cache['mla']:,} bytes; multi-head attention's cache holds "
        f"{cache['mha']:,} (2 × {num_tokens:,} × {d_out:,} × 4).", low=0, high=math.inf, tolerance=0.5,
        gives_away=(f"{cache['mla']:,} bytes",))
    return [per_token, size]
