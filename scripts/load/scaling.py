"""The same class on 1, 2, ... app servers behind HAProxy (scripts/cluster.py): --servers and --compare."""
import asyncio
import os
import sys

from cluster import cluster
from local_server import streamlit_flags

from .classroom import load_run
from .measure import cpu_seconds
from .report import header, verdict
from .servers import quiet_cancel


def cluster_run(args, n: int) -> tuple[str, dict]:
    """The load test on N fresh app servers behind HAProxy (scripts/cluster.py), stopped afterwards."""
    async def go(base, pids):
        asyncio.get_running_loop().set_exception_handler(quiet_cancel)
        return await load_run(base, pids, args)
    try:
        with cluster(n, extra_args=tuple(streamlit_flags(args.option))) as c:
            report, summary = asyncio.run(go(c.url, {name: s.pid for name, s in c.servers.items()}))
            status = c.status()
            haproxy_cpu = cpu_seconds(c.haproxy.pid)
            report += "\nHAProxy at the end: " + ", ".join(
                f"{name} {row['status']} ({row['stot']} connections)" for name, row in status.items()) + (
                f"; HAProxy's own CPU over the whole run (warm-up included): {haproxy_cpu:.1f} s"
                if haproxy_cpu is not None else "") + "\n"
    except KeyboardInterrupt:
        sys.exit("interrupted; the servers and HAProxy this script started have been stopped")
    return report, summary


def compare(args, counts: list[int]) -> str:
    """The same load (students, seed, duration) on 1, 2, ... app servers behind HAProxy, one after the other."""
    runs = [cluster_run(args, n) for n in counts]
    base = runs[0][1]
    lines = header(f"Scaling: {args.sessions} students for {args.duration:.0f} s on "
                   f"{' then '.join(map(str, counts))} app server(s) behind HAProxy", args)
    lines += ["Every run goes through HAProxy (so the balancer is not what differs), on fresh servers warmed "
              "the same way, with the same students (seed). Interactions are counted between the end of the "
              "warm-up and the deadline.", "",
              "| app servers | students connected | interactions | per s | speed-up | median s | p95 s | errors |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for _, s in runs:
        lines.append(f"| {s['servers']} | {s['connected']} | {s['interactions']} | {s['rate']:.2f} | "
                     f"{s['rate'] / base['rate']:.2f}× | "
                     + " | ".join(f"{s[k]:.2f}" if s[k] is not None else "–" for k in ("median", "p95"))
                     + f" | {s['errors']} |")
    if len(runs) > 1 and counts[0] == 1:
        best = runs[-1][1]
        ratio, errors = best["rate"] / base["rate"], sum(s["errors"] for _, s in runs)
        lines += ["", f"Target: ≥ 1.6× the interactions/s of one process with {counts[-1]} processes, 0 errors: "
                  f"{ratio:.2f}×, {errors} errors, met: {verdict(ratio >= 1.6 and errors == 0)} "
                  f"(on {os.cpu_count()} cores; the target assumes as many free cores as processes)."]
    return "\n".join(lines + ["", *("\n".join(["---", "", r]) for r, _ in runs)]) + "\n"
