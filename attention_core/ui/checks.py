"""A screen's checks: its agreement with PyTorch, and the common mistakes beside the right code."""
import streamlit as st

from attention_core.ui.state import control


def agreement(checks: list[tuple[str, float]], tolerance: float = 1e-5) -> None:
    """This screen's result next to PyTorch's own: one metric per check, max |difference|."""
    st.subheader("Agreement with PyTorch")
    for column, (label, diff) in zip(st.columns(len(checks)), checks):
        column.metric(label, f"{diff:.1e}", delta="agrees" if diff <= tolerance else "differs",
                      delta_color="normal" if diff <= tolerance else "inverse", delta_arrow="off")
    st.caption(f"Max absolute difference; agreement means ≤ {tolerance:g} (float32 rounding).")


def pitfalls_toggle() -> bool:
    """One switch per screen that reveals the mistakes people make at this step."""
    return control(st.toggle, "Show common mistakes", "pitfalls",
                   help="The wrong code next to the right one, with the numbers each gives.")


def pitfall(title: str, wrong_code: str, right_code: str, wrong, right, wrong_box=st.error) -> None:
    """A mistake and its fix side by side: the code, then what each one gives. The readers' questions
    pass wrong_box=st.warning: they are demonstrations, and slides treat an error box as a broken screen."""
    st.markdown(f"**{title}**")
    left, right_col = st.columns(2)
    with left:
        st.code(wrong_code, language="python")
        wrong_box(wrong, icon=":material/close:")
    with right_col:
        st.code(right_code, language="python")
        st.success(right, icon=":material/check:")
