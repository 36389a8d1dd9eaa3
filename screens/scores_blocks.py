"""Screen 1's folded sections (ui/state/sections.py): the tensors and the common mistake, beside screens/scores.py, which
keeps the lesson as it opens."""
from attention_core.lessons import pitfalls
from ui.draw.checks import pitfall
from ui.draw.display import table, table_grid
from ui.state.settings import Settings


def tensors(record: dict, proj: str, settings: Settings) -> None:
    """Every tensor of the step as a table, the projections' only with q · k."""
    labels = settings.labels
    with table_grid():
        table(settings.x, "inputs", labels)
        if proj == "v1":
            table(record["W_query"], "W_query")
            table(record["W_key"], "W_key")
            table(record["queries"], "queries", labels)
            table(record["keys"], "keys", labels)
        table(record["attn_scores"], "attn_scores", labels, labels)
        table(record["attn_weights"], "attn_weights", labels, labels)
        table(record["context_vec"], "context_vecs", labels)


# --- the "mistakes" section -------------------------------------------------------------------------


def mistakes(keys) -> None:
    """`keys.T` on a batch reverses every dimension; keys: (T, d) of this screen, batched as (2, T, d)."""
    keys = keys[None].expand(2, -1, -1)  # (2, T, d): a batch of two, as the book's CausalAttention gets
    shapes = pitfalls.transpose_batched(keys, keys)
    pitfall("`keys.T` on a batch", "attn_scores = queries @ keys.T",
               "attn_scores = queries @ keys.transpose(1, 2)",
               f"keys {tuple(keys.shape)} → keys.T {shapes['keys_T_shape']}: every dimension reversed, the batch "
               f"too. " + (f"PyTorch stops: {shapes['error']}" if shapes["error"] else
                           f"No error, but the result has shape {shapes['wrong_result_shape']}."),
               f"keys.transpose(1, 2) {shapes['right_shape']} → scores {shapes['right_result_shape']}, "
               "one T × T matrix per sequence.")
