"""Every control's name, default, range, and the named presets; validation of URL values.

Plain Python so that tests and notebooks can check a URL without Streamlit.
"""
import math
import re
from dataclasses import dataclass

from attention_core.book.inputs import BOOK_SENTENCE, MAX_D_IN, MAX_TEXT_CHARS, MAX_TOKENS
from attention_core.drawing.numbers import whole


@dataclass(frozen=True)
class Param:
    kind: type  # int, float, bool or str
    default: object
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    shape: re.Pattern | None = None  # text: the form a value must have (whole match), and what it then is
    shape_name: str = ""


# The URL query string uses these names. Defaults are the book's example. These are the app's shared ones (the
# sidebar's, the views', the section links'); a screen's own controls are declared with its entry in
# screens/registry.py, which adds them here (`declare`) when it is imported, as the app and the tests do first.
PARAMS = {
    "preset": Param(str, "book", choices=("book", "gpt2-small", "custom")),
    "input": Param(str, "book", choices=("book", "sentence", "random")),
    "text": Param(str, BOOK_SENTENCE),
    "positions": Param(bool, False),
    "tokens": Param(int, 6, 1, MAX_TOKENS),
    "d_in": Param(int, 3, 1, MAX_D_IN),
    "d_out": Param(int, 2, 1, MAX_D_IN),
    "seed": Param(int, 123, 0, 2**31 - 1),
    "device": Param(str, "auto", choices=("auto", "cuda", "mps", "cpu")),
    # How weights are coloured: 0..1, or each weight against an even share (log); auto picks by size.
    "colour": Param(str, "auto", choices=("auto", "share", "absolute")),
    "presenter": Param(bool, False),  # big fonts for a projector, long explanations folded
    "downloads": Param(bool, False),  # PNG / SVG / CSV buttons under every chart
    "pitfalls": Param(bool, False),  # a link from before the sections: ?pitfalls=1 opens the "mistakes" section
    "proj": Param(str, "none", choices=("none", "v1")),
    "query": Param(int, 2, 1, MAX_TOKENS),
    "key": Param(int, 1, 1, MAX_TOKENS),
    "heads": Param(int, 2, 1, MAX_D_IN),
    # Zoom into a large matrix: rows and keys from (1-based), 32 to 64 cells wide.
    "window": Param(int, 1, 1, MAX_TOKENS),
    "window_key": Param(int, 1, 1, MAX_TOKENS),
    "window_size": Param(int, 48, 32, 64),
    # Where the weights of the heads screen come from: the chapter's random init, the trained toy
    # model (screens/trained.py) or OpenAI's GPT-2 (screens/gpt2.py). Layer and head are 1-based.
    "weights": Param(str, "random", choices=("random", "trained", "gpt2")),
    "layer": Param(int, 1, 1, 48),
    "head": Param(int, 1, 1, 64),
    "quiz": Param(bool, False),  # predict first: every screen asks before it shows the answer
    "readers": Param(bool, False),  # a link from before the sections: ?readers=1 opens the "questions" section
    # The current screen's open sections (ui/state/sections.py): "code,tensors", or "all" (the slides command).
    "open": Param(str, ""),
    # A class room's join code (rooms/codes.py checks it; the teacher's token never travels in a URL the app writes)
    "room": Param(str, "", shape=re.compile(r"[A-Za-z0-9 -]{0,12}"),  # a typed code's form; rooms/codes.py decides
                  shape_name="a room code (6 letters and digits, such as K7M-P3X)"),
    # A student's random seat in that room (rooms/codes.py's student id): a reload keeps the student's answers
    "seat": Param(str, "", shape=re.compile(r"[A-Za-z0-9_-]{8,64}|"), shape_name="a seat in a room"),
}


def declare(params: dict[str, Param]) -> None:
    """Add a screen's own URL parameters to the table (screens/registry.py declares each screen's, next to its
    entry): one table for the whole URL, so no two screens can give one name two meanings."""
    for name, spec in params.items():
        if PARAMS.get(name, spec) != spec:
            raise ValueError(f"URL parameter {name!r} is declared twice with different meanings")
        PARAMS[name] = spec

# On a public server (ui/server/public.py) a live training run is bounded in steps x layers.
# A step's cost grows with the layers (d_model stays at 64 however many heads share it; 8 heads cost
# about 1.5x one). 3,000 fits the shipped repeat run (1,500 steps, 2 layers) and 1,000 steps of 3 layers.
PUBLIC_TRAIN_LAYER_STEPS = 3000

# The controls a preset sets. Page-local choices (query, dropout, ...) that a preset does not name
# keep their defaults.
PRESETS = {
    "book": {"input": "book", "text": BOOK_SENTENCE, "positions": False, "tokens": 6, "d_in": 3,
             "d_out": 2, "seed": 123, "heads": 2, "query": 2, "key": 1, "context_length": 6,
             "dropout": 0.5, "dropout_seed": 123, "kv_step": 3, "kv_groups": 1},
    # Exercise 3.3: GPT-2 small's attention layer, 12 heads of 64 dims, context 1024.
    "gpt2-small": {"input": "random", "tokens": 1024, "d_in": 768, "d_out": 768, "seed": 123,
                   "heads": 12, "query": 2, "key": 1, "context_length": 1024, "dropout": 0.1,
                   "dropout_seed": 123,
                   # /kv-cache's 64 generated tokens open half fed, not at step 3 (4 rows of a 64 × 64 map); /gqa
                   # opens on 4 key/value heads of 3 query heads each, where `repeat` pairs them wrongly (at 1 it
                   # cannot, and the group maps were all twelve heads)
                   "kv_step": 33, "kv_groups": 4},
}
PRESET_TITLES = {"book": "book", "gpt2-small": "GPT-2 small", "custom": "custom"}
# Besides the sidebar's inputs and sizes (which leave any preset), the page controls that belong to a preset's
# identity: GPT-2 small is one layer of 12 heads, so another count is no longer GPT-2 small. At the book preset
# heads is a lesson control (the book shows 1 and 2 heads): moving it stays "the book".
PRESET_OWN = {"gpt2-small": ("heads",)}

SECTION_NAME = re.compile(r"[a-z][a-z0-9-]{0,31}")  # a section's name in the URL's `open`

_TRUE = {"1", "true", "on", "yes"}
_FALSE = {"0", "false", "off", "no"}


def code(text: str) -> str:
    """Text as a Markdown code span that nothing inside can close (user text in a note stays literal)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {text} {fence}" if longest else f"{fence}{text}{fence}"


def parse_param(name: str, raw: str):
    """(value, None) for a valid URL value, or (default, note) explaining what was wrong."""
    spec = PARAMS[name]

    def bad(why: str):
        shown = raw if len(raw) <= 40 else raw[:40] + "…"
        return spec.default, f"URL parameter {code(f'{name}={shown!r}')} {why}; using the default {spec.default!r}."

    text = raw.strip()
    if spec.kind is str:
        if spec.choices and text not in spec.choices:
            return bad("is not one of " + ", ".join(spec.choices))
        if name in ("off", "probe", "open") and len(raw) > 200:
            return bad("is longer than 200 characters")
        if name == "open" and not all(SECTION_NAME.fullmatch(part.strip()) for part in raw.split(",") if part.strip()):
            return bad("is not a list of section names (such as code,tensors)")
        if spec.shape is not None and not spec.shape.fullmatch(text):
            return bad(f"is not {spec.shape_name}")
        if name == "text" and len(raw) > MAX_TEXT_CHARS:
            return bad(f"is longer than {MAX_TEXT_CHARS} characters")
        return (text if spec.choices else raw), None
    if spec.kind is bool:
        if text.lower() in _TRUE:
            return True, None
        if text.lower() in _FALSE:
            return False, None
        return bad("is not a yes/no value (use 1 or 0)")
    try:
        value = float(text) if spec.kind is float else int(text)
    except ValueError:
        return bad(f"is not {'a number' if spec.kind is float else 'a whole number'}")
    if math.isnan(value) or math.isinf(value):
        return bad("is not a finite number")
    if not spec.low <= value <= spec.high:
        return bad(f"is outside {whole(spec.low)} to {whole(spec.high)}")
    return value, None


def fallback_value(name: str, current, preset: str, options=None, low=None, high=None):
    """What a control whose valid range depends on other controls shows instead of an invalid `current`: the
    preset's value (or the default) when that one is valid, else the nearest valid value (ui.state.session.clamp says so
    on screen; ui.public reads the same rule to know the heads a move will compute)."""
    def valid(v):
        return (options is None or v in options) and (low is None or v >= low) and (high is None or v <= high)

    if valid(current):
        return current
    fixed = PRESETS.get(preset, {}).get(name, PARAMS[name].default)
    if valid(fixed):
        return fixed
    if options is not None:
        return min(options, key=lambda o: abs(o - current))
    return min(max(current, low if low is not None else current), high if high is not None else current)


def fallback_source(name: str, fixed, preset: str) -> str:
    """Where fallback_value's answer came from, for the note beside it: "GPT-2 small's value", "the default" or "the
    nearest allowed" (a visitor who asked for 384 heads sees why 12, or 2, came back)."""
    if preset in PRESETS and PRESETS[preset].get(name) == fixed:
        return f"{'the book' if preset == 'book' else PRESET_TITLES.get(preset, preset)}'s value"
    return "the default" if fixed == PARAMS[name].default else "the nearest allowed"


def url_value(name: str, value) -> str:
    """How a value is written back into the URL."""
    if PARAMS[name].kind is bool:
        return "1" if value else "0"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def url_params(values: dict) -> dict[str, str]:
    """The query string for a state: the preset (unless "book") and what differs from it."""
    preset = values.get("preset", "book")
    baseline = {name: spec.default for name, spec in PARAMS.items()} | PRESETS.get(preset, {})
    wanted = {name: url_value(name, values[name]) for name in PARAMS
              if name != "preset" and name in values and values[name] != baseline[name]}
    return ({"preset": preset} if preset != "book" else {}) | wanted
