"""Bad, odd and extreme input: every case shows a note (or the text literally) and the screen still renders.

Typed sentences (empty, one word, too long, 100 kB, emoji, CJK, right-to-left, combining marks,
HTML and Markdown), URL values (wrong type, out of range, negative, NaN, unknown, repeated, heads
that do not divide d_out, huge sizes), sliders at their ends (dropout 0 and 1, one token, d_out 1)
and device failures (CUDA requested on a CPU machine; a GPU that runs out of memory).
"""
import re
import unicodedata

import pytest
import torch

from attention_core.book.device import run_with_fallback
from attention_core.book.inputs import MAX_SENTENCE_TOKENS, MAX_TEXT_CHARS, tokenize
from attention_core.lessons.presets import PARAMS, PRESETS
from conftest import APP, screen_file, open_screen, page_text, views
from screens.registry import BY_NAME, STAGES
from ui.draw import style

BOOK_PRESET = PRESETS["book"]


# --- helpers -----------------------------------------------------------------------------------

def assert_renders(at, screen: str) -> None:
    """No exception, the screen's own title (it begins with the navigation's), and at least one chart, image
    or attention view drawn (a view with its data: a broken payload would draw a plain error instead)."""
    assert not at.exception, [e.value for e in at.exception]
    assert at.title and at.title[0].value.startswith(BY_NAME[screen].title), [t.value for t in at.title]
    drawn = len(at.get("vega_lite_chart")) + len(at.get("image"))
    assert drawn + sum(len(view["cells"]) > 0 for view in views(at).values()) > 0


def image_captions(at) -> list[str]:
    return [img.caption for element in at.get("image") for img in element.proto.imgs]


def notes(at) -> str:
    return "\n".join(w.value for w in at.warning)


def numbers_text(at) -> str:
    """Where computed numbers appear: tables, metrics, formulas (prose may say "nan" on purpose)."""
    parts = [frame.value.to_string() for frame in at.dataframe]
    parts += [str(m.value) for m in at.get("metric")] + [e.value for e in at.get("latex")]
    return "\n".join(parts)


def has_nan(text: str) -> bool:
    return re.search(r"\bnan\b", text, re.IGNORECASE) is not None


def query_options(at) -> list[str]:
    """The tokens the scores screen's view offers as queries (its JS writes them as text, never HTML)."""
    return list(views(at)["scores_view"]["meta"]["labels"])


def _markdown_elements(at):
    """Every element whose value Streamlit renders as Markdown."""
    for kind in ("markdown", "caption", "title", "header", "subheader", "warning", "info", "error", "success"):
        yield from at.get(kind)


def _outside_code_spans(markdown: str) -> str:
    """The text with its closed code spans removed (CommonMark: a run of n backticks up to the next
    run of exactly n); what is inside a code span is shown literally."""
    out, i = [], 0
    while i < len(markdown):
        if markdown[i] != "`":
            out.append(markdown[i])
            i += 1
            continue
        fence = re.match(r"`+", markdown[i:]).group()
        close = re.compile(rf"(?<!`){fence}(?!`)").search(markdown, i + len(fence))
        if close:
            i = close.end()
        else:
            out.append(fence)
            i += len(fence)
    return "".join(out)


UNESCAPED_TAG = re.compile(r"(?<!\\)<\s*/?\s*(script|b|img|iframe|a|style)\b", re.IGNORECASE)
UNESCAPED_LINK = re.compile(r"(?<!\\)\]\((?:https?|javascript):", re.IGNORECASE)


def assert_no_markup_injected(at) -> None:
    """No HTML allowed anywhere, and no raw tag or link outside a code span in any Markdown value."""
    assert all(h.proto.body == style.sheet(presenter=False) for h in at.get("html"))  # the app's own CSS only
    for element in _markdown_elements(at):
        proto = getattr(element, "proto", None)
        assert not getattr(proto, "allow_html", False), element.value
        visible = _outside_code_spans(element.value)
        assert not UNESCAPED_TAG.search(visible), element.value
        assert not UNESCAPED_LINK.search(visible), element.value


# --- typed sentences ---------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["", "\t \n", "   "], ids=["empty", "whitespace", "spaces"])
def test_a_sentence_without_words_falls_back_to_the_books_sentence_with_a_note(text):
    at = open_screen("scores", input="sentence", text=text)
    assert_renders(at, "scores")
    assert "no words to attend to" in notes(at)
    assert query_options(at)[1].endswith("journey")


def test_a_sentence_longer_than_the_token_limit_is_cut_with_a_note():
    words = [f"w{i}" for i in range(100)]
    at = open_screen("scores", input="sentence", text=" ".join(words))
    assert_renders(at, "scores")
    assert f"has 100 tokens; only the first {MAX_SENTENCE_TOKENS} are used" in notes(at)
    options = query_options(at)
    assert len(options) == MAX_SENTENCE_TOKENS and options[-1].endswith(f"w{MAX_SENTENCE_TOKENS - 1}")


def test_100_kb_of_text_is_refused_by_the_url_limit_with_a_note():
    at = open_screen("scores", input="sentence", text="word " * 20_000)  # 100,000 characters
    assert_renders(at, "scores")
    assert f"is longer than {MAX_TEXT_CHARS} characters" in notes(at)
    assert query_options(at)[1].endswith("journey")  # the default sentence, not 64 copies of "word"


def test_text_at_the_url_limit_is_accepted_and_only_cut_to_the_token_limit():
    text = ("ab " * MAX_TEXT_CHARS)[:MAX_TEXT_CHARS]
    at = open_screen("scores", input="sentence", text=text)
    assert_renders(at, "scores")
    assert "longer than" not in notes(at)
    assert f"only the first {MAX_SENTENCE_TOKENS} are used" in notes(at)
    assert len(query_options(at)) == MAX_SENTENCE_TOKENS


UNICODE = {
    "emoji": "I ❤️ attention 👍🏽 🤖",
    "cjk": "注意力 机制 很 重要",
    "cjk-no-spaces": "注意力机制很重要",
    "arabic": "الانتباه هو كل ما تحتاجه",
    "hebrew": "תשומת לב היא כל מה שצריך",
    "combining-marks": "e\u0301te\u0301 cafe\u0301 café Z\u0351\u0352\u0353algo",
}


@pytest.mark.parametrize("text", UNICODE.values(), ids=UNICODE.keys())
def test_unicode_sentences_become_tokens_shown_as_typed(text):
    at = open_screen("scores", input="sentence", text=text)
    assert_renders(at, "scores")
    tokens = tokenize(text)
    if len(tokens) == 1:  # no spaces: one token, so the default query (2) moves to it
        assert notes(at) == "Query token 2 does not exist (1 token); using token 1."
        assert query_options(at) == [f"1 {tokens[0]}"]  # the whole text, as typed, is the one token
        return
    assert not at.warning, notes(at)
    assert query_options(at) == [f"{i + 1} {token}" for i, token in enumerate(tokens)]  # as typed, not normalised


def test_nfc_and_nfd_spellings_stay_two_different_tokens():
    nfc, nfd = "café", unicodedata.normalize("NFD", "café")
    at = open_screen("scores", input="sentence", text=f"{nfc} {nfd}")
    assert_renders(at, "scores")
    assert query_options(at) == [f"1 {nfc}", f"2 {nfd}"]


MARKUP = "<b>bold</b> <script>alert(1)</script> <img src=x onerror=alert(1)> **star** [link](http://example.com) $x$"


def test_html_and_markdown_in_a_sentence_are_shown_as_text_never_rendered():
    # query=1 selects the "<b>bold</b>" token, which the mask screen interpolates into its prose.
    at = open_screen("mask", input="sentence", text=MARKUP, query="1")
    assert_renders(at, "mask")
    assert_no_markup_injected(at)
    headings = [e.value for e in _markdown_elements(at)]
    assert any(r"\<b\>bold\</b\>" in value for value in headings), headings  # interpolated, escaped
    at = open_screen("scores", input="sentence", text=MARKUP, query="1")
    assert_renders(at, "scores")
    assert_no_markup_injected(at)
    assert "1 <b>bold</b>" in query_options(at)  # plain text in the view


# --- URL parameters ----------------------------------------------------------------------------

BAD_URL_VALUES = [
    ("tokens", "abc", "is not a whole number"),
    ("d_out", "2.5", "is not a whole number"),
    ("positions", "maybe", "is not a yes/no value"),
    ("dropout", "half", "is not a number"),
    ("tokens", "0", "is outside 1 to 1,024"),
    ("tokens", "5000", "is outside 1 to 1,024"),
    ("dropout", "1.5", "is outside 0 to 1"),
    ("seed", "-1", "is outside 0 to"),
    ("d_k", "-5", "is outside 1 to 1,024"),
    ("dropout", "-0.1", "is outside 0 to 1"),
    ("dropout", "nan", "is not a finite number"),
    ("dropout", "inf", "is not a finite number"),
    ("tokens", "NaN", "is not a whole number"),
    ("tokens", "1e9", "is not a whole number"),
    ("tokens", "1000000000", "is outside 1 to 1,024"),
    ("d_in", "9" * 30, "is outside 1 to 1,024"),
    ("preset", "gpt5", "is not one of book, gpt2-small, custom"),
    ("device", "tpu", "is not one of auto, cuda, mps, cpu"),
    ("input", "file", "is not one of book, sentence, random"),
]


@pytest.mark.parametrize("name, raw, why", BAD_URL_VALUES, ids=[f"{n}={r[:12]}" for n, r, _ in BAD_URL_VALUES])
def test_a_bad_url_value_falls_back_to_the_default_with_a_note(name, raw, why):
    at = open_screen("scores", **{name: raw})
    assert_renders(at, "scores")
    assert f"URL parameter `{name}=" in notes(at) and why in notes(at), notes(at)
    assert at.session_state[f"keep:{name}"] == BOOK_PRESET.get(name, PARAMS[name].default)


def test_a_query_token_beyond_the_input_falls_back_with_a_note():
    at = open_screen("scores", query="99")
    assert_renders(at, "scores")
    assert "Query token 99 does not exist (6 tokens); using token 2." in notes(at)


def test_a_repeated_url_key_uses_the_last_value_with_a_note():
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["input"] = "random"
    at.query_params["tokens"] = ["8", "16"]  # ?tokens=8&tokens=16
    at.run()
    at.switch_page(screen_file("scores")).run()
    assert_renders(at, "scores")
    assert "URL parameter `tokens` appears 2 times; the last one is used." in notes(at)
    assert at.session_state["keep:tokens"] == 16 and len(query_options(at)) == 16


def test_heads_that_do_not_divide_d_out_fall_back_with_a_note():
    at = open_screen("heads", d_out="6", heads="4")
    assert_renders(at, "heads")
    assert "4 heads do not divide d_out = 6; showing 2 instead (the default)." in notes(at)  # 2 divides 6
    assert at.session_state["keep:heads"] == 2


def test_the_largest_token_count_draws_the_matrix_as_an_image():
    at = open_screen("scores", input="random", tokens="1024")
    assert_renders(at, "scores")
    meta = views(at)["scores_view"]["meta"]  # an overview image and every cell for the browser's zoom window
    assert (meta["rows"], meta["cols"]) == (1024, 1024) and "4 × 4 block" in meta["overview"]["blocks"]


def test_d_out_of_one_leaves_one_head_with_a_note():
    at = open_screen("heads", d_out="1")
    assert_renders(at, "heads")
    assert "2 heads do not divide d_out = 1" in notes(at)
    assert at.session_state["keep:heads"] == 1


@pytest.mark.parametrize("params", [
    {"preset": "x` <b>bold</b> [click](http://example.com) `"},
    {"a`[click](http://example.com)`": "1"},
], ids=["bad-value", "unknown-key"])
def test_a_url_value_with_markup_is_shown_literally_in_its_note(params):
    at = open_screen("scores", **params)
    assert_renders(at, "scores")
    assert "URL parameter" in notes(at)
    assert_no_markup_injected(at)


# --- sliders at their ends ---------------------------------------------------------------------

def test_dropout_p_1_drops_everything_and_says_so_without_nan():
    at = open_screen("dropout", sections=["draws"], dropout="1")
    assert_renders(at, "dropout")
    assert "p = 1: all weights dropped" in notes(at)
    assert "none: all dropped" in [str(m.value) for m in at.get("metric")]
    assert not has_nan(numbers_text(at)), numbers_text(at)
    sums = at.dataframe[[i for i, f in enumerate(at.dataframe) if "after dropout" in f.value.columns][0]].value
    assert (sums["after dropout"] == 0).all()


def test_dropout_p_0_changes_nothing_and_says_so():
    at = open_screen("dropout", sections=["draws"], dropout="0")
    assert_renders(at, "dropout")
    assert any("p = 0: nothing is dropped" in i.value for i in at.info)
    assert not has_nan(numbers_text(at))
    sums = at.dataframe[[i for i, f in enumerate(at.dataframe) if "after dropout" in f.value.columns][0]].value
    assert (sums["after dropout"] - sums["attn_weights"]).abs().max() < 1e-6


@pytest.mark.parametrize("screen", [s.name for s in STAGES])
@pytest.mark.parametrize("source", [{"input": "random", "tokens": "1"}, {"input": "sentence", "text": "hello"}],
                         ids=["random", "sentence"])
def test_one_token_renders_every_screen_with_a_note_and_no_nan(screen, source):
    at = open_screen(screen, **source)
    assert_renders(at, screen)
    assert "Query token 2 does not exist" in notes(at)  # the default query (2) moved to the only token
    assert not has_nan(numbers_text(at)), numbers_text(at)


# --- devices -----------------------------------------------------------------------------------

@pytest.mark.parametrize("device, available", [("cuda", torch.cuda.is_available),
                                               ("mps", lambda: torch.backends.mps.is_available())])
def test_a_missing_gpu_falls_back_to_the_cpu_with_a_note(device, available):
    if available():
        pytest.skip(f"{device} is present on this machine")
    at = open_screen("scores", device=device)
    assert_renders(at, "scores")
    assert f"{device.upper()} is not available here, so the numbers were computed on the CPU." in notes(at)
    assert "Computed on CPU" in page_text(at)


def _fails_on(failing_device: str, error: Exception):
    calls = []

    def compute(device):
        calls.append(device)
        if device == failing_device:
            raise error
        return torch.ones(2, 2, device=device) * 3  # (2, 2)
    return compute, calls


def test_a_gpu_out_of_memory_reruns_on_the_cpu_with_a_note():
    compute, calls = _fails_on("cuda", torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 4.00 GiB"))
    result, used, message = run_with_fallback(compute, "cuda")
    assert calls == ["cuda", "cpu"] and used == "cpu"
    assert torch.equal(result, torch.full((2, 2), 3.0))
    assert message.startswith("CUDA failed (CUDA out of memory.") and "computed on the CPU instead" in message


def test_a_gpu_driver_error_reruns_on_the_cpu_with_a_note():
    compute, calls = _fails_on("mps", RuntimeError("MPS backend out of memory\nsecond line of detail"))
    result, used, message = run_with_fallback(compute, "mps")
    assert calls == ["mps", "cpu"] and used == "cpu"
    assert "MPS failed (MPS backend out of memory)" in message and "second line" not in message


def test_the_cpu_is_used_directly_and_its_own_errors_are_not_hidden():
    compute, calls = _fails_on("none", RuntimeError("unused"))
    assert run_with_fallback(compute, "cpu")[1:] == ("cpu", None) and calls == ["cpu"]
    broken, _ = _fails_on("cpu", ValueError("a bug, not a device failure"))
    with pytest.raises(ValueError):
        run_with_fallback(broken, "cpu")
