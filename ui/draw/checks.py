"""A screen's checks: its agreement with PyTorch, and the common mistakes beside the right code."""
import collections
import threading

import streamlit as st
import torch

from attention_core.drawing import numbers

from ui.compute.keys import fingerprint
from ui.draw.code import fits_beside
from attention_core.drawing.numbers import scientific

_CHECKED: collections.OrderedDict = collections.OrderedDict()  # the last 256 checks' results (floats)
_CHECKED_LOCK = threading.Lock()


def _key_of(value):
    if isinstance(value, torch.Tensor):
        return fingerprint(value)
    if isinstance(value, dict):
        return tuple((name, _key_of(v)) for name, v in sorted(value.items()) if isinstance(v, (torch.Tensor, dict)))
    return value


def checked(check, *args):
    """check(*args) computed once for the same tensors: a slider that only moves the query re-uses it
    (at 1,024 tokens comparing with PyTorch's fused attention costs about 25 ms a rerun)."""
    key = (check.__module__, check.__qualname__) + tuple(_key_of(a) for a in args)
    with _CHECKED_LOCK:
        if key in _CHECKED:
            _CHECKED.move_to_end(key)
            return _CHECKED[key]
    result = check(*args)
    with _CHECKED_LOCK:
        _CHECKED[key] = result
        while len(_CHECKED) > 256:
            _CHECKED.popitem(last=False)
    return result


def agreement(checks: list[tuple[str, float]], tolerance: float = numbers.TOLERANCE) -> None:
    """This screen's result next to PyTorch's own: one metric per check, max |difference| (drawn inside the
    screen's "checks" section, whose title names it)."""
    for column, (label, diff) in zip(st.columns(len(checks)), checks):
        column.metric(label, scientific(diff), delta="agrees" if diff <= tolerance else "differs",
                      delta_color="normal" if diff <= tolerance else "inverse", delta_arrow="off")
    st.caption(f"Max absolute difference; agreement means ≤ {numbers.plain(tolerance)} (float32 rounding).")


def pitfall(title: str, wrong_code: str, right_code: str, wrong, right, wrong_box=st.error) -> None:
    """A mistake and its fix side by side: the code, then what each one gives. The readers' questions
    pass wrong_box=st.warning: they are demonstrations, and slides treat an error box as a broken screen."""
    st.markdown(f"**{title}**")
    widest = max(len(line) for line in (wrong_code + "\n" + right_code).splitlines())
    # Side by side while every line fits half the column; else one above the other, so no line wraps to column 0
    left, right_col = st.columns(2) if fits_beside(widest, 0.5) else (st.container(), st.container())
    with left:
        st.code(wrong_code, language="python", wrap_lines=True)  # a slide cuts no line
        # A red box says wrong with a cross; a yellow one (a demonstration) with a warning sign, not a yellow cross.
        wrong_box(wrong, icon=":material/close:" if wrong_box is st.error else ":material/warning:")
    with right_col:
        st.code(right_code, language="python", wrap_lines=True)
        st.success(right, icon=":material/check:")
