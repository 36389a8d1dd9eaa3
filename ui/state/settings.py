"""What the shared sidebar decided for this run: the one object every screen and UI module reads.

Nothing below a screen reads a sidebar decision from session state: it takes a Settings (passed in, or
`this_run()` for the few helpers every chart calls, such as the presenter's font scale).
"""
from dataclasses import dataclass

import streamlit as st
import torch

from ui.state import catalog


@dataclass
class Settings:
    preset: str
    x: torch.Tensor  # (T, d_in) on the CPU
    inputs_id: tuple  # plain values that identify x: what the caches are keyed on (never the tensor)
    text: str  # the typed sentence (also the GPT-2 screen's)
    tokens: list[str]
    labels: list[str]  # unique axis labels
    d_out: int
    seed: int
    device: str
    device_note: str | None
    colour: str  # how attention weights are coloured: "auto", "share" or "absolute" (colour.scale_for)
    presenter: bool  # big fonts for a projector, long explanations folded
    downloads: bool  # PNG/SVG/CSV buttons under charts
    quiz: bool  # predict first (class mode)
    room: object | None  # ui.teach.room.Seat: the class room this session is in, as its teacher or a student
    notes: list[str]  # what was wrong with the URL or the typed sentence, shown on every screen

    @property
    def input_kind(self) -> str:
        """"book", "sentence" or "random": the first of inputs_id (sidebar.INPUT_CONTROLS' order)."""
        return self.inputs_id[0]

    def seed_for(self, stage: str) -> int:
        """The book preset uses the book's seed for each stage; otherwise the chosen seed."""
        return catalog.screen(stage).stage.book_seed if self.preset == "book" else self.seed


def this_run() -> Settings:
    """The Settings main.py made from the sidebar in this run (a fragment rerun keeps the last ones)."""
    return st.session_state["settings"]
