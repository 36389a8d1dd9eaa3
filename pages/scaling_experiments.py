"""Placeholder."""
import streamlit as st

from attention_core import ui

settings = ui.current()
st.title("scaling_experiments")
