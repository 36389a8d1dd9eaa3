"""A tiny app that mounts the attention view on a known, seeded matrix (tests/test_view_browser.py and
scripts/view_benchmark.py; it lives in scripts/ because scripts never reach into tests/).

?tokens=N (2..1024) sets the size, ?presenter=1 the large fonts, ?frames=1 a stack of temperatures; the matrix is softmax(q·kᵀ/√d) with a causal mask, q and k seeded,
computed by PyTorch (the test recomputes it the same way to check the drawn numbers)."""
import sys
from pathlib import Path

import streamlit as st
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from attention_core.drawing.view_data import view_payload  # noqa: E402
from ui.view.view import attention_view  # noqa: E402
from view_maps import seeded_map, tempered  # noqa: E402


def _param(name: str, default, low: int, high: int):
    if default is None and name not in st.query_params:
        return None
    try:
        return min(max(int(st.query_params.get(name, default)), low), high)
    except ValueError:
        return default


@st.cache_data(max_entries=8)
def build(tokens: int, query: int, key: int, window, window_key, window_size: int, scale: float) -> dict:
    """The payload, cached: the view's own moves never rerun this, but Enter (a commit) does."""
    q, k, scores, weights = seeded_map(tokens)
    return view_payload(weights.numpy(), [f"t{i + 1}" for i in range(tokens)], kind="weights",
                        scale="absolute" if tokens <= 16 else "share", title=f"Weights, {tokens} tokens",
                        query=query, key=key, window=window, window_key=window_key, window_size=window_size,
                        q=q.numpy(), k=k.numpy(), scores=scores.numpy(), font_scale=scale)


TEMPERATURES = (0.5, 1.0, 2.0)


@st.cache_data(max_entries=4)
def build_frames(tokens: int, scale: float) -> dict:
    """?frames=1: a stack of three temperatures the view scrubs, the scores' row as more bars, q printed."""
    q, k, scores, weights = seeded_map(tokens)
    stack = torch.stack([tempered(scores, t) for t in TEMPERATURES])  # (3, T, T)
    return view_payload(stack.numpy(), [f"t{i + 1}" for i in range(tokens)], kind="weights", title="Weights by τ",
                        also=(("scores", scores.numpy(), "scores", "absolute"),), vectors=(("q", q.numpy()),),
                        font_scale=scale, frames={"name": "Temperature τ", "param": "temperature",
                                                  "values": list(TEMPERATURES), "labels": ["0.5", "1", "2"], "initial": 1})


tokens = _param("tokens", 6, 2, 1024)
payload = build(tokens, _param("query", 2, 1, tokens), _param("key", 1, 1, tokens), _param("window", None, 1, tokens),
                _param("window_key", None, 1, tokens), _param("window_size", 32, 32, 64),
                1.6 if st.query_params.get("presenter") else 1.0)  # presenter mode's large fonts
if st.query_params.get("frames"):
    payload = build_frames(tokens, 1.0)
if st.query_params.get("broken"):  # the error path: a table without the column the view reads
    payload["cells"] = payload["cells"].rename(columns={"code": "wrong"})
if st.query_params.get("parts"):  # e.g. ?parts=row: the view shows only those pictures
    payload["meta"]["parts"] = st.query_params["parts"].split(",")
result = attention_view(payload, key="view")
st.caption(f"committed: {result.selection}")
