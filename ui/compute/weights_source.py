"""/heads?weights=...: whose heads the multi-head screen traces. The chapter's random weights by default;
`trained` (the repeat model of /trained) or `gpt2` (OpenAI's GPT-2, /gpt2) put one layer of a real model
through the book's MultiHeadAttention trace, on that model's own inputs."""
import streamlit as st

from ui.compute.gpt2_model import gpt2_heads, gpt2_layers
from ui.state.settings import Settings
from ui.state.session import clamp, control, value
from ui.compute.trained_models import trained_heads, trained_run


def heads_weights(settings: Settings) -> tuple[Settings, dict | None]:
    """(settings, the chosen layer's trace) for ?weights=trained or gpt2, after a layer picker and a note
    saying what is shown; (settings, None) for the chapter's random weights. The settings returned carry
    that model's tokens and inputs (and their identity), so everything below reads one consistent input."""
    source = value("weights")
    layers = trained_run("repeat").config["layers"] if source == "trained" else \
        gpt2_layers() if source == "gpt2" else None
    if not layers:
        return settings, None
    model = "trained model" if source == "trained" else "GPT-2"
    clamp("layer", low=1, high=layers, fallback_note=f"Layer {{old}} does not exist (the model has {layers}); "
          "using {new}.")
    layer = control(st.select_slider, f"Layer of the {model}", "layer", options=list(range(1, layers + 1)))
    what = ("the model trained on the repeat task (see *What heads learn*), on its probe sequence"
            if source == "trained" else "OpenAI's GPT-2 on the sentence (GPT-2's own tokens)")
    st.info(f"Trained weights: layer {layer} of {what}. Inputs are what enters that layer's "
            "`MultiHeadAttention` (after LayerNorm); the wrapper has no trained counterpart, so it is left out.",
            icon=":material/model_training:")
    return (trained_heads if source == "trained" else gpt2_heads)(settings, layer - 1)
