"""GPT-2 for the app: where the weights are, one copy of the model per server, cached attention maps.

Nothing here touches the network unless the user presses the download button: finding the weights
reads the path given on screen (or $GPT2_DIR) and the Hugging Face cache only. On a public server
(ui/server/public.py) visitors get neither: no path box (they cannot name server paths) and no download
button (the operator fetches the weights once); only $GPT2_DIR and the cache count.
"""
import dataclasses
import os
import threading

import numpy as np
import streamlit as st
import torch

from attention_core.book.modules import out_proj_parameter_count
from attention_core.drawing import charts
from attention_core.models import gpt2, head_labels
from attention_core.book.inputs import MAX_SENTENCE_TOKENS
from ui.compute.byte_cache import byte_cache
from ui.server import run_gate
from ui.server.public import public_mode
from ui.state.session import note

ENV_VAR = "GPT2_DIR"
PATH_KEY = "gpt2_dir"  # the screen's path input (session only: a path on the server is no URL material)


def gpt2_source() -> str:
    """The directory the user named (screen input, then $GPT2_DIR), or the hub id when none."""
    typed = "" if public_mode() else str(st.session_state.get(PATH_KEY) or "").strip()
    return typed or os.environ.get(ENV_VAR, "").strip() or gpt2.HUB_ID


def gpt2_find(source: str) -> tuple[str | None, str]:
    """(directory, "") when the files are there, else (None, why not). Never uses the network."""
    try:
        return str(gpt2.locate(source, download=False)), ""
    except gpt2.WeightsUnavailable as error:
        return None, str(error)


class _ProgressBar:
    """A tqdm stand-in for huggingface_hub that moves an st.progress bar (files done / files)."""

    def __init__(self, iterable=None, total=None, **_):
        self.iterable, self.total, self.n = iterable, total or 1, 0
        self.bar = st.progress(0.0, text="Downloading GPT-2…")

    def __iter__(self):
        for item in self.iterable:
            yield item
            self.update(1)

    def update(self, count=1):
        self.n += count
        self.bar.progress(min(self.n / self.total, 1.0), text=f"Downloading GPT-2: {self.n} of {self.total} files")

    def close(self):
        self.bar.empty()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @classmethod
    def get_lock(cls):  # tqdm's thread_map asks for one
        import threading
        return threading.RLock()

    @classmethod
    def set_lock(cls, lock):
        pass


_DOWNLOADING = threading.Lock()  # one download per server process at a time, whoever presses the button


def gpt2_download() -> tuple[str | None, str]:
    """Fetch the hub's copy once into its cache, with a progress bar; quick failure when offline.
    While one session downloads, another's press is answered at once instead of starting a second copy;
    after a download, the next press finds the cache and fetches nothing."""
    if not _DOWNLOADING.acquire(blocking=False):
        return None, "a download is already running on this server; reload this page in a minute"
    try:
        with run_gate.released():  # minutes on the network: the other sessions run meanwhile
            return str(gpt2.locate(gpt2.HUB_ID, download=True, tqdm_class=_ProgressBar)), ""
    except gpt2.WeightsUnavailable as error:
        return None, str(error)
    finally:
        _DOWNLOADING.release()


@st.cache_resource(max_entries=1, show_spinner="Loading GPT-2 (about 500 MB)…")
def gpt2_model(directory: str) -> gpt2.GPT2:
    """One model per server process, shared by every session (never mutate it)."""
    return gpt2.load_dir(directory)


@st.cache_data(max_entries=32, show_spinner=False)
def gpt2_tokens(directory: str, text: str) -> tuple[list[int], list[str]]:
    return gpt2.tokenize(text, directory)


@st.cache_data(max_entries=16, show_spinner="Running GPT-2…")
def gpt2_attention(directory: str, ids: tuple[int, ...]) -> dict:
    """Every head's map (layers, heads, T, T) as float32, their labels, and the next-token top 5."""
    model = gpt2_model(directory)
    batch = torch.tensor([ids])  # (1, T)
    weights = torch.stack(model.attention_weights(batch))[:, 0]  # (layers, heads, T, T)
    top = model.predict_next(batch)
    tokenizer = gpt2.load_tokenizer(gpt2.locate(directory))
    return {"weights": weights.numpy().astype(np.float32),
            "labels": head_labels.score_heads(weights, list(ids)),
            "next": [(tokenizer.token_text(i), p) for i, p in top]}


@byte_cache(max_mb=40, spinner="Running GPT-2…")
def _gpt2_layer_trace(directory: str, ids: tuple[int, ...], layer: int) -> dict:
    """The book's trace of GPT-2's layer `layer` (0-based) MultiHeadAttention on the sentence."""
    model = gpt2_model(directory)
    with torch.no_grad():
        inputs = model.attention_inputs(torch.tensor([ids]))[layer]  # (1, T, n_embd), after ln_1
        return model.attention_modules[layer].trace(inputs) | {"inputs": inputs}


def gpt2_layers() -> int | None:
    """GPT-2's number of layers, or None (with a note saying how to get the weights) when they are not here."""
    directory, why = gpt2_find(gpt2_source())
    if directory is None:
        note(f"GPT-2's weights are not on this server ({why}), so the heads below are the chapter's random "
             "ones. The *Real GPT-2 heads* screen says how to fetch them (one command, about 550 MB).")
        return None
    return gpt2_model(directory).config.n_layer


def gpt2_heads(settings, layer: int):
    """(settings, h) for the heads screen with weights=gpt2 (check gpt2_layers() first). layer is
    0-based; settings carries GPT-2's tokens of the sentence (the shared `text`), h looks like
    ui.heads' result without the wrapper."""
    directory, _ = gpt2_find(gpt2_source())
    model = gpt2_model(directory)
    ids, tokens = gpt2_tokens(directory, settings.text or " ")
    ids, tokens = ids[:MAX_SENTENCE_TOKENS], tokens[:MAX_SENTENCE_TOKENS]
    layer = min(layer, model.config.n_layer - 1)
    record = _gpt2_layer_trace(directory, tuple(ids), layer)
    d = record["inputs"].shape[-1]
    shown = dataclasses.replace(settings, x=record["inputs"][0], inputs_id=("gpt2", directory, tuple(ids), layer),
                                tokens=tokens, labels=charts.axis_labels(tokens), d_out=d)
    return shown, {"mha": record, "wrapper": None, "device": "cpu", "note": None, "out_proj_params": out_proj_parameter_count(d)}
