"""Exercises 3.1-3.3: each check runs the student's answer; right passes, wrong fails, bad input gets a note."""
import pytest

from attention_core.lessons import exercises as ex
from attention_core.book.inputs import random_inputs
from attention_core.book.modules import MultiHeadAttention, count_parameters


def test_3_1_only_the_transposed_copy_agrees():
    right = ex.check_3_1("weight.T")
    assert right.ok is True and right.detail["diff"] < 1e-6
    no_transpose = ex.check_3_1("weight")  # the book's sizes: (2, 3) cannot multiply (6, 3)
    assert no_transpose.ok is False and "cannot be multiplied" in no_transpose.message
    partial = ex.check_3_1("qk only")
    assert partial.ok is False and partial.detail["diff"] > 0.01


def test_3_1_square_weights_run_but_differ_without_the_transpose():
    x = random_inputs(5, 4, 3)
    assert ex.check_3_1("weight.T", x, 4, 11).ok is True
    wrong = ex.check_3_1("weight", x, 4, 11)
    assert wrong.ok is False and wrong.detail["diff"] > 0.01 and "d_in = d_out" in wrong.message


@pytest.mark.parametrize("choice", [None, "", "weights", 3])
def test_3_1_without_a_choice_gets_a_note(choice):
    result = ex.check_3_1(choice)
    assert result.ok is None and "Pick" in result.message


def test_3_2_d_out_one_gives_two_columns():
    right = ex.check_3_2("1")
    assert right.ok is True and right.detail["shape"] == (2, 6, 2)
    wrong = ex.check_3_2("2")  # the book's own setting: 2 heads x 2 = 4 columns
    assert wrong.ok is False and wrong.detail["shape"] == (2, 6, 4) and "4 columns" in wrong.message


@pytest.mark.parametrize("raw, hint", [("", "first"), (None, "first"), ("abc", "not a number"),
                                       ("1.5", "whole number"), ("0", "outside"), ("1e9", "outside"),
                                       ("nan", "whole number"), ("-3", "outside")])
def test_3_2_bad_answers_get_a_note(raw, hint):
    result = ex.check_3_2(raw)
    assert result.ok is None and hint in result.message


GPT2 = {"d_in": "768", "d_out": "768", "context_length": "1024", "num_heads": "12"}


def test_3_3_gpt2_small_has_2360064_parameters():
    result = ex.check_3_3(GPT2, "2,360,064")
    assert result.ok is True and result.detail["count"] == ex.GPT2_PARAMS == 2_360_064
    built = MultiHeadAttention(768, 768, 1024, 0.0, 12)  # a real one, not on the meta device
    assert count_parameters(built) == result.detail["count"]
    assert ex.check_3_3(GPT2).ok is True  # the count is optional


@pytest.mark.parametrize("change, count", [({"num_heads": "8"}, None), ({"context_length": "6"}, None),
                                           ({"d_in": "512"}, None), ({}, "2359296"), ({}, "2360064.5")])
def test_3_3_wrong_sizes_or_count_fail(change, count):
    result = ex.check_3_3(GPT2 | change, count)
    if count == "2360064.5":
        assert result.ok is None  # not a whole number: a note
    else:
        assert result.ok is False


@pytest.mark.parametrize("change, hint", [({"d_in": ""}, "first"), ({"num_heads": "7"}, "does not divide"),
                                          ({"d_out": "100000"}, "outside"), ({"context_length": "lots"}, "not a number")])
def test_3_3_bad_sizes_get_a_note(change, hint):
    result = ex.check_3_3(GPT2 | change)
    assert result.ok is None and hint in result.message


def test_3_3_builds_large_layers_without_memory():
    result = ex.check_3_3({"d_in": "4096", "d_out": "4096", "context_length": "8192", "num_heads": "32"})
    assert result.ok is False and result.detail["count"] == 4 * 4096 * 4096 + 4096
