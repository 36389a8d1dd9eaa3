"""The targets, and the markdown tables every report is made of (printed, and written with --out)."""
import datetime
import math
import os
import platform
import statistics
import sys

# Issue 19's class targets: p95 <= 1 s for the interactions that reach the server, at both presets.
TARGETS = {"sessions": 30, "p95_s": 1.0, "rss_mb": 1024, "flat_mb": 50}
# A class at exercise 3.3's sizes: more memory is allowed (1.5 GB a process), not more time.
TARGETS_GPT2 = TARGETS | {"rss_mb": 1536}


def percentile(values, q):
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def reaches_server(interaction) -> bool:
    """A protocol interaction: not a real browser's (timed differently) nor a move the attention view drew."""
    return not interaction.kind.startswith(("browser", "view"))


def timing_rows(interactions) -> list[str]:
    rows = ["| interaction | count | errors | median s | p95 s | max s |", "|---|---:|---:|---:|---:|---:|"]
    groups = {}
    for i in interactions:
        groups.setdefault(i.kind, []).append(i)
    groups = dict(sorted(groups.items()))
    protocol = [i for i in interactions if reaches_server(i)]
    if protocol and len(protocol) < len(interactions):
        groups["all protocol interactions"] = protocol
    elif protocol:
        groups["all"] = protocol
    for kind, items in groups.items():
        times = [i.seconds for i in items if i.error is None]
        errors = sum(i.error is not None for i in items)
        if times:
            rows.append(f"| {kind} | {len(items)} | {errors} | {statistics.median(times):.3f} | "
                        f"{percentile(times, 95):.3f} | {max(times):.3f} |")
        else:
            rows.append(f"| {kind} | {len(items)} | {errors} | – | – | – |")
    return rows


def error_lines(interactions, limit=10) -> list[str]:
    seen = {}
    for i in interactions:
        if i.error:
            seen.setdefault((i.kind, i.screen, i.error), 0)
            seen[(i.kind, i.screen, i.error)] += 1
    lines = [f"- {count} × {kind} on /{screen}: {error}" for (kind, screen, error), count in
             sorted(seen.items(), key=lambda kv: -kv[1])[:limit]]
    return (["", "Errors (most frequent first):", *lines] if lines else [])


def memory_rows(samples, marks: dict) -> list[str]:
    """RSS at the named moments and about ten points over the run."""
    if not samples:
        return ["No memory figures: pass --pid for a server this script did not start (Linux /proc, or psutil)."]
    rows = ["| moment | t s | RSS MB |", "|---|---:|---:|"]
    for name, (t, mb) in marks.items():
        rows.append(f"| {name} | {t:.0f} | {mb:.0f} |")
    step = max(1, len(samples) // 10)
    for t, mb in samples[::step]:
        rows.append(f"| sample | {t:.0f} | {mb:.0f} |")
    peak = max(samples, key=lambda s: s[1])
    rows.append(f"| **peak** | {peak[0]:.0f} | **{peak[1]:.0f}** |")
    return rows


def header(title: str, args) -> list[str]:
    # The report is written at the end of a run: the load before it began is what cli.main noted then.
    load = getattr(args, "load_at_start", None)
    if load is None and hasattr(os, "getloadavg"):
        load = os.getloadavg()[0]
    import streamlit
    import torch
    return [f"# {title}", "",
            f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
            f"- Command: `python scripts/load_test.py {' '.join(sys.argv[1:])}`".replace("  ", " "),
            f"- Machine: {platform.machine()}, {os.cpu_count()} CPU cores"
            + (f", load average at the start {load:.2f}" if load is not None else "")
            + f"; Python {platform.python_version()}, streamlit {streamlit.__version__}, torch {torch.__version__}",
            f"- URL parameters: `{args.params or '(none: the book preset)'}`",
            # The servers this script starts inherit it (ui/server/run_gate.py: script runs at once per process).
            f"- ATTENTION_SCRIPT_SLOTS: {os.environ.get('ATTENTION_SCRIPT_SLOTS') or '(unset: 1 run at a time)'}", ""]


def verdict(ok: bool) -> str:
    return "yes" if ok else "**no**"


def split_rows(servers, students, results, cpu_by_server, memory) -> list[str]:
    """How students split across the app servers: each one's share, work, CPU and memory."""
    rows = ["## How students split across servers", "",
            "A student counts for the server it landed on first (HAProxy's cookie); an interaction for the "
            "server that answered it.", "",
            "| server | pid | students | share | interactions | server CPU s | RSS peak MB | RSS end MB |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    landed = [s.first_server for s in students]
    answered = [i.server for i in results if i.error is None]
    for name, pid in servers.items():
        rows.append(f"| {name} | {pid or '–'} | {landed.count(name)} | "
                    f"{100 * landed.count(name) / max(1, len(landed)):.0f} % | {answered.count(name)} | "
                    + (f"{cpu_by_server[name]:.0f}" if name in cpu_by_server else "–") + " | "
                    + " | ".join(f"{d[name]:.0f}" if name in d else "–" for d in (memory.peaks, memory.last)) + " |")
    moved = sum(1 for s in students if s.server != s.first_server)
    unknown = sum(1 for n in landed if n not in servers)
    rows += ["", f"Students who ended on another server than they started on (a reconnect after a failure): "
             f"{moved}." + (f" Students whose server was not named by a cookie: {unknown}." if unknown else ""), ""]
    return rows
