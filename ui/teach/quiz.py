"""Class mode on screen: predict before you see, and the chapter's exercises.

All questions and checks are computed in attention_core (quiz.py, exercises.py); this module only
lays them out (the readers' questions are in ui/readers.py). What a student answered and whether a
stage is revealed live in st.session_state under the stage and the round (quiz.round_id: the
inputs, d_out and seed), so a new sentence or seed asks again while moving a slider does not.
"""
import pandas as pd
import streamlit as st

from attention_core.lessons import exercises as ex
from attention_core.lessons import questions as quiz
from attention_core.book.modules import mha_parameter_count, out_proj_parameter_count, wrapper_parameter_count
from ui.state import catalog
from ui.compute.cache import exercise_3_1
from ui.state import sections
from ui.state.settings import Settings
from ui.state.session import sync_url
from ui.teach import room_quiz
from attention_core.drawing.text import md_escape
from attention_core.drawing.numbers import scientific

SAY = {True: st.success, False: st.warning, None: st.info}  # a wrong answer is a warning, never an error box


def questions_for(screen: str, **inputs) -> list:
    """The questions the screen's registry entry declares, computed from its tensors."""
    return catalog.screen(screen).questions(**inputs)


# --- predict first --------------------------------------------------------------------------------

def predict_first(stage: str, settings: Settings, round_of=None, **inputs) -> bool:
    """With quiz=1: ask this stage's questions and return False until they are answered (or, in
    presenter mode, revealed); the screen then stops. Without quiz=1: True at once.
    round_of: what makes a new round (default: the sidebar's input, d_out and the stage's seed)."""
    if not settings.quiz and settings.room is None:  # a room's students are always asked first
        return True
    round_key = "quiz:" + (quiz.round_id(stage, *round_of) if round_of is not None else
                           quiz.round_id(stage, settings.x, settings.d_out, settings.seed_for(stage)))
    state = st.session_state.setdefault(round_key, {"revealed": False, "results": []})
    sections.hold(not state["revealed"])  # no section of the screen opens or runs before the reveal
    if state["revealed"]:
        if "room" in state and settings.room is not None and settings.room.teacher:
            room_quiz.after_reveal(*state["room"])  # the room's counts stay on the teacher's screen, answers marked
        _results(state["results"], round_key)
        return True
    questions = questions_for(stage, tokens=settings.tokens, **inputs)
    seat = settings.room
    if seat is not None and seat.teacher:
        done = room_quiz.ask_teacher(questions, state, round_key, seat)
    elif seat is not None:
        done = room_quiz.ask_student(questions, state, round_key, seat, _ask)
    else:
        done = (_room if settings.presenter else _student)(questions, state, round_key)
    if done:
        st.rerun()  # the whole page: a button inside a fragment would rerun only the fragment
    sync_url()  # the screen stops here, before the fragment or main.py would write the URL
    return False


def _label(i: int, question: quiz.Question) -> str:
    return f"**{i}.** {md_escape(question.prompt)}"


def _ask(i: int, question: quiz.Question, key: str) -> None:
    """One question's widget: a number box, yes/no, the options, or a picker when there are many keys."""
    if question.kind == "number":
        st.text_input(_label(i, question), key=key, placeholder="a number, e.g. 2 or 0.25")
    elif question.kind == "yesno":
        st.radio(_label(i, question), ["yes", "no"], index=None, key=key, horizontal=True)
    elif len(question.options) <= 8:
        st.radio(_label(i, question), question.options, index=None, key=key, horizontal=True, format_func=md_escape)
    else:
        st.selectbox(_label(i, question), question.options, index=None, key=key, placeholder="pick a key")


def _student(questions, state, round_key) -> bool:
    with st.container(border=True, key=f"predict-{round_key.split(':')[1]}"):
        st.subheader("Predict first", anchor=False)
        st.caption("Commit to an answer before the screen shows it; checking reveals the screen.")
        for i, question in enumerate(questions, 1):
            _ask(i, question, f"{round_key}:{question.qid}")
        left, right = st.columns(2)
        checked = left.button("Check my predictions", type="primary", key=f"{round_key}:check")
        skipped = right.button("Show me without predicting", key=f"{round_key}:skip")
        if skipped:
            state.update(revealed=True, results=[(q.prompt, None, quiz.revealed_text(q)) for q in questions])
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
        state.update(revealed=True, results=[(q.prompt, None, quiz.revealed_text(q)) for q in questions])
        return True
    return False


def _results(results, round_key) -> None:
    with st.expander("Predictions", expanded=True, icon=":material/psychology:"):
        for prompt, ok, message in results:
            st.markdown(f"**{md_escape(prompt)}**")
            SAY[ok](md_escape(message))
        if st.button("Ask again", key=f"{round_key}:again"):
            del st.session_state[round_key]
            st.rerun()


# --- the chapter's exercises ---------------------------------------------------------------------

def exercises(settings: Settings, *numbers: str) -> None:
    """The chapter's exercises by number ("3.1", "3.2", "3.3"), each checked by running the answer."""
    for number in numbers:
        with st.container():  # one block: a slide shows an exercise whole
            {"3.1": _exercise_3_1, "3.2": _exercise_3_2, "3.3": _exercise_3_3}[number](settings)


def _checked(name: str, answer, run) -> None:
    """A Check button; the result is kept for this answer (a new answer needs a new check)."""
    key = f"exercise-result:{name}"
    if st.button("Check", key=f"exercise:{name}:check"):
        st.session_state[key] = (repr(answer), run())
    stored = st.session_state.get(key)
    if stored and stored[0] == repr(answer):
        SAY[stored[1].ok](md_escape(stored[1].message))


def _exercise_3_1(settings: Settings) -> None:
    st.subheader("Exercise 3.1 · SelfAttention_v1 and v2 agree", anchor=False)
    st.markdown("`SelfAttention_v2` holds its weights in `nn.Linear` layers, `SelfAttention_v1` in "
                "`nn.Parameter(torch.rand(d_in, d_out))`. Copy v2's weights into v1 so both give the same context "
                "vectors on this screen's input. Which copy does it?")
    choice = st.radio("Copy the weights with", list(ex.COPY_CHOICES), index=None, key="exercise:3.1",
                      format_func=_copy_label)
    _checked("3.1", (choice, settings.inputs_id, settings.d_out),
             lambda: ex.check_3_1(choice, settings.x, settings.d_out, settings.seed_for("mask")))
    with st.expander("Worked solution"):
        st.code("sa_v1.W_query = torch.nn.Parameter(sa_v2.W_query.weight.T)\n"
                "sa_v1.W_key = torch.nn.Parameter(sa_v2.W_key.weight.T)\n"
                "sa_v1.W_value = torch.nn.Parameter(sa_v2.W_value.weight.T)", language="python", wrap_lines=True)
        st.markdown(f"`nn.Linear` stores its weight as (d_out, d_in) and computes `x @ W.T`. With the transpose, "
                    f"v1 and v2 agree here to **{scientific(exercise_3_1(settings))}**.")


def _copy_label(choice: str) -> str:
    """An option of exercise 3.1 in full: every line of its code, so no two options read alike."""
    return "  \n".join(f"`{line}`" for line in ex.COPY_CHOICES[choice].splitlines())


def _exercise_3_2(settings: Settings) -> None:
    st.subheader("Exercise 3.2 · two-dimensional output from the wrapper", anchor=False)
    st.markdown("The book's `MultiHeadAttentionWrapper(d_in=3, d_out=2, context_length=6, dropout=0.0, num_heads=2)` "
                "turns its batch of shape (2, 6, 3) into context vectors of shape (2, 6, 4). Keep `num_heads=2`: which "
                "`d_out` gives 2-dimensional context vectors?")
    raw = st.text_input("d_out", key="exercise:3.2", placeholder="a whole number")
    _checked("3.2", raw, lambda: ex.check_3_2(raw))
    with st.expander("Worked solution"):
        st.code("torch.manual_seed(123)\nmha = MultiHeadAttentionWrapper(d_in=3, d_out=1, context_length=6, "
                "dropout=0.0, num_heads=2)\nprint(mha(batch).shape)", language="python", wrap_lines=True)
        st.markdown(f"Each head projects to `d_out`, and `torch.cat` joins the heads: 2 × 1 = 2 columns, shape "
                    f"**{ex.worked_3_2_shape()}**.")


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
                "print(sum(p.numel() for p in mha.parameters()))", language="python", wrap_lines=True)
        st.markdown(f"**{ex.gpt2_small_count():,}** parameters: 3 · 768 · 768 for W_query, W_key, W_value (no bias) "
                    "plus 768 · 768 + 768 for out_proj. The 1,024 × 1,024 mask is a buffer, not a parameter.")
        gpt2 = (768, 768, 12)
        st.table(pd.DataFrame([("GPT-2 small: d_in 768, d_out 768, 12 heads", f"{wrapper_parameter_count(*gpt2):,}",
                                f"{mha_parameter_count(*gpt2):,}", f"{out_proj_parameter_count(768):,}")],
                              columns=["setting", "MultiHeadAttentionWrapper", "MultiHeadAttention", "of which out_proj"]),
                 hide_index=True, width="content")
        st.caption("The wrapper of 12 full-width CausalAttention heads would hold nine times as many: each head "
                   "projects to all 768 columns.")
