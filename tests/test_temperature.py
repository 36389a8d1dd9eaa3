"""The softmax temperature (issue 18's "add one thing"): in the URL, computed right, asked in class mode."""
import torch

from attention_core.book import stages
from attention_core.lessons import presets, questions, traces
from attention_core.book.inputs import BOOK_INPUTS, BOOK_TOKENS
from conftest import charts_drawn, open_screen, page_text

TITLE = "weights α of the selected query at temperature τ"


def _book_v1():
    return traces.projection_trace(BOOK_INPUTS, "v1", 2, 123, "cpu")[0]


def _drawn_row(at) -> list[float]:
    for spec, frames in charts_drawn(at):
        if spec.get("title") == TITLE or TITLE in str(spec.get("title", "")):
            return [row["value"] for row in frames[0]]
    raise AssertionError(f"no chart titled {TITLE!r}")


def test_the_temperature_divides_the_scaled_scores_before_softmax():
    record = _book_v1()
    at = open_screen("softmax", temperature=2)
    expected = stages.softmax(record["attn_scores"][1] / (2 ** 0.5 * 2.0))  # query 2, d_k = 2, τ = 2
    assert torch.allclose(torch.tensor(_drawn_row(at)), expected, atol=1e-6)
    assert at.select_slider(key="temperature").value == 2.0


def test_a_moved_temperature_goes_into_the_url():
    at = open_screen("softmax")
    assert "temperature" not in at.query_params  # the default is left out
    at.select_slider(key="temperature").set_value(0.5).run()
    assert at.query_params["temperature"] == "0.5"  # a copied link reopens τ = 0.5
    expected = stages.softmax(_book_v1()["attn_scores"][1] / (2 ** 0.5 * 0.5))
    assert torch.allclose(torch.tensor(_drawn_row(at)), expected, atol=1e-6)


def test_temperature_one_is_the_books_scaled_softmax():
    at = open_screen("softmax")
    assert [f"{v:.4f}" for v in _drawn_row(at)] == ["0.1500", "0.2264", "0.2199", "0.1311", "0.0906", "0.1820"]


def test_a_temperature_that_is_not_offered_falls_back_with_a_note():
    assert presets.parse_param("temperature", "9")[1]  # outside 0.25 … 4: refused with a note
    at = open_screen("softmax", temperature=3)
    assert at.select_slider(key="temperature").value == 1.0
    assert "Temperature 3.0 is not offered" in page_text(at)


def test_class_mode_asks_what_doubling_the_temperature_does():
    record = _book_v1()
    first, second, doubled = questions.softmax_questions(record, BOOK_TOKENS, 1, temperature=1.0)
    assert doubled.options[doubled.answer[0]] == "smaller"  # flatter: the largest weight drops
    assert "0.2264" in doubled.explanation and "τ = 2" in doubled.explanation
    cold = questions.softmax_questions(record, BOOK_TOKENS, 1, temperature=0.25)[2]
    assert cold.options[cold.answer[0]] == "smaller" and cold.qid != doubled.qid
