"""AppTest: the attention-scores screen renders, reacts to every control, shows the book's numbers."""
from conftest import chart_specs, open_screen, page_text


def test_book_preset_shows_the_books_first_score():
    at = open_screen("scores")
    text = page_text(at)
    # omega_21 = x2 . x1 = 0.55*0.43 + 0.87*0.15 + 0.66*0.89 = 0.9544 (section 3.3)
    assert r"0.55 \cdot 0.43 + 0.87 \cdot 0.15 + 0.66 \cdot 0.89 = 0.9544" in text
    assert "1.4950" in text and "0.4419" in text  # omega_22 and z2 in the tables


def test_trainable_projection_shows_the_books_query_and_scores():
    at = open_screen("scores", proj="v1")
    text = page_text(at)
    assert "0.4306" in text and "1.4551" in text  # query_2 with torch.manual_seed(123)
    assert "1.8524" in text  # omega_22 = q2 . k2


def test_every_control_changes_the_screen():
    at = open_screen("scores")
    before = (page_text(at), chart_specs(at))
    for change in (lambda: at.select_slider(key="query").set_value(4),
                   lambda: at.select_slider(key="key").set_value(3),
                   lambda: at.radio(key="proj").set_value("v1")):
        change().run()
        assert not at.exception
        after = (page_text(at), chart_specs(at))
        assert after != before
        before = after


def test_every_sidebar_control_changes_the_screen():
    base = open_screen("scores", proj="v1")
    before = page_text(base)
    for name, new in [("seed", 7), ("d_out", 3), ("input", "random"), ("preset", "gpt2-small"),
                      ("tokens", 9), ("d_in", 5)]:
        extra = {"input": "random"} if name in ("tokens", "d_in") else {}
        at = open_screen("scores", proj="v1", **extra, **{name: new})
        assert page_text(at) != before, name


def test_bad_query_in_url_shows_a_note_and_renders():
    at = open_screen("scores", query="99")
    assert any("Query token 99" in w.value for w in at.warning)
    assert at.select_slider(key="query").value == 2
