"""/rope: the book's compute_rope_params and apply_rope against the book's own numbers, the shift invariance, the two
layouts, the chapter's layer with RoPE, the common mistakes, the questions, and the screen at both presets."""
from xml.etree import ElementTree

import pytest
import torch

from attention_core.book.inputs import BOOK_INPUTS, BOOK_TOKENS
from attention_core.book.modules import MultiHeadAttention
from attention_core.book.seeding import build_seeded
from attention_core.book.variants import apply_rope, compute_rope_params
from attention_core.drawing import dials
from attention_core.lessons import questions as quiz
from attention_core.lessons import rope
from conftest import open_screen, page_text

# Golden numbers: the book's own pkg/llms_from_scratch/llama3.py (rasbt/LLMs-from-scratch at 28c65cd), copied to /tmp
# and imported there (`git show HEAD:pkg/llms_from_scratch/llama3.py > /tmp/rope_book/book_llama3.py`), printing
# cos[p, d].item() and sin[p, d].item() at these positions and dimensions, and apply_rope's output on
# torch.linspace(-1, 1, 2·3·7·head_dim).reshape(2, 3, 7, head_dim) (no random generator involved).
POSITIONS = [0, 1, 5, 100, 4095]
DIMS = {2: [0, 1], 4: [0, 1, 2, 3], 64: [0, 1, 15, 31, 32, 63]}
BOOK_COS = {
    2: [[1.0, 1.0], [0.5403023362159729, 0.5403023362159729], [0.28366219997406006, 0.28366219997406006],
        [0.8623188734054565, 0.8623188734054565], [-0.06597599387168884, -0.06597599387168884]],
    4: [[1.0, 1.0, 1.0, 1.0], [0.5403023362159729, 0.9999499917030334, 0.5403023362159729, 0.9999499917030334],
        [0.28366219997406006, 0.9987502694129944, 0.28366219997406006, 0.9987502694129944],
        [0.8623188734054565, 0.5403023362159729, 0.8623188734054565, 0.5403023362159729],
        [-0.06597599387168884, -0.9940330982208252, -0.06597599387168884, -0.9940330982208252]],
    64: [[1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
         [0.5403023362159729, 0.7317609786987305, 0.9999110698699951, 1.0, 0.5403023362159729, 1.0],
         [0.28366219997406006, -0.8208616375923157, 0.9977779388427734, 0.9999997615814209, 0.28366219997406006,
          0.9999997615814209],
         [0.8623188734054565, 0.9175962209701538, 0.23505470156669617, 0.9999110698699951, 0.8623188734054565,
          0.9999110698699951],
         [-0.06597599387168884, -0.09004636108875275, -0.3617713749408722, 0.8545684218406677, -0.06597599387168884,
          0.8545684218406677]],
}
BOOK_SIN = {
    2: [[0.0, 0.0], [0.8414709568023682, 0.8414709568023682], [-0.9589242935180664, -0.9589242935180664],
        [-0.5063656568527222, -0.5063656568527222], [-0.9978212118148804, -0.9978212118148804]],
    4: [[0.0, 0.0, 0.0, 0.0], [0.8414709568023682, 0.009999833069741726, 0.8414709568023682, 0.009999833069741726],
        [-0.9589242935180664, 0.04997916519641876, -0.9589242935180664, 0.04997916519641876],
        [-0.5063656568527222, 0.8414709568023682, -0.5063656568527222, 0.8414709568023682],
        [-0.9978212118148804, -0.1090787947177887, -0.9978212118148804, -0.1090787947177887]],
    64: [[0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
         [0.8414709568023682, 0.6815613508224487, 0.013334820047020912, 0.0001333521504420787, 0.8414709568023682,
          0.0001333521504420787],
         [-0.9589242935180664, -0.5711271166801453, 0.06662668287754059, 0.0006667606648989022, -0.9589242935180664,
          0.0006667606648989022],
         [-0.5063656568527222, -0.3975136876106262, 0.9719821214675903, 0.013334820047020912, -0.5063656568527222,
          0.013334820047020912],
         [-0.9978212118148804, -0.9959375858306885, -0.9322668313980103, 0.519338846206665, -0.9978212118148804,
          0.519338846206665]],
}
# Llama 3.2 1B's settings: compute_rope_params(64, 500_000.0, 8192, LLAMA32_CONFIG_1B["rope_freq"]) at positions 1, 100, 8191
LLAMA_POSITIONS = [1, 100, 8191]
LLAMA_FREQ = {"factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_context_length": 8192}
LLAMA_COS = [[0.5403023362159729, 0.7877790927886963, 0.9999991655349731, 1.0, 0.5403023362159729, 1.0],
             [0.8623188734054565, -0.926164448261261, 0.9916839599609375, 1.0, 0.8623188734054565, 1.0],
             [-0.6463904976844788, 0.8237429857254028, -0.41204318404197693, 0.9999997019767761, -0.6463904976844788,
              0.9999997019767761]]
LLAMA_SIN = [[0.8414709568023682, 0.6159578561782837, 0.0012905476614832878, 9.418306490260875e-08, 0.8414709568023682,
              9.418306490260875e-08],
             [-0.5063656568527222, -0.37711986899375916, 0.12869685888290405, 9.418306945008226e-06,
              -0.5063656568527222, 9.418306945008226e-06],
             [-0.7630068063735962, 0.5669633746147156, -0.9111643433570862, 0.000771453429479152, -0.7630068063735962,
              0.000771453429479152]]
APPLY_CELLS = [(0, 0, 0, 0), (0, 1, 3, 1), (1, 2, 6, -1), (1, 0, 5, "half")]
BOOK_APPLY = {4: [-1.0, -0.4942042827606201, 1.0567282438278198, -0.1589885950088501],
              64: [-1.0, 0.716747522354126, 1.000780701637268, -0.15433146059513092]}


def _sample(t, positions, dims):
    return torch.tensor([[t[p, d].item() for d in dims] for p in positions])


@pytest.mark.parametrize("head_dim", sorted(DIMS))
def test_compute_rope_params_gives_the_books_own_numbers_bit_for_bit(head_dim):
    cos, sin = compute_rope_params(head_dim)
    assert cos.shape == sin.shape == (4096, head_dim) and cos.dtype == torch.float32
    # golden: printed by the book's file on one machine; another processor's sin/cos may round the last bit differently
    assert torch.allclose(_sample(cos, POSITIONS, DIMS[head_dim]), torch.tensor(BOOK_COS[head_dim]), atol=1e-6, rtol=0)
    assert torch.allclose(_sample(sin, POSITIONS, DIMS[head_dim]), torch.tensor(BOOK_SIN[head_dim]), atol=1e-6, rtol=0)


def test_compute_rope_params_with_llama_32s_frequency_scaling_gives_the_books_numbers():
    cos, sin = compute_rope_params(64, 500_000.0, 8192, LLAMA_FREQ)
    assert torch.allclose(_sample(cos, LLAMA_POSITIONS, DIMS[64]), torch.tensor(LLAMA_COS), atol=1e-6, rtol=0)
    assert torch.allclose(_sample(sin, LLAMA_POSITIONS, DIMS[64]), torch.tensor(LLAMA_SIN), atol=1e-6, rtol=0)


@pytest.mark.parametrize("head_dim", sorted(BOOK_APPLY))
def test_apply_rope_gives_the_books_own_numbers_bit_for_bit(head_dim):
    cos, sin = compute_rope_params(head_dim, context_length=16)
    y = apply_rope(torch.linspace(-1, 1, 2 * 3 * 7 * head_dim).reshape(2, 3, 7, head_dim), cos, sin)
    cells = [(b, h, t, head_dim // 2 if d == "half" else d) for b, h, t, d in APPLY_CELLS]
    assert torch.allclose(torch.tensor([y[c].item() for c in cells]), torch.tensor(BOOK_APPLY[head_dim]), atol=1e-6, rtol=0)


def test_the_book_asserts_an_even_head_dim():
    with pytest.raises(AssertionError, match="even"):
        compute_rope_params(3)


# --- the score depends on the distance only --------------------------------------------------------

@pytest.mark.parametrize("head_dim", [2, 4, 8, 64])
@pytest.mark.parametrize("m, n", [(0, 0), (4, 1), (1, 4), (37, 5)])
def test_moving_both_positions_keeps_the_score_and_moving_one_changes_it(head_dim, m, n):
    generator = torch.Generator().manual_seed(head_dim + m)
    q, k = torch.randn(2, head_dim, generator=generator)
    cos, sin = compute_rope_params(head_dim, context_length=1200)
    base = rope.score_at(q, k, m, n, cos, sin)
    for shift in (1, 3, 10, 100, 1000):
        assert rope.score_at(q, k, m + shift, n + shift, cos, sin) == pytest.approx(base, abs=2e-4 * max(1, abs(base)))
    assert abs(rope.score_at(q, k, m + 1, n, cos, sin) - base) > 1e-3  # the first pair turns 1 radian a position
    assert abs(rope.score_at(q, k, m, n + 1, cos, sin) - base) > 1e-3


def test_the_score_over_positions_is_constant_along_each_diagonal_and_the_turn_keeps_lengths():
    q, k = torch.randn(2, 16, generator=torch.Generator().manual_seed(3))
    cos, sin = compute_rope_params(16, context_length=64)
    turned_q, turned_k, scores = rope.position_scores(q, k, cos, sin)  # (16, 16)
    for distance in range(-15, 16):
        diagonal = torch.diagonal(scores, offset=distance)
        assert (diagonal - diagonal[0]).abs().max() < 1e-5
    assert not torch.allclose(scores[0], scores[0, 0].expand(16), atol=1e-3)  # another distance, another score
    assert torch.allclose(turned_q.norm(dim=-1), q.norm().expand(16), atol=1e-5)


def test_the_layers_map_is_the_same_wherever_the_sentence_starts():
    x = torch.randn(20, 16, generator=torch.Generator().manual_seed(1))
    record = rope.rope_trace(x, d_out=32, seed=5, device="cpu", num_heads=4, head=2, offsets=rope.OFFSETS)
    assert record["shifted"].shape == (len(rope.OFFSETS), 20, 20)
    assert (record["shifted"] - record["shifted"][0]).abs().max() < 1e-5
    assert torch.allclose(record["shifted"][0], record["attn_weights"], atol=1e-6)
    assert "the same map each time" in rope.offsets_sentence(record["shifted"], rope.OFFSETS)


# --- the two layouts --------------------------------------------------------------------------------

@pytest.mark.parametrize("head_dim", [4, 8, 64])
def test_the_interleaved_rotation_on_permuted_dimensions_is_the_books_rotation(head_dim):
    x = torch.randn(1, 2, 9, head_dim, generator=torch.Generator().manual_seed(head_dim))
    cos, sin = compute_rope_params(head_dim, context_length=9)
    order = rope.interleaved_order(head_dim)
    assert torch.allclose(rope.apply_rope_interleaved(x[..., order], cos, sin), apply_rope(x, cos, sin)[..., order],
                          atol=1e-6)
    assert not torch.allclose(rope.apply_rope_interleaved(x, cos, sin), apply_rope(x, cos, sin), atol=1e-3)


@pytest.mark.parametrize("d_out, num_heads", [(8, 2), (16, 2), (64, 1)])
def test_the_layouts_give_the_same_scores_after_permuting_the_weights_and_others_without(d_out, num_heads):
    record = rope.rope_trace(BOOK_INPUTS, d_out=d_out, seed=123, device="cpu", num_heads=num_heads, head=num_heads - 1)
    assert record["layouts"]["permuted_gap"] < 1e-5
    assert record["layouts"]["unpermuted_gap"] > 1e-2
    assert torch.allclose(record["layouts"]["permuted"], record["layouts"]["book"], atol=1e-5)


def test_permuted_rows_reorder_each_head_on_its_own():
    assert rope.interleaved_order(4).tolist() == [0, 2, 1, 3]  # slot 2i: dimension i; slot 2i + 1: i + d/2
    assert rope.permuted_rows(8, 2).tolist() == [0, 2, 1, 3, 4, 6, 5, 7]


def test_at_head_dim_2_the_layouts_are_the_same_which_is_why_the_screen_uses_4():
    x = torch.randn(1, 1, 5, 2, generator=torch.Generator().manual_seed(0))
    cos, sin = compute_rope_params(2, context_length=5)
    assert torch.equal(rope.apply_rope_interleaved(x, cos, sin), apply_rope(x, cos, sin))
    assert rope.rope_sizes(2, 2)[:2] == (8, 4) and "head_dim 4" in rope.rope_sizes(2, 2)[2]
    assert rope.rope_sizes(768, 12) == (768, 64, None)
    assert rope.rope_sizes(6, 2)[:2] == (8, 4) and rope.rope_sizes(12, 2) == (12, 6, None)
    assert rope.rope_sizes(7, 1)[:2] == (8, 8)


# --- the chapter's layer with RoPE ------------------------------------------------------------------

def _layers(d_out=8, num_heads=2, seed=123, x=BOOK_INPUTS):
    T, d_in = x.shape
    chapter = build_seeded(MultiHeadAttention, seed, d_in, d_out, T, 0.0, num_heads)
    twin = build_seeded(rope.MultiHeadAttentionRoPE, seed, d_in, d_out, T, 0.0, num_heads)
    return chapter, twin


def test_the_rope_layer_has_the_chapters_weights_and_without_a_turn_its_output():
    chapter, twin = _layers()
    assert all(torch.equal(a, b) for a, b in zip(chapter.state_dict().values(), twin.state_dict().values()))
    batch = BOOK_INPUTS.unsqueeze(0)  # (1, 6, 3)
    still = torch.ones(6, 4), torch.zeros(6, 4)  # cos 1, sin 0: every angle 0
    with torch.no_grad():
        assert torch.equal(twin(batch, *still), chapter(batch))
        cos, sin = compute_rope_params(4, context_length=6)
        assert not torch.allclose(twin(batch, cos, sin), chapter(batch), atol=1e-4)
        assert torch.allclose(twin.trace(batch, cos, sin)["context_vec"], twin(batch, cos, sin), atol=1e-7)


@pytest.mark.parametrize("d_out, num_heads, head", [(8, 2, 0), (8, 2, 1), (16, 1, 0)])
def test_at_offset_0_rope_changes_the_chapters_map_exactly_where_it_must(d_out, num_heads, head):
    record = rope.rope_trace(BOOK_INPUTS, d_out=d_out, seed=123, device="cpu", num_heads=num_heads, head=head)
    plain, turned = record["chapter_scores"], record["attn_scores"]  # (6, 6)
    below = torch.tril(torch.ones(6, 6, dtype=torch.bool), diagonal=-1)
    assert torch.allclose(torch.diagonal(turned), torch.diagonal(plain), atol=1e-6)  # distance 0: no turn between them
    assert ((turned - plain).abs()[below] > 1e-4).all()  # every other visible pair is turned apart
    assert torch.allclose(turned[0, 0], plain[0, 0], atol=1e-7)  # token 1 sits at position 0: not turned at all
    assert torch.equal(record["attn_weights"][0], record["chapter_weights"][0])  # [1, 0, 0, ...] both
    assert (record["attn_weights"][~below & ~torch.eye(6, dtype=torch.bool)] == 0).all()
    changes = rope.layer_changes(plain, turned, record["chapter_weights"], record["attn_weights"])
    assert changes["below_changed"] == changes["below"] == 15 and changes["first_row_gap"] == 0
    assert "15 of the 15 cells" in rope.changes_sentence(changes)


# --- mistakes, sentences, questions ----------------------------------------------------------------

def test_each_common_mistake_differs_from_the_right_result():
    record = rope.rope_trace(BOOK_INPUTS, d_out=8, seed=123, device="cpu", num_heads=2)
    queries_only, cos_layout, unpermuted = rope.mistakes(record)
    assert queries_only["right"] < 1e-5 < 1e-2 < queries_only["wrong"]
    assert abs(cos_layout["right"] - float(record["queries_raw"][-1].norm())) < 1e-5
    assert abs(cos_layout["wrong"] - cos_layout["right"]) > 1e-2  # not a rotation: the length changed
    assert unpermuted["right"] < 1e-5 < 1e-2 < unpermuted["wrong"]
    wrong_cos = rope.cos_interleaved(record["cos"])
    assert torch.equal(wrong_cos[:, :4:2], record["cos"][:, :2]) and not torch.equal(wrong_cos, record["cos"])


def test_a_mistakes_right_figure_is_called_rounding_only_when_tiny_and_against_the_mistakes_own():
    item = {"measure": "largest difference", "right": 1.4e-5, "wrong": 0.7}
    # The ratio as an order of magnitude: "10,030,299 times smaller" wrote digits that no measurement holds.
    assert rope.right_words(item) == "largest difference: 1.4 × 10⁻⁵, float32 rounding (5.0 × 10⁴ times smaller " \
                                     "than the mistake's 0.7000)"
    assert rope.right_words(dict(item, right=0.0)) == ("largest difference: 0, float32 rounding (against the "
                                                       "mistake's 0.7000)")
    assert rope.right_words(dict(item, right=3e-4)) == "largest difference: 0.0003"  # not rounding: a plain number
    assert rope.right_words(dict(item, right=2.5)) == "largest difference: 2.5000"


def test_the_shift_sentence_follows_its_numbers():
    rows = [{"move": "as placed", "score": 0.5}, {"move": "both + 1", "score": 0.5}, {"move": "both + 10", "score": 0.5},
            {"move": "query + 1 only", "score": 0.7}, {"move": "key + 1 only", "score": 0.1}]
    said = rope.shift_sentence(rows)
    assert "leaves the score at 0.5000" in said and "changes it: query + 1 only 0.7000" in said
    rows[2]["score"] = 0.6
    assert "changes the score by up to 0.1000" in rope.shift_sentence(rows)
    rows[3]["score"] = rows[4]["score"] = 0.5
    assert "leaves it too" in rope.shift_sentence(rows)
    assert "nothing to turn against" in rope.changes_sentence(rope.layer_changes(*(torch.ones(1, 1),) * 4))
    assert rope.offsets_sentence(torch.zeros(1, 2, 2), (0,)) == ""
    assert "differ by up to 1.0000" in rope.offsets_sentence(torch.stack([torch.zeros(2, 2), torch.ones(2, 2)]), (0, 1))


def test_the_questions_are_computed_and_checked():
    record = rope.rope_trace(BOOK_INPUTS, d_out=8, seed=123, device="cpu", num_heads=2)
    same, length, pairs = rope.rope_questions(record, 1, 0, list(BOOK_TOKENS))
    assert quiz.check(same, "yes").ok is True and quiz.check(same, "no").ok is False
    q_vec = record["queries_raw"][1]
    assert quiz.check(length, f"{float(q_vec.norm()):.4f}").ok is True
    assert quiz.check(length, f"{float(q_vec.norm()) + 0.1:.4f}").ok is False
    assert quiz.check(pairs, "3").ok is True and quiz.check(pairs, "2").ok is False
    assert f"{rope.score_at(q_vec, record['keys_raw'][0], 5, 2, record['cos'], record['sin']):.4f}" in same.explanation
    assert all(not [w for w in quiz.HIDDEN_REFERENCES if w in q.prompt.lower()] for q in (same, length, pairs))
    gpt2_like = rope.rope_trace(torch.randn(8, 16), d_out=64, seed=1, device="cpu", num_heads=1)
    assert quiz.answer_text(rope.rope_questions(gpt2_like, 3, 2)[2]) == "33"


def test_agreement_with_torchs_complex_numbers():
    record = rope.rope_trace(BOOK_INPUTS, d_out=16, seed=123, device="cpu", num_heads=2, offset=10, offsets=(10,))
    (_, complex_gap), (_, length_gap) = rope.agreement_checks(record)
    assert complex_gap < 1e-5 and length_gap < 1e-5
    record["queries"] = record["queries"].flip(-1)  # a different turn: the check must say so
    assert rope.agreement_checks(record)[0][1] > 1e-2


def test_the_dials_draw_each_pairs_numbers_where_they_belong():
    record = rope.rope_trace(BOOK_INPUTS, d_out=8, seed=123, device="cpu", num_heads=2)
    q, k = record["queries_raw"][2], record["keys_raw"][0]
    rows = rope.dial_rows(q, k, 5, 0, record["cos"], record["sin"], record["inv_freq"])
    panels = [(f"pair {i} <&>", [r for r in rows if r["pair"].startswith(f"pair {i}:")]) for i in (1, 2)]
    svg = dials.dials_svg(panels, 2.0, {"q": "#1f77b4", "k": "#d62728"})
    root = ElementTree.fromstring(svg)  # well-formed, the title's < & > escaped
    ns = "{http://www.w3.org/2000/svg}"
    assert [t.text for t in root.iter(ns + "text") if t.get("font-weight") == "bold"] == ["pair 1 <&>", "pair 2 <&>"]
    ends = [(float(c.get("cx")), float(c.get("cy")), c.get("fill"), c.get("fill-opacity")) for c in root.iter(ns + "circle")]
    assert len(ends) == 2 * 2 * 2  # two panels, q and k, before and after
    side, left, top = dials.PANEL, dials.LEFT, dials.TOP
    for n, (_, arrows) in enumerate(panels):
        for arrow in arrows:  # each end where (x, y) falls on its panel's axes of ±2
            colour = "#1f77b4" if arrow["vector"] == "q" else "#d62728"
            for (x, y), opacity in (((arrow["x0"], arrow["y0"]), "0.3"), ((arrow["x"], arrow["y"]), "1.0")):
                cx = n * (left + side + dials.GAP) + left + (x + 2) / 4 * side
                cy = top + (2 - y) / 4 * side
                assert any(abs(ex - cx) < 0.06 and abs(ey - cy) < 0.06 and fill == colour and o == opacity
                           for ex, ey, fill, o in ends), (arrow["vector"], x, y)
    k_rows = [r for r in rows if r["vector"] == "k"]
    assert all((r["x"], r["y"]) == pytest.approx((r["x0"], r["y0"])) for r in k_rows)  # n = 0: the key is not turned
    assert not all((r["x"], r["y"]) == pytest.approx((r["x0"], r["y0"])) for r in rows if r["vector"] == "q")


# --- the screen ------------------------------------------------------------------------------------

def test_the_screen_at_the_book_preset_says_its_sizes_and_draws_the_lesson():
    at = open_screen("rope")
    text = page_text(at)
    assert "d_out = 8" in text and "head_dim 4" in text and "head_dim 1" in text  # the size used, and why
    assert "leaves the score at" in text and "15 of the 15 cells" in text and "the same map each time" in text
    dials = [img for element in at.get("image") for img in element.proto.imgs if "dials" in img.caption]
    assert len(dials) == 1 and dials[0].url.startswith("data:image/svg+xml")  # the dials: an SVG picture
    assert not at.get("vega_lite_chart")
    # pair 2's θ = 0.01 at m = 4: its arrows lie on each other, and the sentence says why (m · θ = 0.04 rad)
    assert "The last dial drawn (pair 2) turns by at most 0.04 rad" in text
    at = open_screen("rope", sections="all")
    assert not at.exception and "apply_rope" in page_text(at)
    assert any("def compute_rope_params" in c.value for c in at.get("code"))


def test_the_screen_at_gpt2_small_uses_its_sizes():
    at = open_screen("rope", preset="gpt2-small", sections=["layouts", "mistakes"])
    text = page_text(at)
    assert "d_out = 768, 12 heads of head_dim 64 (32 pairs), 1,024 tokens" in text
    assert "32 pairs: the first 8 are drawn" in text and not at.exception


def test_bad_positions_in_the_url_fall_back_with_a_note():
    at = open_screen("rope", rope_offset="7", rope_m="99999")
    assert not at.exception
    notes = " ".join(w.value for w in at.warning)
    assert "Start position 7 is not one of" in notes


def test_the_one_head_trace_is_the_classes_own_head():
    # rope_trace computes one head from its columns of W_query(x) and W_key(x): the classes' numbers for that head.
    x = torch.randn(12, 16, generator=torch.Generator().manual_seed(3))
    record = rope.rope_trace(x, d_out=32, seed=5, device="cpu", num_heads=4, head=2, offset=10, offsets=(0, 10))
    twin = build_seeded(rope.MultiHeadAttentionRoPE, 5, 16, 32, 12, 0.0, 4)
    chapter = build_seeded(MultiHeadAttention, 5, 16, 32, 12, 0.0, 4)
    cos, sin = compute_rope_params(8, context_length=40)
    with torch.no_grad():
        turned, plain = twin.trace(x[None], cos[10:], sin[10:]), chapter.trace(x[None])
    assert torch.allclose(record["queries_raw"], turned["queries_raw"][0, 2], atol=1e-6)
    assert torch.allclose(record["attn_weights"], turned["attn_weights"][0, 2], atol=1e-6)
    assert torch.allclose(record["attn_scores"], turned["attn_scores"][0, 2], atol=1e-5)
    assert torch.allclose(record["chapter_weights"], plain["attn_weights"][0, 2], atol=1e-6)
    assert torch.allclose(record["chapter_scores"], plain["attn_scores"][0, 2], atol=1e-5)
