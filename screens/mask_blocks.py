"""The causal-mask screen's pictures that stand on their own: the mask and its buffer, and what goes wrong
without it.

screens/mask.py keeps the outline (masking the scores, the two variants side by side, the tensors, the prose)
and calls each of these with one line. record is CausalAttention's trace from ui.compute.cache.causal.
"""
import pandas as pd
import streamlit as st
import torch

from attention_core.book import stages
from attention_core.drawing import charts
from attention_core.book.inputs import MAX_TOKENS
from attention_core.lessons import claims, pitfalls
from attention_core.lessons import reader_questions as rq
from ui.compute.cache import causal
from ui.compute.built import once
from ui.compute.keys import fingerprint
from ui.draw.checks import pitfall
from ui.draw.display import data_table, table
from ui.draw.heatmaps import show_matrix
from ui.draw.vega import cached_chart
from ui.state.settings import Settings
from attention_core.drawing.numbers import scientific


def mask_and_buffer(record: dict, settings: Settings, context_length: int) -> None:
    """The book's two masks drawn side by side, and proof that a buffer longer than the input changes nothing."""
    T = len(settings.tokens)
    buffer = record["mask"]  # (context_length, context_length)
    used_mask = buffer[:T, :T]
    # The two tensors hold opposite values (tril: 1 = may see; the buffer: 1 = future), so each is drawn with one
    # meaning per colour, dark = may see in both; the legends and the cells' numbers say what each tensor holds.
    c1, c2 = st.columns(2)
    with c1:
        show_matrix(stages.mask_simple(T), settings, "mask", "variant 1: torch.tril (1 = may see)",
                    mask_labels=("blocked", "may see"))
    with c2:
        show_matrix(used_mask, settings, "mask", "variant 2: buffer mask[:T, :T] (1 = future, blocked)",
                    mask_labels=("may see", "future, blocked"), mask_dark=0)
    st.caption("In both pictures dark = may see and light = blocked, although the tensors hold opposite values: "
               "torch.tril keeps a 1 where a query may see the key, the buffer a 1 where the key is in the future "
               "(masked_fill then sets those scores to −∞).")
    if context_length > T:  # the same module built at context_length T: its weights must not differ
        same, _, _ = causal(settings, "mask", T)
        diff = stages.max_abs_diff(record["attn_weights"], same["attn_weights"])
        m1, m2, m3 = st.columns(3)
        m1.metric("buffer `mask` (registered once)", f"{tuple(buffer.shape)}")
        m2.metric(f"used: mask[:{T}, :{T}]", f"{tuple(used_mask.shape)}")
        m3.metric(f"max |weights(context_length={context_length}) − weights({T})|", f"{diff:.1g}")
        st.success(f"Identical weights: the module builds a {context_length} × {context_length} buffer but slices "
                   f"`mask[:{T}, :{T}]`, so only its top-left corner ever meets the {T:,} × {T:,} scores. "
                   f"context_length is the longest input the module accepts, not a change to the math.")
    elif T < MAX_TOKENS:  # buffer and slice are the same matrix: two equal shapes would fill a slide, saying no more
        st.caption(f"Here the buffer `mask` registered once is {T:,} × {T:,}, one row per token, so the slice "
                   f"`mask[:{T}, :{T}]` is all of it. Move context_length above {T:,} to see that a larger buffer "
                   f"gives the same weights. Below {T:,} the slice would be smaller than the scores and PyTorch would "
                   "raise a shape error.")
    # At the largest context_length the slider's own caption says that the buffer has one row per token.


def what_goes_wrong(record: dict, settings: Settings, q: int, names: list[str], who: str) -> None:
    """Zeroing after softmax without renormalising, and no mask at all; names and who already escaped for markdown."""
    simple, unmasked = record["masked_simple"], record["unmasked_weights"]  # (T, T) each

    row_sums = simple.sum(dim=-1)  # (T,)
    st.markdown(f"**Zeroing after softmax without renormalising.** The weights of {who} sum to "
                f"{float(row_sums[q]):.4f} instead of 1; every row but the last loses weight:")
    table(row_sums, "masked_simple.sum(dim=-1)", ["row sum"], settings.labels)
    st.markdown(claims.leak_claim(unmasked[q], q, names, who))
    if len(settings.labels) <= 64:
        show_matrix(unmasked, settings, "weights", "no mask: softmax over all keys (future included)", selected_row=q)
        return
    # Past 64 tokens the unmasked map is an even speckle that shows no leak: each query's share of the future does.
    leak = pitfalls.future_leak(unmasked)  # (T,): each query's weight on later tokens
    frame = pd.DataFrame({"query": range(1, len(leak) + 1), "weight on the future": leak.tolist(),
                          "attention": "no mask"})
    cached_chart(("future leak", fingerprint(unmasked)),
                 lambda: charts.line_chart(frame, "query", "weight on the future", "attention",
                                           "no mask: each query's weight on later tokens (the mask makes it 0)"),
                 "future leak", lambda: frame)


# --- the "mistakes" section: each mistake of this step, wrong and right, with its numbers ---------


def mistakes(record: dict, unmasked: torch.Tensor, tokens: int) -> None:
    """A float16 mask value, a fully masked row, and no mask at all; unmasked: (T, T) weights without a mask."""
    fp16 = pitfalls.mask_value_in_float16(record["attn_scores"], record["keys"].shape[-1])  # the lesson's d_k
    pitfall("`-1e9` as the mask value in float16", "scores.half().masked_fill(mask, -1e9)",
            "scores.half().masked_fill(mask, -torch.inf)",
            f"PyTorch refuses: {fp16['error']} (float16 stops at 65,504)." if fp16["error"]
            else "No error on this device, but -1e9 is not exactly -inf.",
            f"Works in every dtype; row sums {float(fp16['right'].sum(dim=-1).min()):.4f} … "
            f"{float(fp16['right'].sum(dim=-1).max()):.4f}.")
    row = pitfalls.fully_masked_row(min(tokens, 6))  # a few keys are enough to show the even spread
    pitfall("A row with every key masked (padding)", "torch.softmax(torch.full((n,), -1e9), dim=-1)",
            "torch.softmax(torch.full((n,), -torch.inf), dim=-1)  # then handle the nan row",
            f"{', '.join(f'{float(v):.4f}' for v in row['with_minus_1e9'])}: silently spreads its weight "
            "evenly over keys it must not see.",
            f"{', '.join(str(float(v)) for v in row['with_inf'])}: nan, loud, so the bug is found "
            "(real code zeroes such rows or never masks a whole row).")
    leak = pitfalls.future_leak(unmasked)  # (T,): each query's weight on later tokens
    pitfall("Forgetting the mask", "torch.softmax(attn_scores / d_k**0.5, dim=-1)",
            "torch.softmax(attn_scores.masked_fill(mask, -torch.inf) / d_k**0.5, dim=-1)",
            claims.leak_rows_claim(leak),
            "0.0000 of every row's weight goes to later tokens.")


# --- the "questions" section: readers' questions from the book's issue tracker, computed ------------


def reader_questions(settings: Settings, **inputs) -> None:
    """The questions readers ask at this step, each answered with the right and the wrong version."""
    for demo in (_buffer_demo,):
        demo(settings, **inputs)


def _buffer_demo(settings, record=None, **_) -> None:
    d_in = settings.x.shape[-1]
    out = once(("mask storage", d_in, settings.d_out), lambda: rq.mask_storage(d_in, settings.d_out, 6))
    target = out["target"]
    devices = pd.DataFrame({name: out[name]["devices"] for name in ("buffer", "attribute")})
    pitfall(f"The mask as a plain attribute instead of a buffer (bonus notebook 03_understanding-buffers; "
            f"moved with .to(\"{target}\"))",
            'self.mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)',
            'self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))',
            f"The mask stays on `{out['attribute']['devices']['mask']}`, and the forward pass on `{target}` fails: "
            f"{(out['attribute']['error'] or 'no error raised').rstrip('.!')}. "  # PyTorch's "…cpu!" + "." read "cpu!."
            f"state_dict saves {out['attribute']['state_dict']}.",
            f"The mask moves to `{out['buffer']['devices']['mask']}`; the forward pass gives "
            f"{out['buffer']['output']}. state_dict saves {out['buffer']['state_dict']}.", wrong_box=st.warning)
    data_table(devices, width="content")
    if record is not None:
        st.caption(f"Build the mask separately or apply tril to the weights (issue 279)? Both of this screen's "
                   f"variants agree to {scientific(record['variants_max_abs_diff'])}; the buffer is the second, built once.")
