import streamlit as st
st.title("softmax")
st.info("Coming soon")
