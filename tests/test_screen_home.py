"""AppTest: home's pipeline reads in one order."""
import re

from conftest import open_screen


def test_the_pipeline_boxes_run_in_one_order_and_carry_no_screen_numbers():
    """Issue 29: the boxes were numbered 1, 3, 2, 4, 5 (screen numbers along the chapter's running order)."""
    spec = open_screen().get("graphviz_chart")[0].proto.spec
    labels = dict(re.findall(r'(\w+) \[label="([^"]*)"\]', spec))
    chain = re.search(r"(\w+(?: -> \w+)+);", spec).group(1).split(" -> ")
    shown = [labels[node].split("\\n")[0] for node in chain]
    assert shown == ["inputs x", "queries, keys, values", "scores", "causal mask", "softmax(ω / √d_k)", "dropout",
                     "context vectors", "multi-head"]  # CausalAttention's order: mask, then softmax
    assert not any(re.match(r"\d", label) for label in labels.values())  # no number to read out of sequence
