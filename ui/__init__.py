"""The Streamlit layer: the only code in the app that imports streamlit (attention_core never does).

Data flows one way: URL -> session state -> widgets -> one Settings (what the sidebar decided) -> cached
calls into attention_core -> the drawing route (ui.draw) -> Streamlit. Screens use `import ui` and the
names below.
"""
from attention_core.drawing.text import dot_product_latex, md_escape, short
from ui.cache import (causal, dropout_convergence, efficiency_backends, efficiency_measure, exercise_3_1, heads,
                      mha_agreement, dropout_stack, normalisations, projection, saturation, stacked,
                      why_scaling_histogram, why_scaling_stack, why_scaling_sweep)
from ui.checks import agreement, checked, pitfall
from ui.controls import committed, context_length_picker, heads_picker, valid_context_length
from ui.display import device_badge, explain, table, table_height
from ui.draw.code import show_code
from ui.draw.dropout_view import show_where_dropped
from ui.draw.export import new_run, png_bytes
from ui.draw.heatmaps import show_matrix
from ui.draw.sharpness import sharpness_against_d_k
from ui.draw.view_route import show_view
from ui.draw.training import curves, head_grid
from ui.draw.vega import cached_chart, chart, draw_image, font_scale
from ui.gpt2_model import ENV_VAR as GPT2_ENV_VAR
from ui.gpt2_model import PATH_KEY as GPT2_PATH_KEY
from ui.gpt2_model import (gpt2_attention, gpt2_download, gpt2_find, gpt2_heads, gpt2_layers, gpt2_model,
                           gpt2_sentence_input, gpt2_source, gpt2_tokens)
from ui.public import public_mode
from ui.sections import is_open, section
from ui.settings import Settings
from ui.sidebar import current, sidebar
from ui.state import clamp, control, fragment, init_state, note, set_value, sync_url, value
from ui.teach.quiz import exercises, predict_first
from ui.teach.dropout_lessons import draw_summary, many_draws, one_cell_by_hand
from ui.teach.efficiency_lessons import measurement_charts, measurement_summary
from ui.teach.gpt2_lessons import head_label_grid, head_numbers, missing_weights
from ui.teach.heads_lessons import (count_frames, every_head_count, head_frames, head_maps, heads_agreement,
                                    one_head_count, out_proj_lesson, parameter_counts, split_lesson,
                                    wrapper_vs_split)
from ui.teach.implementations_lessons import (fastest, implementation_agreements, sdpa_kernels,
                                              stored_implementations, timing_chart, timing_table)
from ui.teach.mask_lessons import mask_and_buffer, what_goes_wrong
from ui.teach.pitfall_blocks import dropout_pitfalls, heads_pitfalls, mask_pitfalls, softmax_pitfalls
from ui.teach.softmax_lessons import (TEMPERATURES, normalisation_readout, one_weight_by_hand, overflow_demo,
                                      precedence_pitfall, sharpness_metrics, show_temperature, softmax_agreement)
from ui.teach.readers import reader_questions
from ui.teach.train_yourself import train_yourself
from ui.teach.why_scaling_lessons import scaling_curve, zero_mean_lesson
from ui.trained_models import (ablation, accuracy_with_off, batch_scores, heads_off_picker, job_progress,
                               look_closer, look_closer_frames, opening_cell, probe_ids, show_repeated_probe, probe_weights, trained_heads, trained_model,
                               trained_run, training_job, training_step_options)
from ui.weights_source import heads_weights

__all__ = [
    "why_scaling_histogram", "why_scaling_stack", "why_scaling_sweep", "efficiency_backends", "efficiency_measure", "saturation", "exercise_3_1", "mha_agreement", "dropout_stack", "normalisations", "stacked", "causal", "dropout_convergence", "heads", "projection", "context_length_picker", "heads_picker", "valid_context_length",
    "device_badge", "sharpness_against_d_k", "show_code", "show_matrix", "table", "table_height",
    "show_where_dropped", "committed", "show_view",
    "cached_chart", "draw_image", "png_bytes", "agreement", "checked", "pitfall", "section", "is_open", "chart", "explain", "font_scale", "new_run", "Settings", "current", "sidebar", "clamp", "control", "init_state", "note",
    "sync_url", "set_value", "fragment", "value", "dot_product_latex", "md_escape", "short",
    "predict_first", "exercises", "heads_weights", "reader_questions",
    "curves", "head_grid", "look_closer", "look_closer_frames", "opening_cell", "show_repeated_probe", "ablation", "job_progress", "training_step_options", "public_mode", "accuracy_with_off", "batch_scores", "heads_off_picker", "probe_ids",
    "probe_weights", "trained_heads", "trained_model", "trained_run", "training_job",
    "GPT2_ENV_VAR", "GPT2_PATH_KEY", "gpt2_attention", "gpt2_download", "gpt2_find", "gpt2_heads", "gpt2_layers", "gpt2_model",
    "gpt2_sentence_input", "gpt2_source", "gpt2_tokens",
    # the screens' lesson blocks (ui/teach/*_lessons.py, pitfall_blocks.py, train_yourself.py)
    "draw_summary", "many_draws", "one_cell_by_hand",
    "measurement_charts", "measurement_summary",
    "head_label_grid", "head_numbers", "missing_weights",
    "count_frames", "every_head_count", "head_frames", "head_maps", "heads_agreement", "out_proj_lesson",
    "one_head_count", "parameter_counts", "split_lesson", "wrapper_vs_split",
    "fastest", "implementation_agreements", "sdpa_kernels", "stored_implementations", "timing_chart", "timing_table",
    "mask_and_buffer", "what_goes_wrong",
    "dropout_pitfalls", "heads_pitfalls", "mask_pitfalls", "softmax_pitfalls",
    "TEMPERATURES", "normalisation_readout", "one_weight_by_hand", "overflow_demo", "precedence_pitfall",
    "sharpness_metrics", "show_temperature", "softmax_agreement",
    "train_yourself",
    "scaling_curve", "zero_mean_lesson",
]
