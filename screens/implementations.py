"""Going further: the bonus notebook's eight ways to write multi-head attention, checked and timed."""
import pandas as pd
import streamlit as st

from attention_core.drawing import numbers
from attention_core.lessons import bonus_bench
import ui
from screens import implementations_blocks as blocks
from attention_core.lessons.bonus_bench import IMPLEMENTATIONS

BUDGET_S = 120.0  # a visitor's sweep stops before a size that would take longer
MAX_REPEATS = 5


settings = ui.current()
device = settings.device
st.title("Eight ways to write multi-head attention")
st.markdown(
    "The book's bonus notebook (`ch03/02_bonus_efficient-multihead-attention`) writes the same layer eight ways, "
    "from the chapter's wrapper of single heads to PyTorch's fused kernels. Each class below has the book's "
    "constructor `(d_in, d_out, context_length, dropout, num_heads, qkv_bias=False)`, takes the chapter "
    "`MultiHeadAttention`'s weights with `copy_from(mha)`, and then must give the same output.")
ui.device_badge(device, settings.device_note)
flash, no_flash = blocks.sdpa_kernels(device)
st.caption(f"Here `F.scaled_dot_product_attention` runs the **{flash}** kernel; with flash forbidden, **{no_flash}** "
           "(as PyTorch reports its choice). FlexAttention runs without `torch.compile` here: "
           "compiling it took about 70 s on this machine, so the screen uses its eager reference, which has no "
           "backward pass on a CPU.")

st.subheader("Do they agree with the chapter?")
st.table(blocks.implementation_agreements())  # static: its text wraps, no name or cell is cut at a column's edge
st.caption(f"Largest |implementation − chapter| on a seeded batch of 2 × 6 tokens, float32; ✓ means "
           f"{numbers.within_tolerance(0)}. – (d_in ≠ d_out): nn.MultiheadAttention cannot be built there, since its "
           "query is its embed_dim wide; it needs d_in = d_out.")
label = st.selectbox("Show the code of", [v[0] for v in IMPLEMENTATIONS.values()], index=2, key="impl_code")
# The app's versions, not the notebook's as printed: one constructor for all eight, and copy_from (a teacher read)
ui.show_code(next(cls for name, cls in IMPLEMENTATIONS.values() if name == label),
             title=f"The code: {label}, this app's version (the notebook's idea, with the chapter's constructor "
                   "and copy_from)")

st.subheader("How fast, how much memory")
st.markdown(f"GPT-2 small's layer ({bonus_bench.GPT2['d_in']} → {bonus_bench.GPT2['d_out']}, "
            f"{bonus_bench.GPT2['num_heads']} heads), one sequence, float32: the forward pass alone (`no_grad`) and "
            "forward plus backward, as in training.")
# A new measurement's settings: for the teacher (the slides leave them out), since the charts below show the
# stored run, whose sizes and repeats its caption gives, until someone presses Measure here.
with ui.for_the_teacher("measure-implementations"):
    cols = st.columns(2)
    largest = cols[0].select_slider("Largest T", bonus_bench.TOKEN_SIZES, 512, key="impl_max_tokens",
                                    format_func=lambda t: f"{t:,}")
    repeats = cols[1].slider("Repeats (median)", 1, MAX_REPEATS, 1, key="impl_repeats")
    if st.button("Measure here", type="primary", icon=":material/speed:", key="impl_run"):
        bar = st.progress(0.0, text="Starting…")
        st.session_state["impl_last"] = bonus_bench.sweep(
            device, [t for t in bonus_bench.TOKEN_SIZES if t <= largest], repeats, time_budget_s=BUDGET_S,
            on_step=lambda fraction, text: bar.progress(min(fraction, 1.0), text=text))
        bar.empty()
    if "impl_last" not in st.session_state:
        st.caption("Below: the stored measurement of scripts/bench_implementations.py, until you measure here.")
result = st.session_state.get("impl_last") or blocks.stored_implementations(device) or blocks.stored_implementations("cpu")
if result is None:
    st.info("No stored measurement: press **Measure here**.", icon=":material/timer:")
    st.stop()
fresh = "impl_last" in st.session_state
sizes = sorted({row["tokens"] for row in result["rows"]})
st.caption(("Measured just now" if fresh else "Measured")
           + f" on {result['machine']}, {result['date']}: T = {sizes[0]:,} … {sizes[-1]:,}, the median of "
             f"{result['repeats']} runs. Compare lines within one run, not across runs.")
for message in result["notes"]:
    ui.note(message)
frame = pd.DataFrame(result["rows"])
long = []
for name, title in (("forward", "forward"), ("backward", "forward + backward")):
    ok = frame[frame[name] == "ok"]
    long.append(ok.assign(ms=ok[f"{name}_s"] * 1e3, MB=ok[f"{name}_bytes"] / 1e6, pass_=title))
timed = pd.concat(long, ignore_index=True).rename(columns={"label": "implementation", "pass_": "pass"})
# One chart per row: eight names in full need the legend's width (side by side, two legends cut them short).
for name in ("forward", "forward + backward"):
    part = timed[timed["pass"] == name]
    if name == "forward + backward":
        blocks.fastest(timed)  # the sentence above the chart it reads
    ui.chart(blocks.timing_chart(part, "ms", f"{name}: time per call", "milliseconds (log)"), f"time {name}",
             table=lambda p=part: p[["tokens", "implementation", "ms"]], width="stretch")
memory = timed[(timed["pass"] == "forward + backward") & timed["MB"].notna()]
ui.chart(blocks.timing_chart(memory, "MB", "forward + backward: peak memory of new tensors", "MB (log)"), "peak memory",
         table=lambda: memory[["tokens", "implementation", "MB"]], width="stretch")
blocks.timing_table(result)
