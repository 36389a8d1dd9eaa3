"""The Streamlit layer: the only code in the app that imports streamlit (attention_core never does).

Data flows one way: URL -> session state -> widgets -> one Settings (what the sidebar decided) -> cached calls into
attention_core -> one drawing call -> Streamlit. A folder per floor: state/, compute/, server/, draw/ and view/,
teach/. Screens use `import ui` and the names below, each under the floor it comes from; a screen's own blocks
sit beside it (screens/<name>_blocks.py) and import from the floors directly.
"""
from attention_core.drawing.matrix_images import png_bytes
from attention_core.drawing.text import md_escape

# state/: what the visitor decided
from ui.state.controls import committed, context_length_picker, heads_picker, valid_context_length
from ui.state.sections import held as answers_held, section
from ui.state.session import clamp, control, fragment, note, sync_url, value
from ui.state.sidebar import current, sidebar

# compute/: cached calls into attention_core, and the models held once per process
from ui.compute.cache import (causal, dropout_stack, efficiency_backends, efficiency_measure, every_head_count,
                              exercise_3_1, heads, normalisations, one_head_count, projection, stacked, stage_call,
                              why_scaling_histogram, why_scaling_stack, why_scaling_sweep)
from ui.compute.gpt2_model import ENV_VAR as GPT2_ENV_VAR
from ui.compute.gpt2_model import PATH_KEY as GPT2_PATH_KEY
from ui.compute.gpt2_model import gpt2_attention, gpt2_find, gpt2_model, gpt2_source, gpt2_tokens
from ui.compute.trained_models import (ablation, accuracy_with_off, look_closer_frames, opening_cell, probe_ids,
                                       probe_weights, trained_run)
from ui.compute.weights_source import heads_weights

# server/: running a class
from ui.server.public import public_mode

# draw/: one route onto the screen
from ui.draw.checks import agreement, checked
from ui.draw.code import show_code
from ui.draw.display import data_table, device_badge, explain, for_the_teacher, table, table_grid, table_height
from ui.draw.dropout_view import show_where_dropped
from ui.draw.export import new_run
from ui.draw.heatmaps import draw_legend, show_matrix
from ui.draw.sharpness import sharpness_against_d_k
from ui.draw.training_plots import curves, head_grid
from ui.draw.vega import chart, draw_image, font_scale
from ui.draw.view_route import show_view

# teach/: class mode
from ui.teach.quiz import exercises, predict_first

__all__ = [
    "png_bytes", "md_escape",
    "committed", "context_length_picker", "heads_picker", "valid_context_length", "section", "answers_held", "clamp", "control",
    "fragment", "note", "sync_url", "value", "current", "sidebar",
    "causal", "dropout_stack", "efficiency_backends", "efficiency_measure", "every_head_count", "exercise_3_1",
    "heads", "normalisations", "one_head_count", "projection", "stacked", "stage_call", "why_scaling_histogram",
    "why_scaling_stack", "why_scaling_sweep", "GPT2_ENV_VAR", "GPT2_PATH_KEY", "gpt2_attention", "gpt2_find",
    "gpt2_model", "gpt2_source", "gpt2_tokens", "ablation", "accuracy_with_off", "look_closer_frames", "opening_cell",
    "probe_ids", "probe_weights", "trained_run", "heads_weights",
    "public_mode",
    "agreement", "checked", "show_code", "device_badge", "explain", "for_the_teacher", "data_table", "table", "table_grid", "table_height", "show_where_dropped",
    "new_run", "show_matrix", "draw_legend", "sharpness_against_d_k", "curves", "head_grid", "chart", "draw_image", "font_scale",
    "show_view",
    "exercises", "predict_first",
]
