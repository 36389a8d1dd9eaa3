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
