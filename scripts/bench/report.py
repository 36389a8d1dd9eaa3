"""The targets, and the markdown tables the report is made of (printed, and written with --out)."""
import platform
import statistics

import numpy as np

# Median targets (ms): a slider of the screen itself, and a sidebar slider that changes the inputs.
TARGET_MS = {"book": {"screen": 150, "sidebar": 200}, "gpt2-small": {"screen": 500, "sidebar": 500}}
SPEEDUP_TARGET = 20  # at 512 tokens, against the full-matrix Altair page
MHA_TARGET = 1.3  # the course's MultiHeadAttention against nn.MultiheadAttention(need_weights=True)
VIEW_TARGET_MS = 16  # one frame


def summary(times):
    """(median, p90) of a slider's moves in ms; (None, None) when no move counted."""
    if not times:
        return None, None
    return statistics.median(times), float(np.percentile(times, 90))


def ms(value) -> str:
    return "–" if value is None else f"{value:,.0f}"


def median_max(values: list[float]) -> str:
    return "–" if not values else f"{statistics.median(values):.1f} / {max(values):.1f}"


def baseline_512(result: dict) -> float | None:
    """The full-matrix Altair page's median move at 512 tokens (None where it was not measured)."""
    return summary(result["baseline"].get(512, {"times": []})["times"])[0]


def slider_details(result: dict) -> list[str]:
    """sliders.measure's result: how it was measured, the floor, every slider, the baseline, the 512-token ratios."""
    floor = result["floor"]
    floor_ms = summary(floor["times"])[0]
    lines = [f"Chromium {result['chromium']}, headless, 1600 × 1000. Time from the key press on a slider to "
             f"the last change on the page, main area or sidebar (script run over, no skeleton, images "
             f"loaded, and nothing changed for {result['quiet_ms']} ms after the last change or long task; that "
             f"quiet wait is not counted). Every slider of the screen, the sidebar's included; "
             f"{result['moves']} moves per slider after one warm-up move, alternating → and ←.", ""]
    lines += ["### The floor", "", f"One slider and a caption in a fragment (scripts/floor_app.py): median "
              f"**{ms(floor_ms)} ms**, max {ms(max(floor['times'], default=None))} ms. Nothing in Streamlit here "
              "re-renders faster; the tables give each slider's distance above it.", "",
              "### Every slider: key press → last change on the page", "",
              "Split of the median move: until the script run starts / the run (server, and the page updating as "
              "elements arrive) / after the run ends (drawing, images).", "",
              "| setting | screen | slider | where | median ms | max ms | above floor ms | split ms | target | meets "
              "| failed moves | errors |",
              "|---|---|---|---|---:|---:|---:|---|---|---|---:|---:|"]
    app_rows = result["rows"]
    for (config, screen, key), r in app_rows.items():
        median = summary(r["times"])[0]
        where = "sidebar" if r["sidebar"] else "screen"
        target = TARGET_MS.get(config, {}).get(where)
        meets = "–" if target is None or median is None else ("yes" if median <= target else "**no**")
        above = None if median is None or floor_ms is None else median - floor_ms
        lines.append(f"| {config} | /{screen} | `{key}` | {where} | {ms(median)} | {ms(max(r['times'], default=None))} "
                     f"| {ms(above)} | {' / '.join(ms(v) for v in r['split'])} | "
                     f"{f'≤ {target} ms' if target else '–'} | {meets} | {r['failed']} | {r['errors']} |")
    problems = [f"- {config} /{screen} `{key}`: " + "; ".join(r["why"]) for (config, screen, key), r in app_rows.items()
                if r["why"]]
    if problems:
        lines += ["", "Problems seen:", *problems]

    lines += ["", "### Baseline: a full-matrix Altair heatmap page (scripts/baseline_heatmap_app.py)", "",
              "One `mark_rect` per cell of a T × T softmax matrix with tooltips; the seed slider redraws it.", "",
              "| tokens | cells | median ms | p90 ms | split ms | failed moves |", "|---:|---:|---:|---:|---|---:|"]
    for tokens, r in result["baseline"].items():
        median, p90 = summary(r["times"])
        split = " / ".join(ms(v) for v in r["split"])
        lines.append(f"| {tokens} | {tokens * tokens:,} | {ms(median)} | {ms(p90)} | {split} | {r['failed']} |")
    naive = baseline_512(result)
    lines += ["", f"### At 512 tokens: each screen's sliders against the baseline (target ≥ {SPEEDUP_TARGET}× faster)",
              "", "| screen | slider | app median ms | baseline median ms | speed-up | meets |",
              "|---|---|---:|---:|---:|---|"]
    for (config, screen, key), r in app_rows.items():
        if config != "512 tokens":
            continue
        app_median = summary(r["times"])[0]
        ratio = naive / app_median if app_median and naive else None
        lines.append(f"| /{screen} | `{key}` | {ms(app_median)} | {ms(naive)} | "
                     f"{'–' if ratio is None else f'{ratio:.1f}×'} | "
                     f"{'–' if ratio is None else ('yes' if ratio >= SPEEDUP_TARGET else '**no**')} |")
    return lines


def readme_table(result: dict) -> list[str]:
    """The README's summary: per setting and screen, the range of the sliders' medians and the worst one."""
    out = ["| setting | screen | screen sliders: median ms | sidebar sliders: median ms | target (screen / sidebar) "
           "| meets |", "|---|---|---|---|---|---|"]
    groups: dict = {}
    for (config, screen, key), r in result["rows"].items():
        median = summary(r["times"])[0]
        if median is not None:
            groups.setdefault((config, screen), {"screen": [], "sidebar": []})[
                "sidebar" if r["sidebar"] else "screen"].append((median, key))
    naive = baseline_512(result)
    for (config, screen), g in groups.items():
        target = TARGET_MS.get(config)

        def cell(items):
            if not items:
                return "–"
            low, high = min(items), max(items)
            return f"{ms(low[0])}" if len(items) == 1 else f"{ms(low[0])}–{ms(high[0])} (slowest `{high[1]}`)"
        meets = "–"
        if target:
            ok = all(m <= target["screen"] for m, _ in g["screen"]) and all(m <= target["sidebar"] for m, _ in g["sidebar"])
            meets = "yes" if ok else "**no**"
        if config == "512 tokens" and naive:
            slowest = max(m for m, _ in g["screen"])
            meets = f"{naive / slowest:.0f}× the baseline (≥ {SPEEDUP_TARGET}×)"
        out.append(f"| {config} | /{screen} | {cell(g['screen'])} | {cell(g['sidebar'])} | "
                   f"{'≤ %d / %d' % (target['screen'], target['sidebar']) if target else '–'} | {meets} |")
    out.append(f"\nFloor (one slider and a caption in a fragment): {ms(summary(result['floor']['times'])[0])} ms median.")
    return out


def view_details(rows: dict, presses: int) -> list[str]:
    """views.measure's rows: one line per slider of each attention view."""
    lines = ["", "### Moves the browser handles: key press → drawn, and → the next frame", "",
             f"Each slider of each attention view, {presses} presses (→ → ← ←, 20 ms apart). drawn: the view's "
             "redraw has finished; frame: the next animation frame has started (headless Chromium paces frames "
             "itself, so this adds up to one frame interval of waiting). Messages: what the page sent to the server "
             "meanwhile.", "",
             "| setting | screen | view | slider | drawn median / max ms | frame median / max ms | presses | messages |",
             "|---|---|---|---|---:|---:|---:|---:|"]
    for (config, screen), found in rows.items():
        for r in found:
            lines.append(f"| {config} | /{screen} | {r['view']} | {r['name']} | {median_max(r['drawn'])} | "
                         f"{median_max(r['frame'])} | {len(r['drawn'])} | {r['sent']} |")
    return lines


def view_speedup(rows: dict, naive_512) -> list[str]:
    """At 512 tokens: the slowest view move against the naive page's move (the issue's 20x)."""
    drawn = [statistics.median(r["drawn"]) for (config, _), found in rows.items() if config == "512 tokens"
             for r in found if r["drawn"]]
    if not drawn or not naive_512:
        return []
    ratio = naive_512 / max(drawn)
    return [f"At 512 tokens the slowest median view move ({max(drawn):.1f} ms, key press to drawn) is **{ratio:,.0f}×** "
            f"faster than a move on the full-matrix Altair page ({naive_512:,.0f} ms; target ≥ {SPEEDUP_TARGET}×): "
            + ("met." if ratio >= SPEEDUP_TARGET else "**not met**.")]


def view_readme_table(rows: dict, opened: dict) -> list[str]:
    out = ["| setting | screen | bytes to open the screen | browser-handled sliders | worst median key → drawn ms | "
           "worst median key → next frame ms | messages sent | target | meets |", "|---|---|---:|---:|---:|---:|---:|---|---|"]
    for (config, screen), found in rows.items():
        drawn = [statistics.median(r["drawn"]) for r in found if r["drawn"]]
        frame = [statistics.median(r["frame"]) for r in found if r["frame"]]
        worst = max(drawn, default=None)
        ok = worst is not None and worst <= VIEW_TARGET_MS and not sum(r["sent"] for r in found)
        out.append(f"| {config} | /{screen} | {opened[config, screen]:,} | {len(drawn)} | {'–' if worst is None else f'{worst:.1f}'} | "
                   f"{'–' if not frame else f'{max(frame):.1f}'} | {sum(r['sent'] for r in found)} | "
                   f"≤ {VIEW_TARGET_MS} ms, 0 messages | {'yes' if ok else '**no**'} |")
    return out


def versions() -> str:
    import altair
    import streamlit
    import torch
    from importlib.metadata import version
    return (f"Python {platform.python_version()}, torch {torch.__version__}, streamlit {streamlit.__version__}, "
            f"altair {altair.__version__}, playwright {version('playwright')}")
