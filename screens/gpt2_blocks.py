"""The GPT-2 screen's blocks that stand on their own: what to do without the weights, the table of what each
head does, and one head's numbers.

screens/gpt2.py keeps the outline (the sentence, every head's map, the one-head view, the prose) and calls each
of these with one line. scores[layer][head] are attention_core/models/head_labels.py's per-head measures.
"""
import pandas as pd
import streamlit as st

from attention_core.models import gpt2, head_labels
from ui.draw.display import data_table, table
from ui.compute.gpt2_model import ENV_VAR, gpt2_download
from ui.state.session import set_shared


def missing_weights(why: str, public: bool, trained_page) -> None:
    """The kind, quick explanation when there is no copy of the weights; trained_page: the offline toy models'
    screen from the registry (None when the app has none), offered meanwhile."""
    st.info(
        "**GPT-2's weights are not on this server yet**, so this screen has nothing to show. Everything else in "
        "the app works without them.\n\n"
        "To fetch them once (about 550 MB, into the Hugging Face cache), run in the app's folder:\n\n"
        "```bash\npython -m attention_core.models.gpt2 --download\n```\n\n"
        f"Or point the app at a copy: a folder holding `{'`, `'.join(gpt2.FILES)}` (the hub's `gpt2` layout), "
        f"named in the environment variable `{ENV_VAR}`"
        + (". On this public demo only its operator can do that." if public else
           " or in *Where the weights come from* above."), icon=":material/cloud_off:")
    st.caption(f"What was checked: {why}.")
    if not public and st.button("Try to download GPT-2 now", icon=":material/download:"):
        found, error = gpt2_download()
        if found:
            st.rerun()
        st.warning(f"The download did not work ({error}). Without a network, copy the folder from a machine "
                   "that has it.", icon=":material/wifi_off:")
    if trained_page:
        st.page_link(trained_page.file, label="Meanwhile: heads of tiny models trained here, offline",
                     icon=":material/school:")
    else:
        st.markdown("Meanwhile, the trained toy models (`/trained`) show the same head patterns offline.")


def head_label_grid(scores: list, n_layer: int, n_head: int) -> None:
    """Every head's label read off its map, a row per layer, a column per head."""
    grid = pd.DataFrame([[head_labels.LABELS[s.label] for s in row] for row in scores],
                        index=[f"layer {l + 1}" for l in range(n_layer)],
                        columns=[f"head {h + 1}" for h in range(n_head)])
    st.markdown("**What each head does, read off its map** (the rule is in `attention_core/models/head_labels.py`):")
    data_table(grid, width="content", height=35 * (n_layer + 1) + 3)  # every layer, no inner scroll


def head_numbers(s, weights, layer: int, head: int, labels: list) -> None:
    """One head's label and measures, and its exact weights folded away; s: scores[layer][head];
    weights: (layers, heads, T, T)."""
    st.subheader(f"Layer {layer + 1}, head {head + 1}: {head_labels.LABELS[s.label]}")
    cols = st.columns(5)
    for col, (name, v) in zip(cols, [("previous token", s.previous), ("first token", s.first),
                                     ("same token earlier", s.duplicate), ("itself", s.self), ("spread", s.spread)]):
        col.metric(name, "—" if v != v else f"{v:.2f}")  # v != v: nan, no token repeats
    st.caption("Average weight, over queries 2 to T, on the token just before, on the first token, on earlier "
               "copies of the query's own token (— when no token repeats) and on itself; spread is the entropy "
               "relative to a uniform row (1 = uniform).")
    with st.expander("Exact values"):
        table(weights[layer, head], f"attn_weights[0, {head}] of layer {layer + 1}", labels, labels)


TEXT_KEY = "gpt2_text"  # the screen's sentence box; it edits the app's shared `text` (the sidebar has its own box)


def gpt2_sentence_input(settings, label: str, **kwargs) -> str:
    """A text box for the class's sentence (the shared `text` value, so it lands in the URL too)."""
    if st.session_state.get(TEXT_KEY) != settings.text:
        st.session_state[TEXT_KEY] = settings.text
    return st.text_input(label, key=TEXT_KEY, on_change=_text_changed, **kwargs)


def _text_changed() -> None:  # as for the sidebar's box: the sentence is no longer the preset's
    set_shared("text", st.session_state[TEXT_KEY])
