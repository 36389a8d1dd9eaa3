"""Page-local controls whose range depends on the input: the committed query and key, heads, context_length."""
import streamlit as st

from attention_core.book.inputs import MAX_TOKENS
from attention_core.book.stages import divisors
from attention_core.lessons.traces import MAX_HEAD_CELLS, head_counts_within
from ui.state.session import clamp, control, value

def _tokens(count: int) -> str:
    return f"{count} token" + ("" if count == 1 else "s")


def committed(count: int) -> tuple[int, int]:
    """The query and key (0-based) the lesson follows: the URL's or the last one committed in an attention
    view (ui.draw.view_route), kept inside the map with a note when they fall outside it."""
    picked = []
    for name, what in (("query", "Query"), ("key", "Key")):
        picked.append(clamp(name, low=1, high=count,
                            fallback_note=f"{what} token {{old}} does not exist ({_tokens(count)}); using token {{new}}.") - 1)
    return picked[0], picked[1]


def heads_picker(d_out: int, num_tokens: int | None = None, in_view: bool = False) -> int:
    """num_heads among the divisors of d_out; with num_tokens, only the counts whose maps fit the heads screen's
    budget (traces.head_counts_within: at most 12 heads at 1,024 tokens), so no visitor asks for gigabytes.
    in_view: the screen's view moves num_heads in the browser (every count is among its frames): no widget, a line
    that says where it moves (the view's Enter commits it, as it does on /heads)."""
    every = divisors(d_out)
    options = every if num_tokens is None else head_counts_within(d_out, num_tokens)
    bounded = options != every  # the budget left out the largest divisors
    label = (f"num_heads (divisors of d_out = {d_out:,}, at most {options[-1]:,} at {num_tokens:,} tokens)"
             if bounded else "num_heads (divisors of d_out only)")
    why = (f"{{old}} heads at {num_tokens:,} tokens would hold more attention weights than this screen computes "
           f"(at most {MAX_HEAD_CELLS:,}: 12 heads at 1,024 tokens)" if bounded and value("heads") in every else
           f"{{old}} heads do not divide d_out = {d_out}")
    heads = clamp("heads", options=options, fallback_note=why + "; showing {new} instead ({source}).")
    if in_view:
        st.caption(f"**num_heads = {heads}** (a divisor of d_out = {d_out:,}: {', '.join(map(str, options))}): "
                   "move it with the view's num_heads slider below.")
        return heads
    return control(st.select_slider, label, "heads", options=options)


def valid_context_length(num_tokens: int) -> int:
    """The stored context_length, kept at least the number of tokens (with a note when the URL asked for less):
    called by the lesson too, so a bad link says so even while the buffer's section is closed."""
    return clamp("context_length", low=num_tokens, high=MAX_TOKENS,
                 fallback_note=f"context_length {{old}} is shorter than the {num_tokens} tokens (the module would "
                               f"fail on a {num_tokens} × {num_tokens} score matrix); using {{new}}.")


def context_length_picker(num_tokens: int) -> int:
    """CausalAttention's context_length: the size of its mask buffer, from the number of tokens (shorter
    and the module fails on the T × T scores) up to the largest input the app takes."""
    valid_context_length(num_tokens)
    if num_tokens >= MAX_TOKENS:
        st.caption(f"context_length = {MAX_TOKENS}: already the largest supported, equal to the number of tokens.")
        return MAX_TOKENS
    return control(st.slider, "context_length (size of the mask buffer)", "context_length",
                   min_value=num_tokens, max_value=MAX_TOKENS)
