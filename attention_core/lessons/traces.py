"""What each screen computes, as plain functions of plain values (so callers can cache them).

Every function builds its inputs and seeded modules itself, runs on the requested device with a
fallback to the CPU, and returns CPU tensors plus where they were computed.
"""
from dataclasses import dataclass, field

import torch

from attention_core.book import stages
from attention_core.lessons import experiments, initialisation
from attention_core.book.device import run_with_fallback
from attention_core.book.inputs import (BOOK_INPUTS, BOOK_TOKENS, MAX_D_IN, MAX_SENTENCE_TOKENS, MAX_TOKENS, embed_tokens,
                                   random_inputs, random_token_names, tokenize)
from attention_core.book.modules import (CausalAttention, MultiHeadAttention, MultiHeadAttentionWrapper, SelfAttention_v2,
                                    count_parameters)
from attention_core.book.modules import mha_parameter_count, wrapper_parameter_count  # noqa: F401 (the screens' name)
from attention_core.book.seeding import build_seeded


@dataclass
class Inputs:
    x: torch.Tensor  # (T, d_in)
    tokens: list[str]
    notes: list[str] = field(default_factory=list)


def make_inputs(kind: str, text: str, positions: bool, num_tokens: int, d_in: int, seed: int) -> Inputs:
    """The input embeddings for the chosen source: the book's, a typed sentence, or random."""
    if kind == "random":
        return Inputs(random_inputs(num_tokens, d_in, seed), random_token_names(num_tokens))
    if kind == "sentence":
        tokens = tokenize(text or "")
        notes = []
        if not tokens:
            notes.append("The sentence has no words to attend to, so the book's sentence is shown instead.")
            tokens = list(BOOK_TOKENS)
        if len(tokens) > MAX_SENTENCE_TOKENS:
            notes.append(f"The sentence has {len(tokens)} tokens; only the first {MAX_SENTENCE_TOKENS} are used.")
            tokens = tokens[:MAX_SENTENCE_TOKENS]
        return Inputs(embed_tokens(tokens, d_in, seed, positions), tokens, notes)
    return Inputs(BOOK_INPUTS.clone(), list(BOOK_TOKENS))


def _to_cpu(record):
    if isinstance(record, torch.Tensor):
        return record.detach().cpu()
    if isinstance(record, dict):
        return {k: _to_cpu(v) for k, v in record.items()}
    if isinstance(record, list):
        return [_to_cpu(v) for v in record]
    return record


def _trace_on(module, x, device):
    """Run module.trace(x) under no_grad on `device`, falling back to the CPU (the traced modules have dropout 0)."""
    def compute(dev):
        with torch.no_grad():
            return _to_cpu(module.to(dev).trace(x.to(dev)))
    return run_with_fallback(compute, device)


def projection_trace(x: torch.Tensor, which: str, d_out: int, seed: int, device: str, book: bool = True):
    """Scores, weights and context vectors for one head without a mask (sections 3.3-3.4).

    which: "none" for the simplified x.x attention (no weights, no scaling, as in 3.3),
    "v1" for SelfAttention_v1, "v2" for SelfAttention_v2 (nn.Linear). book: v1 keeps the book's
    torch.rand weights; otherwise it gets nn.Linear's (initialisation.py says why).
    Returns (record, device_used, note).
    """
    if which == "none":
        def compute(dev):
            xd = x.to(dev)
            scores = stages.attn_scores(xd, xd)  # (T, T)
            weights = stages.softmax(scores)
            record = dict(queries=xd, keys=xd, values=xd, attn_scores=scores, scaled_scores=scores,
                          attn_weights=weights, context_vec=stages.context_vectors(weights, xd))
            return _to_cpu(record)
        return run_with_fallback(compute, device)
    if which == "v1":
        module = initialisation.build_v1(seed, x.shape[-1], d_out, book)
    else:
        module = build_seeded(SelfAttention_v2, seed, x.shape[-1], d_out)
    record, used, note = _trace_on(module, x, device)
    record["W_query"], record["W_key"] = _weights(module)
    # The softmax screen sets the unscaled weights beside the scaled ones: computed once with the trace,
    # not on every slider move (at 1,024 tokens a new (T, T) softmax and its fingerprint each rerun).
    record["unscaled_weights"] = stages.softmax(record["attn_scores"])  # (T, T)
    return record, used, note


def _weights(module):
    """W_query and W_key as (d_in, d_out) matrices, whichever class holds them."""
    if isinstance(module.W_query, torch.nn.Linear):
        return module.W_query.weight.detach().T.cpu(), module.W_key.weight.detach().T.cpu()
    return module.W_query.detach().cpu(), module.W_key.detach().cpu()


def causal_trace(x: torch.Tensor, d_out: int, seed: int, context_length: int, device: str):
    """CausalAttention (no dropout) plus the book's other masking variant (section 3.5.1).

    CausalAttention creates W_query, W_key, W_value exactly as SelfAttention_v2 does, so with
    seed 789 its weights are the book's. The record adds: unmasked_weights (no mask at all),
    masked_simple (zeroed after softmax, not renormalised), masked_simple_norm (renormalised),
    and variants_max_abs_diff between masked_simple_norm and the -inf variant's attn_weights.
    Returns (record, device_used, note).
    """
    context_length = max(context_length, x.shape[0])
    module = build_seeded(CausalAttention, seed, x.shape[-1], d_out, context_length, 0.0)
    record, used, note = _trace_on(module, x.unsqueeze(0), device)  # batch of one
    record = {k: v[0] for k, v in record.items()}  # drop the batch dimension: (T, T), (T, d)
    d_k = record["keys"].shape[-1]
    unmasked = stages.softmax(stages.scale_scores(record["attn_scores"], d_k))  # (T, T)
    masked_simple, masked_simple_norm = stages.mask_after_softmax(unmasked)
    record.update(unmasked_weights=unmasked, masked_simple=masked_simple, masked_simple_norm=masked_simple_norm,
                  variants_max_abs_diff=stages.max_abs_diff(masked_simple_norm, record["attn_weights"]),
                  mask=module.mask.cpu(), context_length=context_length)
    return record, used, note


def heads_trace(x: torch.Tensor, d_out: int, num_heads: int, seed: int, context_length: int, device: str):
    """MultiHeadAttentionWrapper and MultiHeadAttention on the same batch of one (section 3.6).

    Both are built with `torch.manual_seed(seed)` as in the book. Returns a dict with both
    traces, their parameter counts, and (device_used, note).
    """
    d_in = x.shape[-1]
    context_length = max(context_length, x.shape[0])
    batch = x.unsqueeze(0)  # (1, T, d_in)
    wrapper = build_seeded(MultiHeadAttentionWrapper, seed, d_in, d_out, context_length, 0.0, num_heads)
    mha = build_seeded(MultiHeadAttention, seed, d_in, d_out, context_length, 0.0, num_heads)

    def wrapper_trace(dev):
        # The wrapper's heads are alike: the first is traced to show their shapes, and the others run the
        # book's forward, so their (T, T) intermediates never exist at once (GPT-2 small's sizes: the trace's
        # peak fell from 754 to 450 MB). The heads' outputs joined are the wrapper's output.
        with torch.no_grad():
            module, xd = wrapper.to(dev), batch.to(dev)
            first = module.heads[0].trace(xd)
            joined = torch.cat([first["context_vec"]] + [head(xd) for head in module.heads[1:]], dim=-1)  # (1, T, h*d_out)
            return _to_cpu({"heads": [first], "context_vec": joined})

    wrapper_record, used, note = run_with_fallback(wrapper_trace, device)
    mha_record, used, note2 = _trace_on(mha, batch, used)
    # Keep what the screen shows: at 1,024 tokens each (h, T, T) intermediate is 48 MB, and the
    # cache holds several settings for a whole class.
    for record in [mha_record] + wrapper_record["heads"]:
        for name in ("attn_scores", "masked_scores", "scaled_scores", "dropped_weights"):
            record.pop(name, None)
    return {
        "wrapper": wrapper_record, "mha": mha_record,
        "wrapper_params": count_parameters(wrapper), "mha_params": count_parameters(mha),
        "out_proj_params": count_parameters(mha.out_proj),
        "device": used, "note": note or note2,
    }


def shape_rows(h: dict, T: int, d_in: int, num_heads: int) -> list[tuple[str, str, str]]:
    """(tensor, its shape in the wrapper, in MultiHeadAttention) at each step, read off heads_trace's tensors."""
    mha, wrapper, head = h["mha"], h["wrapper"], h["wrapper"]["heads"][0]
    shape = lambda t: str(tuple(t.shape))  # noqa: E731
    d_out, head_dim = mha["merged"].shape[-1], mha["queries"].shape[-1]
    return [
        ("inputs (batch)", f"(1, {T}, {d_in})", f"(1, {T}, {d_in})"),
        ("queries = W_query(x)", shape(head["queries"]) + " per head", f"(1, {T}, {d_out})"),
        ("queries after view", "—", f"(1, {T}, {num_heads}, {head_dim})"),
        ("queries after transpose(1, 2)", "—", shape(mha["queries"])),
        ("keys, values", shape(head["keys"]) + " per head", shape(mha["keys"])),
        ("attn_scores, attn_weights", shape(head["attn_weights"]) + " per head", shape(mha["attn_weights"])),
        ("context of each head", shape(head["context_vec"]) + " per head", shape(mha["heads_context"])),
        ("heads joined", shape(wrapper["context_vec"]) + " (torch.cat)", shape(mha["merged"]) + " (merge_heads)"),
        ("out_proj", "—", shape(mha["context_vec"])),
        ("output context_vecs", shape(wrapper["context_vec"]), shape(mha["context_vec"])),
    ]


# The heads screen computes at most GPT-2 small's 12 heads x 1024 x 1024 weights per tensor, and a wrapper of
# 12 heads at the largest sizes: beyond, a visitor's sliders would ask for gigabytes.
MAX_HEAD_CELLS = 12 * MAX_TOKENS**2
MAX_WRAPPER_PARAMS = wrapper_parameter_count(MAX_D_IN, MAX_D_IN, 12)


def head_counts_within(d_out: int, num_tokens: int) -> list[int]:
    """The head counts (divisors of d_out) whose (h, T, T) weights stay within MAX_HEAD_CELLS, the budget of the heads
    screen: every count at the book's sizes, up to GPT-2 small's 12 at 1,024 tokens; 1 head always. A stage that
    builds every head's map offers only these: 384 heads at 1,024 tokens took 19 s and 9.9 GB on /sliding-window."""
    return [h for h in stages.divisors(d_out) if h == 1 or h * num_tokens * num_tokens <= MAX_HEAD_CELLS]


def heads_too_large(num_heads: int, num_tokens: int, d_in: int, d_out: int) -> str | None:
    """Why heads_trace would be too large for the app (a sentence for the screen), or None when it fits."""
    cells, params = num_heads * num_tokens * num_tokens, wrapper_parameter_count(d_in, d_out, num_heads)
    if cells <= MAX_HEAD_CELLS and params <= MAX_WRAPPER_PARAMS:
        return None
    return (f"{num_heads:,} heads at {num_tokens:,} tokens (d_in = {d_in:,}, d_out = {d_out:,}) would need {cells:,} attention "
            f"weights per tensor and {params:,} wrapper parameters; this screen computes at most {MAX_HEAD_CELLS:,} "
            f"and {MAX_WRAPPER_PARAMS:,} (GPT-2 small's 12 heads at 1,024 tokens and 1,024 dimensions). Pick fewer "
            "heads or tokens; the shapes, parameter counts and code below still apply.")


def dropout_convergence(attn_weights: torch.Tensor, p: float, draws: list[int], first_seed: int):
    """Largest |mean of N dropout draws - weights| for each N in draws, plus the row sums of the
    mean over the most draws: the average converges back to the weights (expectation kept)."""
    differences, mean = [], attn_weights
    for n in draws:
        mean = stages.dropout_mean(attn_weights, p, n, first_seed)
        differences.append(stages.max_abs_diff(mean, attn_weights))
    return differences, mean.sum(dim=-1)


def normalisations(attn_scores: torch.Tensor) -> dict:
    """§3.3.1's three ways to turn (T, T) scores into rows that sum to 1, by name, (T, T) each."""
    return {"divide by the sum": stages.normalize_by_sum(attn_scores),
            "naive exp / sum": stages.softmax_naive(attn_scores), "torch.softmax": stages.softmax(attn_scores)}


def temperature_stack(scaled_scores: torch.Tensor, temperatures) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(ω / (√d_k · τ)) for every τ at once, (τ, T, T), and each row's largest weight and entropy ÷
    uniform, (τ, T, 2); scaled_scores: (T, T) ω / √d_k."""
    taus = torch.tensor(list(temperatures), dtype=scaled_scores.dtype)[:, None, None]  # (τ, 1, 1)
    tempered = stages.softmax(scaled_scores[None] / taus)  # (τ, T, T)
    return tempered, experiments.sharpness_per_row(tempered)


def dropout_stack(attn_weights: torch.Tensor, rates, seed: int, train: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """The weights after dropout at each rate, (rates, T, T) (the same seed: one mask per rate), and each
    row's sum before and after, (rates, T, 2)."""
    after = torch.stack([stages.dropout(attn_weights, rate, seed, train)[0] for rate in rates])  # (rates, T, T)
    before = attn_weights.sum(dim=-1).expand_as(after[:, :, 0])  # (rates, T)
    return after, torch.stack([before, after.sum(dim=-1)], dim=-1)
