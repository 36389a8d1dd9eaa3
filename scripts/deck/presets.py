"""Which screens a preset changes: a run at another preset leaves out the rest, whose slides equal the book's.

A preset (the sidebar's Book example / GPT-2 small) sets the inputs, their sizes and seeds: some fields of the
Settings every screen reads (ui/state/settings.py). Which ones, the app itself says: main.py runs once at the book
preset and once at the run's --params (AppTest on main.py, the home screen, no browser), and the fields that differ are
the preset's. A screen changes with the preset when it is one of the chapter's stages (the registry's `stage`:
they share the sidebar's inputs and sizes), or when its code (screens/<name>.py and screens/<name>_blocks.py)
reads one of those fields from its Settings. The others call ui.current() only for the URL notes, or read the
device alone. tests/test_slides_presets.py checks this against what AppTest shows on every screen at both presets.
"""
import ast
import os
from pathlib import Path

from attention_core.lessons.presets import PARAMS
from screens.registry import BY_NAME

ROOT = Path(__file__).resolve().parents[2]
BOOK = PARAMS["preset"].default
# Settings' properties and methods, and the fields they are computed from.
DERIVED = {"input_kind": {"inputs_id"}, "seed_for": {"preset", "seed"}}


def changed_fields(params: list[tuple[str, str]]) -> set[str]:
    """The Settings fields (and the properties computed from them) whose values differ at these URL parameters
    from the book preset's, as main.py's sidebar makes them."""
    import torch
    from streamlit.testing.v1 import AppTest

    def settings(query):
        at = AppTest.from_file(str(ROOT / "main.py"), default_timeout=120)  # the page app.py serves
        for name, raw in query:
            at.query_params[name] = raw
        at.run()
        return at.session_state["settings"]

    def same(a, b) -> bool:
        if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape
                    and bool((a == b).all()))
        return a == b

    before = os.environ.get("ATTENTION_WARMUP")
    os.environ["ATTENTION_WARMUP"] = "0"  # no warm-up thread for these two runs (the slides' server keeps its own)
    try:
        book, other = settings([]), settings(params)
    finally:
        if before is None:
            del os.environ["ATTENTION_WARMUP"]
        else:
            os.environ["ATTENTION_WARMUP"] = before
    changed = {name for name in vars(book) if not same(getattr(book, name), getattr(other, name))}
    return changed | {name for name, sources in DERIVED.items() if sources & changed}


def settings_read(source: str) -> set[str]:
    """The Settings attributes a screen's code reads: `settings.x`, `ui.current().tokens`, or any name bound to
    ui.current() (or taking a `settings` argument) followed by an attribute."""
    tree = ast.parse(source)
    names = {"settings"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _is_current(node.value):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
            and ((isinstance(node.value, ast.Name) and node.value.id in names) or _is_current(node.value))}


def _is_current(node) -> bool:
    """A call of ui.current() (or current()): the Settings of this run."""
    return isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "current"


def screen_sources(screen: str) -> list[Path]:
    """The screen's file and its folded sections' bodies beside it (screens/<name>_blocks.py), where present."""
    file = ROOT / BY_NAME[screen].file
    return [p for p in (file, file.with_name(f"{file.stem}_blocks.py")) if p.exists()]


def reads_preset(screen: str, changed: set[str]) -> str:
    """Why the preset (the Settings fields it changes) changes this screen ('' when it does not)."""
    if getattr(BY_NAME[screen], "stage", None):
        return "a stage of the chapter: the sidebar's inputs and sizes"
    if "notes" in changed:  # ui.current() shows them on top of every screen
        return "a note about the URL, on every screen"
    read = set().union(*(settings_read(p.read_text(encoding="utf-8")) for p in screen_sources(screen)))
    fields = sorted(read & changed)
    return f"reads settings.{', settings.'.join(fields)}" if fields else ""


def preset_of(params: list[tuple[str, str]]) -> str | None:
    """The preset a run's --params choose, where it is not the book's (None: the book, or none named)."""
    chosen = dict(params).get("preset")
    return chosen if chosen and chosen != BOOK else None


def unchanged(screens: list[str], params: list[tuple[str, str]]) -> list[str]:
    """The screens of `screens` whose slides at --params' preset are the book preset's (none at the book)."""
    if preset_of(params) is None:
        return []
    changed = changed_fields(params)
    return [s for s in screens if s in BY_NAME and not reads_preset(s, changed)]


def left_out_note(left: list[str], params: list[tuple[str, str]]) -> str:
    """What a run says (and writes beside the slides) about the screens it left out."""
    return (f"Left out at preset={preset_of(params)}: {', '.join(left)}. The preset does not change them (they read "
            f"no setting it sets: inputs, sizes, seeds), so their slides are the book preset's "
            f"(<NN-screen>__01.png ... of a run without --params). --keep-unchanged makes them anyway.")
