"""Every stage screen shows its agreement with PyTorch, and its common mistakes on request."""
import pytest

from conftest import open_screen, page_text, plain_number
from screens.registry import STAGES


def agreement_metrics(at) -> dict:
    return {m.label: plain_number(m.value) for m in at.metric if " vs " in m.label or "exercise" in m.label}


@pytest.mark.parametrize("screen", [s.name for s in STAGES])
def test_each_screen_agrees_with_pytorch(screen):
    at = open_screen(screen, proj="v1", sections=["checks"]) if screen == "scores" else open_screen(screen, sections=["checks"])
    checks = agreement_metrics(at)
    assert checks, "no agreement metric on the screen"
    assert all(diff <= 1e-5 for diff in checks.values()), checks


def test_heads_compares_with_nn_multiheadattention_when_d_in_equals_d_out():
    at = open_screen("heads", input="random", tokens="8", d_in="6", d_out="6", heads="3", sections=["checks"])
    checks = agreement_metrics(at)
    assert "output vs nn.MultiheadAttention" in checks and "weights vs nn.MultiheadAttention" in checks
    assert max(checks.values()) <= 1e-5


# One sentence from each stage's common mistakes: what the mistake shows, not only that a box appears.
PITFALL_CLAIMS = {
    "scores": "every dimension reversed",
    "softmax": "Each key's column sums to 1",
    "mask": "cannot be converted",
    "dropout": "the model's answers are random",
    "heads": "flatter than intended (every score divided by √",
}


def test_the_pitfall_claims_name_stage_screens():
    assert set(PITFALL_CLAIMS) <= {s.name for s in STAGES}


@pytest.mark.parametrize("screen", [s.name for s in STAGES])
def test_pitfalls_appear_only_when_asked(screen):
    plain = open_screen(screen)
    assert not plain.error and not plain.success  # no mistake shown, so no wrong/right result boxes
    at = open_screen(screen, sections=["mistakes"])  # the section ?pitfalls=1 used to switch on
    # Each mistake's result is an st.error, its fix's result an st.success beside it.
    assert at.error and at.success, ([e.value for e in at.error], [s.value for s in at.success])
    claim = PITFALL_CLAIMS.get(screen)
    if claim:  # a new stage screen gets the generic check above until it adds a sentence here
        assert claim not in page_text(plain)
        assert claim in page_text(at)


def test_mask_pitfalls_show_nan_for_a_fully_masked_row_and_uniform_for_minus_1e9():
    text = page_text(open_screen("mask", sections=["mistakes"]))
    assert "nan, nan" in text and "0.1667, 0.1667" in text
