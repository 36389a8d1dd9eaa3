"""Streamlit helpers shared by every screen; the only part of attention_core that imports streamlit.

Data flows one way: URL -> session state -> widgets -> cached calls into attention_core -> charts.
Pages use `from attention_core import ui` and the names below.
"""
from attention_core.ui.cache import (causal, dropout_convergence, exercise_3_1, heads, mha_agreement, projection,
                                     saturation, why_scaling_histogram, why_scaling_sweep)
from attention_core.ui.controls import heads_picker, key_picker, query_picker
from attention_core.ui.checks import agreement, checked, pitfall, pitfalls_toggle
from attention_core.ui.code import show_code
from attention_core.ui.display import device_badge, explain, table
from attention_core.ui.heatmaps import show_matrix, show_row, zoom_view
from attention_core.ui.vega import cached_chart, chart, font_scale
from attention_core.ui.export import new_run
from attention_core.ui.gpt2_model import ENV_VAR as GPT2_ENV_VAR
from attention_core.ui.gpt2_model import PATH_KEY as GPT2_PATH_KEY
from attention_core.ui.gpt2_model import (gpt2_attention, gpt2_download, gpt2_find, gpt2_heads, gpt2_layers,
                                          gpt2_model,
                                          gpt2_sentence_input, gpt2_source, gpt2_tokens)
from attention_core.ui.models import (TrainingJob, ablation, accuracy_with_off, batch_scores, heads_off_picker,
                                      history_frame, probe_ids, probe_weights, trained_heads, trained_model,
                                      trained_run, training_job)
from attention_core.ui.quiz import exercises, predict_first
from attention_core.ui.readers import reader_questions
from attention_core.ui.settings import Settings
from attention_core.ui.sidebar import current, sidebar
from attention_core.ui.state import clamp, control, fragment, init_state, note, set_value, sync_url, value
from attention_core.ui.text import dot_product_latex, md_escape, short

__all__ = [
    "why_scaling_histogram", "why_scaling_sweep", "saturation", "exercise_3_1", "mha_agreement", "causal", "dropout_convergence", "heads", "projection", "heads_picker",
    "key_picker", "query_picker", "device_badge", "show_code", "show_matrix", "show_row", "table",
    "zoom_view", "cached_chart", "agreement", "checked", "pitfall", "pitfalls_toggle", "chart", "explain", "font_scale", "new_run", "Settings", "current", "sidebar", "clamp", "control", "init_state", "note",
    "sync_url", "set_value", "fragment", "value", "dot_product_latex", "md_escape", "short",
    "predict_first", "exercises", "reader_questions",
    "TrainingJob", "ablation", "accuracy_with_off", "batch_scores", "heads_off_picker", "history_frame", "probe_ids",
    "probe_weights", "trained_heads", "trained_model", "trained_run", "training_job",
    "GPT2_ENV_VAR", "GPT2_PATH_KEY", "gpt2_attention", "gpt2_download", "gpt2_find", "gpt2_heads", "gpt2_layers", "gpt2_model",
    "gpt2_sentence_input", "gpt2_source", "gpt2_tokens",
]
