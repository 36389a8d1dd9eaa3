"""Heads in memory: the chapter's view, transpose and contiguous() as strides over one storage."""
import textwrap

import pandas as pd
import streamlit as st

from attention_core.lessons import memory_layout as ml
import ui
from attention_core.drawing.memory_charts import cell_frame, cell_size, from_one, memory_cells
from attention_core.book.modules import MultiHeadAttention

settings = ui.current()
st.title("Heads in memory")
# Which step copies floats is what class mode asks (questions.memory_questions). This intro runs before the
# questions, so in class mode it leaves it to them: the revealed answers say it.
copies = "" if ui.answers_held() else (
    " Of these steps, `view` and `transpose` never move a float; `contiguous()` is the one that may copy: it lays "
    "the floats out token after token again, so no head ever gets memory of its own.")
st.markdown(
    "`MultiHeadAttention` cuts one projection into heads with `view` and `transpose(1, 2)`, and glues them back "
    f"with `transpose(1, 2)`, `contiguous()` and `view`.{copies} A "
    "tensor is a flat **storage** of floats plus **strides**, how many floats to skip for one step along each "
    "dimension. Here every float of a small example is drawn, and every number below is read from PyTorch "
    "(`stride()`, `storage_offset()`, `is_contiguous()`, `data_ptr()`).")

available = min(ml.MAX_TOKENS, len(settings.tokens))
cols = st.columns(3)
ui.clamp("mem_tokens", low=1, high=available)  # the input may have fewer tokens than the URL asks for
T = ui.control(cols[0].slider, "Tokens T", "mem_tokens", min_value=1, max_value=available) if available > 1 else 1
num_heads = ui.control(cols[1].slider, "Heads h", "mem_heads", min_value=1, max_value=ml.MAX_HEADS)
head_dim = ui.control(cols[2].slider, "head_dim", "mem_head_dim", min_value=1, max_value=ml.MAX_HEAD_DIM)
d_out = num_heads * head_dim
for name, count in (("mem_token", T), ("mem_head", num_heads), ("mem_dim", head_dim)):
    ui.clamp(name, low=1, high=count)  # a pick past a shrunk slider falls back to the last one
# Tokens, heads and dims count from 1 here, in the URL and on screen, as on every screen; PyTorch's 0-based index
# (the value minus 1) appears only where the screen names it as such (the code's indices, the table's tuples).
cols = st.columns(3)
words = [("" if name == f"t{n + 1}" else f" · {name}") for n, name in enumerate(settings.tokens[:T])]  # random: t1, t2…
token = ui.control(cols[0].selectbox, "Pick a token", "mem_token", options=range(1, T + 1),
                   format_func=lambda t: f"token {t}{words[t - 1]}") - 1
head = ui.control(cols[1].selectbox, "its head", "mem_head", options=range(1, num_heads + 1),
                  format_func=lambda h: f"head {h}") - 1
dim = ui.control(cols[2].selectbox, "its dim", "mem_dim", options=range(1, head_dim + 1),
                 format_func=lambda d: f"dim {d}") - 1
seed = settings.seed_for("heads")
steps = ml.chapter_steps(settings.x[:T], num_heads, head_dim, seed, pick=(token, head, dim))
rows = ml.step_rows(steps)
if not ui.predict_first("memory", settings, round_of=(settings.x[:T], (num_heads, head_dim), seed), rows=rows):
    st.stop()

st.markdown(f"Tokens, heads and dims are counted from 1, as on every screen; **PyTorch's indices count from 0**. "
            f"Your pick, token {token + 1}, head {head + 1}, dim {dim + 1}, is PyTorch's "
            f"`queries[0, {token}, {head * head_dim + dim}]` before the split and `[0, {head}, {token}, {dim}]` after it.")
st.caption(f"b = 1, T = {T}, h = {num_heads}, head_dim = {head_dim}, so d_out = {d_out}; d_in = "
           f"{settings.x.shape[1]} (the sidebar's input, first {T} tokens), weights seeded with {seed}.")
scale = ui.font_scale()

st.subheader("The storage of `queries`")
# The key to the colours opens the section it explains: a caption above the heading stayed on the slide before.
st.markdown("Hue: the head; shade: the token (light first, dark last); the black square: the element you picked.")
first = steps[0]
ui.chart(memory_cells(cell_frame(ml.storage_cells(first, d_out, first.pick), T, text="token"),
                      f"queries' {T * d_out} floats in storage order (drawn {d_out} to a line)",
                      row="offset ÷ d_out", col="offset mod d_out", cell=cell_size(d_out, scale, rows=T)),
         "queries storage", width="content")
st.markdown(f"`W_query(x)` writes token after token: token 1's {d_out:,} floats, then token 2's, and so on"
            + (f"; inside a token, head 1's {head_dim} floats, then head 2's. Every head is a *strided* slice of this "
               "one row." if num_heads > 1 else ". With one head, the head is the whole row."))

st.subheader("Shape and strides, line by line")
table = pd.DataFrame([{
    "the chapter's code": r["code"], "shape": str(r["shape"]), "stride": str(r["stride"]),
    "contiguous": "yes" if r["contiguous"] else "no", "what it did": r["did"],
    "picked element (PyTorch's index, from 0)": str(r["pick_index"]) if r["pick_index"] else "(its row of scores)",
    "storage offset": "" if r["pick_offset"] is None else str(r["pick_offset"]),
    "bytes from storage start (data_ptr)": "" if r["pick_bytes"] is None else str(r["pick_bytes"]),
} for r in rows])
ui.data_table(table, hide_index=True, width="stretch")
copies = [r["code"].split(" = ")[1] for r in rows if r["did"] == "copy"]
st.markdown("**view** keeps the storage (same `data_ptr`) and writes new strides; **new tensor** is an "
            "operation's output; **copy** is the same values in a new storage. Copies here: "
            + (", ".join(f"`{c}`" for c in copies) or "none (with one head or one token nothing needs moving)")
            + f". The picked float keeps storage offset {rows[0]['pick_offset']} through every view of `queries`, "
              "whatever its index; only a copy gives it a new one.")

st.subheader("The right split beside the wrong one")
heads_step, wrong = steps[2], ml.wrong_split(first, num_heads, head_dim)
split_cell = cell_size(d_out + num_heads, scale, room="half", rows=T)  # every head's dims side by side, plus the gaps
left, right = st.columns(2)
with left:
    ui.chart(memory_cells(from_one(cell_frame(ml.cells(heads_step.tensor, heads_step.tokens, heads_step.heads,
                                                       heads_step.pick), T)), "view(b, T, h, d).transpose(1, 2)",
                          panel="head", row="token", col="dim", cell=split_cell), "right split", width="content")
with right:
    ui.chart(memory_cells(from_one(cell_frame(ml.cells(wrong.tensor, wrong.tokens, wrong.heads), T)),
                          "view(b, h, T, d): wrong", panel="head", row="row", col="dim", cell=split_cell),
             "wrong split", width="content")
st.markdown(f"Each cell shows its storage offset. On the left, head 1 reads offsets 0…{head_dim - 1}, then jumps "
            f"{heads_step.tensor.stride(2)} floats to the next token: one colour per panel, every token in it. "
            + (f"On the right, `view(b, h, T, d)` hands each 'head' a contiguous run of {T * head_dim} floats, which "
               "mixes colours (true heads) and covers only some tokens: the shapes match, the meaning does not."
               if num_heads > 1 else "With one head both calls give the same tensor; raise the heads to see them "
                                     "part."))

st.subheader("Merging the heads: why `contiguous()`")
context, packed = steps[4], steps[6]
merge_cell = cell_size(head_dim, scale, room="half", rows=T * num_heads)
st.markdown("Left: the matmul's output as it lies in storage, head after head. Right: the same values after "
            "`.transpose(1, 2).contiguous()`, token after token.")
left, right = st.columns(2)
with left:
    ui.chart(memory_cells(cell_frame(ml.storage_cells(context, head_dim, context.pick), T, text="token"),
                          "attn_weights @ values: storage", row="offset ÷ head_dim", col="offset mod head_dim",
                          cell=merge_cell), "context storage", width="content")
with right:
    ui.chart(memory_cells(cell_frame(ml.storage_cells(packed, head_dim, packed.pick), T, text="token"),
                          ".transpose(1, 2).contiguous(): storage", row="offset ÷ head_dim",
                          col="offset mod head_dim", cell=merge_cell), "contiguous storage", width="content")
message = ml.view_error(steps)
if message:
    st.markdown("`transpose(1, 2)` alone relabels the left one as "
                "(b, T, h, d) but leaves the floats where they are, so one token's heads are not next to each "
                "other and no set of strides reads them as one d_out-wide row. `view(b, T, d_out)` on it fails "
                "with PyTorch's own error, caught here:")
    # Broken at 100 columns, as a terminal would: a slide's code block wraps nothing on its own (the deck flags it).
    st.code(textwrap.fill(f"RuntimeError: {message}", 100), language="text", wrap_lines=True)
    st.markdown("`contiguous()` copies the floats into token order (right); after it, `view` is free.")
else:
    st.markdown("With one head or one token the transposed context is still contiguous: `view` works without "
                "`contiguous()`. Raise both sliders to see the error.")

st.subheader("`reshape` or `view`?")
ui.data_table(pd.DataFrame(ml.reshape_against_view(steps)), hide_index=True, width="content")
ui.explain("`view` never copies: it refuses when the strides cannot express the new shape. `reshape` returns a "
           "view when one exists and copies otherwise, so it always works but may cost a copy you did not see. "
           "The chapter writes `.contiguous().view(...)` to make that copy explicit; "
           "`.reshape(b, num_tokens, self.d_out)` would do the same work.", title="When each copies")
ui.show_code(MultiHeadAttention, ml.chapter_steps, ml.offsets, title="The code: the chapter's MultiHeadAttention as "
             "this app keeps it (the book's lines, with a docstring the book does not print), and this screen's "
             "helpers that read the memory")
