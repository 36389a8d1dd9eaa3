"""Screen 4: dropout on the causal attention weights (section 3.5.2)."""
import streamlit as st

from attention_core.book import stages
from attention_core.drawing import charts
from attention_core.lessons import agreement, initialisation
import ui
from screens import dropout_blocks as blocks
from attention_core.lessons.presets import PARAMS
from screens.dropout_blocks import RATES, every_rate_fits

settings = ui.current()
st.title("4 · Dropout")
st.markdown(
    "During training, **dropout** switches off a random share *p* of the attention weights after the causal "
    "mask and softmax, and scales up the weights that survive. Each draw is noisy, but on average every weight "
    "stays what it was."
)
# Class mode asks by how much the survivors are scaled, and what eval mode does, right under this intro
# (questions.dropout_questions): the lesson says both after the questions, not here.
AFTER_QUIZ = "The survivors are multiplied by 1/(1 − p); at inference (`model.eval()`) dropout does nothing at all."


@ui.fragment
def screen():
    """The lesson and its sections: moving a control reruns only this part, not the sidebar."""
    num_tokens = len(settings.tokens)
    scrubbed = every_rate_fits(num_tokens)  # every rate's map fits the byte budget: the browser scrubs p
    columns = st.columns(3)  # each control, and under it the number it changes most
    with columns[0]:
        if scrubbed:
            p = ui.clamp("dropout", options=RATES, fallback_note="Dropout rate {old} is not a multiple of 0.05; using {new}.")
        else:
            p = ui.control(st.slider, "Dropout rate p", "dropout", min_value=0.0, max_value=1.0, step=0.05,
                           help="The book uses 0.5 to make the effect visible; GPT-2 used 0.1.")
    with columns[1]:
        seed = int(ui.control(st.number_input, "Dropout seed", "dropout_seed", min_value=0,
                              max_value=PARAMS["dropout_seed"].high, step=1))
    with columns[2]:
        train = ui.control(st.toggle, "Training mode: model.train()", "train",
                           help="Off = model.eval(), the mode a model is in at inference.")
    q, k = ui.committed(num_tokens)

    record, used, device_note = ui.causal(settings, "dropout", num_tokens)
    weights = record["attn_weights"]  # (T, T), causal: zero above the diagonal
    dropped, keep = stages.dropout(weights, p, seed, train)  # both (T, T)
    visible = stages.mask_simple(num_tokens)  # (T, T): 1 where a query may see the key
    n_visible, n_dropped = int(visible.sum()), int((visible * (1 - keep)).sum())
    if not ui.predict_first("dropout", settings, weights=weights, dropped=dropped, p=p, train=train, q=q, seed=seed):
        st.stop()
    ui.device_badge(used, device_note or settings.device_note)
    st.caption(AFTER_QUIZ + " " + initialisation.weights_line("causal", settings.seed_for("dropout"), True))
    blocks.draw_summary(columns, p, train, num_tokens, n_visible, n_dropped)

    rates = RATES if scrubbed else [p]
    # The view's own intro, right above it (a slide that cuts before the view keeps it with the view): what to look for.
    intro = (f"Move the dropout rate p (now {p:g}) in the view; Enter there brings it to the lesson. " if scrubbed
             else "") + blocks.what_the_view_shows(p, train)
    if intro:
        st.markdown(intro)
    after, sums = ui.dropout_stack(weights, rates, seed, train)  # (rates, T, T); row sums before/after (rates, T, 2)
    ui.show_view(after, settings, "weights", "after dropout", view_key="dropout_view", commit=True,
                 row_title="after dropout", also=[("before: attn_weights", weights, "weights")], dropped_from=1,
                 vectors=[("row sum", sums, ("before", "after dropout"))],
                 frames={"name": "Dropout rate p", "param": "dropout", "values": rates, "labels": [f"{r:g}" for r in rates],
                         "initial": rates.index(p)} if scrubbed else None)
    blocks.one_cell_by_hand(weights, keep, dropped, q, k, p, train, settings.labels)

    with ui.section("keep", "Keep mask and where dropout struck", icon=":material/grid_on:") as shown:
        if shown:
            if num_tokens > charts.ALTAIR_MAX:  # the share dropped per block: the keep mask's own overview, a block
                ui.show_where_dropped(keep, visible, "after dropout")  # of 0/1 cells, was one solid dark square
            else:
                ui.show_matrix(keep, settings, "mask", "keep mask: dark = kept, light = dropped", selected_cell=(q, k))
                st.caption("The keep mask is drawn for every cell, the future ones above the diagonal included; those "
                           "are already 0 from the causal mask, so keeping or dropping them changes nothing. A visible "
                           "weight that turns 0 after dropout was dropped; a scaled survivor above 1 is drawn darker "
                           "than the scale.")
    with ui.section("draws", "Row sums and the average over many draws", icon=":material/stacked_line_chart:") as shown:
        if shown:
            blocks.many_draws(weights, dropped, p, seed, settings.labels)
    with ui.section("tensors", "The tensors", icon=":material/table:") as shown:
        if shown:
            with ui.table_grid():
                ui.table(weights, "attn_weights", settings.labels, settings.labels)
                ui.table(keep, "keep_mask", settings.labels, settings.labels)
                ui.table(dropped, "dropout(attn_weights)", settings.labels, settings.labels)
    ui.show_code(stages.dropout_keep_mask, stages.dropout, stages.dropout_mean, book="dropout")
    ui.explain(
        "**Why drop attention weights?** Silencing random token-to-token links during training stops the model "
        "from relying on a handful of particular connections; it has to spread its evidence, which reduces "
        "overfitting. The book uses p = 0.5 so the effect is easy to see; GPT-style models use about 0.1, and many "
        "recent ones none.\n\n"
        "**Why scale the survivors?** A weight survives with probability 1 − p; dividing it by 1 − p makes its "
        "expected value the original weight. So a single training draw no longer has rows summing to 1, but "
        "the layers after it see inputs of the same average size in training and at inference, where dropout "
        "is switched off and nothing needs rescaling.\n\n"
        "**Why a private generator?** `torch.manual_seed` sets one random state for the whole process, and a "
        "Streamlit server runs every visitor in the same process: one visitor's seed would shift another's "
        "draws. This app draws the keep mask from its own `torch.Generator`, with the same `bernoulli_(1 - p)` "
        "call that `nn.Dropout` makes, so seed 123 still reproduces the book's matrix."
    )
    with ui.section("checks", "Agreement with PyTorch", icon=":material/check_circle:") as shown:
        if shown:
            ui.agreement([(f"dropout vs torch.manual_seed({seed}); nn.Dropout({p:g})",
                           ui.checked(agreement.dropout_vs_nn, weights, p, seed) if train else 0.0)])
    with ui.section("questions", "Readers' questions", icon=":material/forum:") as shown:
        if shown:
            blocks.reader_questions(settings, record=record, p=p, seed=seed, q=q)
    with ui.section("mistakes", "Common mistakes", icon=":material/error:") as shown:
        if shown:
            blocks.mistakes(settings, p)


screen()
