"""The causal-mask screen's pictures that stand on their own: the mask and its buffer, and what goes wrong
without it.

screens/mask.py keeps the outline (masking the scores, the two variants side by side, the tensors, the prose)
and calls each of these with one line. record is CausalAttention's trace from ui.cache.causal.
"""
import streamlit as st

from attention_core.book import stages
from attention_core.book.inputs import MAX_TOKENS
from attention_core.lessons import claims
from ui.cache import causal
from ui.display import table
from ui.draw.heatmaps import show_matrix
from ui.settings import Settings


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
    m1, m2, m3 = st.columns(3)
    m1.metric("buffer `mask` (registered once)", f"{tuple(buffer.shape)}")
    m2.metric(f"used: mask[:{T}, :{T}]", f"{tuple(used_mask.shape)}")
    if context_length > T:  # the same module built at context_length T: its weights must not differ
        same, _, _ = causal(settings, "mask", T)
        diff = stages.max_abs_diff(record["attn_weights"], same["attn_weights"])
        m3.metric(f"max |weights(context_length={context_length}) − weights({T})|", f"{diff:.1g}")
        st.success(f"Identical weights: the module builds a {context_length} × {context_length} buffer but slices "
                   f"`mask[:{T}, :{T}]`, so only its top-left corner ever meets the {T} × {T} scores. "
                   f"context_length is the longest input the module accepts, not a change to the math.")
    elif T < MAX_TOKENS:
        st.caption(f"Move context_length above {T} to see that a larger buffer gives the same weights. Below {T} "
                   f"the slice would be smaller than the scores and PyTorch would raise a shape error.")


def what_goes_wrong(record: dict, settings: Settings, q: int, names: list[str], who: str) -> None:
    """Zeroing after softmax without renormalising, and no mask at all; names and who already escaped for markdown."""
    simple, unmasked = record["masked_simple"], record["unmasked_weights"]  # (T, T) each

    row_sums = simple.sum(dim=-1)  # (T,)
    st.markdown(f"**Zeroing after softmax without renormalising.** The weights of {who} sum to "
                f"{float(row_sums[q]):.4f} instead of 1; every row but the last loses weight:")
    table(row_sums, "masked_simple.sum(dim=-1)", ["row sum"], settings.labels)
    st.markdown(claims.leak_claim(unmasked[q], q, names, who))
    show_matrix(unmasked, settings, "weights", "no mask: softmax over all keys (future included)", selected_row=q)
