"""The baseline for scripts/benchmark.py: a straightforward full-matrix Altair heatmap page.

What a first version of a screen would do: one `mark_rect` per cell of a T x T softmax weight
matrix, with tooltips, redrawn on every slider move. `?tokens=512` picks the size; the seed
slider changes the matrix, so each move re-renders the whole chart.

    streamlit run scripts/baseline_heatmap_app.py
"""
import altair as alt
import numpy as np
import pandas as pd
import streamlit as st
import torch

st.set_page_config(page_title="Baseline heatmap", layout="wide")
tokens = st.selectbox("Tokens", [6, 64, 256, 512], key="tokens", bind="query-params")
seed = st.slider("Seed", 0, 100, 0, key="seed")

generator = torch.Generator().manual_seed(seed)
weights = torch.softmax(torch.randn(tokens, tokens, generator=generator), dim=-1).numpy()  # (T, T)
frame = pd.DataFrame({"query": np.repeat(np.arange(tokens), tokens), "key": np.tile(np.arange(tokens), tokens),
                      "weight": weights.ravel()})  # one row per cell
chart = alt.Chart(frame).mark_rect().encode(
    x=alt.X("key:O"), y=alt.Y("query:O"), color=alt.Color("weight:Q", scale=alt.Scale(scheme="blues")),
    tooltip=["query:O", "key:O", alt.Tooltip("weight:Q", format=".4f")],
).properties(width=512, height=512)
st.altair_chart(chart, width="content")
