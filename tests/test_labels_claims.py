"""Numbers, labels and claims: the scores colour bar's zero, the mask legend, one number formatter,
and sentences whose wording follows the numbers they describe."""
import numpy as np
import torch

from attention_core.book import stages
from attention_core.drawing import charts, colour, numbers
from attention_core.lessons import claims
from attention_core.book.inputs import BOOK_INPUTS

WHITE = (247, 247, 247)


def test_scores_colour_bar_is_white_at_zero_and_one_sided_when_no_score_is_negative():
    book = stages.attn_scores(BOOK_INPUTS, BOOK_INPUTS).numpy()  # x · x: every score positive
    low, high = colour.score_range(book)
    assert low == 0 and high == float(book.max())
    spec = charts.heatmap(book, list("abcdef"), list("abcdef"), "scores").to_dict()
    scale = spec["layer"][0]["encoding"]["color"]["scale"]  # the cells' fill (masked cells: a condition)
    assert scale["domain"][0] == 0 and scale["range"][0] == "#f7f7f7"  # white is the colour of 0
    # Both signs: symmetric around 0, white in the middle; in images too.
    mixed = np.array([[-1.0, 0.0], [0.5, 3.0]])
    assert colour.score_range(mixed) == (-3.0, 3.0)
    assert tuple(colour.matrix_image(mixed, "scores")[0, 1]) == WHITE
    assert tuple(colour.matrix_image(book * 0 + np.eye(6) * 5, "scores")[0, 1]) == WHITE
    assert colour.score_legend(0.0, 2.5) == "0 (white) … 2.5 (red)"
    assert colour.score_legend(-2.0, 2.0) == "-2 (blue) … 0 (white) … 2 (red)"
    bar = colour.SCORES.bar((0.0, 1.0))  # one-sided legend: white to red only
    assert tuple(bar[0, 0]) == WHITE and bar[0, -1, 0] > bar[0, -1, 2]


def test_a_mask_has_a_two_swatch_legend_that_says_what_blocked_means():
    mask = stages.causal_mask(4).float().numpy()
    spec = charts.heatmap(mask, list("abcd"), list("abcd"), "mask", mask_labels=("may see", "blocked")).to_dict()
    text = str(spec)
    assert "'domain': ['0 = may see', '1 = blocked']" in text  # light first; each swatch says its value
    assert colour.mask_legend(("may see", "blocked")) == "light = 0 = may see, dark = 1 = blocked"
    # The buffer's 1 means blocked where tril's means "may see": drawn with 0 dark, the colours mean the same.
    flipped = str(charts.heatmap(mask, list("abcd"), list("abcd"), "mask", mask_labels=("may see", "blocked"),
                                 mask_dark=0).to_dict())
    assert "'domain': ['1 = blocked', '0 = may see']" in flipped
    assert colour.mask_legend(("may see", "blocked"), dark=0) == "dark = 0 = may see, light = 1 = blocked"
    image = colour.matrix_image(mask, "mask")
    assert {tuple(p) for p in image.reshape(-1, 3)} == {colour.rgb_of(tone) for tone in colour.MASK.hex}


def test_one_formatter_for_plain_text_numbers():
    assert numbers.plain(1_120_987.3) == "1.121 × 10⁶"
    assert numbers.plain(1e-5) == "10⁻⁵" and numbers.plain(-2.5e-7) == "-2.5 × 10⁻⁷"
    assert numbers.plain(0.95440) == "0.9544" and numbers.plain(float("nan")) == "nan"
    assert "\\" not in numbers.plain(3.2e9)  # never LaTeX
    assert numbers.within_tolerance(3e-8) == "≤ 10⁻⁵" and numbers.within_tolerance(2e-5) == "> 10⁻⁵"


def test_the_precedence_pitfall_says_flatter_only_when_the_bug_is_flatter():
    scores = torch.tensor([3.0, 1.0, 0.0, -1.0])
    right, wrong = torch.softmax(scores / 64**0.5, -1), torch.softmax(scores / 64 * 0.5, -1)
    said = claims.precedence_claim(right, wrong)
    assert "flatter than intended" in said and f"largest weight {float(wrong.max()):.4f} instead of" in said
    same = torch.full((4,), 0.25)
    assert "flatter" not in claims.precedence_claim(same, same)
    assert "already even" in claims.precedence_claim(same, same)


def test_the_heads_sentence_follows_their_distance():
    even = torch.tril(torch.ones(5, 5)) / torch.arange(1, 6)[:, None]  # (T, T)
    alike = torch.stack([even, even])
    assert claims.head_distance(alike) == 0
    diagonal = torch.eye(5)
    assert claims.head_distance(torch.stack([diagonal, torch.roll(diagonal, 1, 1)])) == 1
    assert "nearly the same" in claims.heads_claim(claims.head_distance(alike), 2, False)
    assert "differ for that reason" in claims.heads_claim(0.6, 2, True)
    assert "chance alone" in claims.heads_claim(0.6, 2, False)  # random heads have no roles to differ by


def test_the_naive_softmax_check_is_left_out_only_where_it_overflows():
    book = stages.attn_scores(BOOK_INPUTS, BOOK_INPUTS)
    assert claims.overflow_claim(stages.softmax_naive(book)) is None
    big = stages.softmax_naive(torch.tensor([[1000.0, 0.0], [1.0, 2.0]]))
    assert claims.overflow_claim(big).startswith("The naive exp / sum overflows on 1 of 2 rows")


def _x_dot_x(x: torch.Tensor) -> tuple:
    """(scores, weights, context) of the simplified attention ω = x · x, as /scores computes them."""
    scores = stages.attn_scores(x, x)  # (T, T)
    weights = stages.softmax(scores)  # (T, T)
    return scores, weights, stages.context_vectors(weights, x)  # context: (T, d)


def test_the_self_attention_sentence_appears_only_where_x_dot_x_is_one_hot_and_states_its_numbers():
    from attention_core.book.inputs import random_inputs
    x = random_inputs(200, 768, 123)  # (T, d): GPT-2's width, fewer tokens (the same effect, a faster test)
    scores, weights, context = _x_dot_x(x)
    said = claims.self_match_claim(scores, weights, x, context, 1)
    others = scores[1].clone()  # (T,): query 2's scores with every other key
    others[1] = float("-inf")
    assert f"x⁽²⁾ · x⁽²⁾ = {numbers.places(float(scores[1, 1]))}" in said
    assert f"{numbers.places(float(others.max()))} (key {int(others.argmax()) + 1})" in said
    assert "its weight on itself is 1.0000" in said and "z⁽²⁾ equals x⁽²⁾ to 4 decimals" in said
    assert "every one of the 200 queries" in said and "W_q and W_k" in said and "√d_k" in said
    # The book's 3 dimensions: query 2's weights are spread (0.2379 on itself), so nothing is said.
    scores, weights, context = _x_dot_x(BOOK_INPUTS)
    assert claims.self_match_claim(scores, weights, BOOK_INPUTS, context, 1) is None
    # Still 768 dimensions, but token 2 repeats token 1: it splits its weight in two, and the sentence follows.
    twin = x.clone()
    twin[1] = twin[0]
    scores, weights, context = _x_dot_x(twin)
    assert claims.self_match_claim(scores, weights, twin, context, 1) is None
    said = claims.self_match_claim(scores, weights, twin, context, 5)  # another query is still one-hot on itself
    assert "query 6's score" in said and "198 of the 200 queries" in said


def test_the_distance_between_heads_keeps_four_decimals():
    # A teacher's read: 0.185 on /heads beside 0.1842 on /gqa, the same measure (short() dropped the 0 of 0.1850).
    assert "differently by 0.1850 " in claims.heads_claim(0.185, 2, False)
