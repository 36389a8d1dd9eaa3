import streamlit as st
st.title("heads")
st.info("Coming soon")
