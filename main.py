"""Attention, step by step: chapter 3 of *Build a Large Language Model (From Scratch)*, live.

The page every visitor gets: `streamlit run app.py` serves this script (app.py is the server around it). It only
wires things together: page setup, the list of screens, the shared sidebar, and the URL; each screen lives in
screens/, all math in attention_core.
"""
from pathlib import Path

import streamlit as st

from first_imports import LOCK as FIRST_IMPORTS

with FIRST_IMPORTS:  # app.py may be importing the app in its start-up thread: one after the other (first_imports.py)
    import ui
    from ui.server import run_gate
    from ui.server import allocator
    from ui.state import catalog, sections
    from ui.server import warmup
    from ui.teach import room
    from screens import registry

FAVICON = Path(__file__).resolve().parent / "ui" / "draw" / "favicon.png"

catalog.declare(registry.SCREENS)  # the ui layer reads the screens' entries there: it never imports screens/
allocator.limit_arenas()  # before the sessions' threads allocate: see ui/server/allocator.py
# The icon is a file shipped with the app (a causal attention map): a Material icon as favicon is fetched from a font
# server by the browser, which fails offline and is a network call the app promises not to make.
st.set_page_config(page_title="Attention, step by step", page_icon=str(FAVICON), layout="wide")
# Once per process: app.py starts it with the server; this call covers `streamlit run main.py`.
warmup.start_once(registry.STAGE_PATHS)

# The screens live in screens/, not pages/: Streamlit still treats a pages/ folder as its older
# multipage mode until main.py has run once, so a shared link opened first on a fresh server
# showed a "Page not found" dialog or ran the screen without main.py. The list is screens/registry.py.
page = st.navigation({
    section: [st.Page(s.file, title=s.title, url_path=s.url_path or None, icon=s.icon, default=not s.url_path)
              for s in screens]
    for section, screens in registry.sections().items()
})
with run_gate.one_script_run():  # one script run at a time in this process: a class waits in line (ui/run_gate.py)
    ui.new_run()
    room.take_teacher_token()  # before anything writes the URL: the teacher's token leaves the address bar
    st.session_state["page_path"] = page.url_path  # the room's join link is the app's address without it
    st.session_state["settings"] = ui.sidebar()
    url_note = st.empty()  # filled after the screen ran: it alone knows its sections
    screen = registry.BY_NAME[page.url_path or "home"]
    in_class = st.session_state["settings"].quiz or st.session_state["settings"].room is not None
    sections.enter(screen.name, asks_first=in_class and screen.questions is not None)  # held until the reveal
    # the teacher's screen and settings for the room's students (before the page: a page that asks first stops)
    room.share_view(st.session_state["settings"].room, page.url_path or "home")
    page.run()
    ui.sync_url()
    if message := sections.unknown_note():
        with url_note:
            ui.note(message)
        ui.sync_url()
