"""Session state behind every control: defaults, presets, the URL, and notes on bad values.

Values live under `keep:<name>` so they outlive the widgets (a page's widgets vanish when the
user leaves the page) and are written back to the query string after every run.
"""
import functools

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from attention_core.lessons.presets import (PARAMS, PRESET_OWN, PRESET_TITLES, PRESETS, code, fallback_source,
                                            fallback_value, parse_param, url_params)
from ui.server import run_gate
from ui.server import public

KEEP = "keep:"  # values outlive their widgets under these keys (a page's widgets vanish when you leave it)
SHARED = ("input", "text", "positions", "tokens", "d_in", "d_out", "seed")  # changing one leaves the preset
SIZES = ("tokens", "d_in", "d_out", "heads")
IGNORED_URL_KEYS = {"embed", "embed_options"}  # Streamlit's own
ONCE = "notes:once"  # notes for the next full run only: a move left the preset, or met the public bound


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
    keep_within_bound()  # "Custom" picked at GPT-2 small's sizes: a public server bounds them


def leaves_preset(name: str, preset: str) -> bool:
    """Whether moving control `name` means the preset no longer describes the settings."""
    return preset != "custom" and (name in SHARED or name in PRESET_OWN.get(preset, ()))


def _shown(name: str, v) -> str:
    """A control's value in a note (the sentence is the visitor's text: it is not repeated)."""
    if name == "text":
        return "edited"
    if isinstance(v, bool):
        return "on" if v else "off"
    return code(str(v)) if isinstance(v, str) else f"{v:g}" if isinstance(v, float) else str(v)


def left_note(name: str, old, new, preset: str) -> str:
    """One line: which move left which preset ("d_out 768 → 512: you left the GPT-2 small preset; ...")."""
    what = "the sentence was edited" if name == "text" else f"{name} {_shown(name, old)} → {_shown(name, new)}"
    kind = "sizes" if name in SIZES else "settings"
    return f"{what}: you left the {PRESET_TITLES.get(preset, preset)} preset; these {kind} are custom."


def note_once(message: str) -> None:
    """A note for the next full run's screen (the sidebar collects it into the Settings' notes)."""
    st.session_state.setdefault(ONCE, []).append(message)


def take_notes_once() -> list[str]:
    return st.session_state.pop(ONCE, [])


def set_shared(name: str, new) -> None:
    """Change one of the inputs shared by every screen from code: the preset no longer describes them (the screen
    says so once), and on a public server the sizes stay within its bound."""
    old, preset = value(name), value("preset")
    set_value(name, new)
    if new != old and leaves_preset(name, preset):
        set_value("preset", "custom")
        note_once(left_note(name, old, new, preset))
    _keep_within_bound(name, old)


def _on_shared_change(name: str) -> None:
    set_shared(name, st.session_state[name])


def keep_within_bound() -> None:
    """The public bound on whatever the sizes are now (every run checks it: a view's commit changes heads too)."""
    _keep_within_bound(None, None)


def _keep_within_bound(moved: str | None, old) -> None:
    """On a public server, a custom size that would cost more than the bound gets fewer tokens or is refused
    (ui/server/public.py decides; a note says which). A teacher's own server is unbounded."""
    if not public.public_mode():
        return
    changes, message = public.fit({name: value(name) for name in PARAMS}, moved, old)
    for name, new in changes.items():
        set_value(name, new)
    if message:
        note_once(message)


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
    named = "preset" in given  # a link that names its preset and changes it gets a note (a bare ?d_out=4 is custom)
    preset = given.pop("preset", "book")
    st.session_state[KEEP + "preset"] = preset
    for name, new in PRESETS.get(preset, {}).items():
        st.session_state[KEEP + name] = new
    for name, new in given.items():
        st.session_state[KEEP + name] = new
    own = PRESETS.get(preset, {})
    # (heads that do not divide d_out are no override: /heads shows the preset's count instead, with a note)
    differs = [n for n in given if leaves_preset(n, preset) and own.get(n, PARAMS[n].default) != given[n]
               and not (n == "heads" and value("d_out") % given[n])]
    if differs:  # ?preset=gpt2-small&d_out=512: the link's own sizes, which are no longer the preset
        st.session_state[KEEP + "preset"] = "custom"
        if named:
            note_once(_url_left_note(preset, differs))
    st.session_state["url_notes"] = notes
    keep_within_bound()


def _url_left_note(preset: str, differs: list[str]) -> str:
    asked = ", ".join(f"{n} = {_shown(n, value(n))}" for n in differs if n != "text") or "its own sentence"
    own = ", ".join(f"{n} = {_shown(n, v)}" for n, v in PRESETS[preset].items() if n in differs and n != "text")
    return (f"The link asks for the {PRESET_TITLES.get(preset, preset)} preset with {asked}"
            + (f" (the preset has {own})" if own else "") + ": these settings are custom.")


def note(message: str) -> None:
    """A visible note about input the app had to correct (never an exception)."""
    st.warning(message, icon=":material/info:")


def clamp(name: str, options=None, low=None, high=None, fallback_note: str | None = None):
    """Keep a stored value valid for a widget whose range depends on other controls.

    An invalid value falls back to the preset's value (or the default) when that one is valid
    here, else to the nearest valid value, with a note on screen ({old}, {new} and {source}, where {new} came from).
    """
    current = value(name)
    fixed = fallback_value(name, current, value("preset"), options, low, high)
    if fixed == current:
        return current
    set_value(name, fixed)
    if fallback_note:
        note(fallback_note.format(old=current, new=fixed, source=fallback_source(name, fixed, value("preset"))))
    return fixed


def control(widget, label: str, name: str, **kwargs):
    """A widget whose value survives page switches and is written to the URL."""
    # Set on every run, not only when it differs: a widget whose range or options changed (W's slider after a Tokens
    # move) is a new widget to Streamlit, and a new widget takes its minimum unless Session State was set this run.
    st.session_state[name] = value(name)
    on_change = kwargs.pop("on_change", None) or (_on_shared_change if name in SHARED or name in SIZES else _keep)
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
    """st.fragment that keeps the URL current: a fragment rerun skips main.py, which syncs it."""
    @st.fragment
    @functools.wraps(body)
    def run(*args, **kwargs):
        if _fragment_rerun():  # (in a full run the sidebar has checked, and its widgets are drawn: hands off)
            keep_within_bound()  # a commit from a view (num_heads) changes a size without a callback
        if st.session_state.get(ONCE):  # a control in here left the preset (or met the bound): the sidebar and the
            st.rerun(scope="app")  # notes above this fragment must redraw too, so the whole page reruns
        with run_gate.one_script_run():  # a fragment's own rerun waits in line too (inside a full run it nests)
            body(*args, **kwargs)
            sync_url()
    return run


def _fragment_rerun() -> bool:
    """Whether this run is a fragment's own rerun (main.py and the sidebar did not run)."""
    ctx = get_script_run_ctx()
    return bool(ctx and ctx.fragment_ids_this_run)
