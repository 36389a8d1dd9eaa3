"""Show the code: the exact source that computed what a screen shows, read with inspect."""
import ast
import functools
import inspect
import textwrap
import threading

import streamlit as st

from ui.state.sections import section

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


def show_code(*objects, title: str = "The PyTorch code of this step", name: str = "code") -> None:
    """The exact source that computed what the screen shows (read with inspect, never retyped), in a section
    that runs only while open."""
    with section(name, title, icon=":material/code:") as shown:
        if shown:
            for obj in objects:
                st.code(obj if isinstance(obj, str) else source(obj), language="python")
