import streamlit as st
st.title("dropout")
st.info("Coming soon")
