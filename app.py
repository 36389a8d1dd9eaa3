"""Attention, step by step: chapter 3 of *Build a Large Language Model (From Scratch)*, live.

Run with `streamlit run app.py`. This file only wires things together: page setup, the list of
screens, the shared sidebar, and the URL; each screen lives in pages/, all math in attention_core.
"""
import streamlit as st

from attention_core import ui

st.set_page_config(page_title="Attention, step by step", page_icon=":material/visibility:", layout="wide")

# File names differ from the URL paths on purpose: until app.py has run once, Streamlit serves
# pages/<name>.py at /<name> by itself (its older multipage mode), skipping app.py's sidebar.
STAGES = [
    st.Page("pages/attention_scores.py", title="1 · Attention scores", url_path="scores", icon=":material/grid_on:"),
    st.Page("pages/softmax_scaling.py", title="2 · Softmax and √d_k", url_path="softmax", icon=":material/functions:"),
    st.Page("pages/causal_mask.py", title="3 · Causal mask", url_path="mask", icon=":material/visibility_off:"),
    st.Page("pages/attention_dropout.py", title="4 · Dropout", url_path="dropout", icon=":material/grain:"),
    st.Page("pages/multi_head.py", title="5 · Multi-head attention", url_path="heads", icon=":material/view_column:"),
]
page = st.navigation({
    "Start": [st.Page("pages/home.py", title="Home", icon=":material/home:", default=True)],
    "Chapter 3, stage by stage": STAGES,
    "Going further": [
        st.Page("pages/scaling_experiments.py", title="Why √d_k: experiments", url_path="why-scaling",
                icon=":material/science:"),
        st.Page("pages/attention_efficiency.py", title="Efficiency: fused attention", url_path="efficiency",
                icon=":material/speed:"),
    ],
})
ui.new_run()
st.session_state["settings"] = ui.sidebar()
page.run()
ui.sync_url()
