"""Class mode on screen: predict before you see, the chapter's exercises, the readers' questions.

All questions, checks and demonstrations are computed in attention_core (quiz.py, exercises.py,
reader_questions.py); this module only lays them out. What a student answered and whether a
stage is revealed live in st.session_state under the stage and the round (quiz.round_id: the
inputs, d_out and seed), so a new sentence or seed asks again while moving a slider does not.
"""
import pandas as pd
import streamlit as st

from attention_core import exercises as ex
from attention_core import quiz
from attention_core import reader_questions as rq
from attention_core.ui.cache import _x_key, cached_inputs, exercise_3_1
from attention_core.ui.display import pitfall
from attention_core.ui.sidebar import Settings
from attention_core.ui.state import control, sync_url, value
from attention_core.ui.text import md_escape

_SAY = {True: st.success, False: st.warning, None: st.info}  # a wrong answer is a warning, never an error box


# --- predict first --------------------------------------------------------------------------------

def predict_first(stage: str, settings: Settings, **inputs) -> bool:
    """With quiz=1: ask this stage's questions and return False until they are answered (or, in
    presenter mode, revealed); the screen then stops. Without quiz=1: True at once."""
    if not value("quiz"):
        return True
    round_key = "quiz:" + quiz.round_id(stage, settings.x, settings.d_out, settings.seed_for(stage))
    state = st.session_state.setdefault(round_key, {"revealed": False, "results": []})
    if state["revealed"]:
        _results(state["results"], round_key)
        return True
    questions = quiz.questions(stage, tokens=settings.tokens, **inputs)
    if (_room if value("presenter") else _student)(questions, state, round_key):
        st.rerun()  # the whole page: a button inside a fragment would rerun only the fragment
    sync_url()  # the screen stops here, before the fragment or app.py would write the URL
    return False


def _label(i: int, question: quiz.Question) -> str:
    return f"**{i}.** {md_escape(question.prompt)}"


def _student(questions, state, round_key) -> bool:
    with st.container(border=True, key=f"predict-{round_key.split(':')[1]}"):
        st.subheader("Predict first", anchor=False)
        st.caption("Commit to an answer before the screen shows it; checking reveals the screen.")
        for i, question in enumerate(questions, 1):
            key = f"{round_key}:{question.qid}"
            if question.kind == "number":
                st.text_input(_label(i, question), key=key, placeholder="a number, e.g. 2 or 0.25")
            elif question.kind == "yesno":
                st.radio(_label(i, question), ["yes", "no"], index=None, key=key, horizontal=True)
            elif len(question.options) <= 8:
                st.radio(_label(i, question), question.options, index=None, key=key, horizontal=True,
                         format_func=md_escape)
            else:
                st.selectbox(_label(i, question), question.options, index=None, key=key, placeholder="pick a key")
        left, right = st.columns(2)
        checked = left.button("Check my predictions", type="primary", key=f"{round_key}:check")
        skipped = right.button("Show me without predicting", key=f"{round_key}:skip")
        if skipped:
            state.update(revealed=True, results=[(q.prompt, None, _answer(q)) for q in questions])
            return True
        if checked:
            verdicts = [quiz.check(q, st.session_state.get(f"{round_key}:{q.qid}")) for q in questions]
            if any(v.ok is None for v in verdicts):
                for i, verdict in enumerate(verdicts, 1):
                    if verdict.ok is None:
                        st.info(f"Question {i}: {md_escape(verdict.message)}", icon=":material/edit:")
                return False
            state.update(revealed=True, results=[(q.prompt, v.ok, v.message) for q, v in zip(questions, verdicts)])
            return True
    return False


def _answer(question: quiz.Question) -> str:
    return f"Answer: {quiz.answer_text(question)}. {question.explanation}"


def _room(questions, state, round_key) -> bool:
    """Presenter mode: the room predicts aloud; the questions are large and one button reveals."""
    st.header("Predict first", anchor=False)
    for i, question in enumerate(questions, 1):
        st.subheader(f"{i}. {md_escape(question.prompt)}", anchor=False)
        if question.kind == "yesno":
            st.markdown("### yes · no")
        elif question.kind == "choice" and len(question.options) <= 8:
            st.markdown("### " + " · ".join(md_escape(o) for o in question.options))
    if st.button("Reveal", type="primary", key=f"{round_key}:reveal", icon=":material/visibility:"):
        state.update(revealed=True, results=[(q.prompt, None, _answer(q)) for q in questions])
        return True
    return False


def _results(results, round_key) -> None:
    with st.expander("Predictions", expanded=True, icon=":material/psychology:"):
        for prompt, ok, message in results:
            st.markdown(f"**{md_escape(prompt)}**")
            _SAY[ok](md_escape(message))
        if st.button("Ask again", key=f"{round_key}:again"):
            del st.session_state[round_key]
            st.rerun()


# --- the chapter's exercises ---------------------------------------------------------------------

def exercises(settings: Settings, *numbers: str) -> None:
    """The chapter's exercises by number ("3.1", "3.2", "3.3"), each checked by running the answer."""
    for number in numbers:
        {"3.1": _exercise_3_1, "3.2": _exercise_3_2, "3.3": _exercise_3_3}[number](settings)


def _checked(name: str, answer, run) -> None:
    """A Check button; the result is kept for this answer (a new answer needs a new check)."""
    key = f"exercise-result:{name}"
    if st.button("Check", key=f"exercise:{name}:check"):
        st.session_state[key] = (repr(answer), run())
    stored = st.session_state.get(key)
    if stored and stored[0] == repr(answer):
        _SAY[stored[1].ok](md_escape(stored[1].message))


def _exercise_3_1(settings: Settings) -> None:
    st.subheader("Exercise 3.1 · SelfAttention_v1 and v2 agree", anchor=False)
    st.markdown("`SelfAttention_v2` holds its weights in `nn.Linear` layers, `SelfAttention_v1` in "
                "`nn.Parameter(torch.rand(d_in, d_out))`. Copy v2's weights into v1 so both give the same context "
                "vectors on this screen's input. Which copy does it?")
    choice = st.radio("Copy the weights with", list(ex.COPY_CHOICES), index=None, key="exercise:3.1",
                      format_func=lambda c: f"`{ex.COPY_CHOICES[c].splitlines()[0]}`" + (" …" if "\n" in ex.COPY_CHOICES[c] else ""))
    _checked("3.1", (choice, _x_key(), settings.d_out),
             lambda: ex.check_3_1(choice, settings.x, settings.d_out, settings.seed_for("mask")))
    with st.expander("Worked solution"):
        st.code("sa_v1.W_query = torch.nn.Parameter(sa_v2.W_query.weight.T)\n"
                "sa_v1.W_key = torch.nn.Parameter(sa_v2.W_key.weight.T)\n"
                "sa_v1.W_value = torch.nn.Parameter(sa_v2.W_value.weight.T)", language="python")
        st.markdown(f"`nn.Linear` stores its weight as (d_out, d_in) and computes `x @ W.T`. With the transpose, "
                    f"v1 and v2 agree here to **{exercise_3_1(settings):.1e}**.")


def _exercise_3_2(settings: Settings) -> None:
    st.subheader("Exercise 3.2 · two-dimensional output from the wrapper", anchor=False)
    st.markdown("The book's `MultiHeadAttentionWrapper(d_in=3, d_out=2, context_length=6, dropout=0.0, num_heads=2)` "
                "turns its batch of shape (2, 6, 3) into context vectors of shape (2, 6, 4). Keep `num_heads=2`: which "
                "`d_out` gives 2-dimensional context vectors?")
    raw = st.text_input("d_out", key="exercise:3.2", placeholder="a whole number")
    _checked("3.2", raw, lambda: ex.check_3_2(raw))
    with st.expander("Worked solution"):
        st.code("torch.manual_seed(123)\nmha = MultiHeadAttentionWrapper(d_in=3, d_out=1, context_length=6, "
                "dropout=0.0, num_heads=2)\nprint(mha(batch).shape)", language="python")
        st.markdown(f"Each head projects to `d_out`, and `torch.cat` joins the heads: 2 × 1 = 2 columns, shape "
                    f"**{ex.check_3_2(1).detail['shape']}**.")


def _exercise_3_3(settings: Settings) -> None:
    st.subheader("Exercise 3.3 · GPT-2-sized attention", anchor=False)
    st.markdown("Set up `MultiHeadAttention` like the smallest GPT-2: 12 heads, 768-dimensional input and output "
                "embeddings, a context of 1,024 tokens. Then predict its number of parameters.")
    sizes = {name: column.text_input(name, key=f"exercise:3.3:{name}", placeholder="a whole number")
             for name, column in zip(ex.GPT2_SMALL, st.columns(len(ex.GPT2_SMALL)))}
    count = st.text_input("Your predicted parameter count (optional)", key="exercise:3.3:count")
    _checked("3.3", (sizes, count), lambda: ex.check_3_3(sizes, count))
    with st.expander("Worked solution"):
        st.code("mha = MultiHeadAttention(d_in=768, d_out=768, context_length=1024, dropout=0.0, num_heads=12)\n"
                "print(sum(p.numel() for p in mha.parameters()))", language="python")
        solved = ex.check_3_3({k: str(v) for k, v in ex.GPT2_SMALL.items()})
        st.markdown(f"**{solved.detail['count']:,}** parameters: 3 · 768 · 768 for W_query, W_key, W_value (no bias) "
                    "plus 768 · 768 + 768 for out_proj. The 1,024 × 1,024 mask is a buffer, not a parameter.")


# --- the readers' questions ----------------------------------------------------------------------

def reader_questions(stage: str, settings: Settings, **inputs) -> None:
    """A switch next to "Show common mistakes": the questions readers ask at this stage, computed."""
    if control(st.toggle, "Readers' questions", "readers",
               help="Questions from the book's issue tracker, each answered with the right and the wrong version."):
        for demo in _DEMOS[stage]:
            demo(settings, **inputs)


@st.cache_data(max_entries=4, show_spinner=False)
def _dropout_scale() -> pd.DataFrame:
    return pd.DataFrame(rq.dropout_scale())


def _scale_demo(settings, **_) -> None:
    frame = _dropout_scale()
    st.markdown("**1/p or 1/(1 − p)?** (the book's issues 428 and 431) 100,000 ones through PyTorch's own "
                "`nn.Dropout(p)` after `torch.manual_seed(123)`:")
    st.dataframe(frame, hide_index=True, width="content")
    low = frame.iloc[0]
    st.caption(f"nn.Dropout's survivors hold 1/(1 − p): {low['nn.Dropout survivor value']:.4f} at p = {low['p']:g}. Only "
               f"that keeps the average at 1 ({low['mean with 1/(1-p)']:.4f}); 1/p would make it "
               f"{low['mean with 1/p']:.4f}. At the book's p = 0.5 both are 2, which hides the difference.")


def _placement_demo(settings, record, p, seed, q, **_) -> None:
    rate = p if 0 < p < 1 else 0.5
    out = rq.dropout_placement(record["attn_scores"], rate, seed, record["keys"].shape[-1])
    row = pd.DataFrame({"keep mask": out["keep"][q], "dropout on the weights (book)": out["right"][q],
                        "dropout on the scores": out["wrong"][q]}, index=settings.labels).T
    pitfall(f"Dropout on the scores instead of the weights (issue 280; p = {rate:g})",
            "attn_scores = dropout(attn_scores)\nattn_weights = torch.softmax(masked / d_k**0.5, dim=-1)",
            "attn_weights = torch.softmax(masked / d_k**0.5, dim=-1)\nattn_weights = dropout(attn_weights)",
            f"A dropped score becomes 0, not −∞, so the dropped keys still get weight: "
            f"{', '.join(f'{float(v):.4f}' for v in out['wrong'][q][out['dropped'][q]][:6]) or '(none in this row)'} "
            f"in query {q + 1}'s row, and every row "
            f"sums to {float(out['wrong_row_sums'].min()):.4f}: nothing was dropped. After the mask, −∞ × 0 = nan "
            f"spoils {out['nan_rows_if_after_mask']} of {len(settings.labels)} rows.",
            f"Dropped keys get exactly 0, survivors × {1 / (1 - rate):.4f}; query {q + 1}'s row sums to "
            f"{float(out['right_row_sums'][q]):.4f} in this draw.")
    st.dataframe(row.iloc[:, :64], width="content")


def _platform_demo(settings, record, p, seed, **_) -> None:
    weights = record["attn_weights"][:64, :64].contiguous()
    out = rq.platform_dropout(weights, p if 0 < p < 1 else 0.5, seed)
    st.markdown("**Why do my dropout numbers differ from the book's?** `torch.manual_seed` seeds one global "
                "generator per device, and `nn.Dropout` draws from it:")
    cols = st.columns(3)
    cols[0].metric("book's call vs the app's private generator", f"{out['book_vs_app']:.1e}")
    cols[1].metric("cells changed by one extra draw after the seed", f"{out['cells_changed_by_one_extra_draw']} "
                                                                      f"of {out['cells']}")
    cols[2].metric("app's generator after someone else's draw", f"{out['app_repeatable']:.1e}")
    gpus = ", ".join(f"{d}: {n} of {out['cells']} cells differ from the CPU's mask"
                     for d, n in out["accelerator_cells_differing"].items())
    st.caption(f"torch {out['torch_version']}. " + (f"Same seed on {gpus}. " if gpus else
               "No GPU here, so the GPU's own generator (a different algorithm) was not compared. ")
               + "The app draws every keep mask on the CPU from its own torch.Generator, so the book's CPU numbers "
                 "come back on every device and for every visitor of the shared server.")


@st.cache_data(max_entries=4, show_spinner=False)
def _mask_storage(d_in: int, d_out: int) -> dict:
    return rq.mask_storage(d_in, d_out, 6)


def _buffer_demo(settings, record=None, **_) -> None:
    out = _mask_storage(settings.x.shape[-1], settings.d_out)
    target = out["target"]
    devices = pd.DataFrame({name: out[name]["devices"] for name in ("buffer", "attribute")})
    pitfall(f"The mask as a plain attribute instead of a buffer (bonus notebook 03_understanding-buffers; "
            f"moved with .to(\"{target}\"))",
            'self.mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)',
            'self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))',
            f"The mask stays on {out['attribute']['devices']['mask']}, and the forward pass on {target} fails: "
            f"{out['attribute']['error'] or 'no error raised'}. state_dict saves {out['attribute']['state_dict']}.",
            f"The mask moves to {out['buffer']['devices']['mask']}; the forward pass gives "
            f"{out['buffer']['output']}. state_dict saves {out['buffer']['state_dict']}.")
    st.dataframe(devices, width="content")
    if record is not None:
        st.caption(f"Build the mask separately or apply tril to the weights (issue 279)? Both of this screen's "
                   f"variants agree to {record['variants_max_abs_diff']:.1e}; the buffer is the second, built once.")


def _split_demo(settings, num_heads, **_) -> None:
    d_out, heads = (settings.d_out, num_heads) if 1 < num_heads and settings.d_out <= 12 else (4, 2)
    out = rq.head_split(min(len(settings.tokens), 6), d_out, heads)

    def table(rows):
        """One column per head, one row per row of it: which token's columns fill it."""
        return pd.DataFrame({f"head {i + 1}": [f"token {t} · " + (f"col {a}" if a == b else f"cols {a}–{b}")
                                               for t, a, b in head] for i, head in enumerate(rows)},
                            index=[f"row {t + 1}" for t in range(len(rows[0]))])
    st.markdown(f"**Splitting into heads** (d_out = {d_out}, {heads} heads, head_dim {out['head_dim']}): which "
                "token's numbers fill each head's rows.")
    left, right = st.columns(2)
    left.markdown("`view(b, T, h, d).transpose(1, 2)` (right)")
    left.dataframe(table(out["right"]), width="content")
    right.markdown("`view(b, h, T, d)` (wrong, same shape)")
    right.dataframe(table(out["wrong"]), width="content")
    st.caption("Tokens in each head: right " + "; ".join(f"head {i + 1}: {t}" for i, t in enumerate(out["right_tokens"]))
               + " · wrong " + "; ".join(f"head {i + 1}: {t}" for i, t in enumerate(out["wrong_tokens"])) + ".")


@st.cache_data(max_entries=4, show_spinner=False)
def _d_out_meaning(x_key, d_out: int, num_heads: int, seed: int) -> dict:
    return rq.d_out_meaning(cached_inputs(*x_key).x[:6], d_out, num_heads, seed)


def _d_out_demo(settings, num_heads, **_) -> None:
    same = _d_out_meaning(_x_key(), settings.d_out, num_heads, settings.seed_for("heads"))
    st.markdown(f"**What d_out means** (pull request 859): the same `d_out = {settings.d_out}, num_heads = {num_heads}` "
                "in both classes, on the first tokens of this input.")
    st.dataframe(pd.DataFrame({
        "MultiHeadAttentionWrapper": [str(same["wrapper_head_width"]), str(same["wrapper_shape"]), f"{same['wrapper_params']:,}"],
        "MultiHeadAttention": [str(same["mha_head_dim"]), str(same["mha_shape"]), f"{same['mha_params']:,}"]},
        index=["width of each head", "output shape", "parameters"]), width="content")
    st.caption(f"In the wrapper d_out is each head's width; in MultiHeadAttention it is the total, cut into heads. "
               f"The wrapper gives MultiHeadAttention's width with d_out = {same['wrapper_d_out_for_same_width']}: "
               f"output {same['wrapper_shape_for_same_width']}.")


_DEMOS = {"mask": [_buffer_demo], "dropout": [_scale_demo, _placement_demo, _platform_demo],
          "heads": [_split_demo, _d_out_demo]}
