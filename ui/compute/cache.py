"""Cached calls into attention_core, keyed on plain values (Streamlit cannot hash tensors).

The inputs travel beside their key: `settings.inputs_id` is the key, `_x` (left out of it) the tensor.

Every cache is shared by all visitors: never mutate what these return. The traces are large and
their size depends on the settings (a heads trace is 100 MB at 1,024 tokens, a few kB at the
book's 6), so their caches are bounded in bytes (byte_cache.py); the small ones by entry count.
Budgets: traces 270 MB in all: at GPT-2 size one heads trace (124 MB), one causal (50 MB) and the
two projections (38 MB each) of the current settings, or many of the book's.
"""
import pandas as pd
import streamlit as st
import torch

from attention_core.lessons import agreement, claims, efficiency, experiments, head_counts, initialisation, traces
from ui.compute.byte_cache import byte_cache
from ui.compute.keys import fingerprint
from ui.state.settings import Settings


@st.cache_resource(max_entries=32, show_spinner=False)
def cached_inputs(kind, text, positions, num_tokens, d_in, seed):
    return traces.make_inputs(kind, text, positions, num_tokens, d_in, seed)


@byte_cache(max_mb=80, spinner="Computing…")
def _projection(inputs_id, which, d_out, seed, device, *, _x):
    book = initialisation.book_weights(inputs_id[0])  # inputs_id[0]: the kind of input ("book", ...)
    return traces.projection_trace(_x, which, d_out, seed, device, book)


def projection(settings: Settings, which: str, stage: str):
    """(record, device_used, note) for the unmasked single-head attention of a stage."""
    return _projection(settings.inputs_id, which, settings.d_out, settings.seed_for(stage), settings.device, _x=settings.x)


@byte_cache(max_mb=60, spinner="Computing…")
def _causal(inputs_id, d_out, seed, context_length, device, *, _x):
    return traces.causal_trace(_x, d_out, seed, context_length, device)


def causal(settings: Settings, stage: str, context_length: int):
    """(record, device_used, note): CausalAttention's trace and both masking variants."""
    return _causal(settings.inputs_id, settings.d_out, settings.seed_for(stage), context_length, settings.device,
                   _x=settings.x)


@byte_cache(max_mb=130, spinner="Computing the heads…")
def _heads(inputs_id, d_out, num_heads, seed, context_length, device, *, _x):
    return traces.heads_trace(_x, d_out, num_heads, seed, context_length, device)


def heads(settings: Settings, num_heads: int, context_length: int):
    return _heads(settings.inputs_id, settings.d_out, num_heads, settings.seed_for("heads"),
                  context_length, settings.device, _x=settings.x)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs={torch.Tensor: lambda t: t.numpy().tobytes()})
def dropout_convergence(attn_weights: torch.Tensor, p: float, draws: tuple[int, ...], first_seed: int):
    """lesson.dropout_convergence as a table for a line chart, plus the row sums of the last mean."""
    differences, mean_sums = traces.dropout_convergence(attn_weights, p, list(draws), first_seed)
    frame = pd.DataFrame({"draws": list(draws), "difference": differences, "measure": "max |mean − weights|"})
    return frame, mean_sums


@st.cache_data(max_entries=8, show_spinner="Comparing with torch.nn.MultiheadAttention…")
def _mha_agreement(inputs_id, d_out, num_heads, seed, context_length, _x):
    return agreement.mha_vs_torch(_x, d_out, num_heads, seed, context_length)


def mha_agreement(settings: Settings, num_heads: int) -> dict:
    """MultiHeadAttention vs nn.MultiheadAttention with copied weights (needs d_in == d_out)."""
    return _mha_agreement(settings.inputs_id, settings.d_out, num_heads, settings.seed_for("heads"),
                          len(settings.tokens), settings.x)


@st.cache_data(max_entries=16, show_spinner=False)
def _exercise_3_1(inputs_id, d_out, seed, _x):
    return agreement.exercise_3_1(_x, d_out, seed)


def exercise_3_1(settings: Settings) -> float:
    """Exercise 3.1 on the current input: SelfAttention_v2's weights copied into SelfAttention_v1."""
    return _exercise_3_1(settings.inputs_id, settings.d_out, settings.seed_for("mask"), settings.x)


@st.cache_data(max_entries=16, show_spinner="Running the experiment…")
def why_scaling_sweep(samples: int, tokens: int, seed: int) -> pd.DataFrame:
    """experiments.sweep as a long table (one row per d_k and variant)."""
    return pd.DataFrame(experiments.sweep(samples, tokens, seed))


@st.cache_resource(max_entries=16, show_spinner="Running the experiment…")
def why_scaling_stack(samples: int, tokens: int, seed: int) -> dict:
    """experiments.d_k_stack: one map of the experiment at every d_k (11 x 64 x 64 at most, under 1 MB)."""
    return experiments.d_k_stack(samples, tokens, seed)


@st.cache_data(max_entries=32, show_spinner=False)
def why_scaling_histogram(d_k: int, samples: int, tokens: int, seed: int) -> pd.DataFrame:
    """experiments.histogram at one d_k as a table of bars."""
    return pd.DataFrame(experiments.histogram(d_k, samples, tokens, seed))


@st.cache_data(max_entries=8, show_spinner=False)
def efficiency_backends(device: str) -> list[str]:
    """The SDPA backends that run on this device (each tried once on a small input)."""
    return efficiency.available_backends(device)


@st.cache_data(max_entries=128, show_spinner=False)
def efficiency_measure(device, batch, heads, head_dim, num_tokens, repeats, methods, dtype="float32"):
    """One size of the efficiency sweep, measured once per server for identical settings."""
    return efficiency.measure_size(device, batch, heads, head_dim, num_tokens, repeats, methods, dtype)


@st.cache_data(max_entries=4, show_spinner="Running the experiment…")
def saturation(seed: int) -> pd.DataFrame:
    """experiments.saturation at GPT-2 small's width: one row per (inputs, weights) setup."""
    return pd.DataFrame(experiments.saturation(seed=seed))


@byte_cache(max_mb=45, spinner="Computing…")
def _tempered(scores_fingerprint: str, temperatures: tuple, *, _scores):
    return traces.temperature_stack(_scores, temperatures)


def tempered(scaled_scores: torch.Tensor, temperatures) -> tuple:
    """traces.temperature_stack once per scores, not per rerun (five softmaxes and their entropies cost about
    400 ms at 1,024 tokens)."""
    return _tempered(fingerprint(scaled_scores), tuple(temperatures), _scores=scaled_scores)


@byte_cache(max_mb=40, spinner="Computing…")
def _normalisations(scores_fingerprint: str, *, _scores):
    normalised = traces.normalisations(_scores)  # (T, T) each
    kinds = {name: "weights" if bool(((m >= 0) & (m <= 1)).all()) else "scores"
             for name, m in normalised.items() if torch.isfinite(m).all()}  # nan (an overflow) has no bar
    return normalised, kinds


def normalisations(scores: torch.Tensor) -> tuple[dict, dict]:
    """traces.normalisations of (T, T) scores, and how to colour each one that has no nan ("weights" or
    "scores"): once per scores, not per rerun (about 50 ms at 1,024 tokens)."""
    return _normalisations(fingerprint(scores), _scores=scores)


@byte_cache(max_mb=20, spinner="Computing…")
def _dropout_stack(weights_fingerprint: str, rates: tuple, seed: int, train: bool, *, _weights):
    return traces.dropout_stack(_weights, rates, seed, train)


def dropout_stack(attn_weights: torch.Tensor, rates, seed: int, train: bool) -> tuple:
    """traces.dropout_stack once per weights and seed, not per rerun (21 dropout masks a rerun on /dropout);
    one object per set, so the view's cache key is not re-hashed either."""
    return _dropout_stack(fingerprint(attn_weights), tuple(rates), seed, train, _weights=attn_weights)


@byte_cache(max_mb=1)
def _head_distance(fingerprints: tuple, *, _maps):
    return claims.head_distance(torch.stack(_maps))


def head_distance(*maps: torch.Tensor) -> float:
    """claims.head_distance of (T, T) maps computed elsewhere, once per set: four 1,024-token maps take about 100 ms,
    on every rerun otherwise."""
    return _head_distance(tuple(fingerprint(m) for m in maps), _maps=maps)


@byte_cache(max_mb=40, spinner="Computing…")
def _stacked(fingerprints: tuple, *, _tensors):
    return torch.stack(_tensors)


def stacked(*tensors: torch.Tensor) -> torch.Tensor:
    """torch.stack of cached tensors, itself cached: one object per set, so its fingerprint (a view's cache
    key) is computed once instead of hashing megabytes on every rerun."""
    return _stacked(tuple(fingerprint(t) for t in tensors), _tensors=tensors)


# Shared by the stages that compute through stage_call (the five of "Attention as LLMs run it"): at GPT-2 small's
# size one record is 20-50 MB (/rope's 22, /gqa's every setting 50), so 40 MB held none of a class's five screens.
@byte_cache(max_mb=160, spinner="Computing…")
def _stage_call(function_name: str, inputs_id, d_out: int, seed: int, device: str, options: tuple, *, _function, _x):
    return _function(_x, d_out=d_out, seed=seed, device=device, **dict(options))


def stage_call(function, settings: Settings, stage: str, *, rows: int | None = None, **options):
    """A stage's own trace, `function(x, d_out=, seed=, device=, **options)` from attention_core, cached like the
    chapter's traces above: keyed on its qualified name, the sidebar's inputs and sizes, and plain options. A new
    stage computes through this without a cache entry of its own here.
    rows: the function reads only x[:rows] (/kv-cache generates through the first 64 tokens). It gets those rows,
    keyed on their contents, so a Tokens move that keeps them reuses the result (GPT-2 small's seeded inputs at
    1,023 tokens are the first 1,023 rows of those at 1,024)."""
    x, inputs_id = settings.x, settings.inputs_id
    if rows is not None and rows < len(x):
        x = x[:rows]
        inputs_id = ("rows", rows, fingerprint(x))
    return _stage_call(f"{function.__module__}.{function.__qualname__}", inputs_id, settings.d_out,
                       settings.seed_for(stage), settings.device, tuple(sorted(options.items())),
                       _function=function, _x=x)


@byte_cache(max_mb=40, spinner="Computing every head count…")
def _every_head_count(inputs_id, d_out, seed, *, _x):
    return head_counts.every_head_count(_x, d_out, seed)


def every_head_count(settings: Settings):
    """(σ(d_out), T, T): every head of every num_heads dividing d_out (head_counts.frame_of says where)."""
    return _every_head_count(settings.inputs_id, settings.d_out, settings.seed_for("heads"), _x=settings.x)


# Two of GPT-2 small's (12, 1,024, 1,024) maps (50 MB each): a move back to the preset's sizes finds them.
@byte_cache(max_mb=110, spinner="Computing the heads…")
def _one_head_count(inputs_id, d_out, num_heads, seed, device, *, _x):
    return head_counts.one_head_count(_x, d_out, num_heads, seed, device)


def one_head_count(settings: Settings, num_heads: int):
    """((h, T, T) weights, device used, note): MultiHeadAttention at one count, without the wrapper.
    Where the inputs are the first rows of a cached count's (GPT-2 small's 1,023 random tokens are those of its
    1,024: prefix_rows), the layer is causal, so their maps are the top-left corner of those: a Tokens move down
    cuts them out instead of computing the layer again (equal to float32 rounding, tests/test_stage_call.py)."""
    rest = (settings.d_out, num_heads, settings.seed_for("heads"), settings.device)
    T = len(settings.x)
    for key, (weights, used, note) in _one_head_count.cache.matching(lambda key: key[1:] == rest):
        if prefix_rows(key[0], settings):
            return weights[:, :T, :T], used, note  # (h, T, T) of (h, T_long, T_long)
    return _one_head_count(settings.inputs_id, *rest, _x=settings.x)


def prefix_rows(longer_id: tuple, settings: Settings) -> bool:
    """Whether the settings' inputs are the first rows of those of longer_id, more random tokens of the same d_in
    and seed (inputs_id: sidebar.INPUT_CONTROLS' values). Compared row by row: torch.randn draws 16 numbers at a
    time, so 1,023 × 768 numbers are the first of 1,024 × 768, but 25 × 4 are not the first of 40 × 4."""
    inputs_id = settings.inputs_id
    if not (inputs_id[0] == longer_id[0] == "random" and longer_id[:3] == inputs_id[:3]
            and longer_id[4:] == inputs_id[4:] and longer_id[3] > inputs_id[3]):
        return False
    return torch.equal(cached_inputs(*longer_id).x[:len(settings.x)], settings.x)
