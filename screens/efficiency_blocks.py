"""The efficiency screen's readout of one measurement: the time and memory charts, what they show, and whether
the course version and the fused kernels agree.

screens/efficiency.py keeps the outline (the controls, the Measure button, where a fused kernel saves time) and calls
these with one line each. last: one sweep, {rows, notes, device, batch, heads, head_dim, repeats}, rows as
attention_core/lessons/efficiency.py's sweep returns them.
"""
import pandas as pd
import streamlit as st

from attention_core.book.device import describe
from attention_core.drawing import charts, numbers
from attention_core.drawing.colour import METHOD_HEX
from attention_core.lessons import efficiency
from attention_core.lessons.efficiency_verdict import verdict
from ui.draw.vega import chart
from ui.state.sections import section
from ui.state.session import note
from ui.draw.display import data_table

COLOURS = {label: METHOD_HEX[method] for method, label in efficiency.LABELS.items()} | \
    {efficiency.COMPUTED_LABEL: METHOD_HEX["computed"]}


def measurement_charts(last: dict) -> None:
    """The sweep's notes, then time and peak memory against T on log-log axes, one line per method."""
    for message in last["notes"]:
        note(message)
    times, memory = efficiency.measured_frames(last["rows"], last["batch"], last["heads"])
    st.caption(f"Measured on {describe(last['device'])}: batch {last['batch']}, {last['heads']} heads, head_dim "
               f"{last['head_dim']}, float32. Each method is called once to warm up, then at least {last['repeats']} "
               f"times and until its calls add up to {efficiency.MIN_SECONDS:g} s. A point is its fastest call: other "
               "programs can only slow a call down, so the fastest is the least disturbed (the medians are in Every "
               "measurement).")
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
    """The largest T's speed and memory in words that follow the numbers, the course version against every fused
    kernel, and every row in a folded section."""
    frame = pd.DataFrame(last["rows"])
    st.subheader("What was measured")
    if (found_at := efficiency.summary(last["rows"])) is not None:
        st.markdown(verdict(found_at))
    st.subheader("Do they agree?")
    worst, differences = efficiency.agreement_table(last["rows"])
    if worst is not None:
        agree = "every fused kernel agrees with the course version" if worst <= efficiency.TOLERANCE else \
            "**not every fused kernel agrees** with the course version"
        st.markdown(f"Largest |course − fused| over every output value: **{numbers.scientific(worst)}**, "
                    f"{numbers.within_tolerance(worst)} (float32 rounding): {agree}.")
        data_table(differences.rename(index=lambda t: f"{t:,}"), width="content")
    else:
        st.markdown("No size had both the course version and a fused kernel, so nothing was compared.")
    with section("measurements", "Every measurement", icon=":material/table:") as shown:
        if shown:
            _every_measurement(frame)


def _every_measurement(frame: pd.DataFrame) -> None:
    """Every row of the sweep: median and fastest call, how many calls, peak memory, agreement, status."""
    shown = frame.assign(tokens=[f"{t:,}" for t in frame["tokens"]], ms=frame["seconds"] * 1e3,
                         fastest_ms=frame["fastest_s"] * 1e3, MB=frame["peak_bytes"] / 1e6,
                         max_abs_diff=[numbers.scientific(d) if pd.notna(d) else "–" for d in frame["max_abs_diff"]])
    number = st.column_config.NumberColumn
    data_table(shown[["tokens", "label", "ms", "fastest_ms", "calls", "MB", "max_abs_diff", "status", "device"]],
                 width="stretch", hide_index=True,
                 column_config={"ms": number("median ms", format="%.2f"), "fastest_ms": number("fastest ms", format="%.2f"),
                                "MB": number(format="%.2f"), "max_abs_diff": "max |course − fused|"})
