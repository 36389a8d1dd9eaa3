"""Page-local pickers whose range depends on the input: query, key, heads."""
import streamlit as st

from attention_core.book.inputs import MAX_TOKENS
from attention_core.book.stages import divisors
from ui.settings import Settings
from ui.state import clamp, control

def _tokens(count: int) -> str:
    return f"{count} token" + ("" if count == 1 else "s")


def query_picker(settings: Settings, label: str = "Query token") -> int:
    """The query token (1-based in the URL and on screen); returns its 0-based index."""
    count = len(settings.tokens)
    clamp("query", low=1, high=count,
          fallback_note=f"Query token {{old}} does not exist ({_tokens(count)}); using token {{new}}.")
    if count == 1:
        st.caption(f"{label}: {settings.labels[0]} (the only token)")
        return 0
    picked = control(st.select_slider, label, "query", options=list(range(1, count + 1)),
                     format_func=lambda i: settings.labels[i - 1])
    return picked - 1


def key_picker(settings: Settings, label: str = "Key token") -> int:
    """The key token of the selected cell (1-based in the URL); returns its 0-based index."""
    count = len(settings.tokens)
    clamp("key", low=1, high=count,
          fallback_note=f"Key token {{old}} does not exist ({_tokens(count)}); using token {{new}}.")
    if count == 1:
        return 0
    picked = control(st.select_slider, label, "key", options=list(range(1, count + 1)),
                     format_func=lambda i: settings.labels[i - 1])
    return picked - 1


def heads_picker(d_out: int) -> int:
    options = divisors(d_out)
    clamp("heads", options=options,
          fallback_note=f"{{old}} heads do not divide d_out = {d_out}; showing {{new}} instead.")
    return control(st.select_slider, "num_heads (divisors of d_out only)", "heads", options=options)


def context_length_picker(num_tokens: int) -> int:
    """CausalAttention's context_length: the size of its mask buffer, from the number of tokens (shorter
    and the module fails on the T × T scores) up to the largest input the app takes."""
    clamp("context_length", low=num_tokens, high=MAX_TOKENS,
          fallback_note=f"context_length {{old}} is shorter than the {num_tokens} tokens (the module would fail "
                        f"on a {num_tokens} × {num_tokens} score matrix); using {{new}}.")
    if num_tokens >= MAX_TOKENS:
        st.caption(f"context_length = {MAX_TOKENS}: already the largest supported, equal to the number of tokens.")
        return MAX_TOKENS
    return control(st.slider, "context_length (size of the mask buffer)", "context_length",
                   min_value=num_tokens, max_value=MAX_TOKENS)
