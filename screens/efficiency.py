"""Going further: the course's attention (T x T weights in memory) against PyTorch's fused kernels."""
import altair as alt
import pandas as pd
import streamlit as st

from attention_core import efficiency, numbers, ui
from attention_core.device import describe

CPU_SIZES, GPU_SIZES = efficiency.token_sizes(4096), efficiency.token_sizes(65536)
COMPUTED = "(b, h, T, T) weights, computed"
COLOURS = {efficiency.LABELS["course"]: "#dc2626", efficiency.LABELS["sdpa"]: "#1d4ed8",
           efficiency.LABELS["flash"]: "#60a5fa", efficiency.LABELS["efficient"]: "#0d9488",
           efficiency.LABELS["cudnn"]: "#7c3aed", efficiency.LABELS["math"]: "#f59e0b", COMPUTED: "#9ca3af"}
BUDGET_S = {"cpu": 60.0}  # seconds per sweep; a GPU also stops at its memory (out of memory is caught)


@st.cache_data(max_entries=8, show_spinner=False)
def backends(device: str) -> list[str]:
    return efficiency.available_backends(device)


@st.cache_data(max_entries=128, show_spinner=False)
def measure(device, batch, heads, head_dim, num_tokens, repeats, methods, dtype="float32"):
    return efficiency.measure_size(device, batch, heads, head_dim, num_tokens, repeats, methods, dtype)


def loglog(frame: pd.DataFrame, y: str, title: str, y_title: str) -> alt.Chart:
    """Both axes logarithmic: a power law T^k is a straight line of slope k."""
    shown = [label for label in COLOURS if label in set(frame["label"])]
    colours = alt.Scale(domain=shown, range=[COLOURS[label] for label in shown])
    return alt.Chart(frame).mark_line(point=True).encode(
        x=alt.X("tokens:Q", scale=alt.Scale(type="log", base=2), title="sequence length T (tokens)",
                axis=alt.Axis(values=sorted(frame["tokens"].unique().tolist()), format="d")),
        y=alt.Y(f"{y}:Q", scale=alt.Scale(type="log"), title=y_title),
        color=alt.Color("label:N", scale=colours, title=None, legend=alt.Legend(labelLimit=0)),
        tooltip=["tokens:Q", "label:N", alt.Tooltip(f"{y}:Q", format=",.3f")],
    ).properties(title=title, height=320)


settings = ui.current()
st.title("Efficiency: fused attention")
st.markdown(
    "The book computes attention the way it is easiest to understand: the scores of every query with every key "
    "form a **T × T matrix** per head, which is masked, scaled and softmaxed into more T × T matrices before it "
    "meets the values. PyTorch's `F.scaled_dot_product_attention` returns the same context vectors without ever "
    "storing that matrix. Here both run on random queries, keys and values of shape (batch, heads, T, head_dim) "
    "with a causal mask, at growing T."
)
device = settings.device
ui.device_badge(device, settings.device_note)
found = backends(device)
st.caption("SDPA backends that run here (each tried on a small input): " + ", ".join(found) + ".")

sizes = GPU_SIZES if device == "cuda" else CPU_SIZES
cols = st.columns(5)
heads = cols[0].slider("Heads", 1, 32, 12, key="eff_heads")
head_dim = cols[1].select_slider("head_dim", [16, 32, 64, 128], 64, key="eff_head_dim")
batch = cols[2].slider("Batch", 1, 8, 1, key="eff_batch")
max_tokens = cols[3].select_slider("Largest T", sizes, 8192 if device == "cuda" else 1024, key="eff_max_tokens")
repeats = cols[4].slider("Repeats (median)", 1, 10, 3, key="eff_repeats")
biggest = efficiency.weights_bytes(batch, heads, max_tokens)
st.caption(f"At T = {max_tokens:,} one (b, h, T, T) float32 tensor takes {batch} × {heads} × {max_tokens:,}² × 4 "
           f"bytes = **{numbers.size_in_bytes(biggest)}**; the course version (`stages.attend`, which keeps "
           "every step) holds four of them at once: scores, masked, scaled, weights; the book's forward masks in "
           "place with `masked_fill_`, so it holds three. On the CPU a method that would need more than "
           f"{numbers.size_in_bytes(efficiency.CPU_MEMORY_LIMIT)} is skipped; on a GPU it runs until out of memory.")

if st.button("Measure", type="primary", icon=":material/speed:", key="eff_run"):
    bar = st.progress(0.0, text="Starting…")
    methods = ("course", "sdpa", *found)
    rows, notes, used = efficiency.sweep(
        lambda dev, t, m: measure(dev, batch, heads, head_dim, t, repeats, m),
        [t for t in sizes if t <= max_tokens], methods, device, BUDGET_S.get(device, 120.0),
        on_step=lambda fraction, text: bar.progress(min(fraction, 1.0), text=text))
    bar.empty()
    st.session_state["eff_last"] = dict(rows=rows, notes=notes, device=used, batch=batch, heads=heads,
                                        head_dim=head_dim, repeats=repeats)

last = st.session_state.get("eff_last")
if last is None:
    st.info("Press **Measure** to time both versions (a few seconds on a CPU). Results are kept for this "
            "session and cached for identical settings.", icon=":material/timer:")
else:
    for message in last["notes"]:
        ui.note(message)
    frame = pd.DataFrame(last["rows"])
    ok = frame[frame["status"] == "ok"].assign(ms=lambda f: f["seconds"] * 1e3, MB=lambda f: f["peak_bytes"] / 1e6)
    st.caption(f"Measured on {describe(last['device'])}: batch {last['batch']}, {last['heads']} heads, head_dim "
               f"{last['head_dim']}, float32, median of {last['repeats']} after a warm-up.")
    computed = pd.DataFrame({"tokens": sorted(frame["tokens"].unique())})
    computed = computed.assign(label=COMPUTED,
                               MB=[efficiency.weights_bytes(last["batch"], last["heads"], t) / 1e6
                                   for t in computed["tokens"]])
    memory = pd.concat([ok[["tokens", "label", "MB"]], computed], ignore_index=True)
    left, right = st.columns(2)
    with left:
        ui.chart(loglog(ok, "ms", "Time per call", "milliseconds (log)"), "attention time per call",
                 table=lambda: ok[["tokens", "label", "ms"]], width="stretch")
    with right:
        ui.chart(loglog(memory, "MB", "Peak memory of new tensors", "MB (log)"), "attention peak memory",
                 table=lambda: memory, width="stretch")
    how = ("`torch.cuda.max_memory_allocated()` during the call, minus what was allocated before it"
           if last["device"] == "cuda" else "the tensors PyTorch's operations create during the call, followed "
           "through its dispatcher, counting the most bytes alive at once (the inputs are not counted)")
    st.caption(f"Peak memory: {how}. The fused kernels create only their output (b, h, T, head_dim) and one "
               "log-sum-exp per row: no T × T tensor at all.")

    st.subheader("What was measured")
    both = ok.pivot_table(index="tokens", columns="method", values="seconds")
    both = both.dropna(subset=["course", "sdpa"]) if {"course", "sdpa"} <= set(both.columns) else both.iloc[:0]
    if len(both):
        t = int(both.index.max())
        peaks = ok[ok["tokens"] == t].set_index("method")["peak_bytes"]
        growth = ""
        if t // 2 in both.index:
            growth = (f" From T = {t // 2:,} to {t:,} the course version's time grew × "
                      f"{both.loc[t, 'course'] / both.loc[t // 2, 'course']:.1f} (× 4 is quadratic).")
        st.markdown(
            f"At T = {t:,} the fused kernel took **{both.loc[t, 'sdpa'] * 1e3:,.1f} ms** against the course "
            f"version's **{both.loc[t, 'course'] * 1e3:,.1f} ms** ({both.loc[t, 'course'] / both.loc[t, 'sdpa']:.1f}× "
            f"faster), and its new tensors peaked at {numbers.size_in_bytes(peaks['sdpa'])} against "
            f"{numbers.size_in_bytes(peaks['course'])}.{growth}")
    st.subheader("Do they agree?")
    checked = frame.dropna(subset=["max_abs_diff"])
    if len(checked):
        worst = checked["max_abs_diff"].max()
        verdict = "all within" if worst <= efficiency.TOLERANCE else "**not all** within"
        st.markdown(f"Largest |course − fused| over every output value: **{worst:.1e}**, {verdict} "
                    f"{efficiency.TOLERANCE:g} (float32).")
        table = checked.assign(diff=[f"{d:.1e} {'✓' if d <= efficiency.TOLERANCE else '✗'}"
                                     for d in checked["max_abs_diff"]])
        st.dataframe(table.pivot(index="tokens", columns="label", values="diff"), width="content")
    else:
        st.markdown("No size had both the course version and a fused kernel, so nothing was compared.")
    with st.expander("Every measurement", icon=":material/table:"):
        st.dataframe(frame.assign(ms=frame["seconds"] * 1e3, MB=frame["peak_bytes"] / 1e6)
                     [["tokens", "label", "ms", "MB", "max_abs_diff", "status", "device"]], width="stretch",
                     hide_index=True, column_config={"max_abs_diff": st.column_config.NumberColumn(format="%.1e")})

st.subheader("Why the fused kernel wins")
ui.explain(
    "Both versions do the same O(T²) arithmetic: every query still meets every earlier key. The difference "
    "is memory. The course version writes the T × T scores to memory, reads them back to mask, again to scale, "
    "again for softmax, again to multiply by V: at large T it waits on memory, not on arithmetic, and its "
    "memory line climbs with slope 2 on the log-log plot, parallel to the computed weights line. The flash "
    "kernel loads a tile of queries and a tile of keys and values into fast memory (GPU shared memory, CPU "
    "cache), and keeps for each query only a running maximum, a running sum of exponentials and a running "
    "output that it rescales when a larger score appears (the *online softmax*), so the T × T matrix is never "
    "written: its memory line is the output's size, slope 1. With `is_causal=True` it also skips the tiles "
    "above the diagonal, which the course computes and then masks away. The math backend is PyTorch's own "
    "unfused reference and materialises the matrix too.",
    title="Why the fused kernel wins",
)
gb = numbers.size_in_bytes(efficiency.weights_bytes(1, 12, 8192))
ui.explain(
    f"Where the quadratic bites: GPT-2 small's 12 heads at 8,192 tokens need 12 × 8,192² × 4 bytes = **{gb}** for "
    "one copy of the weights of one layer and one sequence, before the scores, the masked and scaled copies, "
    "a batch, or the copies training keeps for the backward pass. At 1,024 tokens the same tensor is "
    f"{numbers.size_in_bytes(efficiency.weights_bytes(1, 12, 1024))}.",
    title="Where the quadratic bites",
)

ui.show_code(efficiency.course_attention, efficiency.fused_attention, efficiency.time_call,
             title="The code that is timed")
