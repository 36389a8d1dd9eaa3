"""The book's code on every stage screen: each snippet as printed, run, against the book's printed numbers and the
screen's own numbers at the book preset (4 decimals), and present in the screen's code section.

Driven by the registry: every stage's snippets (attention_core/book/printed.py's ON_STAGE) are checked; a stage
with no chapter-3 snippets (the stages past chapter 3 show their own book code) has nothing to check here.
"""
import re

import pytest
import torch

from attention_core.book import printed, stages
from attention_core.book.inputs import BOOK_INPUTS
from attention_core.lessons import traces
from attention_core.lessons.presets import PRESETS
from book_prints import BOOK_PRINTS
from conftest import open_screen
from screens.registry import BY_NAME, STAGES

BOOK = PRESETS["book"]
CHECKED = [(stage.name, snippet) for stage in STAGES for snippet in printed.for_stage(stage.name)]
IDS = [f"{stage}-{snippet.key}" for stage, snippet in CHECKED]
WIDEST = 90  # characters: a code line that fits a slide's code box at 1920 × 1080, as the book's lines do


def book_numbers(text: str) -> torch.Tensor:
    """Every number the book prints in a snippet's output, in order (shapes and grad_fn names left out)."""
    text = re.sub(r"grad_fn=<\w+>|torch\.Size\(\[[\d, ]*\]\)", "", text)
    return torch.tensor([float(n) for n in re.findall(r"-?inf|-?\d+\.\d*(?:e[+-]?\d+)?", text)])


def screen_numbers(stage: str) -> dict[str, list]:
    """What the stage screen shows at the book preset, computed the screen's way (the traces ui.compute caches,
    with the registry's book seed for the stage), aligned with the tensors each snippet prints (None: a tensor
    the screen does not show)."""
    seed, x, d_out = BY_NAME[stage].stage.book_seed, BOOK_INPUTS, BOOK["d_out"]
    plain = traces.projection_trace(x, "none", d_out, seed, "cpu")[0]
    v1 = traces.projection_trace(x, "v1", d_out, seed, "cpu", True)[0]
    causal = traces.causal_trace(x, d_out, seed, BOOK["context_length"], "cpu")[0]
    if stage == "scores":
        return {"scores_loop": [plain["attn_scores"][1]], "scores_matrix": [plain["attn_scores"]],
                "context_all": [plain["attn_weights"], plain["context_vec"]], "self_attention_v1": [v1["context_vec"]]}
    if stage == "softmax":
        normalised = traces.normalisations(plain["attn_scores"])
        return {"normalise_sum": [normalised["divide by the sum"][1], None],
                "softmax_naive": [normalised["naive exp / sum"][1], None],
                "softmax_torch": [normalised["torch.softmax"][1], None],
                "scaled_softmax": [v1["attn_scores"][1], v1["attn_weights"][1]]}
    if stage == "mask":
        return {"unmasked_weights": [causal["unmasked_weights"]],
                "mask_after_softmax": [1 - causal["mask"], causal["masked_simple"], causal["masked_simple_norm"]],
                "mask_before_softmax": [causal["masked_scores"], causal["attn_weights"]]}
    if stage == "dropout":  # as screens/dropout.py computes it, at the preset's rate and dropout seed
        p = BOOK["dropout"]
        dropped, keep = stages.dropout(causal["attn_weights"], p, BOOK["dropout_seed"], True)
        return {"dropout_ones": [keep / (1 - p)], "dropout_weights": [dropped]}
    if stage == "heads":
        h = traces.heads_trace(x, d_out, BOOK["heads"], seed, BOOK["context_length"], "cpu")
        return {"wrapper": [h["wrapper"]["context_vec"]], "multi_head_attention": [h["mha"]["context_vec"]]}
    return {}


def test_every_stage_that_shows_the_books_code_is_a_stage_of_the_registry():
    assert set(printed.ON_STAGE) <= {s.name for s in STAGES}
    assert set(printed.HELPERS_DIFFER) == set(printed.ON_STAGE)  # each says where the app's helpers differ
    assert {"scores", "softmax", "mask", "dropout", "heads"} <= set(printed.ON_STAGE)  # the chapter's stages


@pytest.mark.parametrize("stage,snippet", CHECKED, ids=IDS)
def test_the_snippet_prints_the_books_numbers(stage, snippet):
    done = printed.run(snippet)
    assert done.tensors, snippet.key
    ran = torch.cat([t.detach().float().flatten() for t in done.tensors])
    torch.testing.assert_close(ran, book_numbers(BOOK_PRINTS[snippet.key]), atol=1e-4, rtol=0)


@pytest.mark.parametrize("stage", sorted({stage for stage, _ in CHECKED}))
def test_the_snippets_print_the_screens_numbers_at_the_book_preset(stage):
    shown = screen_numbers(stage)
    # every stage checks its own numbers against at least one of its snippets
    assert shown and set(shown) <= set(printed.ON_STAGE[stage]), stage
    for key, expected in shown.items():
        done = printed.run(printed.SNIPPETS[key])
        assert len(done.tensors) == len(expected), key
        for ran, screen in zip(done.tensors, expected):
            if screen is not None:  # the screen's batch of one against the book's batch of two: same rows
                torch.testing.assert_close(ran.detach().float(), screen.float().expand_as(ran), atol=1e-4, rtol=0)


@pytest.mark.parametrize("stage,snippet", CHECKED, ids=IDS)
def test_a_snippet_runs_with_only_the_names_it_says_come_from_earlier(stage, snippet):
    """The caption under a snippet lists what it takes from earlier cells: those names alone let it run."""
    with torch.random.fork_rng(devices=[]):  # the earlier cells seed the global generator, as printed
        earlier = printed._run_cells(printed._chain(snippet.key)[:-1], printed._base_namespace(BOOK_INPUTS.clone()))
    given = {name: earlier[name] for name, _ in printed.names_from_earlier(snippet)}
    namespace = printed._base_namespace(BOOK_INPUTS.clone()) | given
    with torch.random.fork_rng(devices=[]):
        exec(compile(snippet.code, snippet.key, "exec"), namespace)  # noqa: S102


def test_running_a_snippet_leaves_the_global_random_state_alone():
    before = torch.get_rng_state()
    printed.run(printed.SNIPPETS["dropout_weights"], BOOK_INPUTS.clone())  # seeds 123 twice, as printed
    assert torch.equal(torch.get_rng_state(), before)


@pytest.mark.parametrize("stage,snippet", CHECKED, ids=IDS)
def test_the_books_lines_fit_a_slide(stage, snippet):
    lines = snippet.code.splitlines() + printed.run(snippet).text.splitlines()
    assert max(len(line) for line in lines) <= WIDEST, snippet.key


@pytest.mark.parametrize("stage", sorted({stage for stage, _ in CHECKED}))
def test_the_stage_screen_shows_its_snippets_and_their_output(stage):
    at = open_screen(stage, sections=["code"])
    code = [c.value for c in at.code]
    text = "\n".join(m.value for m in at.markdown)
    for snippet in printed.for_stage(stage):
        assert snippet.code.rstrip("\n") in code, snippet.key
        assert printed.run(snippet).text in code, snippet.key  # its output, computed
        assert f"§{snippet.section} · {snippet.heading}" in text, snippet.key
        for cls in snippet.classes:
            shown = [c for c in code if c.startswith(f"class {cls.__name__}(nn.Module):")]
            assert shown and '"""' not in shown[0], cls.__name__  # the book's class, without the app's docstring
    assert printed.HELPERS_DIFFER[stage] in text
