"""AppTest: navigation, presets, URL state and bad URL values, on the home screen and across pages."""
import re
from pathlib import Path

from conftest import chart_frames, open_screen, page_text, views
from ui.draw import style

ROOT = Path(__file__).resolve().parents[1]


def test_home_renders_with_the_pipeline_and_the_sidebar():
    at = open_screen()
    assert "The problem attention solves" in page_text(at)
    assert at.selectbox(key="preset").value == "book"
    assert at.radio(key="input").value == "book"


def test_the_registry_lists_the_chapters_stages_in_order_and_every_screen_file_exists():
    from screens.registry import SCREENS, STAGES
    # the chapter's five in the book's order; a stage added later comes after them (no edit here)
    assert [s.url_path for s in STAGES][:5] == ["scores", "softmax", "mask", "dropout", "heads"]
    assert all(s.stage.book_seed >= 0 and s.questions for s in STAGES)  # every stage declares its seed and questions
    assert all((ROOT / s.file).is_file() for s in SCREENS)
    assert len({s.url_path for s in SCREENS}) == len(SCREENS)


def test_the_navigation_is_built_from_the_registry():
    from screens.registry import SCREENS
    at = open_screen()
    # switch_page only accepts a page that main.py's st.navigation registered.
    for screen in SCREENS:
        at.switch_page(screen.file).run()
        assert not at.exception, (screen.file, [e.value for e in at.exception])


def test_there_is_no_pages_folder():
    # A pages/ folder beside main.py switches Streamlit to its older multipage mode until main.py has
    # run once: a shared link opened first on a fresh server showed "Page not found" or ran the
    # screen without main.py's sidebar. The screens live in screens/ instead.
    from screens.registry import SCREENS
    assert not (ROOT / "pages").exists()
    files = {p.name for p in (ROOT / "screens").glob("*.py") if p.stem not in ("registry", "__init__")}
    pages = {s.file.split("/")[-1] for s in SCREENS}
    blocks = {name for name in files if name.endswith("_blocks.py")}  # a screen's folded sections, beside it
    assert files - blocks == pages
    assert {name.replace("_blocks", "") for name in blocks} <= pages


def test_gpt2_small_preset_sets_exercise_3_3_sizes():
    at = open_screen(preset="gpt2-small")
    state = at.session_state
    assert (state["keep:tokens"], state["keep:d_in"], state["keep:d_out"], state["keep:heads"]) == (1024, 768, 768, 12)
    assert state["keep:input"] == "random"


def test_changing_a_shared_control_leaves_the_preset():
    # The URL itself is checked in the browser tests: AppTest reruns only the page script
    # under st.navigation, so main.py's sync_url() does not run again here.
    at = open_screen()
    at.slider(key="d_out").set_value(4).run()
    assert at.session_state["keep:d_out"] == 4
    assert at.session_state["keep:preset"] == "custom"


def test_url_params_hold_only_what_differs_from_the_preset():
    from attention_core.lessons.presets import PARAMS, PRESETS, url_params
    book = {name: spec.default for name, spec in PARAMS.items()}
    assert url_params(book) == {}
    assert url_params(book | {"preset": "custom", "d_out": 4, "scale": False}) == {
        "preset": "custom", "d_out": "4", "scale": "0"}
    gpt2 = book | PRESETS["gpt2-small"] | {"preset": "gpt2-small"}
    assert url_params(gpt2) == {"preset": "gpt2-small"}
    assert url_params(gpt2 | {"tokens": 256}) == {"preset": "gpt2-small", "tokens": "256"}


def test_url_values_override_the_preset():
    at = open_screen(preset="gpt2-small", tokens="128")
    assert at.session_state["keep:tokens"] == 128
    assert at.session_state["keep:d_in"] == 768


def test_bad_url_values_fall_back_to_defaults_with_notes():
    at = open_screen(tokens="abc", d_out="-3", preset="gpt5", dropout="nan", bogus="1")
    notes = " ".join(w.value for w in at.warning)
    for name in ("tokens", "d_out", "preset", "dropout", "bogus"):
        assert f"`{name}" in notes, name
    assert at.session_state["keep:d_out"] == 2 and at.session_state["keep:preset"] == "book"


def test_a_sentence_from_the_url_becomes_the_tokens():
    at = open_screen("scores", sections=["tensors"], input="sentence", text="the cat sat on the mat")
    text = page_text(at)
    assert "2 cat" in text and "5 the" in text


MARKDOWN_KINDS = ("markdown", "caption", "title", "header", "subheader", "warning", "info", "error", "success")


def test_html_in_a_sentence_is_shown_as_text():
    # Tokens: "<script>alert", "(", "1", ")", "</script>", "<b>bold</b>"; query 6 puts the last one
    # into the mask screen's "... is the last token" line, which Streamlit renders as Markdown.
    at = open_screen("mask", sections="all", input="sentence", text="<script>alert(1)</script> <b>bold</b>", query="6")
    assert not at.exception
    # Where the app shows plain text (the view's labels, which its JS sets as textContent; tables; chart
    # data), the tokens are verbatim.
    assert views(at)["causal"]["meta"]["labels"][-1] == "6 <b>bold</b>"
    table_labels = {str(label) for frame in at.dataframe for label in frame.value.index}
    assert {"<script>alert", "</script>", "<b>bold</b>"} <= {label.split(" ", 1)[-1] for label in table_labels}
    assert any("<script>alert" in frame.to_string() for _, frames in chart_frames(at) for frame in frames)
    # Where Streamlit renders Markdown, the heading holds the escaped form, nothing holds a raw tag,
    # and nothing may render HTML at all.
    markdown = [e for kind in MARKDOWN_KINDS for e in at.get(kind)]
    assert any(r"6 \<b\>bold\</b\> is the last token" in e.value for e in markdown), [e.value for e in markdown]
    raw_tag = re.compile(r"(?<!\\)</?(script|b)>")
    assert not [e.value for e in markdown if raw_tag.search(e.value)]
    assert all(h.proto.body == style.sheet(presenter=False) for h in at.get("html"))  # the app's own CSS only
    assert not [e.value for e in [*at.markdown, *at.caption] if e.proto.allow_html]


def test_empty_sentence_shows_a_note_and_the_books_sentence():
    at = open_screen("scores", sections=["tensors"], input="sentence", text="   ")
    assert any("no words" in w.value for w in at.warning)
    assert "2 journey" in page_text(at)
