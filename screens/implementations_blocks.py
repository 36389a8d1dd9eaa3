"""The bonus "eight implementations" screen's plumbing and readouts: the agreement table and the SDPA kernels
(computed once per server), the stored measurement, the table of every timing, and why the winner wins.

screens/implementations.py keeps the outline (the controls, the Measure button, the charts, the prose) and
calls each of these with one line; the numbers come from attention_core/lessons/bonus_bench.py.
"""
import json
from pathlib import Path

import pandas as pd
import streamlit as st

from attention_core.drawing import charts, numbers
from attention_core.drawing.colour import CATEGORICAL_HEX
from attention_core.lessons import bonus_bench, bonus_fused
from attention_core.lessons.bonus_bench import IMPLEMENTATIONS
from ui.draw.display import data_table, for_the_teacher
from ui.draw.vega import font_scale
from ui.compute.built import once

STORED = Path(__file__).resolve().parents[1] / "docs"  # implementations-<device>.json, from the script
SHAPES = [(6, 6, 2), (3, 4, 2), (16, 8, 4), (768, 768, 12)]  # (d_in, d_out, num_heads): the book's, d_in ≠ d_out, GPT-2
WHY = {  # one sentence on why the winner wins, by what it runs
    "sdpa": "its fused kernel reads Q, K and V in tiles with a running softmax and never writes the T × T scores, "
            "while every hand-written version writes the scores and their masked, scaled and softmaxed copies to "
            "memory, and its backward pass reads them back.",
    "torch_mha": "with `need_weights=False` it hands attention to the same fused SDPA kernel, so the T × T scores "
                 "are never written to memory, and the backward pass has none to read back.",
    "other": "it still writes the T × T scores to memory like the chapter's class, so its lead comes from how its "
             "projections and copies are arranged; on a shared machine such a small lead can change between runs.",
}


def implementation_agreements() -> pd.DataFrame:
    """Each implementation's largest difference from the chapter's class at each of SHAPES, or why it cannot
    be built there (nn.MultiheadAttention needs d_in = d_out): computed once per server."""
    return once(("implementation agreements",), _agreements)


def _agreements() -> pd.DataFrame:
    rows = {}
    for key, (label, _) in IMPLEMENTATIONS.items():
        for d_in, d_out, h in SHAPES:
            try:
                diff = bonus_bench.agreement(key, d_in, d_out, h)
                text = f"{numbers.scientific(diff)} {'✓' if diff <= bonus_bench.TOLERANCE else '✗'}"
            except (ValueError, AssertionError) as error:  # short enough for a cell; the caption says why
                text = "– (d_in ≠ d_out)" if "d_in == d_out" in str(error) else "– (cannot build)"
            rows.setdefault(label, {})[f"{d_in} → {d_out}, {h} heads"] = text
    return pd.DataFrame.from_dict(rows, orient="index")


# One colour per implementation, the same in every chart (Tableau 10, which stays apart on a projector).
COLOURS = {label: CATEGORICAL_HEX[n % len(CATEGORICAL_HEX)] for n, (label, _) in enumerate(IMPLEMENTATIONS.values())}


def timing_chart(part: pd.DataFrame, y: str, title: str, y_title: str):
    """One pass's lines against T, both axes logarithmic, every implementation named in full in the legend.
    part: tokens, implementation, and the y column. Streamlit fits a chart, legend included, into its height:
    the height grows with the legend's lines and fonts, or the last lines are cut (6 of 8 were shown)."""
    lines = part["implementation"].nunique()
    return charts.loglog(part.rename(columns={"implementation": "label"}), y, title, y_title, COLOURS).properties(
        height=max(320, round((24 * lines + 90) * font_scale())))


def sdpa_kernels(device: str) -> tuple[str, str]:
    """The kernel F.scaled_dot_product_attention picks here, and the one it picks with flash forbidden."""
    return once(("sdpa kernels", device),
                lambda: (bonus_fused.sdpa_backend(device), bonus_fused.sdpa_backend(device, flash=False)))


def stored_implementations(device: str) -> dict | None:
    """scripts/bench_implementations.py's measurement on this kind of device, if one was committed."""
    path = STORED / f"implementations-{device}.json"
    return json.loads(path.read_text()) if path.exists() else None


def timing_table(result: dict) -> None:
    """Every measured number as a table (a column per pass and T), then why any cell is missing."""
    cells = {}
    for r in result["rows"]:
        for name, title in (("forward", "fwd ms"), ("backward", "fwd+bwd ms")):
            cells.setdefault(r["label"], {})[(title, f"{r['tokens']:,}")] = (f"{r[f'{name}_s'] * 1e3:,.1f}"
                                                                           if r[name] == "ok" else "–")
        peak = r.get("backward_bytes")
        cells[r["label"]][("fwd+bwd peak MB", f"{r['tokens']:,}")] = "–" if peak is None else f"{peak / 1e6:,.1f}"
    grid = pd.DataFrame.from_dict(cells, orient="index")
    order = {"fwd ms": 0, "fwd+bwd ms": 1, "fwd+bwd peak MB": 2}
    data_table(grid[sorted(grid.columns, key=lambda c: (order[c[0]], int(c[1].replace(",", ""))))], width="stretch")
    st.caption("Columns: forward time, forward + backward time, its peak memory, each at T = 128 … 1,024. – : not "
               "measured on this machine or, for memory, not traceable on a CPU.")
    missing = [(r["label"], r["tokens"], name, r[name]) for r in result["rows"] for name in ("forward", "backward")
               if r[name] != "ok"]
    with for_the_teacher("implementations-not-measured"):  # PyTorch's own message: for the teacher, not a slide
        for label, group in pd.DataFrame(missing, columns=["label", "T", "pass", "why"]).groupby(["label", "pass", "why"]):
            st.warning(f"**{label[0]}**, {label[1]}: not measured here ({label[2].rstrip('.')}).",
                       icon=":material/block:")


def fastest(timed: pd.DataFrame) -> None:
    """At the largest T, the fastest forward + backward against the chapter's class, and why it wins.

    timed: a row per (implementation, pass, T) with its milliseconds.
    """
    top = timed[timed["tokens"] == timed["tokens"].max()]
    best = top.sort_values("ms").groupby("pass").first()
    if "forward + backward" in best.index:
        win = best.loc["forward + backward"]
        chapter = top[(top["key"] == "chapter") & (top["pass"] == "forward + backward")]["ms"]
        versus = f", against the chapter's {chapter.iloc[0]:,.1f} ms" if len(chapter) else ""
        st.markdown(f"At T = {int(win['tokens']):,} the fastest forward + backward is **{win['implementation']}** "
                    f"({win['ms']:,.1f} ms{versus}): {WHY.get(win['key'], WHY['other'])}")
