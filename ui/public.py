"""Public mode: the operator of a hosted demo says so, and visitors get bounded, path-free controls.

Turned on by the environment variable ATTENTION_PUBLIC=1 or by `public = true` in Streamlit's
secrets (.streamlit/secrets.toml, or the app's Secrets box on Community Cloud). A local
`streamlit run app.py` has neither, and the teacher keeps every control.
"""
import os

import streamlit as st

ENV_VAR = "ATTENTION_PUBLIC"
_YES = {"1", "true", "yes", "on"}


def public_mode() -> bool:
    """Whether this server is a public demo (the environment variable wins over the secret)."""
    given = os.environ.get(ENV_VAR, "").strip().lower()
    if given:
        return given in _YES
    if not st.secrets.load_if_toml_exists():  # no secrets file (a local run): st.secrets.get would raise
        return False
    return str(st.secrets.get("public", "")).strip().lower() in _YES
