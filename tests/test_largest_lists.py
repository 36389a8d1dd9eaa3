"""Every "largest" list of one view names the same keys: the scores' order, ties to the lower key (issue 29).

At GPT-2 width x · x is one-hot on the diagonal, so softmax rounds every other key to 0.0000: ranked by its own
numbers, the torch.softmax bars listed keys 1-16 (ties by index) beside the scores' 89, 121, 135 …
"""
import re

import numpy as np
import torch

from attention_core.book import stages
from attention_core.book.inputs import random_inputs
from attention_core.drawing.view_data import TOP_KEYS, ranked_keys, view_payload
from attention_core.lessons import traces

TOKENS = 200  # above the view's CELLS_MAX and EXACT_MAX: only each row's largest travel with their numbers


def sent_keys(payload: dict, source: str, frame: int = 0) -> list[set]:
    """Each row's keys whose numbers the view received for `source` ("cells", "top" or "alsoN"), as sets."""
    meta = payload["meta"] if source in ("cells", "top") else payload["meta"]["also"][int(source[4:])]
    keys = payload[source]["key"].to_numpy().reshape(-1, meta["rows"], meta["top"])[frame if meta["framed"] else 0]
    return [{int(j) for j in row if j < meta["cols"]} for row in keys]


def test_ranked_keys_puts_the_largest_first_and_breaks_ties_by_the_lower_key():
    row = np.array([[0.5, 0.0, 0.5, 0.0, 0.9, 0.0, 0.0]])  # (1, 7): two ties, one of them at the cut
    assert ranked_keys(row, np.zeros(row.shape, bool), 4).tolist() == [[4, 0, 2, 1]]
    assert ranked_keys(row[:, ::-1].copy(), np.zeros(row.shape, bool), 4).tolist() == [[2, 4, 6, 0]]
    hidden = np.array([[False, False, False, False, True, False, True]])  # masked keys are never listed
    assert ranked_keys(row, hidden, 3).tolist() == [[0, 2, 1]]
    scores = np.array([[2.0, -np.inf, -np.inf], [1.0, 1.0, -np.inf]])  # a causal map's −∞: padded with 3
    assert ranked_keys(scores, np.zeros(scores.shape, bool), 3).tolist() == [[0, 3, 3], [0, 1, 3]]
    close = np.array([[0.12341, 0.12344, 0.2]])  # a tie as the bars print it (0.1234 twice): the lower key first
    assert ranked_keys(close, np.zeros(close.shape, bool), 2).tolist() == [[2, 0]]


def test_the_scores_and_their_normalisations_list_the_same_largest_keys():
    x = random_inputs(TOKENS, 768, 123)  # (T, d)
    scores = stages.attn_scores(x, x)  # (T, T): one-hot after softmax
    normalised = traces.normalisations(scores)
    assert (normalised["torch.softmax"][1] == 0).sum() > TOKENS - 2  # the trap: almost every weight ties at 0
    also = (("divide by the sum", normalised["divide by the sum"].numpy(), "scores", "absolute"),
            ("torch.softmax", normalised["torch.softmax"].numpy(), "weights", "share"))
    payload = view_payload(scores.numpy(), [str(t) for t in range(TOKENS)], "scores", parts=("row", "cell"),
                           also=also, order_name="scores ω")
    rank = payload["rank"]["key"].to_numpy().reshape(TOKENS, TOP_KEYS)
    expected = np.array([sorted(range(TOKENS), key=lambda j: (-round(float(row[j]), 4), j))[:TOP_KEYS]
                         for row in scores.double()])  # (T, 32): the scores' order as printed, ties to the lower key
    assert (rank == expected).all()
    scores_keys = sent_keys(payload, "cells")
    assert scores_keys == [set(row) for row in expected.tolist()]
    assert sent_keys(payload, "also0") == scores_keys and sent_keys(payload, "also1") == scores_keys
    assert sent_keys(payload, "also1")[1] != set(range(TOP_KEYS))  # not keys 1-32 by index
    assert payload["meta"]["rank"]["name"] == "scores ω" and payload["meta"]["ranked"]
    assert all(meta["ranked"] for meta in payload["meta"]["also"])


def test_scaled_and_unscaled_frames_list_the_same_keys_when_ranked_by_the_scores():
    torch.manual_seed(123)
    scores = stages.attn_scores(torch.randn(TOKENS, 768), torch.randn(TOKENS, 768))  # (T, T) q · k, sd about √768
    stack = torch.stack([stages.softmax(scores), stages.softmax(scores / 768 ** 0.5)]).numpy()  # (2, T, T): no, yes
    frames = {"name": "√d_k", "param": "scale", "values": [0, 1], "labels": ["no", "yes"], "initial": 1}
    payload = view_payload(stack, [str(t) for t in range(TOKENS)], "weights", "share", frames=frames,
                           order=scores.numpy(), order_name="scores ω")
    assert payload["meta"]["exact"] == "top"  # a picture of every cell; numbers only for each row's largest
    assert sent_keys(payload, "top", 0) == sent_keys(payload, "top", 1)
    # Ranked by their own numbers, the unscaled frame's 0.0000 ties would pick other keys: the trap is real.
    own = view_payload(stack, [str(t) for t in range(TOKENS)], "weights", "share", frames=frames)
    assert own["meta"]["rank"] is None and sent_keys(own, "top", 0) != sent_keys(own, "top", 1)


# The rule for every "largest" list (issue 35): sorted by value as printed, largest first; ties to the lower key;
# masked keys never listed; the selected key, when not among them, apart (the browser's rowKeys: tests/js).

def test_a_largest_list_is_ordered_by_value_with_ties_to_the_lower_key_and_no_masked_key():
    from attention_core.lessons.claims import largest_keys
    assert largest_keys([0.5, 0.0, 0.5, 0.0, 0.9], 3) == [4, 0, 2]  # by value, not by key; the tie: key 0 first
    assert largest_keys([0.12341, 0.12344, 0.2], 3) == [2, 0, 1]  # equal as printed (0.1234): the lower key
    assert largest_keys([3.0, 3.0, 3.0], 2) == [0, 1]  # all equal
    assert largest_keys([1.0, -np.inf, 2.0, -np.inf], 4) == [2, 0]  # a causal row's −∞: never listed
    assert largest_keys([1.0, 9.0, 2.0], 3, hidden=[False, True, False]) == [2, 0]  # masked: even the largest
    assert largest_keys([-np.inf, -np.inf], 2) == [] and largest_keys([], 3) == []  # a fully masked row, none
    row = np.random.default_rng(0).normal(size=50)
    assert largest_keys(row, 5) == sorted(range(50), key=lambda j: (-round(row[j], 4), j))[:5]


def test_the_mask_screens_leak_lists_its_largest_future_keys_largest_first():
    from attention_core.lessons.claims import leak_claim
    row = torch.tensor([0.30, 0.05, 0.01, 0.20, 0.04, 0.20, 0.02, 0.08, 0.10])  # (9,): query 1's unmasked weights
    names = [f"w{j + 1}" for j in range(9)]
    text = leak_claim(row, 0, names, "“w1”")
    listed = [name for name in re.findall(r"“(w\d)” 0\.\d{4}", text) if name != "w1"]
    assert listed == ["w4", "w6", "w9", "w8", "w2"], text  # 0.20, 0.20 (tie: the lower key), 0.10, 0.08, 0.05
    assert "the 5 largest of 8 future tokens, largest first" in text
