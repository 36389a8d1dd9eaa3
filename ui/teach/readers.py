"""The readers' questions on screen, in each stage's "questions" section (ui/sections.py): per stage, the
questions from the book's issue tracker, each with the right and the wrong version computed by
attention_core/lessons/reader_questions.py.
"""
import pandas as pd
import streamlit as st

from attention_core.lessons import reader_questions as rq
from ui.checks import pitfall
from ui.settings import Settings
from ui.teach.heads_lessons import count_text


def reader_questions(stage: str, settings: Settings, **inputs) -> None:
    """The questions readers ask at this stage (from the book's issue tracker), each answered with the right and
    the wrong version, computed: drawn inside the screen's "questions" section."""
    for demo in _DEMOS[stage]:
        demo(settings, **inputs)


@st.cache_data(max_entries=4, show_spinner=False)
def _dropout_scale() -> pd.DataFrame:
    return pd.DataFrame(rq.dropout_scale())


def _scale_demo(settings, **_) -> None:
    frame = _dropout_scale()
    st.markdown("**1/p or 1/(1 − p)?** (the book's issues 428 and 431) 100,000 ones through PyTorch's own "
                "`nn.Dropout(p)` after `torch.manual_seed(123)`:")
    st.dataframe(frame, hide_index=True, width="content")
    low = frame.iloc[0]
    st.caption(f"nn.Dropout's survivors hold 1/(1 − p): {low['nn.Dropout survivor value']:.4f} at p = {low['p']:g}. Only "
               f"that keeps the average at 1 ({low['mean with 1/(1-p)']:.4f}); 1/p would make it "
               f"{low['mean with 1/p']:.4f}. At the book's p = 0.5 both are 2, which hides the difference.")


def _placement_demo(settings, record, p, seed, q, **_) -> None:
    rate = p if 0 < p < 1 else 0.5
    out = rq.dropout_placement(record["attn_scores"], rate, seed, record["keys"].shape[-1])
    row = pd.DataFrame({"keep mask": out["keep"][q], "dropout on the weights (book)": out["right"][q],
                        "dropout on the scores": out["wrong"][q]}, index=settings.labels).T
    pitfall(f"Dropout on the scores instead of the weights (issue 280; p = {rate:g})",
            "attn_scores = dropout(attn_scores)\nattn_weights = torch.softmax(masked / d_k**0.5, dim=-1)",
            "attn_weights = torch.softmax(masked / d_k**0.5, dim=-1)\nattn_weights = dropout(attn_weights)",
            f"A dropped score becomes 0, not −∞, so the dropped keys still get weight: "
            f"{', '.join(f'{float(v):.4f}' for v in out['wrong'][q][out['dropped'][q]][:6]) or '(none in this row)'} "
            f"in query {q + 1}'s row, and every row "
            f"sums to {float(out['wrong_row_sums'].min()):.4f}: nothing was dropped. After the mask, −∞ × 0 = nan "
            f"spoils {out['nan_rows_if_after_mask']} of {len(settings.labels)} rows.",
            f"Dropped keys get exactly 0, survivors × {1 / (1 - rate):.4f}; query {q + 1}'s row sums to "
            f"{float(out['right_row_sums'][q]):.4f} in this draw.", wrong_box=st.warning)
    st.dataframe(row.iloc[:, :64], width="content")


def _platform_demo(settings, record, p, seed, **_) -> None:
    weights = record["attn_weights"][:64, :64].contiguous()
    out = rq.platform_dropout(weights, p if 0 < p < 1 else 0.5, seed)
    st.markdown("**Why do my dropout numbers differ from the book's?** `torch.manual_seed` seeds one global "
                "generator per device, and `nn.Dropout` draws from it:")
    cols = st.columns(3)
    cols[0].metric("book's call vs the app's private generator", f"{out['book_vs_app']:.1e}")
    cols[1].metric("cells changed by one extra draw after the seed", f"{out['cells_changed_by_one_extra_draw']} "
                                                                      f"of {out['cells']}")
    cols[2].metric("app's generator after someone else's draw", f"{out['app_repeatable']:.1e}")
    gpus = ", ".join(f"{d}: {n} of {out['cells']} cells differ from the CPU's mask"
                     for d, n in out["accelerator_cells_differing"].items())
    st.caption(f"torch {out['torch_version']}. " + (f"Same seed on {gpus}. " if gpus else
               "No GPU here, so the GPU's own generator (a different algorithm) was not compared. ")
               + "The app draws every keep mask on the CPU from its own torch.Generator, so the book's CPU numbers "
                 "come back on every device and for every visitor of the shared server.")


@st.cache_data(max_entries=4, show_spinner=False)
def _mask_storage(d_in: int, d_out: int) -> dict:
    return rq.mask_storage(d_in, d_out, 6)


def _buffer_demo(settings, record=None, **_) -> None:
    out = _mask_storage(settings.x.shape[-1], settings.d_out)
    target = out["target"]
    devices = pd.DataFrame({name: out[name]["devices"] for name in ("buffer", "attribute")})
    pitfall(f"The mask as a plain attribute instead of a buffer (bonus notebook 03_understanding-buffers; "
            f"moved with .to(\"{target}\"))",
            'self.mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)',
            'self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))',
            f"The mask stays on {out['attribute']['devices']['mask']}, and the forward pass on {target} fails: "
            f"{out['attribute']['error'] or 'no error raised'}. state_dict saves {out['attribute']['state_dict']}.",
            f"The mask moves to {out['buffer']['devices']['mask']}; the forward pass gives "
            f"{out['buffer']['output']}. state_dict saves {out['buffer']['state_dict']}.", wrong_box=st.warning)
    st.dataframe(devices, width="content")
    if record is not None:
        st.caption(f"Build the mask separately or apply tril to the weights (issue 279)? Both of this screen's "
                   f"variants agree to {record['variants_max_abs_diff']:.1e}; the buffer is the second, built once.")


def _split_demo(settings, num_heads, **_) -> None:
    d_out, heads = (settings.d_out, num_heads) if 1 < num_heads and settings.d_out <= 12 else (4, 2)
    out = rq.head_split(min(len(settings.tokens), 6), d_out, heads)

    def table(rows):
        """One column per head, one row per row of it: which token's columns fill it."""
        return pd.DataFrame({f"head {i + 1}": [f"token {t} · " + (f"col {a}" if a == b else f"cols {a}–{b}")
                                               for t, a, b in head] for i, head in enumerate(rows)},
                            index=[f"row {t + 1}" for t in range(len(rows[0]))])
    st.markdown(f"**Splitting into heads** (d_out = {d_out}, {heads} heads, head_dim {out['head_dim']}): which "
                "token's numbers fill each head's rows.")
    left, right = st.columns(2)
    left.markdown("`view(b, T, h, d).transpose(1, 2)` (right)")
    left.dataframe(table(out["right"]), width="content")
    right.markdown("`view(b, h, T, d)` (wrong, same shape)")
    right.dataframe(table(out["wrong"]), width="content")
    st.caption("Tokens in each head: right " + "; ".join(f"head {i + 1}: {t}" for i, t in enumerate(out["right_tokens"]))
               + " · wrong " + "; ".join(f"head {i + 1}: {t}" for i, t in enumerate(out["wrong_tokens"])) + ".")


@st.cache_data(max_entries=4, show_spinner=False)
def _d_out_meaning(inputs_id, d_out: int, num_heads: int, seed: int, _x) -> dict:
    return rq.d_out_meaning(_x[:6], d_out, num_heads, seed)


def _d_out_demo(settings, num_heads, **_) -> None:
    same = _d_out_meaning(settings.inputs_id, settings.d_out, num_heads, settings.seed_for("heads"), settings.x)
    st.markdown(f"**What d_out means** (pull request 859): the same `d_out = {settings.d_out}, num_heads = {num_heads}` "
                "in both classes, on the first tokens of this input.")
    st.dataframe(pd.DataFrame({
        # GPT-2 small's counts are exercise 3.3's answer, further down the screen: count_text names the exercise
        "MultiHeadAttentionWrapper": [str(same["wrapper_head_width"]), str(same["wrapper_shape"]), count_text(same["wrapper_params"])],
        "MultiHeadAttention": [str(same["mha_head_dim"]), str(same["mha_shape"]), count_text(same["mha_params"])]},
        index=["width of each head", "output shape", "parameters"]), width="content")
    st.caption(f"In the wrapper d_out is each head's width; in MultiHeadAttention it is the total, cut into heads. "
               f"The wrapper gives MultiHeadAttention's width with d_out = {same['wrapper_d_out_for_same_width']}: "
               f"output {same['wrapper_shape_for_same_width']}.")


_DEMOS = {"mask": [_buffer_demo], "dropout": [_scale_demo, _placement_demo, _platform_demo],
          "heads": [_split_demo, _d_out_demo]}
