"""No line of code wraps on a slide: code shown in a column (a book snippet beside its output, a common mistake beside
its fix) fits that column unwrapped, or the screen stacks the two (issue 35: teacher reads found Listing 3.4's
signature and the mistakes' lines wrapped to column 0, which students copy)."""
import pytest

from conftest import open_screen
from screens.registry import BY_NAME
from ui.draw.code import fits_beside


def code_in_columns(node, share=1.0):
    """(share of the main column, code text) of every code block, with the share of the columns it sits in."""
    children = list(getattr(node, "children", {}).values())
    columns = [c for c in children if type(c).__name__ == "Column"]
    total = sum(c.weight for c in columns) or 1
    for child in children:
        inner = share * child.weight / total if type(child).__name__ == "Column" else share
        if type(child).__name__ == "Code":
            yield share, child.value
        yield from code_in_columns(child, inner)


@pytest.mark.parametrize("page", sorted(BY_NAME))
def test_every_code_line_fits_its_column_on_a_slide(page):
    at = open_screen(page, sections="all", presenter=1)
    wrapped = [(round(share, 2), max(text.splitlines(), key=len)) for share, text in code_in_columns(at._tree)
               if share < 1 and not fits_beside(max(map(len, text.splitlines() or [""])), share)]
    assert not wrapped, wrapped


def snippet_pairs(node, parent=None):
    """(the block around a book snippet's output, that block's parent) for every "What it prints" caption."""
    for child in getattr(node, "children", {}).values():
        if type(child).__name__ == "Caption" and child.value.startswith("What it prints"):
            yield node, parent
        yield from snippet_pairs(child, node)


def codes(node):
    return [c.value for c in getattr(node, "children", {}).values() if type(c).__name__ == "Code"] + [
        text for c in getattr(node, "children", {}).values() for text in codes(c)]


@pytest.mark.parametrize("page", ["scores", "softmax", "mask", "dropout", "heads"])
def test_a_book_snippet_and_what_it_prints_are_one_block_without_the_class(page):
    """A slide keeps what belongs together: the snippet and its output share one block (side by side or stacked),
    which a slide holds whole where it fits; the class above them is a block of its own, so the pair is not split
    to make room for it (issue 35: the wrapper's snippet on one slide, its output alone on the next; a class beside
    its output put the snippet's print a class's height below what it prints)."""
    at = open_screen(page, sections="all", presenter=1)
    pairs = list(snippet_pairs(at._tree))
    assert pairs, "no book snippet on the screen"
    for output, pair in pairs:
        inside = codes(pair)
        snippets = [c for c in inside if not c.startswith("class ") and c not in codes(output)]
        classes = [c for c in inside if c.startswith("class ")]
        assert snippets, f"{page}: an output without its snippet in its block"
        assert not classes, f"{page}: the snippet's block holds a class too: {classes[0][:40]!r}"
