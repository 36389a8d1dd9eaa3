"""Attention, step by step: chapter 3 of *Build a Large Language Model (From Scratch)*, live.

Run with `streamlit run app.py`. This file only wires things together: page setup, the list of
screens, the shared sidebar, and the URL; each screen lives in screens/, all math in attention_core.
"""
import streamlit as st

from attention_core import ui

st.set_page_config(page_title="Attention, step by step", page_icon=":material/visibility:", layout="wide")

# The screens live in screens/, not pages/: Streamlit still treats a pages/ folder as its older
# multipage mode until app.py has run once, so a shared link opened first on a fresh server
# showed a "Page not found" dialog or ran the screen without app.py.
STAGES = [
    st.Page("screens/scores.py", title="1 · Attention scores", url_path="scores", icon=":material/grid_on:"),
    st.Page("screens/softmax.py", title="2 · Softmax and √d_k", url_path="softmax", icon=":material/functions:"),
    st.Page("screens/mask.py", title="3 · Causal mask", url_path="mask", icon=":material/visibility_off:"),
    st.Page("screens/dropout.py", title="4 · Dropout", url_path="dropout", icon=":material/grain:"),
    st.Page("screens/heads.py", title="5 · Multi-head attention", url_path="heads", icon=":material/view_column:"),
]
page = st.navigation({
    "Start": [st.Page("screens/home.py", title="Home", icon=":material/home:", default=True)],
    "Chapter 3, stage by stage": STAGES,
    "Going further": [
        st.Page("screens/why_scaling.py", title="Why √d_k: experiments", url_path="why-scaling",
                icon=":material/science:"),
        st.Page("screens/efficiency.py", title="Efficiency: fused attention", url_path="efficiency",
                icon=":material/speed:"),
    ],
})
ui.new_run()
st.session_state["settings"] = ui.sidebar()
page.run()
ui.sync_url()
