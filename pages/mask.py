import streamlit as st
st.title("mask")
st.info("Coming soon")
