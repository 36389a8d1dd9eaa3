"""Public mode: the operator of a hosted demo says so, and visitors get bounded, path-free controls.

Turned on by the environment variable ATTENTION_PUBLIC=1 or by `public = true` in Streamlit's
secrets (.streamlit/secrets.toml, or the app's Secrets box on Community Cloud). A local
`streamlit run app.py` has neither, and the teacher keeps every control.

A public server also bounds custom sizes (fit below): one visitor's move may cost it about a second of
computing, not the several seconds a GPT-2-sized custom layer takes.
"""
import os

import streamlit as st

from attention_core.book.inputs import BOOK_INPUTS, BOOK_TOKENS, MAX_SENTENCE_TOKENS, tokenize
from attention_core.book.stages import divisors
from attention_core.lessons import move_cost
from attention_core.lessons.presets import PRESETS, fallback_value

ENV_VAR = "ATTENTION_PUBLIC"
_YES = {"1", "true", "yes", "on"}


def public_mode() -> bool:
    """Whether this server is a public demo (the environment variable wins over the secret)."""
    given = os.environ.get(ENV_VAR, "").strip().lower()
    if given:
        return given in _YES
    if not st.secrets.load_if_toml_exists():  # no secrets file (a local run): st.secrets.get would raise
        return False
    return str(st.secrets.get("public", "")).strip().lower() in _YES


def sizes_of(values: dict) -> tuple[int, int, int, int]:
    """(tokens, d_in, d_out, heads) that the screens compute at these control values: the book's six 3-d vectors,
    a sentence's tokens (at most MAX_SENTENCE_TOKENS; none gives the book's six), or the random input's sliders;
    heads as /heads will clamp them (presets.fallback_value, the rule ui.state.session.clamp applies)."""
    kind, d_out = values["input"], values["d_out"]
    if kind == "book":
        tokens, d_in = len(BOOK_TOKENS), BOOK_INPUTS.shape[1]
    elif kind == "sentence":
        tokens, d_in = min(len(tokenize(values["text"] or "")) or len(BOOK_TOKENS), MAX_SENTENCE_TOKENS), values["d_in"]
    else:
        tokens, d_in = values["tokens"], values["d_in"]
    heads = fallback_value("heads", values["heads"], values["preset"], options=divisors(d_out))
    return tokens, d_in, d_out, heads


def fit(values: dict, moved: str | None, old) -> tuple[dict, str | None]:
    """The changes that keep a custom size within the public bound (attention_core.lessons.move_cost), and the note
    that says what happened: ({}, None) when it fits. The presets are exempt: the book's sizes are tiny, and GPT-2
    small's screens are computed once per server (ui/server/warmup.py).

    Over the bound, the move stays and the tokens come down to the most that fit; where no token count fits (or the
    input fixes the tokens), the moved control goes back to its old value, and a link's sizes to the book's."""
    if values["preset"] != "custom":
        return {}, None
    tokens, d_in, d_out, heads = sizes_of(values)
    if move_cost.within_bound(tokens, d_in, d_out, heads):
        return {}, None
    plural = "head" if heads == 1 else "heads"
    start = (f"A public server keeps each move under about {move_cost.BUDGET_S:g} s of computing: {tokens:,} tokens at "
             f"d_in {d_in}, d_out {d_out} and {heads} {plural} would take about "
             f"{move_cost.move_seconds(tokens, d_in, d_out, heads):.1f} s")
    most = move_cost.most_tokens(d_in, d_out, heads, high=tokens)
    if values["input"] == "random" and most >= 1:
        return {"tokens": most}, f"{start}, so tokens are now {most:,}, the most that fit these sizes."
    if moved is not None:  # (the sentence is the visitor's text: a note does not repeat it)
        kept = "the sentence stays as it was" if moved == "text" else f"{moved} stays {old}"
        return {moved: old}, f"{start}, so {kept}."
    return dict(PRESETS["book"], preset="book"), f"{start}, so this page uses the book's sizes."
