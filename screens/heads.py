"""Screen 5: multi-head attention (section 3.6): a wrapper of CausalAttention heads vs the weight split."""
import functools

import streamlit as st

import ui
from screens import heads_blocks as blocks
from attention_core.book import stages
from attention_core.lessons import head_counts, initialisation, traces
from screens.heads_blocks import EXERCISE_3_3, mha_count_text

settings = ui.current()
st.title("5 · Multi-head attention")
st.markdown(
    "One attention head learns one way of relating tokens. Running several heads side by side lets the layer "
    "look for several kinds of relation at once, each in its own small slice of the vector. The book builds this "
    "twice: a wrapper that stacks whole `CausalAttention` modules, and `MultiHeadAttention`, which makes one big "
    "projection and cuts it into heads."
)

settings, trained_h = ui.heads_weights(settings)  # ?weights=trained or gpt2: one layer of a real model
trained = trained_h is not None
d_in, d_out, T = settings.x.shape[1], settings.d_out, len(settings.tokens)
# Every num_heads at once, in the browser, while the stack of every head of every count stays small
# (head_counts.STACK_WEIGHTS); above it, and for a trained model's fixed heads, the server computes one count.
in_browser = not trained and head_counts.fits(d_out, T)


@ui.fragment
def screen():
    """The lesson and its sections: a commit from the view reruns only this part, not the sidebar."""
    if trained:
        num_heads = trained_h["mha"]["attn_weights"].shape[1]
        st.caption(f"num_heads: {num_heads} (fixed by the trained model)")
    elif in_browser:  # the view's num_heads slider; Enter commits it (ui.draw.view_route)
        num_heads = ui.clamp("heads", options=stages.divisors(d_out),
                             fallback_note=f"{{old}} heads do not divide d_out = {d_out}; "
                                           "showing {new} instead ({source}).")
    else:
        num_heads = ui.heads_picker(d_out)
    q, _ = ui.committed(T)
    head_dim = d_out // num_heads
    if not ui.predict_first("heads", settings, d_in=d_in, d_out=d_out, num_heads=num_heads):
        st.stop()
    params = mha_count_text(d_in, d_out, num_heads)  # at GPT-2 small's sizes exercise 3.3's answer: not shown here
    # d_out is the sidebar's (and the sentence below says num_heads × head_dim = d_out): three numbers, not four.
    # Where the count is the exercise's answer there is no count: a metric holds a number, not a pointer (the
    # "Parameter counts" section says why).
    shown = [("num_heads", num_heads), ("head_dim", head_dim)] + (
        [] if params == EXERCISE_3_3 else [("parameters (MultiHeadAttention)", params)])
    for col, (label, value) in zip(st.columns(len(shown)), shown):
        col.metric(label, value)

    # The wrapper builds num_heads full-width CausalAttention modules: a size past heads_too_large is refused for
    # every section that needs heads_trace, even where the lesson's own stack (every count, small) fits the browser.
    wrapper_too_large = None if trained else traces.heads_too_large(num_heads, T, d_in, d_out)
    too_large = None if in_browser else wrapper_too_large

    @functools.cache
    def trace():
        """heads_trace at the committed count (both classes): computed only when an open section needs it."""
        if wrapper_too_large:
            ui.note(wrapper_too_large)
            return None
        return trained_h if trained else ui.heads(settings, num_heads, T)

    weights = None  # (h, T, T): the committed count's heads
    if too_large:
        ui.note(too_large)
    else:
        head = ui.clamp("head", low=1, high=num_heads, fallback_note=f"Head {{old}} does not exist ({num_heads} heads); "
                        "showing head {new}.") - 1
        if in_browser:
            stack = ui.every_head_count(settings)  # (σ(d_out), T, T): every head of every count
            start = head_counts.frame_of(d_out, num_heads, 0)
            weights, shown, frames, used, device_note = (stack[start:start + num_heads], stack,
                                                         blocks.count_frames(d_out, num_heads, head), "cpu", None)
        else:  # one count: a trained model's layer, or MultiHeadAttention alone (the wrapper waits for its section)
            weights, used, device_note = ((trained_h["mha"]["attn_weights"][0], trained_h["device"], trained_h["note"])
                                          if trained else ui.one_head_count(settings, num_heads))
            shown, frames = weights, blocks.head_frames(num_heads, head)
        badge = ui.device_badge(used, device_note or settings.device_note, inline=True)  # 30 elements at most
        plural = "head" if num_heads == 1 else "heads"
        scrub = (f"Move **num_heads** and **Head** in the view (or PageUp / PageDown): every divisor of d_out = {d_out} "
                 "is already there. Enter (or the button) makes the numbers above and the sections below follow them."
                 if in_browser else
                 "The view flips through every head in the browser (its Head slider, or PageUp / PageDown).")
        weights_from = "" if trained else initialisation.weights_line("mha", settings.seed_for("heads"), True) + " "
        st.markdown(f"{badge} **{num_heads} {plural} of head_dim {head_dim}** ({num_heads} × {head_dim} = d_out = {d_out}). "
                    f"{weights_from}One projection each makes every "
                    f"token's {d_out}-d query, key and value; each head scores the keys with its own {head_dim} of "
                    f"those {d_out} columns, so each has its own map. {scrub}"
                    + (" Above 64 tokens the view's bars list each row's largest weights; the map beside them is "
                       "one head's whole matrix." if T > 64 else ""))
        if T <= 64:
            ui.show_view(shown, settings, "weights", "attn_weights of one head", view_key="heads_view",
                         parts=("matrix", "row", "cell"), commit=True, frames=frames)
        else:  # the view draws no map at this size: the committed head's whole map, as an image, beside its bars
            # (under them, a projector showed the controls and bars on one slide and the map alone on the next)
            whole, bars = st.columns(2)  # the map on the left, as the views draw theirs
            with whole:
                ui.show_matrix(weights[head], settings, "weights",
                               f"head {head + 1} of {num_heads}: its whole map of attn_weights")
            with bars:
                ui.show_view(shown, settings, "weights", "attn_weights of one head", view_key="heads_view",
                             parts=("row", "cell"), commit=True, frames=frames)
    sections(trace, weights, num_heads, q)


def sections(trace, weights, num_heads: int, q: int) -> None:
    """Everything past the lesson, folded: each computes (heads_trace included) only while it is open."""
    with ui.section("maps", "Every head side by side", icon=":material/grid_view:") as shown:
        if shown and weights is not None:
            blocks.head_maps(weights, settings, q, trained)
    with ui.section("split", "Cutting d_out into heads", icon=":material/content_cut:") as shown:
        if shown:
            blocks.split_lesson(trace() and trace()["mha"], T, d_out, num_heads, q)
    if not trained:
        with ui.section("wrapper", "Wrapper vs weight split", icon=":material/compare:") as shown:
            if shown and trace():
                blocks.wrapper_vs_split(trace(), settings, d_in, d_out, num_heads)
    with ui.section("tensors", "The tensors", icon=":material/table:") as shown:
        if shown and trace():
            st.caption("MultiHeadAttention's per-head tensors (tables show head 1; the shapes carry the head axis):")
            with ui.table_grid():
                for key in ("queries", "attn_weights", "heads_context"):
                    ui.table(trace()["mha"][key], key, settings.labels, settings.labels if key == "attn_weights" else None)
    with ui.section("out-proj", "out_proj: mixing the heads", icon=":material/merge:") as shown:
        if shown and trace():
            blocks.out_proj_lesson(trace(), settings, d_out, num_heads)
    with ui.section("params", "Parameter counts", icon=":material/functions:") as shown:
        if shown:
            blocks.parameter_counts(d_in, d_out, num_heads)
    ui.show_code(stages.split_heads, stages.merge_heads, book="heads")
    ui.explain(
        "**Why several heads?** Each head has its own query and key subspace, so after training one head can track, "
        "say, the previous word while another follows the subject of the sentence (*Every head side by side* "
        "measures how different these heads are). **Why the weight split?** The wrapper runs h separate modules, h "
        "projections and h attention passes in a Python loop. `MultiHeadAttention` does one matrix product per Q, K "
        "and V and one batched attention over a head axis, which the GPU runs in parallel. With head_dim = d_out / h "
        "it also keeps the total size, and the cost, of a single head of width d_out."
    )
    with ui.section("checks", "Agreement with PyTorch", icon=":material/check_circle:") as shown:
        if shown and trace():
            blocks.heads_agreement(trace()["mha"], settings, d_in, d_out, num_heads, trained)
    # The exercises ask before the readers' questions answer: one of those gives Exercise 3.2's d_out away.
    with ui.section("exercises", "Exercises 3.2 and 3.3", icon=":material/edit_note:") as shown:
        if shown:
            ui.exercises(settings, "3.2", "3.3")
    with ui.section("questions", "Readers' questions", icon=":material/forum:") as shown:
        if shown:
            blocks.reader_questions(settings, num_heads=num_heads)
    with ui.section("mistakes", "Common mistakes", icon=":material/error:") as shown:
        if shown and trace():
            blocks.mistakes(trace()["mha"], d_out, num_heads, q)


screen()
