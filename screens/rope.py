"""Attention as LLMs run it: rotary positions (RoPE), the book's compute_rope_params and apply_rope
(pkg/llms_from_scratch/llama3.py) on the chapter's MultiHeadAttention."""
import dataclasses

import streamlit as st

import ui
from attention_core.book.variants.llama3_rope import apply_rope, compute_rope_params
from attention_core.lessons import rope
from screens import rope_blocks as blocks

settings = ui.current()
st.title("Rotary positions (RoPE)")
st.markdown(
    "The chapter's layer knows no order: shuffle the tokens and each one gets the same context vector, which is why "
    "GPT-2 adds a position embedding to x. Llama adds nothing to x. It **turns** each head's query and key, pair of "
    "dimensions by pair, by an angle that grows with the token's position: every pair is a dial with its own speed θ. "
    "The values are not turned."
)


@ui.fragment
def screen():
    """The lesson and its sections: moving a control reruns only this part, not the sidebar."""
    T = len(settings.tokens)
    columns = st.columns(4)
    with columns[0]:
        num_heads = ui.heads_picker(settings.d_out, T)
    d_out, head_dim, size_note = rope.rope_sizes(settings.d_out, num_heads)
    ui.clamp("head", low=1, high=num_heads, fallback_note=f"Head {{old}} does not exist ({num_heads} heads); "
             "showing head {new}.")
    with columns[1]:
        head = (ui.control(st.select_slider, "Head", "head", options=list(range(1, num_heads + 1)))
                if num_heads > 1 else 1) - 1
    scrubbed = blocks.offsets_fit(T)  # every start position's map goes to the browser
    with columns[2]:
        offset = ui.clamp("rope_offset", options=rope.OFFSETS,
                          fallback_note="Start position {old} is not one of " + ", ".join(map(str, rope.OFFSETS))
                                        + "; using {new}.")
        if scrubbed:  # the layer's view moves it in the browser
            st.caption(f"The sentence starts at position {offset:,}"  # in class mode the view waits for the reveal
                       + (", movable in the layer's view once the questions are answered." if settings.quiz else
                          "; move it in the layer's view below."))
        else:
            offset = ui.control(st.select_slider, "Sentence starts at position", "rope_offset",
                                options=list(rope.OFFSETS))
    with columns[3]:
        m = ui.control(st.number_input, "q at position m", "rope_m", min_value=0, max_value=rope.MAX_POSITION, step=1)
        n = ui.control(st.number_input, "k at position n", "rope_n", min_value=0, max_value=rope.MAX_POSITION, step=1)
    q, k = ui.committed(T)
    used = dataclasses.replace(settings, d_out=d_out)
    record = ui.stage_call(rope.rope_trace, used, "rope", num_heads=num_heads, head=head, offset=offset,
                           offsets=rope.OFFSETS if scrubbed else (offset,))
    st.caption(f"**Sizes used:** d_in = {settings.x.shape[1]:,}, d_out = {d_out:,}, {num_heads} "
               f"head{'s' if num_heads > 1 else ''} of head_dim {head_dim} ({head_dim // 2} pairs), {T:,} tokens, "
               f"seed {settings.seed_for('rope')}." + (f" {size_note}" if size_note else ""))
    if not ui.predict_first("rope", used, record=record, q=q, k=k):
        st.stop()
    ui.device_badge(record["device"], record["note"] or settings.device_note)

    st.subheader("Each pair of dimensions is a dial", anchor=False)
    q_vec, k_vec = record["queries_raw"][q], record["keys_raw"][k]  # (head_dim,) each: before the turn
    blocks.dials(q_vec, k_vec, int(m), int(n), record, settings, q, k)
    blocks.shift_numbers(q_vec, k_vec, int(m), int(n), record)
    ui.show_view(settings=settings, **blocks.position_view(q_vec, k_vec, record, int(m), int(n)))
    st.caption(blocks.POSITION_CAPTION)

    st.subheader("Beside the chapter's layer", anchor=False)
    ui.show_view(settings=settings, **blocks.layer_view(record, settings, offset, scrubbed))

    with ui.section("layouts", "The book's halves against the paper's neighbours", icon=":material/swap_horiz:") as shown:
        if shown:
            blocks.layouts(record, settings)
    with ui.section("tensors", "The tensors", icon=":material/table:") as shown:
        if shown:
            blocks.tensors(record, settings)
    ui.show_code(compute_rope_params, apply_rope, rope.MultiHeadAttentionRoPE, rope.apply_rope_interleaved,
                 title="The code: pkg/llms_from_scratch/llama3.py (the book's), and the chapter's layer with it")
    with ui.section("checks", "Agreement with PyTorch", icon=":material/check_circle:") as shown:
        if shown:
            ui.agreement(rope.agreement_checks(record))
            st.caption("Meta's code turns each pair as a complex number times e^(i · position · θ) (`torch.polar`); "
                       "on the same pairs (the book's dimension i with i + head_dim/2) it gives the book's numbers.")
    with ui.section("mistakes", "Common mistakes", icon=":material/error:") as shown:
        if shown:
            blocks.mistakes(record)
    ui.explain(blocks.WHY)


screen()
