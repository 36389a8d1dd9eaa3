"""Cached calls into attention_core, keyed on plain values (Streamlit cannot hash tensors).

Every cache is shared by all visitors: never mutate what these return. The traces are large and
their size depends on the settings (a heads trace is 100 MB at 1,024 tokens, a few kB at the
book's 6), so their caches are bounded in bytes (byte_cache.py); the small ones by entry count.
Budgets: traces 270 MB in all: at GPT-2 size one heads trace (124 MB), one causal (50 MB) and the
two projections (38 MB each) of the current settings, or many of the book's.
"""
import pandas as pd
import streamlit as st
import torch

from attention_core import agreement, experiments, initialisation, lesson
from attention_core.ui.byte_cache import byte_cache
from attention_core.ui.settings import Settings
from attention_core.ui.state import value


@st.cache_resource(max_entries=32, show_spinner=False)
def cached_inputs(kind, text, positions, num_tokens, d_in, seed):
    return lesson.make_inputs(kind, text, positions, num_tokens, d_in, seed)


def input_key():
    """The plain values that determine the inputs: what the caches below are keyed on."""
    return (value("input"), value("text"), value("positions"), value("tokens"), value("d_in"), value("seed"))


@byte_cache(max_mb=80, spinner="Computing…")
def _projection(x_key, which, d_out, seed, device):
    book = initialisation.book_weights(x_key[0])  # x_key[0]: the kind of input
    return lesson.projection_trace(cached_inputs(*x_key).x, which, d_out, seed, device, book)


def projection(settings: Settings, which: str, stage: str):
    """(record, device_used, note) for the unmasked single-head attention of a stage."""
    return _projection(input_key(), which, settings.d_out, settings.seed_for(stage), settings.device)


@byte_cache(max_mb=60, spinner="Computing…")
def _causal(x_key, d_out, seed, context_length, device):
    return lesson.causal_trace(cached_inputs(*x_key).x, d_out, seed, context_length, device)


def causal(settings: Settings, stage: str, context_length: int):
    """(record, device_used, note): CausalAttention's trace and both masking variants."""
    return _causal(input_key(), settings.d_out, settings.seed_for(stage), context_length, settings.device)


@byte_cache(max_mb=130, spinner="Computing the heads…")
def _heads(x_key, d_out, num_heads, seed, context_length, device):
    return lesson.heads_trace(cached_inputs(*x_key).x, d_out, num_heads, seed, context_length, device)


def heads(settings: Settings, num_heads: int, context_length: int):
    return _heads(input_key(), settings.d_out, num_heads, settings.seed_for("heads"),
                  context_length, settings.device)


@st.cache_data(max_entries=32, show_spinner=False, hash_funcs={torch.Tensor: lambda t: t.numpy().tobytes()})
def dropout_convergence(attn_weights: torch.Tensor, p: float, draws: tuple[int, ...], first_seed: int):
    """lesson.dropout_convergence as a table for a line chart, plus the row sums of the last mean."""
    differences, mean_sums = lesson.dropout_convergence(attn_weights, p, list(draws), first_seed)
    frame = pd.DataFrame({"draws": list(draws), "difference": differences, "measure": "max |mean − weights|"})
    return frame, mean_sums


@st.cache_data(max_entries=8, show_spinner="Comparing with torch.nn.MultiheadAttention…")
def _mha_agreement(x_key, d_out, num_heads, seed, context_length):
    return agreement.mha_vs_torch(cached_inputs(*x_key).x, d_out, num_heads, seed, context_length)


def mha_agreement(settings: Settings, num_heads: int) -> dict:
    """MultiHeadAttention vs nn.MultiheadAttention with copied weights (needs d_in == d_out)."""
    return _mha_agreement(input_key(), settings.d_out, num_heads, settings.seed_for("heads"), len(settings.tokens))


@st.cache_data(max_entries=16, show_spinner=False)
def _exercise_3_1(x_key, d_out, seed):
    return agreement.exercise_3_1(cached_inputs(*x_key).x, d_out, seed)


def exercise_3_1(settings: Settings) -> float:
    """Exercise 3.1 on the current input: SelfAttention_v2's weights copied into SelfAttention_v1."""
    return _exercise_3_1(input_key(), settings.d_out, settings.seed_for("mask"))


@st.cache_data(max_entries=16, show_spinner="Running the experiment…")
def why_scaling_sweep(samples: int, tokens: int, seed: int) -> pd.DataFrame:
    """experiments.sweep as a long table (one row per d_k and variant)."""
    return pd.DataFrame(experiments.sweep(samples, tokens, seed))


@st.cache_data(max_entries=32, show_spinner=False)
def why_scaling_histogram(d_k: int, samples: int, tokens: int, seed: int) -> pd.DataFrame:
    """experiments.histogram at one d_k as a table of bars."""
    return pd.DataFrame(experiments.histogram(d_k, samples, tokens, seed))


@st.cache_data(max_entries=4, show_spinner="Running the experiment…")
def saturation(seed: int) -> pd.DataFrame:
    """experiments.saturation at GPT-2 small's width: one row per (inputs, weights) setup."""
    return pd.DataFrame(experiments.saturation(seed=seed))
