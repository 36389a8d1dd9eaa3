"""The softmax temperature (issue 18's "add one thing"): in the URL, computed right, asked in class mode."""
import torch

from attention_core.book import stages
from attention_core.lessons import presets, questions, traces
from attention_core.book.inputs import BOOK_INPUTS, BOOK_TOKENS
from conftest import open_screen, open_sections, page_text, view_row, views

TEMPERATURES = [0.25, 0.5, 1.0, 2.0, 4.0]


def _book_v1():
    return traces.projection_trace(BOOK_INPUTS, "v1", 2, 123, "cpu")[0]


def _view(at) -> dict:
    return views(at)["temperature"]


def _drawn_row(at, temperature: float | None = None, query: int = 1) -> list[float]:
    """The bars the temperature view shows for a query at τ (default: the τ it opens on)."""
    view = _view(at)
    frame = view["meta"]["frames"]["initial"] if temperature is None else TEMPERATURES.index(temperature)
    return [float(text) for text in view_row(view, query, frame=frame).values()]


def test_the_temperature_divides_the_scaled_scores_before_softmax():
    record = _book_v1()
    at = open_screen("softmax", sections=["temperature"], temperature=2)
    assert _view(at)["meta"]["frames"]["initial"] == TEMPERATURES.index(2.0)  # the URL's τ is where it opens
    for tau in TEMPERATURES:  # every τ is sent at once: the browser scrubs them
        for query in (1, 4):
            expected = stages.softmax(record["attn_scores"][query] / (2 ** 0.5 * tau))  # d_k = 2
            assert torch.allclose(torch.tensor(_drawn_row(at, tau, query)).double(), expected.double(), atol=0.5e-4 + 1e-7)


def test_a_temperature_in_the_url_stays_there_and_names_its_frame():
    at = open_screen("softmax", sections=["temperature"])
    assert "temperature" not in at.query_params  # the default is left out
    frames = _view(at)["meta"]["frames"]
    assert frames["dims"][0]["param"] == "temperature" and frames["dims"][0]["values"] == TEMPERATURES  # the view writes τ into the URL
    at = open_screen("softmax", sections=["temperature"], temperature=0.5)
    assert at.query_params["temperature"] == "0.5"  # a copied link reopens τ = 0.5
    expected = stages.softmax(_book_v1()["attn_scores"][1] / (2 ** 0.5 * 0.5))
    assert torch.allclose(torch.tensor(_drawn_row(at)).double(), expected.double(), atol=0.5e-4 + 1e-7)


def test_temperature_one_is_the_books_scaled_softmax():
    at = open_screen("softmax", sections=["temperature"])
    assert [f"{v:.4f}" for v in _drawn_row(at)] == ["0.1500", "0.2264", "0.2199", "0.1311", "0.0906", "0.1820"]


def test_a_temperature_that_is_not_offered_falls_back_with_a_note():
    assert presets.parse_param("temperature", "9")[1]  # outside 0.25 … 4: refused with a note
    at = open_screen("softmax", temperature=3)
    assert "Temperature 3.0 is not offered" in page_text(at)  # the lesson says so (class mode asks about τ)
    open_sections(at, "softmax", ["temperature"])
    assert _view(at)["meta"]["frames"]["initial"] == TEMPERATURES.index(1.0)


def test_class_mode_asks_what_doubling_the_temperature_does():
    record = _book_v1()
    first, second, doubled = questions.softmax_questions(record, BOOK_TOKENS, 1, temperature=1.0)
    assert doubled.options[doubled.answer[0]] == "smaller"  # flatter: the largest weight drops
    assert "0.2264" in doubled.explanation and "τ = 2" in doubled.explanation
    cold = questions.softmax_questions(record, BOOK_TOKENS, 1, temperature=0.25)[2]
    assert cold.options[cold.answer[0]] == "smaller" and cold.qid != doubled.qid
