"""Going further: OpenAI's GPT-2 124M inside the book's MultiHeadAttention, on the class's own sentence."""
import streamlit as st

from attention_core.drawing import charts, head_images
from attention_core.models import gpt2
import ui
from screens import gpt2_blocks as blocks
from attention_core.book.inputs import MAX_SENTENCE_TOKENS, MAX_TEXT_CHARS
from attention_core.lessons.presets import code
from screens import registry

settings = ui.current()
st.title("Real GPT-2 heads")
st.markdown(
    "The chapter's `MultiHeadAttention`, unchanged, with OpenAI's trained GPT-2 weights loaded into it the way "
    "the book's chapter 5 does (`c_attn` split into `W_query`, `W_key`, `W_value` and transposed). Type a sentence "
    "and see what each of the model's heads does with it."
)

public = ui.public_mode()  # a hosted demo: visitors name no server paths and start no downloads
if not public:
    with ui.for_the_teacher("gpt2-source"), st.expander("Where the weights come from", expanded=False):
        st.text_input("GPT-2 directory (config.json, model.safetensors, vocab.json, merges.txt)", key=ui.GPT2_PATH_KEY,
                      placeholder=f"${ui.GPT2_ENV_VAR} or the Hugging Face cache",
                      help="A folder on the server in the hub's layout; empty: $GPT2_DIR, then the hub's cache.")
directory, why = ui.gpt2_find(ui.gpt2_source())
if directory is None:
    with ui.for_the_teacher("gpt2-weights", whole_screen=True):  # no slide: a class sees no download command
        blocks.missing_weights(why, public, registry.BY_NAME.get("trained"))
    st.stop()

model = ui.gpt2_model(directory)
cfg = model.config


text = blocks.gpt2_sentence_input(settings, "The class's sentence", max_chars=MAX_TEXT_CHARS,
                              help="The same sentence as the sidebar's; GPT-2 splits it into its own tokens.")
ids, tokens = ui.gpt2_tokens(directory, text)
if not ids:
    ui.note("The sentence is empty; type a few words.")
    st.stop()
if len(ids) > MAX_SENTENCE_TOKENS:
    ui.note(f"The sentence has {len(ids)} GPT-2 tokens; this screen uses the first {MAX_SENTENCE_TOKENS}.")
    ids, tokens = ids[:MAX_SENTENCE_TOKENS], tokens[:MAX_SENTENCE_TOKENS]
shown = [t.replace(" ", "·").replace("\n", "↵") for t in tokens]
st.markdown(f"**{len(ids)} GPT-2 tokens** (· is a space, which GPT-2 keeps at the start of a word): "
            + " ".join(code(t) for t in shown))
labels = charts.axis_labels(shown)
result = ui.gpt2_attention(directory, tuple(ids))
weights, scores = result["weights"], result["labels"]  # (layers, heads, T, T); [layer][head]
T = len(ids)

st.markdown("**What GPT-2 predicts next:** " + ", ".join(f"{code(t.replace(' ', '·'))} {p:.1%}"
                                                          for t, p in result["next"]))


@ui.fragment
def screen():
    st.subheader(f"Every head: {cfg.n_layer} layers × {cfg.n_head} heads")
    ui.draw_image(ui.png_bytes(head_images.model_view(weights)), "every GPT-2 head",
                  f"One map per head: a row per layer (1 at the top), a column per head (1 on the left); in each map "
                  f"queries go down, keys across, {T:,} tokens.")
    st.image(head_images.colour_bar(), output_format="PNG", width=256, caption=head_images.LEGEND,
             alt=f"colour scale: {head_images.LEGEND}")
    blocks.head_label_grid(scores, cfg.n_layer, cfg.n_head)

    layer = ui.clamp("layer", low=1, high=cfg.n_layer, fallback_note=f"Layer {{old}} does not exist (GPT-2 has "
                     f"{cfg.n_layer}); showing layer {{new}}.") - 1
    head = ui.clamp("head", low=1, high=cfg.n_head, fallback_note=f"Head {{old}} does not exist ({cfg.n_head} per "
                    f"layer); showing head {{new}}.") - 1
    st.subheader("One head up close")
    st.markdown("Every head of every layer travels at once: the view's Layer and Head sliders (and PageUp / PageDown) "
                "flip through them in the browser, as do the query and key. Enter (or the button) brings the "
                "layer, head and query to the lines below.")
    every = weights.reshape(-1, T, T)  # (layers · heads, T, T): frame = layer · heads + head
    ui.show_view(every, settings, "weights", "GPT-2 attention weights", view_key="gpt2_view", commit=True,
                 frames={"dims": [{"name": "Layer", "param": "layer", "values": list(range(1, cfg.n_layer + 1)),
                                   "labels": [str(n) for n in range(1, cfg.n_layer + 1)]},
                                  {"name": "Head", "param": "head", "values": list(range(1, cfg.n_head + 1)),
                                   "labels": [str(n) for n in range(1, cfg.n_head + 1)]}],
                         "initial": layer * cfg.n_head + head}, labels=labels)
    blocks.head_numbers(scores[layer][head], weights, layer, head, labels)

    st.subheader(f"Head view: all {cfg.n_head} heads of layer {layer + 1}")
    ui.draw_image(ui.png_bytes(head_images.model_view(weights[layer:layer + 1], head_px=160)),
                  f"GPT-2 layer {layer + 1}, every head", f"Heads 1 to {cfg.n_head} of layer {layer + 1}, same colours as above.")
    q, _ = ui.committed(T)
    ui.show_matrix(weights[layer, :, q, : q + 1], settings, "weights",
                   f"layer {layer + 1}: where token {q + 1} looks, per head",
                   row_labels=[f"head {h + 1}" for h in range(cfg.n_head)], col_labels=labels[: q + 1])
    st.markdown(f"The same layer in the chapter's multi-head screen, with every shape and the code: "
                f"`/heads?weights=gpt2&layer={layer + 1}`.")

    ui.explain(
        "**Why so much weight lands on the first token.** Softmax must hand out a total weight of 1 in every row: "
        "a head has no way to say *nothing here is relevant*. Trained models learn a dump: a key that every query "
        "can match cheaply and whose value changes little, so parking weight there does almost nothing to the "
        "output. In GPT-2 that is the first token, the only one every query can see (the causal mask hides the "
        "rest of the sentence from early queries). Such a head is idle on this sentence, not broken; the effect "
        "is called an *attention sink*.", title="The first-token sink")
    ui.show_code(gpt2.Block, gpt2._book_state_dict, title="The model around the book's class, and the loading")


screen()
