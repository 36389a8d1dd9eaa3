"""Attention, step by step: chapter 3 of *Build a Large Language Model (From Scratch)*, live.

Run with `streamlit run app.py`. This file is the server: Streamlit finds `app` below and serves main.py (the page:
screens, sidebar, URL) to every visitor, as it would serve main.py alone. What it adds is the start: the lifespan
runs when the server starts, before any visitor, and begins the warm-up (ui/server/warmup.py), so the first student
at ?preset=gpt2-small finds GPT-2 small's screens computed. A plain script cannot: Streamlit runs no app code before
the first visit, and that visitor waited for imports and a cold 1,024-token screen (7.7–14.8 s on 2 cores, measured
in docs/cold-start-gpt2.md).
"""
import threading
from contextlib import asynccontextmanager

import streamlit as st

from first_imports import LOCK as FIRST_IMPORTS


@asynccontextmanager
async def warm_up_at_start(_app):
    # In a thread: importing the app (torch, pandas, Altair) takes seconds, and the server answers meanwhile.
    threading.Thread(target=_start_warmup, name="attention-warmup-start", daemon=True).start()
    yield


def _start_warmup() -> None:
    with FIRST_IMPORTS:  # a visitor's first run may import the app meanwhile: one after the other (first_imports.py)
        from screens import registry  # the app's own modules load here, not in the server's event loop
        from ui.server import allocator, warmup
    allocator.limit_arenas()  # before the visitors' threads allocate (ui/server/allocator.py)
    warmup.start_once(registry.STAGE_PATHS)


app = st.App("main.py", lifespan=warm_up_at_start)
