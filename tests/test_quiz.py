"""Predict-first questions: computed from the inputs, right answers pass, wrong ones fail, bad ones get a note."""
import pytest
import torch

from attention_core.book import stages
from attention_core.lessons import traces as lesson, questions as quiz
from attention_core.book.inputs import BOOK_INPUTS, BOOK_TOKENS, random_inputs, random_token_names

from screens.registry import BY_NAME

TOKENS = list(BOOK_TOKENS)


def asked_by(screen: str, **inputs) -> list:
    """The questions a screen asks, as its registry entry declares them."""
    return BY_NAME[screen].questions(**inputs)


def _book(which="none", d_out=2):
    return lesson.projection_trace(BOOK_INPUTS, which, d_out, 123, "cpu")[0]


def _causal(x=BOOK_INPUTS, seed=789):
    return lesson.causal_trace(x, 2, seed, x.shape[0], "cpu")[0]


def _wrong_answer(question):
    """Some answer that is readable but not right."""
    if question.kind == "yesno":
        return "no" if question.answer else "yes"
    if question.kind == "choice":
        return next(o for i, o in enumerate(question.options) if i not in question.answer)
    return str(question.answer + 1)


def _all_questions(x, tokens, q, k, p=0.3, seed=5):
    scores_v1 = lesson.projection_trace(x, "v1", 4, seed, "cpu")[0]
    causal = _causal(x, seed)
    dropped, _ = stages.dropout(causal["attn_weights"], p, seed)
    return (asked_by("scores", scores=_book()["attn_scores"] if x is BOOK_INPUTS else
                           lesson.projection_trace(x, "none", 2, seed, "cpu")[0]["attn_scores"],
                           tokens=tokens, q=q, proj="none")
            + asked_by("scores", scores=scores_v1["attn_scores"], tokens=tokens, q=q, proj="v1")
            + asked_by("softmax", record=scores_v1, tokens=tokens, q=q)
            + asked_by("mask", record=causal, tokens=tokens, q=q, k=k)
            + asked_by("dropout", weights=causal["attn_weights"], dropped=dropped, p=p, train=True,
                             tokens=tokens, q=q)
            + asked_by("heads", d_in=x.shape[-1], d_out=4, num_heads=2))


def test_book_scores_largest_key_and_symmetry():
    largest, symmetric = quiz.scores_questions(_book()["attn_scores"], TOKENS, 1, "none")
    assert quiz.check(largest, "2 journey").ok is True
    assert quiz.check(largest, "3 starts").ok is False
    assert "1.4950" in largest.explanation and "1.4754" in largest.explanation
    with_row = quiz.scores_questions(_book()["attn_scores"], TOKENS, 3, "none")[0]  # "with" scores "journey" highest
    assert quiz.answer_text(with_row) == "2 journey" and quiz.check(with_row, "4 with").ok is False
    assert quiz.check(symmetric, "yes").ok is True and quiz.check(symmetric, "no").ok is False
    projected = quiz.scores_questions(_book("v1")["attn_scores"], TOKENS, 1, "v1")[1]  # q.k: W_q differs from W_k
    assert quiz.check(projected, "no").ok is True and quiz.check(projected, "yes").ok is False
    assert "1.8111" in projected.explanation and "1.8284" in projected.explanation


def test_softmax_keeps_order_and_scaling_flattens():
    order, sharper = quiz.softmax_questions(_book("v1"), TOKENS, 1)
    assert quiz.check(order, "2 journey").ok is True and quiz.check(order, "1 Your").ok is False
    assert quiz.check(sharper, "larger").ok is True and quiz.check(sharper, "smaller").ok is False
    assert "0.2264" in sharper.explanation and "0.2507" in sharper.explanation
    same = quiz.softmax_questions(_book("v1", d_out=1), TOKENS, 1)[1]  # d_k = 1: √1 changes nothing
    assert quiz.answer_text(same) == "the same" and quiz.check(same, "larger").ok is False


def test_mask_visible_keys_and_weight_change():
    record = _causal()
    for q in range(6):
        count = quiz.mask_questions(record, TOKENS, q, 0)[0]
        assert quiz.check(count, str(q + 1)).ok is True and quiz.check(count, str(q)).ok is False
    assert quiz.answer_text(quiz.mask_questions(record, TOKENS, 1, 0)[1]) == "larger"
    assert "0.2041" in quiz.mask_questions(record, TOKENS, 1, 0)[1].explanation
    assert quiz.answer_text(quiz.mask_questions(record, TOKENS, 1, 3)[1]) == "exactly 0"
    assert quiz.answer_text(quiz.mask_questions(record, TOKENS, 5, 2)[1]) == "the same"  # the last row has no future


@pytest.mark.parametrize("p, train, right, wrong", [(0.1, True, "1.11", "10"), (0.2, True, "1.25", "5"),
                                                    (0.5, True, "2", "0.5"), (0.5, False, "1", "2"),
                                                    (0.0, True, "1", "2"), (1.0, True, "0", "1")])
def test_dropout_scale_question(p, train, right, wrong):
    weights = _causal()["attn_weights"]
    dropped, _ = stages.dropout(weights, p, 123, train)
    factor, row = quiz.dropout_questions(weights, dropped, p, train, TOKENS, 2)
    assert quiz.check(factor, right).ok is True, factor.explanation
    assert quiz.check(factor, wrong).ok is False
    total = float(dropped[2].sum())
    assert quiz.check(row, "yes" if abs(total - 1) < 1e-4 else "no").ok is True
    assert f"{total:.4f}" in row.explanation


def test_heads_questions():
    head_dim, columns, params = quiz.heads_questions(3, 4, 2)
    assert quiz.check(head_dim, "2").ok and not quiz.check(head_dim, "4").ok
    assert quiz.check(columns, "8").ok and not quiz.check(columns, "4").ok
    assert quiz.check(params, "no").ok and not quiz.check(params, "yes").ok
    assert "56 with 1 head" in params.explanation and "72" in params.explanation  # 3·3·4 + 16 + 4; wrapper 2·3·3·4


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_every_question_on_random_inputs_both_ways(seed):
    x = random_inputs(7, 4, seed)
    tokens = random_token_names(7)
    for question in _all_questions(x, tokens, q=seed % 7, k=(seed * 3) % 7, seed=seed):
        right = (question.options[question.answer[0]] if question.kind == "choice" else
                 ("yes" if question.answer else "no") if question.kind == "yesno" else str(question.answer))
        assert quiz.check(question, right).ok is True, question.prompt
        verdict = quiz.check(question, _wrong_answer(question))
        assert verdict.ok is False and quiz.answer_text(question) in verdict.message, question.prompt


@pytest.mark.parametrize("raw", [None, "", "   ", "abc", "nan", "inf", "-1", "1e400", "1/0", [1], {"a": 1}])
def test_bad_answers_get_a_kind_note_never_an_exception(raw):
    for question in _all_questions(BOOK_INPUTS, TOKENS, 1, 0):
        verdict = quiz.check(question, raw)
        assert verdict.ok is None, (question.prompt, raw, verdict)
        assert verdict.message and "Traceback" not in verdict.message


def test_out_of_range_numbers_get_a_note():
    count = quiz.mask_questions(_causal(), TOKENS, 1, 0)[0]
    verdict = quiz.check(count, "7")  # six tokens: no query sees seven keys
    assert verdict.ok is None and "between 0 and 6" in verdict.message
    assert quiz.check(count, "6").ok is False  # possible, but wrong


def test_numbers_accept_commas_and_fractions():
    weights = _causal()["attn_weights"]
    factor = quiz.dropout_questions(weights, weights, 0.2, True, TOKENS, 1)[0]
    for raw in ("1.25", "1,25", " 1.25 ", "1/0.8", "5/4", 1.25):
        assert quiz.check(factor, raw).ok is True, raw


def test_new_inputs_give_new_questions_and_rounds():
    a = quiz.mask_questions(_causal(), TOKENS, 1, 0)
    b = quiz.mask_questions(_causal(), TOKENS, 1, 0)
    c = quiz.mask_questions(_causal(seed=1), TOKENS, 1, 0)
    assert [q.qid for q in a] == [q.qid for q in b]
    assert a[1].qid != c[1].qid
    x = random_inputs(6, 3, 1)
    assert quiz.round_id("mask", BOOK_INPUTS, 2, 789) == quiz.round_id("mask", BOOK_INPUTS.clone(), 2, 789)
    assert quiz.round_id("mask", BOOK_INPUTS, 2, 789) != quiz.round_id("mask", x, 2, 789)
    assert quiz.round_id("mask", BOOK_INPUTS, 2, 789) != quiz.round_id("mask", BOOK_INPUTS, 2, 790)
    assert quiz.round_id("mask", BOOK_INPUTS, 2, 789) != quiz.round_id("dropout", BOOK_INPUTS, 2, 789)


def test_ties_accept_every_largest_key():
    scores = torch.tensor([[1.0, 2.0, 2.0], [0.0, 1.0, 0.0], [3.0, 0.0, 1.0]])
    largest = quiz.scores_questions(scores, ["a", "b", "c"], 0)[0]
    assert quiz.check(largest, "2 b").ok and quiz.check(largest, "3 c").ok and not quiz.check(largest, "1 a").ok


def test_trained_questions_name_the_bottleneck_head_and_the_backed_up_induction_head():
    ablated = [[0.90, 0.95, 0.38, 0.96], [0.93, 0.94, 0.92, 0.93]]  # (layers, heads), like the shipped repeat model
    induction = [[0.03, 0.08, 0.08, 0.09], [0.97, 0.98, 0.88, 0.93]]
    bottleneck, backup = quiz.trained_questions("repeat", ablated, 0.96, induction)
    assert bottleneck.options[2] == "1.3"
    assert quiz.check(bottleneck, 2).ok and not quiz.check(bottleneck, 0).ok
    assert "58 points" in bottleneck.explanation
    assert quiz.check(backup, "no").ok and not quiz.check(backup, "yes").ok  # 2.2 off costs 2 points
    assert len(quiz.trained_questions("sort", ablated, 0.96)) == 1  # no induction score for sort


def test_no_prompt_points_to_what_class_mode_hides():
    # Class mode shows only the controls above the questions: "the view below" or "this draw" is not there yet.
    x, tokens = random_inputs(7, 4, 3), random_token_names(7)
    asked = _all_questions(x, tokens, q=2, k=1) + _all_questions(BOOK_INPUTS, TOKENS, 1, 0)
    weights = _causal()["attn_weights"]
    for p, train in ((0.5, True), (0.5, False), (1.0, True)):
        asked += quiz.dropout_questions(weights, stages.dropout(weights, p, 123, train)[0], p, train, TOKENS, 2, 123)
    asked += quiz.heads_questions(768, 768, 12)
    from attention_core.lessons import memory_layout
    asked += asked_by("memory", rows=memory_layout.step_rows(memory_layout.chapter_steps(x, 2, 2, seed=3)))
    asked += asked_by("trained", task="repeat", ablated=[[0.4, 0.9], [0.8, 0.7]], accuracy=0.95,
                            induction=[[0.1, 0.2], [0.9, 0.3]])
    for question in asked:
        found = [words for words in quiz.HIDDEN_REFERENCES if words in question.prompt.lower()]
        assert not found, (question.prompt, found)
    row = quiz.dropout_questions(weights, weights, 0.5, True, TOKENS, 2, 123)[1]
    assert "dropout seed 123" in row.prompt and "p = 0.5" in row.prompt  # the draw named by its visible controls


def test_every_scale_and_count_question_says_what_would_give_it_away():
    weights = _causal()["attn_weights"]
    factor = quiz.dropout_questions(weights, weights, 0.5, True, TOKENS, 2)[0]
    assert "1/(1 − p)" in factor.gives_away and "1/(1 − p)" in factor.explanation
    assert "does nothing" in quiz.dropout_questions(weights, weights, 0.5, False, TOKENS, 2)[0].gives_away
    head_dim, columns, _ = quiz.heads_questions(768, 768, 12)
    assert "head_dim 64" in head_dim.gives_away and "9,216 columns" in columns.gives_away


@pytest.mark.parametrize("num_heads", [12, 4, 1])
def test_heads_questions_leave_exercise_3_3s_answer_to_the_exercise(num_heads):
    # At d_in = d_out = 768 MultiHeadAttention has 2,360,064 parameters whatever num_heads is: exercise 3.3's answer.
    # With 12 heads the wrapper's 21,233,664 is in the exercise's worked solution too.
    from attention_core.lessons.exercises import solution_counts
    assert {2_360_064, 21_233_664} <= solution_counts()
    for question in quiz.heads_questions(768, 768, num_heads):
        for answer in solution_counts():
            assert f"{answer:,}" not in question.prompt + question.explanation, question.explanation
    params = quiz.heads_questions(768, 768, num_heads)[2]
    assert "exercise 3.3" in params.explanation and quiz.check(params, "no").ok
    assert "1,040 with 1 head" in quiz.heads_questions(16, 16, 4)[2].explanation  # other sizes keep their numbers
