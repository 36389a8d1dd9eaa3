"""Which screens a preset changes: a run at another preset leaves out the rest, whose slides equal the book's.

A preset (the sidebar's Book example / GPT-2 small) sets the inputs, their sizes and seeds: the Settings fields
in PRESET_FIELDS. A screen changes with it when it is one of the chapter's stages (the registry's `stage`: they
share the sidebar's inputs and sizes), or when its code (screens/<name>.py and screens/<name>_blocks.py) reads one
of those fields from its Settings. The others call ui.current() only for the URL notes, or read the device alone.
tests/test_slides_presets.py checks this against what AppTest shows at both presets.
"""
import ast
from pathlib import Path

from attention_core.lessons.presets import PARAMS
from screens.registry import BY_NAME

ROOT = Path(__file__).resolve().parents[2]
# The fields of ui/state/settings.py's Settings that follow the preset (device, colour, presenter, downloads, quiz
# and notes do not); input_kind and seed_for are read from them.
PRESET_FIELDS = {"preset", "x", "inputs_id", "text", "tokens", "labels", "d_out", "seed", "input_kind", "seed_for"}
BOOK = PARAMS["preset"].default


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


def reads_preset(screen: str) -> str:
    """Why the preset changes this screen ('' when it does not)."""
    if getattr(BY_NAME[screen], "stage", None):
        return "a stage of the chapter: the sidebar's inputs and sizes"
    read = set().union(*(settings_read(p.read_text(encoding="utf-8")) for p in screen_sources(screen)))
    fields = sorted(read & PRESET_FIELDS)
    return f"reads settings.{', settings.'.join(fields)}" if fields else ""


def preset_of(params: list[tuple[str, str]]) -> str | None:
    """The preset a run's --params choose, where it is not the book's (None: the book, or none named)."""
    chosen = dict(params).get("preset")
    return chosen if chosen and chosen != BOOK else None


def unchanged(screens: list[str], params: list[tuple[str, str]]) -> list[str]:
    """The screens of `screens` whose slides at --params' preset are the book preset's (none at the book)."""
    if preset_of(params) is None:
        return []
    return [s for s in screens if s in BY_NAME and not reads_preset(s)]


def left_out_note(left: list[str], params: list[tuple[str, str]]) -> str:
    """What a run says (and writes beside the slides) about the screens it left out."""
    return (f"Left out at preset={preset_of(params)}: {', '.join(left)}. The preset does not change them (they read "
            f"no setting it sets: inputs, sizes, seeds), so their slides are the book preset's "
            f"(<screen>__01.png ... of a run without --params). --keep-unchanged makes them anyway.")
