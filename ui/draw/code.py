"""Show the code: the book's snippets for a stage as printed, run now, and the exact source that computed what the
screen shows, read with inspect."""
import ast
import functools
import inspect
import textwrap
import threading

import streamlit as st

from attention_core.book import printed
from ui.state.sections import section
from ui.state.settings import this_run

_SOURCE_LOCK = threading.Lock()


APP_ONLY_METHODS = {"trace"}  # the app's additions to the book's classes: recorded intermediates


@functools.cache
def _source_once(obj) -> str:
    text = inspect.getsource(obj)
    if not inspect.isclass(obj):
        return text
    # A book class is shown as the book prints it: the app's own methods are cut out.
    text = textwrap.dedent(text)
    lines = text.splitlines(keepends=True)
    cut = [node for node in ast.parse(text).body[0].body
           if isinstance(node, ast.FunctionDef) and node.name in APP_ONLY_METHODS]
    for node in sorted(cut, key=lambda n: n.lineno, reverse=True):
        start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
        end = node.end_lineno
        while end < len(lines) and not lines[end].strip():  # the blank line after the method
            end += 1
        del lines[start:end]
    return "".join(lines)


def source(obj) -> str:
    """An object's source, read once and one thread at a time: Python 3.11's parser is not safe to
    run from many sessions at once (the load test hit "AST constructor recursion depth mismatch")."""
    with _SOURCE_LOCK:
        return _source_once(obj)


def show_code(*objects, title: str = "The PyTorch code of this step", name: str = "code",
              book: str | None = None) -> None:
    """The exact source that computed what the screen shows (read with inspect, never retyped), in a section
    that runs only while open. book: the stage whose chapter-3 snippets come first, as the book prints them and
    run now (attention_core/book/printed.py), then one line on where the app's helpers differ from them."""
    with section(name, title, icon=":material/code:") as shown:
        if shown:
            snippets = printed.for_stage(book) if book else []
            for snippet in snippets:
                show_snippet(snippet)
            if snippets and objects:
                st.markdown("**The app's own code for this step** (what computed the lesson above). "
                            + printed.HELPERS_DIFFER[book])
            shown_already = {cls for snippet in snippets for cls in snippet.classes}
            for obj in (o for o in objects if o not in shown_already):
                # wrap_lines: a line longer than the box wraps, where a slide would cut it at the right edge
                st.code(obj if isinstance(obj, str) else source(obj), language="python", wrap_lines=True)


SLIDE_CHARS = 140  # characters of code across the main column on a 1920-pixel slide in presenter mode


def fits_beside(widest_line: int, share: float) -> bool:
    """Whether code whose longest line has this many characters fits unwrapped in a column `share` of the main
    column wide (a code block's padding takes about 6 characters)."""
    return widest_line <= share * SLIDE_CHARS - 6


def book_source(cls) -> str:
    """A book class's source without the app's docstring: the class as the book prints it."""
    lines = source(cls).splitlines(keepends=True)
    first = ast.parse(textwrap.dedent("".join(lines))).body[0].body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        del lines[first.lineno - 1:first.end_lineno]  # the blank line after it stays, as the book's after `class`
    return "".join(lines)


def show_snippet(snippet: printed.Snippet) -> None:
    """One of the book's snippets: its section, the classes it uses, its code as printed, and what it prints,
    computed now by running that code on the book's six input vectors."""
    st.markdown(f"**§{snippet.section} · {snippet.heading}**, the book's code as printed")
    # The classes it uses first, each the whole width: a definition is read on its own, and a snippet beside a class
    # sat a class's height below the output it prints (a teacher's read of /scores).
    for cls in snippet.classes:
        st.code(book_source(cls), language="python", wrap_lines=True)
    done = printed.run(snippet)
    widest = [max(len(line) for line in text.splitlines()) for text in (snippet.code, done.text)]
    # The output's column as wide as its longest line needs (a printed row wrapped mid-tensor misreads), up to
    # two thirds; a longer code line (a comment) wraps in the code's column instead.
    share = min(max((widest[1] + 6) / SLIDE_CHARS, 1 - widest[0] / sum(widest), 0.35), 0.65)
    if fits_beside(widest[0], 1 - share) and fits_beside(widest[1], share):  # the code beside what it prints
        code, output = st.columns([1 - share, share])
    else:  # a line would wrap to column 0 beside the output (students copy it): the code above, its output below,
        pair = st.container()  # in one block, which a slide keeps whole where it fits
        code, output = pair.container(), pair.container()
    code.code(snippet.code.rstrip("\n"), language="python", wrap_lines=True)
    earlier = printed.names_from_earlier(snippet)
    after = ("" if not earlier else " after the chapter's earlier lines that define "
             + ", ".join(f"`{n}` (§{sec})" for n, sec in earlier))
    output.caption(f"What it prints, run now on the book's six input vectors{after}:")
    output.code(done.text, language="text", wrap_lines=True)
    if this_run().preset != "book":  # the notes compare with the book preset's lesson; here the inputs differ
        output.caption("The lesson above runs on this preset's inputs and sizes; the book's code here runs on the "
                       "book's six vectors, so their numbers differ.")
    elif snippet.note:
        output.caption(snippet.note)
