"""The chapter's three exercises, each checked by running the student's answer for real.

3.1: SelfAttention_v2's weights copied into SelfAttention_v1 give the same output (once transposed).
3.2: MultiHeadAttentionWrapper with 2 heads and 2-dimensional output (d_out = 1 per head).
3.3: a GPT-2-sized MultiHeadAttention and its 2,360,064 parameters.
Every check returns a Result and never raises: an answer that cannot be read gets a kind note.
"""
import functools
from dataclasses import dataclass

import torch

from attention_core.book.inputs import BOOK_INPUTS
from attention_core.book.modules import (MultiHeadAttention, MultiHeadAttentionWrapper, SelfAttention_v1,
                                    SelfAttention_v2, count_parameters, wrapper_parameter_count)
from attention_core.drawing.numbers import TOLERANCE, scientific
from attention_core.book.seeding import build_seeded
from attention_core.book.stages import max_abs_diff

GPT2_SMALL = {"d_in": 768, "d_out": 768, "context_length": 1024, "num_heads": 12}
GPT2_PARAMS = 2_360_064  # the book's answer: 4 * 768 * 768 + 768
LIMITS = {"d_in": 4096, "d_out": 4096, "context_length": 8192, "num_heads": 256, "count": 10**12}


@dataclass(frozen=True)
class Result:
    ok: bool | None  # None: the answer could not be read
    message: str
    detail: dict | None = None


def read_int(raw, name: str, low: int, high: int):
    """(value, None) or (None, a kind note): empty, not a whole number, or out of range."""
    text = str(raw if raw is not None else "").strip().replace(",", "").replace("_", "").replace(" ", "")
    if not text:
        return None, f"Type a whole number for {name} first."
    try:
        value = float(text)
    except ValueError:
        shown = text if len(text) <= 20 else text[:20] + "…"
        return None, f"“{shown}” is not a number; type a whole number for {name}, such as 2."
    if value != value or value in (float("inf"), float("-inf")) or not value.is_integer():
        return None, f"{name} must be a whole number, such as 2."
    if not low <= value <= high:
        return None, f"{name} = {value:,.0f} is outside {low:,} to {high:,}; pick a size in that range."
    return int(value), None


# --- 3.1 -----------------------------------------------------------------------------------------

COPY_CHOICES = {
    "weight": "sa_v1.W_query = nn.Parameter(sa_v2.W_query.weight)   # and W_key, W_value the same way",
    "weight.T": "sa_v1.W_query = nn.Parameter(sa_v2.W_query.weight.T)   # and W_key, W_value the same way",
    "qk only": "sa_v1.W_query = nn.Parameter(sa_v2.W_query.weight.T)\n"
               "sa_v1.W_key = nn.Parameter(sa_v2.W_key.weight.T)   # W_value left as it was",
}


def check_3_1(choice, x: torch.Tensor = BOOK_INPUTS, d_out: int = 2, seed: int = 789) -> Result:
    """Copy SelfAttention_v2's weights into SelfAttention_v1 the chosen way and compare the outputs."""
    if choice not in COPY_CHOICES:
        return Result(None, "Pick one of the ways to copy the weights first.")
    d_in = x.shape[-1]
    sa_v2 = build_seeded(SelfAttention_v2, seed, d_in, d_out)
    sa_v1 = build_seeded(SelfAttention_v1, seed + 1, d_in, d_out)  # its own random weights before the copy
    names = ("W_query", "W_key") if choice == "qk only" else ("W_query", "W_key", "W_value")
    for name in names:
        weight = getattr(sa_v2, name).weight
        setattr(sa_v1, name, torch.nn.Parameter(weight if choice == "weight" else weight.T))
    with torch.no_grad():
        try:
            diff = max_abs_diff(sa_v1(x), sa_v2(x))
        except RuntimeError as caught:
            error = str(caught).splitlines()[0]
            return Result(False, f"PyTorch refuses: {error}. nn.Linear stores its weight as (d_out, d_in) = "
                                 f"{tuple(sa_v2.W_query.weight.shape)} and computes x @ W.T; SelfAttention_v1 "
                                 f"computes x @ W with W of shape (d_in, d_out) = ({d_in}, {d_out}).",
                          {"error": error})
    if diff <= TOLERANCE:  # the same threshold as every agreement check
        return Result(True, f"Right: the outputs agree to {scientific(diff)}. nn.Linear computes x @ W.T, so v1 needs the "
                            "transposed weight.", {"diff": diff})
    why = ("W_value was not copied, so the values still differ" if choice == "qk only" else
           "without the transpose v1 multiplies by the wrong matrix (the shapes only match because d_in = d_out)")
    return Result(False, f"The outputs differ by up to {diff:.4f}: {why}.", {"diff": diff})


# --- 3.2 -----------------------------------------------------------------------------------------

def check_3_2(raw_d_out, num_heads: int = 2) -> Result:
    """The book's batch of two copies of its six tokens through the wrapper with the given d_out."""
    d_out, note = read_int(raw_d_out, "d_out", 1, 64)
    if note:
        return Result(None, note)
    batch = torch.stack((BOOK_INPUTS, BOOK_INPUTS))  # (2, 6, 3), as in the book
    wrapper = build_seeded(MultiHeadAttentionWrapper, 123, batch.shape[-1], d_out, batch.shape[1], 0.0, num_heads)
    with torch.no_grad():
        shape = tuple(wrapper(batch).shape)
    detail = {"shape": shape}
    if shape[-1] == 2:
        return Result(True, f"Right: d_out = {d_out} gives context vectors of shape {shape}: each of the "
                            f"{num_heads} heads adds {d_out} column, and torch.cat joins them.", detail)
    return Result(False, f"d_out = {d_out} gives shape {shape}: {num_heads} heads × {d_out} = {shape[-1]} columns, "
                         "not 2. Each head of the wrapper has the full d_out.", detail)


# --- 3.3 -----------------------------------------------------------------------------------------

def check_3_3(raw_sizes: dict, raw_count=None) -> Result:
    """Build MultiHeadAttention with the given sizes (on the meta device: no memory), count its
    parameters, and compare with GPT-2 small's layer and with the student's predicted count."""
    sizes = {}
    for name in GPT2_SMALL:
        sizes[name], note = read_int(raw_sizes.get(name), name, 1, LIMITS[name])
        if note:
            return Result(None, note)
    if sizes["d_out"] % sizes["num_heads"]:
        return Result(None, f"num_heads = {sizes['num_heads']} does not divide d_out = {sizes['d_out']}: "
                            "MultiHeadAttention needs d_out % num_heads == 0. Try a divisor.")
    with torch.device("meta"):  # shapes only: a 4096-wide layer costs no memory here
        module = MultiHeadAttention(sizes["d_in"], sizes["d_out"], sizes["context_length"], 0.0, sizes["num_heads"])
    count = count_parameters(module)
    detail = {"count": count, "sizes": sizes}
    wrong = [f"{n} = {sizes[n]} (GPT-2 small: {v})" for n, v in GPT2_SMALL.items() if sizes[n] != v]
    if wrong:
        return Result(False, f"This layer has {count:,} parameters. Not GPT-2 small yet: " + "; ".join(wrong) + ".",
                      detail)
    text = f"GPT-2 small's attention layer: {count:,} parameters (3 · 768 · 768 for Q, K, V + 768 · 768 + 768 for " \
           "out_proj; context_length only sizes the mask buffer, which is not a parameter)."
    if raw_count is None or not str(raw_count).strip():
        return Result(True, "Right sizes. " + text, detail)
    predicted, note = read_int(raw_count, "your parameter count", 0, LIMITS["count"])
    if note:
        return Result(None, note, detail)
    if predicted == count:
        return Result(True, f"Right sizes and the right count. {text}", detail)
    return Result(False, f"Right sizes, but you predicted {predicted:,}. {text}", detail)


# --- the worked solutions ------------------------------------------------------------------------
# The same for every visitor and every rerun: built once, not on every slider move (a module built
# per rerun cost the /heads screen about a quarter of its server time).

@functools.cache
def worked_3_2_shape() -> tuple:
    """The wrapper's output shape with the answer, d_out = 1."""
    return check_3_2(1).detail["shape"]


@functools.cache
def gpt2_small_count() -> int:
    """MultiHeadAttention's parameter count at GPT-2 small's sizes."""
    return check_3_3({name: str(size) for name, size in GPT2_SMALL.items()}).detail["count"]


@functools.cache
def solution_counts() -> frozenset:
    """The parameter counts exercise 3.3's worked solution gives: MultiHeadAttention's at GPT-2 small's sizes
    (whatever num_heads) and the wrapper's of 12 full-width heads. A screen shows none above the exercise."""
    sizes = GPT2_SMALL["d_in"], GPT2_SMALL["d_out"], GPT2_SMALL["num_heads"]
    return frozenset({gpt2_small_count(), wrapper_parameter_count(*sizes)})
