"""AppTest: the attention-scores screen renders, reacts to every control, shows the book's numbers."""
import numpy as np
import torch

from attention_core.book.inputs import BOOK_INPUTS, random_inputs
from attention_core.book.modules import SelfAttention_v1
from conftest import open_screen, page_text, table, table_shapes


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


def cell_by_hand(at) -> str:
    """The "One cell, by hand" formula."""
    return next(e.value for e in at.latex if r"\omega_{" in e.value)


def test_every_control_changes_what_it_names():
    at = open_screen("scores")
    at.select_slider(key="query").set_value(4).run()
    # omega_41 = x4 . x1, the book's attn_scores[3, 0] (section 3.3)
    assert r"\omega_{4,1} = x^{(4)} \cdot x^{(1)} = 0.22 \cdot 0.43 + 0.58 \cdot 0.15 + 0.33 \cdot 0.89 = 0.4753" in cell_by_hand(at)
    at.select_slider(key="key").set_value(3).run()
    assert r"\omega_{4,3} = x^{(4)} \cdot x^{(3)}" in cell_by_hand(at) and cell_by_hand(at).strip("$\n").endswith("= 0.8296")
    at.radio(key="proj").set_value("v1").run()
    assert not at.exception
    torch.manual_seed(123)  # the book's seed for SelfAttention_v1 (section 3.4.2)
    sa = SelfAttention_v1(3, 2)
    expected = ((BOOK_INPUTS[3] @ sa.W_query) @ (BOOK_INPUTS[2] @ sa.W_key)).detach()
    assert r"\omega_{4,3} = q^{(4)} \cdot k^{(3)}" in cell_by_hand(at)
    assert cell_by_hand(at).strip("$\n").endswith(f"= {float(expected):.4f}"), (cell_by_hand(at), float(expected))
    assert table_shapes(at)["W_query"] == "(3, 2)"  # the projections' tables appear only with v1


def test_every_sidebar_control_changes_what_it_names():
    assert "torch.manual_seed(7)" in page_text(open_screen("scores", proj="v1", seed=7))
    assert table_shapes(open_screen("scores", proj="v1", d_out=3))["queries"] == "(6, 3)"
    shown = table(open_screen("scores", proj="v1", input="random"), "1").to_numpy()
    assert np.allclose(shown, random_inputs(6, 3, 123).numpy(), atol=1e-6)  # the seeded random inputs, not the book's
    gpt2 = table_shapes(open_screen("scores", proj="v1", preset="gpt2-small"))
    assert gpt2["inputs"] == "(1024, 768)" and gpt2["queries"] == "(1024, 768)"
    assert table_shapes(open_screen("scores", proj="v1", input="random", tokens=9))["inputs"] == "(9, 3)"
    shapes = table_shapes(open_screen("scores", proj="v1", input="random", d_in=5))
    assert shapes["inputs"] == "(6, 5)" and shapes["W_query"] == "(5, 2)"


def test_bad_query_in_url_shows_a_note_and_renders():
    at = open_screen("scores", query="99")
    assert any("Query token 99" in w.value for w in at.warning)
    assert at.select_slider(key="query").value == 2
