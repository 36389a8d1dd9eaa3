"""The dropout rate at every size where the stack fits the byte budget: the batched stack is each rate's dropout
exactly, the rule never underestimates what the view sends, and above it the server's slider takes over."""
import json

import torch

from conftest import open_screen, views
from screens.dropout_blocks import RATES


def test_the_batched_stack_is_each_rates_dropout_exactly():
    from attention_core.book import stages
    from attention_core.book.inputs import BOOK_INPUTS, random_inputs
    from attention_core.lessons import traces
    for x, seed in ((BOOK_INPUTS, 123), (random_inputs(40, 8, 5), 7)):
        weights = traces.causal_trace(x, 4, 789, x.shape[0], "cpu")[0]["attn_weights"]  # (T, T)
        for train in (True, False):
            after, sums = traces.dropout_stack(weights, RATES, seed, train)  # (rates, T, T), (rates, T, 2)
            assert after.shape == (len(RATES), *weights.shape)
            for n, rate in enumerate(RATES):
                alone = stages.dropout(weights, rate, seed, train)[0]  # (T, T): one rate at a time
                assert torch.equal(after[n], alone), (rate, train)
                assert torch.equal(sums[n, :, 0], weights.sum(dim=-1)) and torch.equal(sums[n, :, 1], alone.sum(dim=-1))


def _sent(at, view_key: str) -> tuple[int, int]:
    """What the view's element sends: (all its bytes, the bytes of its main map's tables)."""
    element = next(e for e in at.get("bidi_component") if e.proto.id.rsplit("-", 1)[-1] == view_key)
    mixed = element.proto.mixed
    refs = {name: value["__streamlit_arrow_ref__"] for name, value in json.loads(mixed.json).items()
            if isinstance(value, dict) and "__streamlit_arrow_ref__" in value}
    maps = sum(len(mixed.arrow_blobs[ref].data) for name, ref in refs.items() if name in ("cells", "top", "bands"))
    return element.proto.ByteSize(), maps


def test_every_rate_travels_while_the_stack_fits_the_byte_budget_and_the_slider_takes_over_above():
    from screens.dropout_blocks import CELL_BYTES, STACK_BUDGET, every_rate_fits, stack_bytes
    largest = max(t for t in range(1, 1025) if every_rate_fits(t))
    assert largest == 194 and stack_bytes(194) <= STACK_BUDGET < stack_bytes(195)
    assert stack_bytes(6) == 21 * 21 * CELL_BYTES  # the book: 21 rates × 21 visible cells
    at = open_screen("dropout", input="random", tokens=largest)
    meta = views(at)["dropout_view"]["meta"]
    assert meta["frames"]["dims"][0]["values"] == RATES and not at.main.slider  # the view scrubs p
    everything, maps = _sent(at, "dropout_view")
    assert maps <= STACK_BUDGET and everything <= 3_000_000, (maps, everything)  # the rule holds for what is sent
    at = open_screen("dropout", input="random", tokens=largest + 1, dropout=0.3)
    assert views(at)["dropout_view"]["meta"]["frames"] is None  # one map: the server's slider moves p
    assert [s.label for s in at.main.slider] == ["Dropout rate p"] and at.main.slider[0].value == 0.3


def test_the_rule_never_underestimates_what_a_stack_sends():
    from screens.dropout_blocks import stack_bytes
    for tokens in (6, 64, 128):  # exact codes for every cell up to here: the costliest cells the view sends
        _, maps = _sent(open_screen("dropout", input="random", tokens=tokens), "dropout_view")
        assert maps <= stack_bytes(tokens), (tokens, maps, stack_bytes(tokens))
