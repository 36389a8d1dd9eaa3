"""Heads in memory: the strides, offsets, copies and the error the screen shows, checked against PyTorch."""
import pytest
import torch

from attention_core.lessons import memory_layout as ml
from attention_core.lessons import questions as quiz
from screens.registry import BY_NAME


def asked_by(screen: str, **inputs) -> list:
    """The questions a screen asks, as its registry entry declares them."""
    return BY_NAME[screen].questions(**inputs)
from attention_core.book.inputs import BOOK_INPUTS
from attention_core.book.modules import MultiHeadAttention
from attention_core.book.seeding import build_seeded

SIZES = [(6, 2, 3), (8, 4, 4), (5, 3, 2), (4, 1, 4), (1, 2, 2)]  # (T, h, head_dim)


def _x(T, d_in=3):
    return torch.randn(T, d_in, generator=torch.Generator().manual_seed(T))


@pytest.mark.parametrize("T,h,hd", SIZES)
def test_strides_and_contiguity_are_the_chapter_code_s(T, h, hd):
    """Run the chapter's lines directly on its module and compare every stride the table shows."""
    x, d_out = _x(T), h * hd
    rows = ml.step_rows(ml.chapter_steps(x, h, hd, seed=123))
    mha = build_seeded(MultiHeadAttention, 123, 3, d_out, T, 0.0, h)
    with torch.no_grad():
        q = mha.W_query(x.unsqueeze(0))
        split = q.view(1, T, h, hd)
        heads = split.transpose(1, 2)
        context = torch.randn(1, h, T, hd)  # any matmul output is a fresh contiguous (b, h, T, hd)
        back = context.transpose(1, 2)
        packed = back.contiguous()
    expected = [q, split, heads, torch.empty(1, h, T, T), context, back, packed, packed.view(1, T, d_out)]
    assert [r["shape"] for r in rows] == [tuple(t.shape) for t in expected]
    assert [r["stride"] for r in rows] == [t.stride() for t in expected]
    assert [r["contiguous"] for r in rows] == [t.is_contiguous() for t in expected]
    # The head dimension after transpose(1, 2) skips head_dim floats; a token skips d_out.
    assert rows[2]["stride"][1:] == (hd, d_out, 1)


@pytest.mark.parametrize("T,h,hd", SIZES)
def test_views_share_storage_and_only_contiguous_copies(T, h, hd):
    steps = ml.chapter_steps(_x(T), h, hd, seed=7)
    did = [r["did"] for r in ml.step_rows(steps)]
    assert did[1] == did[2] == did[5] == did[7] == "view"
    assert did[3] == did[4] == "new tensor"
    needs_copy = not steps[5].tensor.is_contiguous()
    assert did[6] == ("copy" if needs_copy else "view")
    assert needs_copy == (h > 1 and T > 1)
    assert steps[1].tensor.data_ptr() == steps[0].tensor.data_ptr()  # a view is the same floats
    assert torch.equal(steps[7].tensor, steps[4].tensor.transpose(1, 2).reshape(1, T, h * hd))


def test_the_picked_element_keeps_its_offset_through_every_view():
    T, h, hd = 6, 2, 3
    steps = ml.chapter_steps(BOOK_INPUTS, h, hd, 123, pick=(4, 1, 2))
    rows = ml.step_rows(steps)
    # token 5, head 2, dim 3 of (T, d_out) row-major storage: 4 * 6 + 1 * 3 + 2
    assert [r["pick_offset"] for r in rows[:3]] == [4 * 6 + 5] * 3
    assert [r["pick_index"] for r in rows[:3]] == [(0, 4, 5), (0, 4, 1, 2), (0, 1, 4, 2)]
    # In the context, stored head after head: head 2 starts at T * hd = 18, token 5 row 4, dim 3.
    assert rows[4]["pick_offset"] == rows[5]["pick_offset"] == 18 + 4 * 3 + 2
    assert rows[6]["pick_offset"] == rows[7]["pick_offset"] == 4 * 6 + 5
    assert all(r["pick_bytes"] == 4 * r["pick_offset"] for r in rows if r["pick_offset"] is not None)
    assert steps[0].tensor[rows[0]["pick_index"]] == steps[2].tensor[rows[2]["pick_index"]]


@pytest.mark.parametrize("T,h,hd", SIZES)
def test_offsets_and_cells_agree_with_indexing(T, h, hd):
    steps = ml.chapter_steps(_x(T), h, hd, seed=1)
    for step in (steps[2], steps[5]):
        offsets = ml.offsets(step.tensor)
        for idx in [(0, a, b, c) for a in range(step.tensor.shape[1]) for b in range(step.tensor.shape[2])
                    for c in range(step.tensor.shape[3])]:
            assert int(offsets[idx]) == step.tensor[idx].storage_offset()
    storage = ml.storage_cells(steps[0], h * hd)
    assert [c["token"] for c in storage] == [k // (h * hd) for k in range(T * h * hd)]
    assert [c["head"] for c in storage] == [(k % (h * hd)) // hd for k in range(T * h * hd)]
    flat = steps[0].tensor.flatten().tolist()
    assert [c["value"] for c in storage] == pytest.approx(flat)


def test_the_wrong_view_gives_a_head_contiguous_runs_that_mix_tokens_and_heads():
    steps = ml.chapter_steps(BOOK_INPUTS, 2, 3, 123)
    wrong = ml.wrong_split(steps[0], 2, 3)
    cells = ml.cells(wrong.tensor, wrong.tokens, wrong.heads)
    first = [c for c in cells if c["panel"] == 0]
    assert [c["offset"] for c in first] == list(range(18))  # one contiguous run of T * head_dim floats
    assert {c["token"] for c in first} == {0, 1, 2}  # only the first half of the tokens
    assert {c["head"] for c in first} == {0, 1}  # and both true heads
    right = ml.cells(steps[2].tensor, steps[2].tokens, steps[2].heads)
    assert {c["head"] for c in right if c["panel"] == 0} == {0}
    assert {c["token"] for c in right if c["panel"] == 0} == set(range(6))


def test_view_on_the_transposed_context_raises_pytorch_s_error():
    steps = ml.chapter_steps(BOOK_INPUTS, 2, 3, 123)
    message = ml.view_error(steps)
    with pytest.raises(RuntimeError) as raised:
        steps[5].tensor.view(1, 6, 6)
    assert message == str(raised.value) and "view size is not compatible" in message
    assert ml.view_error(ml.chapter_steps(BOOK_INPUTS, 1, 3, 123)) == ""  # one head: still contiguous


def test_reshape_copies_only_what_view_refuses():
    rows = ml.reshape_against_view(ml.chapter_steps(BOOK_INPUTS, 2, 3, 123))
    assert [(r["contiguous"], r["view"], r["same data_ptr"]) for r in rows] == [
        (True, "works (same storage)", True), (False, "RuntimeError", False)]


@pytest.mark.parametrize("T,h,hd", SIZES)
def test_the_questions_answer_with_pytorch_s_numbers(T, h, hd):
    steps = ml.chapter_steps(_x(T), h, hd, seed=3)
    contiguous, stride, copy = asked_by("memory", rows=ml.step_rows(steps))
    assert contiguous.answer == steps[2].tensor.is_contiguous()
    assert stride.answer == steps[2].tensor.stride(1) == hd
    assert copy.answer == (steps[6].tensor.data_ptr() != steps[5].tensor.data_ptr())
    assert quiz.check(stride, str(hd)).ok and not quiz.check(stride, str(T * h * hd + 1)).ok
