"""Join codes, teacher tokens and student ids (rooms/codes.py): made at random, read back strictly."""
import time

import pytest

from rooms import codes
from rooms.codes import (ALPHABET, CODE_LEN, format_code, new_code, new_student_id, new_teacher_token, parse_code,
                         token_matches, valid_student_id)


def test_codes_have_six_characters_none_of_them_look_alikes():
    assert not set("0OQD1IL2Z5S8BUV") & set(ALPHABET)
    assert len(set(ALPHABET)) == len(ALPHABET) >= 20
    made = {new_code() for _ in range(2_000)}
    assert all(len(code) == CODE_LEN and set(code) <= set(ALPHABET) for code in made)
    assert len(made) > 1_990  # random, not a counter or a clock (85 million codes: a clash here is rare)


@pytest.mark.parametrize("raw", ["K7MP3X", "k7mp3x", " K7M-P3X ", "k7m p3x", "K-7-M-P-3-X", "\tK7MP3X\n"])
def test_a_typed_or_linked_code_is_forgiven_case_spaces_and_dashes(raw):
    assert parse_code(raw) == "K7MP3X"


@pytest.mark.parametrize("raw", [
    "", "K7MP3", "K7MP3XA", "K7MP30", "K7MP3O", "K7MPIX", "K7M_P3X", "K7M.P3X", "K7M\nP3X", "K7M%20P3X",
    "<b>K7M", "K7MP3X;", "ﬀK7MP3", "K7МP3X",  # the last has a Cyrillic М
    None, 123456, b"K7MP3X", ["K7MP3X"], " " * 33 + "K7MP3X"])
def test_anything_else_is_refused_not_guessed(raw):
    assert parse_code(raw) is None


def test_a_huge_input_is_refused_before_any_work():
    huge = "K7MP3X" + "-" * 10_000_000  # normalising this would strip ten million dashes
    start = time.perf_counter()
    assert parse_code(huge) is None
    assert time.perf_counter() - start < 0.01


def test_format_code_splits_it_for_the_projector():
    assert format_code("K7MP3X") == "K7M-P3X" and parse_code(format_code("K7MP3X")) == "K7MP3X"


def test_teacher_tokens_are_long_random_and_url_safe():
    tokens = {new_teacher_token() for _ in range(500)}
    assert len(tokens) == 500
    assert all(len(t) >= 32 and all(c.isalnum() or c in "-_" for c in t) for t in tokens)


def test_only_the_exact_token_matches():
    token = new_teacher_token()
    assert token_matches(token, token)
    assert token_matches(token, "".join(list(token)))  # an equal string that is another object
    for forged in [token[:-1], token + "x", token.upper() if token.upper() != token else token.lower(), "",
                   None, 42, new_teacher_token(), token + "\x00", "x" * 10_000]:
        assert not token_matches(token, forged), forged
    assert not token_matches(None, token) and not token_matches("", "")


def test_tokens_are_compared_in_constant_time(monkeypatch):
    calls = []
    real = codes.hmac.compare_digest
    monkeypatch.setattr(codes.hmac, "compare_digest", lambda a, b: calls.append((a, b)) or real(a, b))
    token = new_teacher_token()
    assert token_matches(token, token) and not token_matches(token, new_teacher_token())
    assert len(calls) == 2


def test_student_ids():
    ids = {new_student_id() for _ in range(500)}
    assert len(ids) == 500 and all(valid_student_id(i) for i in ids)
    for bad in ["", "short", "x" * 65, "has space!", "<script>", None, 12345678, "ab/cdefgh"]:
        assert not valid_student_id(bad), bad
