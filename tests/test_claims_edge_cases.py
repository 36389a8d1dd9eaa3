"""Every sentence that states a comparison, a ranking, a count or a direction comes from a function of the numbers
(attention_core/lessons/claims.py, efficiency_verdict.py); each is fed the edge cases here: ties, a fall, equal
numbers, one key, a masked row. The "largest" lists have theirs in tests/test_largest_lists.py."""
import pytest
import torch

from attention_core.lessons import claims, efficiency_verdict
from attention_core.book.inputs import BOOK_INPUTS


@pytest.mark.parametrize("before, after, said", [
    (154.02, 64.05, "fell to 42% of it"),  # issue 35's /efficiency: never "grew × 0.4"
    (15.0, 64.0, "grew × 4.3"),
    (10.0, 10.0, "stayed about the same (× 1.00)"),  # equal numbers
    (10.0, 10.9, "stayed about the same (× 1.09)"), (10.0, 11.0, "grew × 1.1"), (11.0, 10.0, "fell to 91% of it"),
])
def test_a_change_is_a_growth_a_fall_or_about_the_same_as_its_numbers_say(before, after, said):
    assert claims.change_words(before, after) == said


def _found(half_ms, now_ms, spread=1.05):
    return {"tokens": 1024, "course_s": now_ms / 1e3, "sdpa_s": 0.02, "course_bytes": 52_000_000,
            "sdpa_bytes": 1_600_000, "course_half_s": half_ms / 1e3, "growth_from_half": now_ms / half_ms,
            "spread": spread}


def test_a_course_time_that_fell_is_called_a_fall_and_too_noisy_to_read():
    text = efficiency_verdict.verdict(_found(154.02, 64.05))  # the numbers
    assert "From T = 512 to 1,024 the course version's time fell to 42% of it (154.0 → 64.0 ms)" in text
    assert "course version's **64.0 ms**" in text  # the same call written the same way in both sentences
    assert "too noisy to read" in text and "grew × 0.4" not in text and "below the × 4" not in text
    same = efficiency_verdict.verdict(_found(60.0, 60.0))  # equal numbers: no growth at all
    assert "stayed about the same (× 1.00)" in same and "too noisy to read" in same
    noisy = efficiency_verdict.verdict(_found(15.0, 64.0, spread=1.9))  # grew × 4.3, but the calls varied
    assert "grew × 4.3" in noisy and "too noisy to read" in noisy and "close to the × 4" not in noisy
    clean = efficiency_verdict.verdict(_found(16.0, 64.0))
    assert "grew × 4.0, close to the × 4 that its T × T work predicts (16.0 → 64.0 ms)." in clean
    assert "too noisy" not in clean


def test_sharpness_is_flatter_sharper_or_the_same_as_the_entropies_say():
    right = torch.tensor([0.7, 0.2, 0.1])
    assert claims.sharpness_verdict(right, torch.tensor([0.4, 0.35, 0.25])) == "flatter than intended"
    assert claims.sharpness_verdict(right, torch.tensor([0.9, 0.08, 0.02])) == "sharper than intended"
    assert claims.sharpness_verdict(right, right.clone()).startswith("the same to 4 decimals")  # equal numbers
    one_key = torch.tensor([1.0, 0.0, 0.0])  # a causal row's first query: one visible key, any scale gives it 1
    assert claims.sharpness_verdict(one_key, one_key) == "the same to 4 decimals: this row is already one-hot"


# /trained's "Why it works" said "switching a layer-2 head off costs little" and "the previous-token head is the
# bottleneck" whatever the model measured.
PREVIOUS = [[0.1, 0.2, 0.9, 0.1], [0.0, 0.1, 0.0, 0.0]]  # head 1.3 looks one token back


def test_the_ablation_sentence_names_the_bottleneck_only_when_the_numbers_make_it_one():
    backed = claims.ablation_claim(0.998, [[0.99, 0.98, 0.21, 0.99], [0.97, 0.99, 0.995, 0.96]], PREVIOUS)
    assert "the costliest head here is head 1.3 (0.998 → 0.210, 78.8 points)" in backed
    assert "Every layer-2 head costs at most 3.8 points (head 2.4): little" in backed
    assert "1.3 (previous-token score 0.90), is the bottleneck" in backed
    alone = claims.ablation_claim(0.998, [[0.99, 0.98, 0.81, 0.99], [0.5, 0.99, 0.995, 0.96]], PREVIOUS)
    assert "costliest head here is head 2.1" in alone and "Not every layer-2 head is backed up" in alone
    assert "costs little" not in alone and "is the bottleneck" not in alone
    assert "costs 18.8 points: less than head 2.1, so it is not the single bottleneck" in alone


def test_the_ablation_sentence_with_ties_equal_numbers_and_a_head_that_helps_when_off():
    tied = claims.ablation_claim(0.998, [[0.99, 0.98, 0.21, 0.99], [0.21, 0.99, 0.995, 0.96]], PREVIOUS)
    assert "head 1.3 (0.998 → 0.210, 78.8 points) (tied with 2.1)" in tied  # ties: the lower head first
    assert "is the bottleneck" not in tied and "as much as head 2.1" in tied
    same = claims.ablation_claim(0.5, [[0.5, 0.5], [0.5, 0.5]], [[0.1, 0.2], [0.0, 0.0]])
    assert "every head costs the same here: 0.0 points" in same and "bottleneck: no other" not in same
    rose = claims.ablation_claim(0.9, [[0.95, 0.5]])
    assert "0.0 points (accuracy rose)" in rose and "-" not in rose.replace("→", "")


def test_the_trained_screens_why_it_works_says_what_its_model_measured():
    from conftest import open_screen, page_text
    from attention_core.models import head_scores
    from ui.compute.trained_models import SCREEN_BATCH, trained_model, trained_run
    at = open_screen("trained", sections=["why"])
    model, run = trained_model("repeat"), trained_run("repeat")
    final = run.snapshots[max(run.snapshots)].float()  # (layers, heads, T, T)
    previous = head_scores.scores_of(list(final.unsqueeze(1)), "repeat", run.probe[None])["previous"].tolist()
    said = claims.ablation_claim(head_scores.accuracy(model, "repeat", SCREEN_BATCH),
                                 head_scores.ablation(model, "repeat", SCREEN_BATCH).tolist(), previous)
    assert said in page_text(at)


def test_the_leak_count_follows_each_rows_future_weight():
    assert claims.leak_rows_claim(torch.tensor([0.5, 0.3, 0.0])).startswith("Every row but the last puts weight")
    one = claims.leak_rows_claim(torch.tensor([0.5, 0.00001, 0.0]))  # 0.0000 as printed: not a leak
    assert one.startswith("1 of 3 rows puts weight") and "query 1 gives 0.5000" in one
    tie = claims.leak_rows_claim(torch.tensor([0.0, 0.4, 0.4, 0.0]))  # equal numbers: the lower query
    assert tie.startswith("2 of 4 rows put weight") and "query 2 gives 0.4000" in tie
    assert claims.leak_rows_claim(torch.tensor([0.0])) == "With one token there is no future to leak into."


def test_almost_even_only_when_the_largest_weight_is_near_the_even_share():
    assert claims.evenness_claim(torch.full((100,), 0.01)).startswith("spreads its weight almost evenly")
    sharp = torch.tensor([0.97] + [0.01] * 3)  # (4,): 0.97 against an even 0.25
    assert claims.evenness_claim(sharp).startswith("does not spread its weight evenly: its largest weight is 0.9700")


def test_softmax_share_says_clearly_slightly_or_no_larger_from_the_two_rows():
    book = BOOK_INPUTS @ BOOK_INPUTS.T  # the book's scores: query 2's largest share 0.2278 by the sum, 0.2379 softmax
    by_sum, soft = book[1] / book[1].sum(), torch.softmax(book[1], dim=-1)
    said = claims.softmax_share_claim(by_sum, soft, ["Your", "journey", "starts", "with", "one", "step"])
    assert said == ("Softmax gives the best-matching key (journey) only a slightly larger share than dividing by the "
                    "sum does here: 0.2379 against 0.2278.")
    sharp = torch.tensor([1.0, 2.0, 8.0])  # exp(8) dwarfs the rest: 0.9966 against 8 / 11 = 0.7273
    assert "a clearly larger share" in claims.softmax_share_claim(sharp / sharp.sum(), torch.softmax(sharp, -1))
    even = torch.tensor([3.0, 3.0])  # a tie: one half each way, no gain
    assert "no larger share" in claims.softmax_share_claim(even / even.sum(), torch.softmax(even, -1))
    assert "(key 1)" in claims.softmax_share_claim(even / even.sum(), torch.softmax(even, -1))


def test_a_heads_cost_is_the_difference_of_the_accuracies_as_printed():
    # A teacher's read: "0.961 → 0.386, 57.4 points" (0.9606 − 0.3866 unrounded); the slide's numbers give 57.5.
    said = claims.ablation_claim(0.9606, [[0.38649, 0.9600], [0.9500, 0.9400]])
    assert "head 1.1 (0.961 → 0.386, 57.5 points)" in said, said
