"""The efficiency screen's readout of one measurement: the time and memory charts, what they show, and whether
the course version and the fused kernels agree.

screens/efficiency.py keeps the outline (the controls, the Measure button, why the fused kernel wins) and calls
these with one line each. last: one sweep, {rows, notes, device, batch, heads, head_dim, repeats}, rows as
attention_core/lessons/efficiency.py's sweep returns them.
"""
import pandas as pd
import streamlit as st

from attention_core.book.device import describe
from attention_core.drawing import charts, numbers
from attention_core.drawing.colour import METHOD_HEX
from attention_core.lessons import efficiency
from ui.draw.vega import chart
from ui.state import note

COLOURS = {label: METHOD_HEX[method] for method, label in efficiency.LABELS.items()} | \
    {efficiency.COMPUTED_LABEL: METHOD_HEX["computed"]}


def measurement_charts(last: dict) -> None:
    """The sweep's notes, then time and peak memory against T on log-log axes, one line per method."""
    for message in last["notes"]:
        note(message)
    times, memory = efficiency.measured_frames(last["rows"], last["batch"], last["heads"])
    st.caption(f"Measured on {describe(last['device'])}: batch {last['batch']}, {last['heads']} heads, head_dim "
               f"{last['head_dim']}, float32, median of {last['repeats']} after a warm-up.")
    left, right = st.columns(2)
    with left:
        chart(charts.loglog(times, "ms", "Time per call", "milliseconds (log)", COLOURS), "attention time per call",
              table=lambda: times, width="stretch")
    with right:
        chart(charts.loglog(memory, "MB", "Peak memory of new tensors", "MB (log)", COLOURS),
              "attention peak memory", table=lambda: memory, width="stretch")
    how = ("`torch.cuda.max_memory_allocated()` during the call, minus what was allocated before it"
           if last["device"] == "cuda" else "the tensors PyTorch's operations create during the call, followed "
           "through its dispatcher, counting the most bytes alive at once (the inputs are not counted)")
    st.caption(f"Peak memory: {how}. The fused kernels create only their output (b, h, T, head_dim) and one "
               "log-sum-exp per row: no T × T tensor at all.")


def measurement_summary(last: dict) -> None:
    """The largest T's speed-up and memory in words, the course version against every fused kernel, every row."""
    frame = pd.DataFrame(last["rows"])
    st.subheader("What was measured")
    if (found_at := efficiency.summary(last["rows"])) is not None:
        t, growth = found_at["tokens"], found_at["growth_from_half"]
        st.markdown(
            f"At T = {t:,} the fused kernel took **{found_at['sdpa_s'] * 1e3:,.1f} ms** against the course "
            f"version's **{found_at['course_s'] * 1e3:,.1f} ms** ({found_at['course_s'] / found_at['sdpa_s']:.1f}× "
            f"faster), and its new tensors peaked at {numbers.size_in_bytes(found_at['sdpa_bytes'])} against "
            f"{numbers.size_in_bytes(found_at['course_bytes'])}."
            + (f" From T = {t // 2:,} to {t:,} the course version's time grew × {growth:.1f} (× 4 is quadratic)."
               if growth else ""))
    st.subheader("Do they agree?")
    worst, differences = efficiency.agreement_table(last["rows"])
    if worst is not None:
        verdict = "all within" if worst <= efficiency.TOLERANCE else "**not all** within"
        st.markdown(f"Largest |course − fused| over every output value: **{worst:.1e}**, {verdict} "
                    f"{efficiency.TOLERANCE:g} (float32).")
        st.dataframe(differences, width="content")
    else:
        st.markdown("No size had both the course version and a fused kernel, so nothing was compared.")
    with st.expander("Every measurement", icon=":material/table:"):
        st.dataframe(frame.assign(ms=frame["seconds"] * 1e3, MB=frame["peak_bytes"] / 1e6)
                     [["tokens", "label", "ms", "MB", "max_abs_diff", "status", "device"]], width="stretch",
                     hide_index=True, column_config={"max_abs_diff": st.column_config.NumberColumn(format="%.1e")})
