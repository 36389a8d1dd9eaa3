"""AppTest: the attention-scores screen renders, reacts to every control, shows the book's numbers."""
import numpy as np
import torch

from attention_core.book.inputs import BOOK_INPUTS, random_inputs
from attention_core.book.modules import SelfAttention_v1
from conftest import code_text, open_screen, page_text, table, table_shapes, view_row, views


def worked(at) -> tuple[list, list, str, list]:
    """What the view's worked cell is made of for its opening query and key: the two rows' entries as
    text, the score, and what it calls the rows (the browser only picks and prints these)."""
    view = views(at)["scores_view"]
    meta = view["meta"]
    i, j, d = meta["initial"]["query"] - 1, meta["initial"]["key"] - 1, meta["d"]
    row = lambda name, n: [code_text(int(c)) for c in view[name]["code"].iloc[n * d:(n + 1) * d]]  # noqa: E731
    return row("q", i), row("k", j), code_text(int(view["scores"]["code"].iloc[i * meta["cols"] + j])), meta["names"]


def test_book_preset_shows_the_books_first_score():
    at = open_screen("scores", sections="all")
    # omega_21 = x2 . x1 = 0.55*0.43 + 0.87*0.15 + 0.66*0.89 = 0.9544 (section 3.3), worked in the view
    assert worked(at) == (["0.5500", "0.8700", "0.6600"], ["0.4300", "0.1500", "0.8900"], "0.9544", ["x", "x"])
    assert "1.4950" in page_text(at) and "0.4419" in page_text(at)  # omega_22 and z2 in the tables
    view = views(at)["scores_view"]
    assert view_row(view, 1)[1] == "1.4950" and view_row(view, 1, "also0")[1] == "0.2379"  # scores and weights α
    assert view["vector0"]["code"].iloc[3:6].tolist() == [4419, 6515, 5683]  # z2 for the view's context line


def test_trainable_projection_shows_the_books_query_and_scores():
    at = open_screen("scores", sections="all", proj="v1")
    text = page_text(at)
    assert "0.4306" in text and "1.4551" in text  # query_2 with torch.manual_seed(123)
    assert "1.8524" in text  # omega_22 = q2 . k2


def test_every_control_changes_what_it_names():
    at = open_screen("scores", query=4)
    # omega_41 = x4 . x1, the book's attn_scores[3, 0] (section 3.3)
    assert worked(at) == (["0.2200", "0.5800", "0.3300"], ["0.4300", "0.1500", "0.8900"], "0.4753", ["x", "x"])
    at = open_screen("scores", query=4, key=3)
    assert worked(at)[1:3] == (["0.5700", "0.8500", "0.6400"], "0.8296")
    at = open_screen("scores", sections=["tensors"], query=4, key=3, proj="v1")
    assert not at.exception
    torch.manual_seed(123)  # the book's seed for SelfAttention_v1 (section 3.4.2)
    sa = SelfAttention_v1(3, 2)
    q4, k3 = (BOOK_INPUTS[3] @ sa.W_query).detach(), (BOOK_INPUTS[2] @ sa.W_key).detach()
    assert worked(at) == ([f"{v:.4f}" for v in q4.tolist()], [f"{v:.4f}" for v in k3.tolist()],
                          f"{float(q4 @ k3):.4f}", ["q", "k"])
    assert table_shapes(at)["W_query"] == "(3, 2)"  # the projections' tables appear only with v1


def test_every_sidebar_control_changes_what_it_names():
    assert "torch.manual_seed(7)" in page_text(open_screen("scores", proj="v1", seed=7))
    tensors = dict(sections=["tensors"], proj="v1")
    assert table_shapes(open_screen("scores", **tensors, d_out=3))["queries"] == "(6, 3)"
    shown = table(open_screen("scores", **tensors, input="random"), "1").to_numpy()
    assert np.allclose(shown, random_inputs(6, 3, 123).numpy(), atol=1e-6)  # the seeded random inputs, not the book's
    gpt2 = table_shapes(open_screen("scores", **tensors, preset="gpt2-small"))
    assert gpt2["inputs"] == "(1024, 768)" and gpt2["queries"] == "(1024, 768)"
    assert table_shapes(open_screen("scores", **tensors, input="random", tokens=9))["inputs"] == "(9, 3)"
    shapes = table_shapes(open_screen("scores", **tensors, input="random", d_in=5))
    assert shapes["inputs"] == "(6, 5)" and shapes["W_query"] == "(5, 2)"


def test_bad_query_in_url_shows_a_note_and_renders():
    at = open_screen("scores", query="99")
    assert any("Query token 99" in w.value for w in at.warning)
    assert views(at)["scores_view"]["meta"]["initial"]["query"] == 2


# --- the lesson first, every other section folded and idle until opened --------------------------------

SECTIONS = {  # section: (its title, what only it draws)
    "tensors": ("The tensors", lambda at: at.dataframe),
    "code": ("The PyTorch code of this step", lambda at: [c for c in at.code if "def attn_scores" in c.value]),
    "why": ("Why it works", lambda at: [m for m in at.markdown if "Why a loop and a matrix product" in m.value]),
    "checks": ("Agreement with PyTorch", lambda at: [m for m in at.metric if " vs " in m.label]),
    "mistakes": ("Common mistakes", lambda at: [e for e in at.error if "every dimension reversed" in e.value]),
    "exercises": ("Exercises", lambda at: [r for r in at.radio if r.key == "exercise:3.1"]),
}


def _counted(monkeypatch, calls, owner, name) -> None:
    """Count the calls of owner.name (the screen looks it up at each call, so the patch reaches it)."""
    real = getattr(owner, name)

    def counting(*args, **kwargs):
        calls[name] += 1
        return real(*args, **kwargs)
    monkeypatch.setattr(owner, name, counting)


def test_the_lesson_runs_alone_and_each_section_runs_only_when_opened(monkeypatch):
    import collections
    import ui
    from attention_core.lessons import pitfalls
    from screens import scores_blocks
    calls = collections.Counter()
    for owner, name in ((scores_blocks, "table"), (ui, "exercise_3_1"), (ui, "exercises"), (pitfalls, "transpose_batched")):
        _counted(monkeypatch, calls, owner, name)
    at = open_screen("scores", proj="v1")
    assert [e.label for e in at.expander] == [title for title, _ in SECTIONS.values()]  # drawn folded, in order
    assert not calls, calls  # no table, check, pitfall or exercise was computed
    assert not any(shows(at) for _, shows in SECTIONS.values())
    assert views(at)["scores_view"]  # the lesson: its view
    ran = {"tensors": "table", "checks": "exercise_3_1", "mistakes": "transpose_batched", "exercises": "exercises"}
    for name, (_, shows) in SECTIONS.items():
        calls.clear()
        at = open_screen("scores", sections=[name], proj="v1")
        assert shows(at), name
        assert set(calls) == ({ran[name]} if name in ran else set()), (name, calls)  # its own work, no other's
        assert not any(other(at) for section, (_, other) in SECTIONS.items() if section != name), name


def test_the_lesson_holds_at_most_30_elements_at_both_presets():
    for params in ({}, {"proj": "v1"}, {"preset": "gpt2-small"}):
        at = open_screen("scores", **params)
        assert len(list(at.main)) <= 30, (params, len(list(at.main)))


def test_at_gpt2_size_the_screen_says_x_dot_x_is_one_hot_with_the_numbers_in_its_view():
    lead = "**Each token attends only to itself here.**"
    assert not any(m.value.startswith(lead) for m in open_screen("scores").markdown)  # the book's 3 dims: spread
    at = open_screen("scores", preset="gpt2-small")
    said = [m.value for m in at.markdown if m.value.startswith(lead)]
    assert len(said) == 1, [m.value[:60] for m in at.markdown]
    view = views(at)["scores_view"]
    scores, weights = view_row(view, 1), view_row(view, 1, "also0")  # query 2's largest, as the view prints them
    own = scores.pop(1)
    other = max(scores, key=lambda j: float(scores[j]))
    assert weights[1] == "1.0000" and f"x⁽²⁾ · x⁽²⁾ = {own}" in said[0] and f"= {scores[other]} (key {other + 1})" in said[0]
    assert "z⁽²⁾ equals x⁽²⁾ to 4 decimals" in said[0] and "d = 768" in said[0]
    assert not any(m.value.startswith(lead) for m in open_screen("scores", preset="gpt2-small", proj="v1").markdown)
