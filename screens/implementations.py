"""Going further: the bonus notebook's eight ways to write multi-head attention, checked and timed."""
import json
from pathlib import Path

import pandas as pd
import streamlit as st

from attention_core.drawing import charts
from attention_core.lessons import bonus_bench, bonus_fused
import ui
from attention_core.lessons.bonus_bench import IMPLEMENTATIONS

STORED = Path(__file__).resolve().parents[1] / "docs"  # implementations-<device>.json, from the script
SHAPES = [(6, 6, 2), (3, 4, 2), (16, 8, 4), (768, 768, 12)]  # (d_in, d_out, num_heads): the book's, d_in ≠ d_out, GPT-2
BUDGET_S = 120.0  # a visitor's sweep stops before a size that would take longer
MAX_REPEATS = 5
WHY = {  # one sentence on why the winner wins, by what it runs
    "sdpa": "its fused kernel reads Q, K and V in tiles with a running softmax and never writes the T × T scores, "
            "while every hand-written version writes the scores and their masked, scaled and softmaxed copies to "
            "memory, and its backward pass reads them back.",
    "torch_mha": "with `need_weights=False` it hands attention to the same fused SDPA kernel, so the T × T scores "
                 "are never written to memory, and the backward pass has none to read back.",
    "other": "it still writes the T × T scores to memory like the chapter's class, so its lead comes from how its "
             "projections and copies are arranged; on a shared machine such a small lead can change between runs.",
}


@st.cache_data(max_entries=4, show_spinner=False)
def agreements() -> pd.DataFrame:
    rows = {}
    for key, (label, _) in IMPLEMENTATIONS.items():
        for d_in, d_out, h in SHAPES:
            try:
                diff = bonus_bench.agreement(key, d_in, d_out, h)
                text = f"{diff:.1e} {'✓' if diff <= bonus_bench.TOLERANCE else '✗'}"
            except (ValueError, AssertionError) as error:
                text = f"cannot build: {error}"
            rows.setdefault(label, {})[f"{d_in} → {d_out}, {h} heads"] = text
    return pd.DataFrame.from_dict(rows, orient="index")


@st.cache_data(max_entries=4, show_spinner=False)
def kernels(device: str) -> tuple[str, str]:
    return bonus_fused.sdpa_backend(device), bonus_fused.sdpa_backend(device, flash=False)


def stored(device: str) -> dict | None:
    path = STORED / f"implementations-{device}.json"
    return json.loads(path.read_text()) if path.exists() else None


settings = ui.current()
device = settings.device
st.title("Eight ways to write multi-head attention")
st.markdown(
    "The book's bonus notebook (`ch03/02_bonus_efficient-multihead-attention`) writes the same layer eight ways, "
    "from the chapter's wrapper of single heads to PyTorch's fused kernels. Each class below has the book's "
    "constructor `(d_in, d_out, context_length, dropout, num_heads, qkv_bias=False)`, takes the chapter "
    "`MultiHeadAttention`'s weights with `copy_from(mha)`, and then must give the same output.")
ui.device_badge(device, settings.device_note)
flash, no_flash = kernels(device)
st.caption(f"Here `F.scaled_dot_product_attention` runs the **{flash}** kernel; with flash forbidden, **{no_flash}** "
           "(asked of PyTorch with `torch._fused_sdp_choice`). FlexAttention runs without `torch.compile` here: "
           "compiling it took about 70 s on this machine, so the screen uses its eager reference, which has no "
           "backward pass on a CPU.")

st.subheader("Do they agree with the chapter?")
st.dataframe(agreements(), width="stretch")
st.caption(f"Largest |implementation − chapter| on a seeded batch of 2 × 6 tokens, float32; ✓ is within "
           f"{bonus_bench.TOLERANCE:g}. nn.MultiheadAttention's query is its embed_dim wide, so it needs d_in = d_out.")
label = st.selectbox("Show the code of", [v[0] for v in IMPLEMENTATIONS.values()], index=2, key="impl_code")
ui.show_code(next(cls for name, cls in IMPLEMENTATIONS.values() if name == label), title=f"The code: {label}")

st.subheader("How fast, how much memory")
st.markdown(f"GPT-2 small's layer ({bonus_bench.GPT2['d_in']} → {bonus_bench.GPT2['d_out']}, "
            f"{bonus_bench.GPT2['num_heads']} heads), one sequence, float32: the forward pass alone (`no_grad`) and "
            "forward plus backward, as in training.")
cols = st.columns(2)
largest = cols[0].select_slider("Largest T", bonus_bench.TOKEN_SIZES, 512, key="impl_max_tokens")
repeats = cols[1].slider("Repeats (median)", 1, MAX_REPEATS, 1, key="impl_repeats")
if st.button("Measure here", type="primary", icon=":material/speed:", key="impl_run"):
    bar = st.progress(0.0, text="Starting…")
    st.session_state["impl_last"] = bonus_bench.sweep(
        device, [t for t in bonus_bench.TOKEN_SIZES if t <= largest], repeats, time_budget_s=BUDGET_S,
        on_step=lambda fraction, text: bar.progress(min(fraction, 1.0), text=text))
    bar.empty()
result = st.session_state.get("impl_last") or stored(device) or stored("cpu")
if result is None:
    st.info("No stored measurement: press **Measure here**.", icon=":material/timer:")
    st.stop()
fresh = "impl_last" in st.session_state
st.caption(("Measured just now" if fresh else "Stored measurement (scripts/bench_implementations.py)")
           + f" on {result['machine']}, {result['date']}, median of {result['repeats']}. The machine may be shared: "
             "compare lines within one run, not across runs.")
for message in result["notes"]:
    ui.note(message)
frame = pd.DataFrame(result["rows"])
long = []
for name, title in (("forward", "forward"), ("backward", "forward + backward")):
    ok = frame[frame[name] == "ok"]
    long.append(ok.assign(ms=ok[f"{name}_s"] * 1e3, MB=ok[f"{name}_bytes"] / 1e6, pass_=title))
timed = pd.concat(long, ignore_index=True).rename(columns={"label": "implementation", "pass_": "pass"})
left, right = st.columns(2)
for column, name in ((left, "forward"), (right, "forward + backward")):
    with column:
        part = timed[timed["pass"] == name]
        ui.chart(charts.line_chart(part, "tokens", "ms", "implementation", title=f"{name}: time per call",
                                   log_x=True, log_y=True, y_title="milliseconds (log)"), f"time {name}",
                 table=lambda p=part: p[["tokens", "implementation", "ms"]], width="stretch")
memory = timed[(timed["pass"] == "forward + backward") & timed["MB"].notna()]
ui.chart(charts.line_chart(memory, "tokens", "MB", "implementation", title="forward + backward: peak memory of new "
                           "tensors", log_x=True, log_y=True, y_title="MB (log)"), "peak memory",
         table=lambda: memory[["tokens", "implementation", "MB"]], width="stretch")
cells = {}
for r in result["rows"]:
    for name, title in (("forward", "fwd ms"), ("backward", "fwd+bwd ms")):
        cells.setdefault(r["label"], {})[(title, r["tokens"])] = (f"{r[f'{name}_s'] * 1e3:,.1f}" if r[name] == "ok"
                                                                  else "–")
    peak = r.get("backward_bytes")
    cells[r["label"]][("fwd+bwd peak MB", r["tokens"])] = "–" if peak is None else f"{peak / 1e6:,.1f}"
grid = pd.DataFrame.from_dict(cells, orient="index")
order = {"fwd ms": 0, "fwd+bwd ms": 1, "fwd+bwd peak MB": 2}
st.dataframe(grid[sorted(grid.columns, key=lambda c: (order[c[0]], c[1]))], width="stretch")
st.caption("Columns: forward time, forward + backward time, its peak memory, each at T = 128 … 1,024. – : not "
           "measured here (the reason is below) or, for memory, not traceable on a CPU.")
missing = [(r["label"], r["tokens"], name, r[name]) for r in result["rows"] for name in ("forward", "backward")
           if r[name] != "ok"]
for label, group in pd.DataFrame(missing, columns=["label", "T", "pass", "why"]).groupby(["label", "pass", "why"]):
    st.warning(f"**{label[0]}**, {label[1]}: not measured here ({label[2]}).", icon=":material/block:")

top = timed[timed["tokens"] == timed["tokens"].max()]
best = top.sort_values("ms").groupby("pass").first()
if "forward + backward" in best.index:
    win = best.loc["forward + backward"]
    chapter = top[(top["key"] == "chapter") & (top["pass"] == "forward + backward")]["ms"]
    versus = f", against the chapter's {chapter.iloc[0]:,.1f} ms" if len(chapter) else ""
    st.markdown(f"At T = {int(win['tokens']):,} the fastest forward + backward is **{win['implementation']}** "
                f"({win['ms']:,.1f} ms{versus}): {WHY.get(win['key'], WHY['other'])}")
