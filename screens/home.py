"""Home: why attention exists, the pipeline of stages, and how to use the app."""
import streamlit as st

import ui

ui.current()  # shows any note about the URL or the typed sentence

st.title("Attention, step by step")
st.markdown(
    "A live companion to chapter 3 of *Build a Large Language Model (From Scratch)*. "
    "Every number on these screens is computed by the chapter's own code, in PyTorch, as you move a slider."
)

st.header("The problem attention solves")
st.markdown(
    """
Before transformers, translation models were **encoder–decoder RNNs**. The encoder read the whole
sentence one word at a time and squeezed it into a single hidden state; the decoder had to produce
the translation from that one vector. Long sentences do not fit through such a bottleneck: by the
time the decoder writes the tenth word, the first words of the input are a faded trace.

**Attention** removes the bottleneck. When producing the representation of one token, the model
looks back at *every* input token and takes a weighted mix of them, with weights computed from the
tokens themselves. **Self-attention** does this within one sequence: each token's output, its
*context vector*, is a blend of all the tokens it may see.
"""
)

st.header("The pipeline, one screen per stage")
PIPELINE = """
digraph {
  rankdir=%s; node [shape=box, style="rounded,filled", fillcolor="#eff6ff", fontname="Helvetica"];
  x [label="inputs x\\n(T, d_in)"];
  qkv [label="queries, keys, values\\nx W_q, x W_k, x W_v"];
  s [label="scores\\nω = q · k"];
  m [label="causal mask\\nfuture scores = −∞"];
  sm [label="softmax(ω / √d_k)\\nweights sum to 1"];
  d [label="dropout\\n(training only)"];
  z [label="context vectors\\nz = A V"];
  h [label="multi-head\\nh heads + out_proj"];
  x -> qkv -> s -> m -> sm -> d -> z -> h;
}
"""
# Left to right where it fits; top to bottom on a phone, where a row of eight boxes shrinks its text to 3 px (the app's
# style sheet, ui/draw/style.py, shows one of the two).
with st.container(key="pipeline-wide"):
    st.graphviz_chart(PIPELINE % "LR", width="stretch")
with st.container(key="pipeline-narrow"):
    st.graphviz_chart(PIPELINE % "TB", width="content")
st.caption(
    "The boxes run left to right (top to bottom on a phone) in the order of the chapter's `CausalAttention`: mask the scores, then softmax. "
    "The screens teach softmax before the mask, as the chapter does (sidebar: scores → softmax → mask → dropout → "
    "heads). The chapter's first masking variant runs the other way round, softmax, then zero the future weights "
    "and renormalise each row, and gives the same weights (the mask screen compares the two)."
)

st.header("How to use it")
st.markdown(
    """
- **Pick a screen** in the sidebar, in order: scores → softmax → mask → dropout → heads.
- **Shared controls** sit in the sidebar: the input (the book's six 3-d vectors, a sentence you type,
  or random vectors up to 1,024 tokens), `d_in`, `d_out`, the seed and the device.
- The **Book example** preset reproduces the book's printed tensors, seeds included; **GPT-2 small**
  sets exercise 3.3's sizes (1,024 tokens, 768 dimensions, 12 heads).
- Every control is written into the **URL**: copy the address bar to share exactly what you see.
- Each screen shows the stage's matrix, the arithmetic of one cell with the real numbers, the tensors
  with their shapes, and the code that computed them.
"""
)
