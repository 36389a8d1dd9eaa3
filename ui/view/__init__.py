"""The browser-side attention view (Streamlit components v2): see view.py."""
