"""The floor for scripts/benchmark.py: the cheapest slider move Streamlit can do here.

One slider and one caption in a fragment: a move reruns only that fragment and changes one line
of text. Every screen's latency is reported beside this one.

    streamlit run scripts/floor_app.py
"""
import streamlit as st

st.set_page_config(page_title="Floor", layout="wide")


@st.fragment
def moved():
    value = st.slider("Value", 0, 100, 50, key="value")
    st.caption(f"value = {value}")


moved()
