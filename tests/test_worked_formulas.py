"""A formula worked with rounded numbers redoes by hand: each shown number is what the shown numbers before it give.

A teacher's read found 0.2041 / (0.2041 + 0.1659) = 0.5517 (it is 0.5516), 1.3899 + 1.1295 = 2.5195 (2.5194) and
e^(0.1723/√2) = 1.1295 (1.1296) on /mask: students who check the slide by hand find them. These tests redo every
step of the three worked formulas from the numbers they print, on many random rows."""
import math
import re

import pytest
import torch

from attention_core.drawing.text import causal_softmax_latex, renormalised_latex, softmax_cell_latex

NUMBER = r"-?\d(?:\d|,|\{,\})*\.\d+"  # 0.2041, -1.0493, 1{,}088.7280


def _numbers(text: str) -> list[float]:
    return [float(n.replace("{,}", "")) for n in re.findall(NUMBER, text)]


def _decimals(text: str) -> int:
    return len(text.split(".")[1])


def _rows(count: int = 60):
    gen = torch.Generator().manual_seed(11)
    for n in range(count):
        tokens = 2 + n % 6
        yield torch.randn(tokens, generator=gen, dtype=torch.float32) * (0.5 + n % 4), n % tokens


@pytest.mark.parametrize("d_k", [2, 64])
def test_the_causal_softmax_redoes_from_its_shown_numbers(d_k):
    for raw, q in _rows():
        tokens, k = len(raw), 0
        masked = raw.masked_fill(torch.arange(tokens) > q, float("-inf"))  # (T,): the causal row of query q
        scaled = masked / d_k ** 0.5
        weight = float(torch.softmax(scaled, dim=-1)[k])
        first, second = causal_softmax_latex(masked, scaled, weight, q, k, d_k)
        if r"\approx" in second:
            continue  # said as approximate: nothing to redo exactly
        scores = re.findall(rf"e\^{{({NUMBER})/", first)[1:]  # the denominator's, one a visible key
        fractions = re.findall(rf"\\frac\{{({NUMBER})\}}\{{({NUMBER})\}}", second)
        assert fractions, second
        top, total = fractions[-1]
        d = _decimals(top)
        weight_shown = float(second.rsplit("=", 1)[1])
        assert round(float(top) / float(total), 4) == weight_shown == round(weight, 4), second
        if q + 1 <= 4:  # every term shown: they add up to the shown sum, and each is e^(shown ω / √d_k)
            shown_terms = _numbers(second.split(r"\frac")[1].split("}{", 1)[1].split(r"\underbrace")[0].split("}")[0])
            assert round(sum(shown_terms), d) == float(total), second
            assert len(scores) == len(shown_terms) == q + 1
            for score, term in zip(scores, shown_terms):
                assert round(math.exp(float(score) / math.sqrt(d_k)), d) == term, (first, second)


def test_the_softmax_of_a_row_redoes_from_its_shown_numbers():
    for raw, q in _rows():
        scores = raw.double() / 2 ** 0.5
        for k in range(len(raw)):
            weight = float(torch.softmax(scores.float(), dim=-1)[k])
            formula, _ = softmax_cell_latex(scores, q, k, weight, r"/\sqrt{2}")
            if r"\approx" in formula:
                continue
            numerator, *exponents = [float(x) for x in re.findall(rf"e\^{{({NUMBER})}}", formula)]
            top, total = re.findall(rf"\\frac\{{({NUMBER})\}}\{{({NUMBER})\}}", formula)[-1]
            d = _decimals(top)
            if r"\dots" not in formula:  # every term shown: a student adds them up
                assert round(sum(round(math.exp(x), d) for x in exponents), d) == float(total.replace("{,}", "")), formula
            assert round(math.exp(numerator), d) == float(top), formula
            assert round(float(top) / float(total), 4) == round(weight, 4), formula


def test_the_renormalised_weight_redoes_from_its_shown_numbers():
    for raw, q in _rows():
        unmasked = torch.softmax(raw.double(), dim=-1)  # (T,)
        kept = unmasked * (torch.arange(len(raw)) <= q)  # variant 1: the future zeroed
        weight = float(kept[0] / kept.sum())
        formula = renormalised_latex(float(kept[0]), unmasked, weight, q, 0)
        if q + 1 > 4 or r"\approx" in formula:
            continue
        top, *terms = _numbers(formula.split("=", 1)[1].rsplit("=", 1)[0])
        assert round(top / sum(terms), 4) == round(weight, 4), formula


def test_four_decimals_stay_where_they_already_redo():
    # The book's /mask row: 1.3899 + 1.1296 = 2.5195, and 1.3899 / 2.5195 = 0.5517, at the book's 4 decimals.
    raw = torch.tensor([0.4656424, 0.1722596])
    scaled = raw / 2 ** 0.5
    weight = float(torch.softmax(scaled, dim=-1)[0])
    _, second = causal_softmax_latex(raw, scaled, weight, 1, 0, 2)
    assert second == r"= \frac{1.3899}{1.3899 + 1.1296} = \frac{1.3899}{2.5195} = 0.5517"
