"""The shared sidebar (preset, input, sizes, seed, device): it makes the Settings every screen reads."""
import streamlit as st

from attention_core.drawing import charts
from attention_core.book.device import DEVICE_CHOICES, pick_device
from attention_core.book.inputs import MAX_SENTENCE_TOKENS, MAX_TEXT_CHARS
from attention_core.lessons import move_cost
from attention_core.lessons.presets import PARAMS
from ui.compute.cache import cached_inputs
from ui.server.public import public_mode, sizes_of
from ui.state.settings import Settings, this_run
from ui.draw import style
from ui.teach import room
from ui.state.session import control, init_state, keep_within_bound, note, on_preset_change, take_notes_once, value

INPUT_CONTROLS = ("input", "text", "positions", "tokens", "d_in", "seed")  # what makes x (cached_inputs' order)


def sidebar() -> Settings:
    init_state()
    keep_within_bound()  # on a public server: whatever changed the sizes since the last run
    with st.sidebar:
        seated, room_note = room.seat()  # first: a student on a phone joins without scrolling past the settings
        room.sidebar_block(seated)
        control(st.selectbox, "Preset", "preset", options=list(PARAMS["preset"].choices),
                format_func={"book": "Book example", "gpt2-small": "GPT-2 small (1,024 tokens)",
                             "custom": "Custom"}.get,
                help="The book example shows the book's printed numbers on every screen.",
                on_change=on_preset_change)
        kind = control(st.radio, "Input", "input", options=list(PARAMS["input"].choices),
                       format_func={"book": "The book's six vectors", "sentence": "A sentence",
                                    "random": "Random (size experiments)"}.get)
        if kind == "sentence":
            control(st.text_input, "Sentence", "text", max_chars=MAX_TEXT_CHARS,
                    help=f"Split like the book's chapter 2 tokenizer; up to {MAX_SENTENCE_TOKENS} tokens.")
            control(st.toggle, "Add positional embeddings", "positions")
        if kind == "random":
            control(st.slider, "Tokens", "tokens", min_value=1, max_value=PARAMS["tokens"].high)
        if kind == "book":
            st.caption("d_in = 3: each of the six tokens is a 3-d vector from the book.")
        else:
            control(st.slider, "d_in (embedding size)", "d_in", min_value=1, max_value=PARAMS["d_in"].high)
        control(st.slider, "d_out (query/key/value size)", "d_out", min_value=1, max_value=PARAMS["d_out"].high)
        control(st.number_input, "Seed", "seed", min_value=0, max_value=PARAMS["seed"].high, step=1)
        if public_mode() and value("preset") != "book" and value("input") == "random":  # tokens fixed otherwise
            _, d_in, d_out, heads = sizes_of({name: value(name) for name in PARAMS})
            most = move_cost.most_tokens(d_in, d_out, heads)
            fits = (f"up to {most:,} tokens at d_in {d_in}, d_out {d_out} and {heads} heads" if most else
                    f"no token count at d_in {d_in}, d_out {d_out} and {heads} heads (fewer heads or dims do)")
            st.caption(f"This public server computes a custom size live, at most about {move_cost.BUDGET_S:g} s "
                       f"a move: {fits}.")
        if value("preset") == "book":
            st.caption("Book preset: each screen uses the book's own seed (123, or 789 where the "
                       "book reuses SelfAttention_v2's weights).")
        control(st.selectbox, "Device", "device", options=DEVICE_CHOICES,
                format_func=lambda d: "auto (GPU if present)" if d == "auto" else d)
        control(st.selectbox, "Colour of attention weights", "colour", options=list(PARAMS["colour"].choices),
                format_func={"auto": "auto: 0 … 1 up to 16 tokens, shares above",
                             "share": "share: against an even split (log)", "absolute": "0 … 1"}.get,
                help="A query that sees n keys gives them 1/n on average: at 1,024 tokens a 0 … 1 scale "
                     "is blank. 'share' colours each weight against 1/n, so a head's pattern shows at every size.")
        control(st.toggle, "Download buttons under charts", "downloads",
                help="PNG and SVG of every chart, CSV of its numbers. Off keeps slider moves quick.")
        control(st.toggle, "Presenter mode", "presenter",
                help="Big fonts, axis labels and cell values for a projector; long explanations folded.")
        control(st.toggle, "Predict first (class mode)", "quiz", help="Each stage asks before it shows the answer.")
    style.inject(presenter=value("presenter"))  # the app's CSS: presenter type, the room's counts, phones
    inputs_id = tuple(value(name) for name in INPUT_CONTROLS)
    inputs = cached_inputs(*inputs_id)
    device, device_note = pick_device(value("device"))
    return Settings(preset=value("preset"), x=inputs.x, inputs_id=inputs_id, text=value("text"),
                    tokens=inputs.tokens, labels=charts.axis_labels(inputs.tokens), d_out=value("d_out"),
                    seed=value("seed"), device=device, device_note=device_note, colour=value("colour"),
                    presenter=value("presenter"), downloads=value("downloads"), quiz=value("quiz"), room=seated,
                    notes=st.session_state["url_notes"] + take_notes_once() + inputs.notes
                    + ([room_note] if room_note else []))


def current() -> Settings:
    """The settings main.py read from the sidebar in this run, with their notes shown on top."""
    settings = this_run()
    for message in settings.notes:
        note(message)
    return settings
