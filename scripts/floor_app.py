"""The floor for scripts/benchmark.py: the cheapest slider move Streamlit can do here.

One slider and one caption in a fragment: a move reruns only that fragment and changes one line
of text. Every screen's latency is reported beside this one.

    streamlit run scripts/floor_app.py

With `?extra=N&kind=K` the fragment also draws N more elements of one kind, so that
scripts/element_costs.py can price each kind a move redraws: `markdown` (a sentence that names the
slider's value: a changed element), `static` (the same sentence every run), `metric` (a metric in
one of four columns) or `expander` (a folded, empty expander).
"""
import streamlit as st

KINDS = ("markdown", "static", "metric", "expander")
MOST_EXTRA = 100

st.set_page_config(page_title="Floor", layout="wide")


def asked() -> tuple[int, str]:
    """The URL's extra elements: a whole number up to MOST_EXTRA of one of KINDS; anything else draws none."""
    text, kind = st.query_params.get("extra", "0"), st.query_params.get("kind", "markdown")
    count = int(text) if text.isdigit() else 0
    return (min(count, MOST_EXTRA), kind) if kind in KINDS else (0, kind)


@st.fragment
def moved():
    value = st.slider("Value", 0, 100, 50, key="value")
    st.caption(f"value = {value}")
    count, kind = asked()
    for i in range(count):
        if kind == "markdown":
            st.markdown(f"Sentence {i + 1}: the weights of **query {value}** sum to 1; the *largest* is `0.25`.")
        elif kind == "static":
            st.markdown(f"Sentence {i + 1}: the weights of **a query** sum to 1; the *largest* is `0.25`.")
        elif kind == "metric":
            st.columns(4)[i % 4].metric(f"metric {i + 1}", value)
        else:
            with st.expander(f"Section {i + 1}", key=f"section{i}", on_change="rerun"):
                st.write("folded")


moved()
