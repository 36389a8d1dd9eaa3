"""AppTest: quiz=1 hides each stage until its predictions are checked; presenter mode reveals with one
button; bad answers get notes; the exercises and the readers' questions work on their screens."""
import pytest

from conftest import open_screen, page_text
from screens.registry import STAGES

STAGE_NAMES = [s.name for s in STAGES]  # every stage the registry declares: a new one is tested here at once
# A heading the mask and dropout screens show only after their answers are revealed (the tests of one screen).
AFTER = {"mask": "The book's two ways, side by side", "dropout": "Row sums and the average over many draws"}


def _headings(at):
    """Headings, and the titles of the folded sections (a stage screen's sections appear after the reveal too)."""
    return [h.value for kind in ("header", "subheader") for h in at.get(kind)] + [e.label for e in at.expander]


def _quiz_widgets(at):
    return [w for w in list(at.radio) + list(at.text_input) + list(at.selectbox) if str(w.key).startswith("quiz:")]


def _button(at, suffix):
    return next(b for b in at.button if str(b.key).endswith(suffix))


@pytest.mark.parametrize("stage", STAGE_NAMES)
def test_each_stage_asks_before_it_shows(stage):
    at = open_screen(stage, quiz=1)
    asking = _headings(at)
    assert "Predict first" in asking and not at.expander  # none of the lesson's folded sections yet
    assert len(_quiz_widgets(at)) >= 2
    _button(at, ":skip").click().run()  # "show me without predicting"
    assert not at.exception
    assert at.expander and set(_headings(at)) - set(asking)  # the lesson and its sections, after the answers
    assert any(i.value.startswith("Answer:") for i in at.info)


def test_the_trained_screen_asks_which_head_matters_before_its_numbers():
    at = open_screen("trained", quiz=1)
    assert "Predict first" in _headings(at) and "What each head does, in numbers" not in _headings(at)
    picker = next(w for w in _quiz_widgets(at) if ":bottleneck:" in str(w.key))
    picker.set_value("1.3").run()  # head 1.3: the previous-token head everything relies on
    next(w for w in _quiz_widgets(at) if ":backup:" in str(w.key)).set_value("no").run()  # backed up
    _button(at, ":check").click().run()
    assert not at.exception and "What each head does, in numbers" in _headings(at)
    assert sum("Right" in box.value for box in at.success) == 2, [b.value for b in at.success]
    assert any("1\\.3" in box.value or "1.3" in box.value for box in at.success)


def test_without_quiz_nothing_is_asked():
    at = open_screen("mask")
    assert "Predict first" not in _headings(at) and AFTER["mask"] in _headings(at)


def test_mask_answers_checked_with_real_numbers():
    at = open_screen("mask", quiz=1)
    _button(at, ":check").click().run()  # nothing answered yet
    assert not at.exception and AFTER["mask"] not in _headings(at)
    notes = [i.value for i in at.info]
    assert any("Type a number first" in n for n in notes) and any("Pick one of the options" in n for n in notes)
    at.text_input[0].input("three").run()
    _button(at, ":check").click().run()
    assert any("is not a number" in i.value for i in at.info) and AFTER["mask"] not in _headings(at)
    at.text_input[0].input("3").run()  # wrong: query 2 sees 2 keys
    next(r for r in _quiz_widgets(at) if r.key.split(":")[-2] == "change").set_value("larger").run()
    _button(at, ":check").click().run()
    assert not at.exception and AFTER["mask"] in _headings(at)
    assert any("Not quite: you said 3; the answer is 2" in w.value for w in at.warning)
    assert any("Right" in s.value and "0\\.5517" in s.value for s in at.success)  # the real weight
    at.session_state["keep:query"] = 4  # exploring (a query committed in the view) does not ask again ...
    at.run()
    assert AFTER["mask"] in _headings(at)
    at.session_state["keep:input"] = "random"  # ... new inputs do
    at.run()
    assert not at.exception and AFTER["mask"] not in _headings(at) and "Predict first" in _headings(at)


def test_presenter_mode_shows_the_question_large_and_reveals():
    at = open_screen("dropout", quiz=1, presenter=1)
    assert not _quiz_widgets(at)  # the room answers aloud
    assert any("what are the weights that survive multiplied by" in s.value for s in at.subheader)
    assert AFTER["dropout"] not in _headings(at)
    next(b for b in at.button if b.label == "Reveal").click().run()
    assert not at.exception and AFTER["dropout"] in _headings(at)
    assert any("Answer: 2\\." in i.value and "1/\\(1 − p\\)" in i.value for i in at.info)


def test_exercise_3_1_on_the_scores_screen():
    at = open_screen("scores", sections=["exercises"])
    at.radio(key="exercise:3.1").set_value("weight").run()
    _button(at, "exercise:3.1:check").click().run()
    assert any("PyTorch refuses" in w.value for w in at.warning)
    at.radio(key="exercise:3.1").set_value("weight.T").run()
    assert not any("PyTorch refuses" in w.value for w in at.warning)  # a new answer needs a new check
    _button(at, "exercise:3.1:check").click().run()
    assert any("Right: the outputs agree" in s.value for s in at.success)


def test_exercise_3_1s_options_show_all_of_their_code_and_differ():
    # The two-line option was cut to its first line, which read exactly like the option before it.
    from attention_core.lessons.exercises import COPY_CHOICES
    options = open_screen("scores", sections=["exercises"]).radio(key="exercise:3.1").options
    assert len(set(options)) == len(options) == len(COPY_CHOICES)
    for option, code in zip(options, COPY_CHOICES.values()):
        assert all(f"`{line}`" in option for line in code.splitlines()), option


def test_exercises_3_2_and_3_3_on_the_heads_screen():
    at = open_screen("heads", sections=["exercises"])
    at.text_input(key="exercise:3.2").input("two").run()
    _button(at, "exercise:3.2:check").click().run()
    assert any("is not a number" in i.value for i in at.info) and not at.exception
    at.text_input(key="exercise:3.2").input("1").run()
    _button(at, "exercise:3.2:check").click().run()
    assert any("(2, 6, 2)" in s.value.replace("\\", "") for s in at.success)
    for name, raw in (("d_in", "768"), ("d_out", "768"), ("context_length", "1024"), ("num_heads", "12")):
        at.text_input(key=f"exercise:3.3:{name}").input(raw)
    at.text_input(key="exercise:3.3:count").input("2360064").run()
    _button(at, "exercise:3.3:check").click().run()
    assert any("2,360,064" in s.value for s in at.success) and not at.exception
    assert "2,360,064" in page_text(at)  # the worked solution's count


def test_readers_questions_are_computed_on_their_screens():
    text = page_text(open_screen("dropout", sections=["questions"]))
    assert "1.1111" in text and "1/p" in text  # nn.Dropout's survivor value at p = 0.1
    assert "nan" in text and "Dropout on the scores" in text
    # The mask-as-attribute question moves the layer to a device and reads PyTorch's error: the CPU's words, on the
    # CPU of any machine (on a CUDA machine the screen's auto device would give CUDA's message instead).
    text = page_text(open_screen("mask", sections=["questions"], device="cpu"))
    assert "not on the expected device cpu" in text and "'mask', 'W_query.weight'" in text
    text = page_text(open_screen("heads", sections=["questions"]))
    assert "token 4 · col 1" in text and "(1, 6, 4)" in text  # book: d_out 2, 2 heads; head 2 gets tokens 4-6


WIDGETS = ("slider", "select_slider", "toggle", "number_input", "checkbox", "radio", "selectbox", "text_input")


@pytest.mark.parametrize("stage, params", [(stage, {}) for stage in STAGE_NAMES] + [("dropout", {"train": 0}),
                                                                              ("dropout", {"dropout": 1})],
                         ids=STAGE_NAMES + ["dropout-eval", "dropout-p1"])
def test_nothing_above_a_stages_questions_gives_their_answers(stage, params, monkeypatch):
    # Class mode shows a stage's title, intro and controls, then asks. The dropout intro said "multiplies the
    # survivors by 1/(1 − p)" right above "what are the survivors multiplied by?". Each question names the
    # phrases that would give it away (Question.gives_away); none may be on the screen above it.
    from attention_core.lessons import questions as quiz
    import ui.teach.quiz
    asked, real = [], ui.teach.quiz.questions_for

    def recording(name, **inputs):
        found = real(name, **inputs)
        asked.extend(found)
        return found

    monkeypatch.setattr(ui.teach.quiz, "questions_for", recording)
    at = open_screen(stage, quiz=1, **params)
    assert "Predict first" in _headings(at) and not at.expander and asked
    shown = [page_text(at)] + [str(part) for kind in WIDGETS for w in at.main.get(kind)
                               for part in (w.label, getattr(w, "help", None)) if part]
    above = "\n".join(shown).replace("\\", "")  # markdown escapes: 1/\(1 − p\) is 1/(1 − p) on screen
    for question in asked:
        found = [phrase for phrase in question.gives_away if phrase in above]
        assert not found, (question.prompt, found)
        assert not [w for w in quiz.HIDDEN_REFERENCES if w in question.prompt.lower()], question.prompt
    if stage in ("dropout", "heads", "mask"):  # the stages whose questions name their give-aways
        assert any(q.gives_away for q in asked)
