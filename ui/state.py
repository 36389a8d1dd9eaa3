"""Session state behind every control: defaults, presets, the URL, and notes on bad values.

Values live under `keep:<name>` so they outlive the widgets (a page's widgets vanish when the
user leaves the page) and are written back to the query string after every run.
"""
import functools

import streamlit as st

from attention_core.lessons.presets import PARAMS, PRESETS, code, parse_param, url_params
from ui import gate

KEEP = "keep:"  # values outlive their widgets under these keys (a page's widgets vanish when you leave it)
SHARED = ("input", "text", "positions", "tokens", "d_in", "d_out", "seed")  # changing one leaves the preset
IGNORED_URL_KEYS = {"embed", "embed_options"}  # Streamlit's own


def value(name: str):
    return st.session_state[KEEP + name]


def set_value(name: str, new) -> None:
    """Change a control from code (a click on a chart, a preset): its stored value and its widget."""
    st.session_state[KEEP + name] = new
    st.session_state[name] = new


def _apply_preset(preset: str) -> None:
    for name, new in PRESETS.get(preset, {}).items():
        set_value(name, new)


def on_preset_change(name: str = "preset") -> None:
    st.session_state[KEEP + name] = st.session_state[name]
    _apply_preset(st.session_state[name])


def set_shared(name: str, new) -> None:
    """Change one of the inputs shared by every screen from code: the preset no longer describes them."""
    set_value(name, new)
    if st.session_state.get(KEEP + "preset") != "custom":
        set_value("preset", "custom")


def _on_shared_change(name: str) -> None:
    set_shared(name, st.session_state[name])


def init_state() -> None:
    """Once per browser session: defaults, then the URL's preset, then the URL's own values."""
    if "url_notes" in st.session_state:
        return
    for name, spec in PARAMS.items():
        st.session_state[KEEP + name] = spec.default
    notes, given = [], {}
    for name in st.query_params:
        values = st.query_params.get_all(name)
        if name in IGNORED_URL_KEYS:
            continue
        if name not in PARAMS:
            notes.append(f"URL parameter {code(name)} is not one this app knows; it was ignored.")
            continue
        if len(values) > 1:
            notes.append(f"URL parameter {code(name)} appears {len(values)} times; the last one is used.")
        parsed, note = parse_param(name, values[-1])
        if note:
            notes.append(note)
        else:
            given[name] = parsed
    preset = given.pop("preset", "book")
    st.session_state[KEEP + "preset"] = preset
    for name, new in PRESETS.get(preset, {}).items():
        st.session_state[KEEP + name] = new
    for name, new in given.items():
        st.session_state[KEEP + name] = new
    if given.keys() & set(SHARED) and preset != "custom":
        differs = any(PRESETS.get(preset, {}).get(n, PARAMS[n].default) != given[n] for n in given.keys() & set(SHARED))
        if differs:
            st.session_state[KEEP + "preset"] = "custom"
    st.session_state["url_notes"] = notes


def note(message: str) -> None:
    """A visible note about input the app had to correct (never an exception)."""
    st.warning(message, icon=":material/info:")


def clamp(name: str, options=None, low=None, high=None, fallback_note: str | None = None):
    """Keep a stored value valid for a widget whose range depends on other controls.

    An invalid value falls back to the preset's value (or the default) when that one is valid
    here, else to the nearest valid value, with a note on screen.
    """
    def valid(v):
        return (options is None or v in options) and (low is None or v >= low) and (high is None or v <= high)

    current = value(name)
    if valid(current):
        return current
    fixed = PRESETS.get(value("preset"), {}).get(name, PARAMS[name].default)
    if not valid(fixed):
        if options is not None:
            fixed = min(options, key=lambda o: abs(o - current))
        else:
            fixed = min(max(current, low if low is not None else current), high if high is not None else current)
    set_value(name, fixed)
    if fallback_note:
        note(fallback_note.format(old=current, new=fixed))
    return fixed


def control(widget, label: str, name: str, **kwargs):
    """A widget whose value survives page switches and is written to the URL."""
    if name not in st.session_state or st.session_state[name] != value(name):
        st.session_state[name] = value(name)
    on_change = kwargs.pop("on_change", None) or (_on_shared_change if name in SHARED else _keep)
    result = widget(label, key=name, on_change=on_change, args=(name,), **kwargs)
    st.session_state[KEEP + name] = result
    return result


def _keep(name: str) -> None:
    st.session_state[KEEP + name] = st.session_state[name]


def sync_url() -> None:
    """Write every value that differs from its preset into the query string (shareable links)."""
    wanted = url_params({name: value(name) for name in PARAMS})
    current = {k: st.query_params.get(k) for k in st.query_params if k not in IGNORED_URL_KEYS}
    if current != wanted:
        keep = {k: st.query_params.get_all(k) for k in st.query_params if k in IGNORED_URL_KEYS}
        st.query_params.from_dict(wanted | keep)


def fragment(body):
    """st.fragment that keeps the URL current: a fragment rerun skips app.py, which syncs it."""
    @st.fragment
    @functools.wraps(body)
    def run(*args, **kwargs):
        with gate.one_at_a_time():  # a fragment's own rerun waits in line too (inside a full run it nests)
            body(*args, **kwargs)
            sync_url()
    return run
