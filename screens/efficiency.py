"""Going further: the course's attention (T x T weights in memory) against PyTorch's fused kernels."""
import streamlit as st

import ui
from screens import efficiency_blocks as blocks
from attention_core.drawing import numbers
from attention_core.lessons import efficiency

CPU_SIZES, GPU_SIZES = efficiency.token_sizes(4096), efficiency.token_sizes(65536)
# Measured on first load, so the screen opens with its charts: at 128 tokens a call takes well under a
# millisecond, mostly fixed costs, and the × 4 of quadratic work does not show yet; 256 and 512 show it.
QUICK_SIZES = (256, 512)
BUDGET_S = {"cpu": 60.0}  # seconds per sweep; a GPU also stops at its memory (out of memory is caught)


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
found = ui.efficiency_backends(device)
st.caption("Kernels of PyTorch's scaled_dot_product_attention (SDPA) that run on this machine (each tried on a small input): " + ", ".join(found) + ".")

sizes = GPU_SIZES if device == "cuda" else CPU_SIZES
cols = st.columns(5)
heads = cols[0].slider("Heads", 1, 32, 12, key="eff_heads")
head_dim = cols[1].select_slider("head_dim", [16, 32, 64, 128], 64, key="eff_head_dim")
batch = cols[2].slider("Batch", 1, 8, 1, key="eff_batch")
max_tokens = cols[3].select_slider("Largest T", sizes, 8192 if device == "cuda" else 1024, key="eff_max_tokens",
                                   format_func=lambda t: f"{t:,}")
repeats = cols[4].slider("Repeats (at least)", 1, 10, 3, key="eff_repeats",
                         help=f"Each method is called at least this often, and until its calls add up to "
                              f"{efficiency.MIN_SECONDS:g} s; the charts show the fastest call.")
biggest = efficiency.weights_bytes(batch, heads, max_tokens)
st.caption(f"At T = {max_tokens:,} one (b, h, T, T) float32 tensor takes {batch} × {heads} × {max_tokens:,}² × 4 "
           f"bytes = **{numbers.size_in_bytes(biggest)}**; the course version (the app's own, which keeps "
           "every step) holds four of them at once: scores, masked, scaled, weights; the book's forward masks in "
           "place with `masked_fill_`, so it holds three. On the CPU a method that would need more than "
           f"{numbers.size_in_bytes(efficiency.CPU_MEMORY_LIMIT)} is skipped; on a GPU it runs until out of memory.")

if st.button("Measure", type="primary", icon=":material/speed:", key="eff_run"):
    bar = st.progress(0.0, text="Starting…")
    methods = ("course", "sdpa", *found)
    rows, notes, used = efficiency.sweep(
        lambda dev, t, m: ui.efficiency_measure(dev, batch, heads, head_dim, t, repeats, m),
        [t for t in sizes if t <= max_tokens], methods, device, BUDGET_S.get(device, 120.0),
        on_step=lambda fraction, text: bar.progress(min(fraction, 1.0), text=text))
    bar.empty()
    st.session_state["eff_last"] = dict(rows=rows, notes=notes, device=used, batch=batch, heads=heads,
                                        head_dim=head_dim, repeats=repeats)

last = st.session_state.get("eff_last")
if last is None:  # first load: a quick measurement of QUICK_SIZES, cached for every visitor
    # At the Repeats slider's value, so the slide's "at least n calls" and the slider beside it agree
    rows, notes, used = efficiency.sweep(lambda dev, t, m: ui.efficiency_measure(dev, batch, heads, head_dim, t, repeats, m),
                                         QUICK_SIZES, ("course", "sdpa", *found), device)
    last = dict(rows=rows, notes=notes, device=used, batch=batch, heads=heads, head_dim=head_dim, repeats=repeats)
    st.info(f"A quick first measurement: T = {QUICK_SIZES[0]:,} and {QUICK_SIZES[1]:,}, at least {repeats} "
            "calls each. Press **Measure** for the sweep up to the largest T above (a few seconds on a CPU).",
            icon=":material/timer:")
if last is not None:
    blocks.measurement_charts(last)
    blocks.measurement_summary(last)

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
    "unfused reference and materialises the matrix too. At small T none of this shows: the T × T tensors fit in "
    "the processor's cache, fixed costs that do not grow with T dominate, and the fused kernel can be as slow as "
    "the course version or slower. The measurement above says which happened here.",
    title="Where a fused kernel saves time and memory", name="why",
)
gb = numbers.size_in_bytes(efficiency.weights_bytes(1, 12, 8192))
ui.explain(
    f"GPT-2 small's 12 heads at 8,192 tokens need 12 × 8,192² × 4 bytes = **{gb}** for "
    "one copy of the weights of one layer and one sequence, before the scores, the masked and scaled copies, "
    "a batch, or the copies training keeps for the backward pass. At 1,024 tokens the same tensor is "
    f"{numbers.size_in_bytes(efficiency.weights_bytes(1, 12, 1024))}.",
    title="Where the quadratic bites", name="quadratic",
)

ui.show_code(efficiency.course_attention, efficiency.fused_attention, efficiency.timings,
             title="The code that is timed")
