"""The load test: a class of students for a set time, on one server or on several behind HAProxy.

Returns the markdown report and a summary that --compare puts side by side.
"""
import asyncio
import random
import statistics
import threading
import time

from .chromium import browser_session
from .measure import MemorySampler, cpu_seconds
from .protocol import Student
from .report import (TARGETS, TARGETS_GPT2, error_lines, header, memory_rows, percentile, reaches_server, split_rows,
                     timing_rows, verdict)
from .students import Interaction, student_session, warm_up


async def load_run(base, pids, args) -> tuple[str, dict]:
    """The load test; `pids` is one server's pid, or {name: pid} of the app servers behind a balancer.

    Returns the markdown report and a summary (interactions/s, median, p95, errors) for --compare.
    """
    targets = TARGETS_GPT2 if "gpt2-small" in (args.params or "") else TARGETS
    results, warm = [], []
    servers = pids if isinstance(pids, dict) else {}
    with MemorySampler(pids) as memory:
        marks = {}
        idle = memory.now()
        if idle is not None:
            marks["idle server" + ("s (sum)" if len(servers) > 1 else "")] = (memory.elapsed(), idle)
        for name in servers or [""]:  # every app server, each through its cookie
            await asyncio.wait_for(warm_up(base, args, warm, name), args.timeout * 3 * (2 + 6 * len(args.screens)))
        await asyncio.sleep(1)
        after_warm = memory.now()
        if after_warm is not None:
            marks["after warm-up (1 student, every screen)"] = (memory.elapsed(), after_warm)
        start = time.monotonic()
        deadline = start + args.duration
        rng = random.Random(args.seed)
        ready = []
        tasks = [student_session(base, n + 1, args, deadline, results, random.Random(rng.random()), ready)
                 for n in range(args.sessions)]
        browser_threads = []
        for n in range(args.browsers):
            thread = threading.Thread(target=browser_session, daemon=True,
                                      args=(base, n + 1, args, deadline, results, random.Random(rng.random())))
            thread.start()
            browser_threads.append(thread)
        cpu0 = time.process_time()
        cpu_before = {name: cpu_seconds(pid) for name, pid in memory.pids.items()}

        async def mark_mid():  # the memory check's starting point: half the run, or --settle seconds (a soak)
            await asyncio.sleep(getattr(args, "settle", None) or args.duration / 2)
            value = memory.now()
            if value is not None:
                marks["mid-run"] = (memory.elapsed(), value)

        mid = asyncio.create_task(mark_mid())
        try:
            outcomes = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True),
                                              args.duration + args.ramp + 2 * args.timeout + 30)
            for outcome in outcomes:  # a bug in this script, not the server: still counted
                if isinstance(outcome, Exception):
                    results.append(Interaction(0, "session crashed", "-", 0.0, repr(outcome)[:300]))
        except asyncio.TimeoutError:
            results.append(Interaction(0, "overall", "-", 0.0, "the run passed its hard deadline; sessions cancelled"))
        mid.cancel()
        for thread in browser_threads:
            await asyncio.to_thread(thread.join, 2 * args.timeout + 30)
        wall = time.monotonic() - start
        cpu = time.process_time() - cpu0
        cpu_by_server = {name: cpu_seconds(pid) - cpu_before[name] for name, pid in memory.pids.items()
                         if cpu_before[name] is not None and cpu_seconds(pid) is not None}
        server_cpu = sum(cpu_by_server.values()) if cpu_by_server else None
        end = memory.now()
        if end is not None:
            marks["end of run"] = (memory.elapsed(), end)
        samples = list(memory.samples)

    ok_times = [i.seconds for i in results if i.error is None and reaches_server(i)]
    view_moves = sum(i.kind.startswith("view move") for i in results)
    server_moves = sum(i.kind.startswith("move") for i in results)
    errors = [i for i in results + warm if i.error]
    load_samples = [mb for t, mb in samples if t >= marks.get("after warm-up (1 student, every screen)", (0, 0))[0]]
    peak = max(load_samples) if load_samples else None
    growth = (marks["end of run"][1] - marks["mid-run"][1]) if {"end of run", "mid-run"} <= marks.keys() else None
    largest = max((i.bytes for i in results), default=0)
    processes = max(1, len(servers))
    lines = header(f"Load test: {args.sessions} students for {args.duration:.0f} s"
                   + (f" on {len(servers)} app server(s) behind HAProxy" if servers else ""), args)
    lines += [f"- Students connected: {len(ready)} of {args.sessions} (ramp-up {args.ramp:.0f} s), "
              f"think time {args.think:.1f} s ± 50 %, screens {', '.join(args.screens)}"
              + (f", plus {args.browsers} Chromium session(s)" if args.browsers else ""),
              f"- Slider moves: {view_moves + server_moves}; {view_moves} drawn by the attention view in the browser "
              f"(0 requests, 0 bytes: rows `view move`), {server_moves} sent to the server, of which "
              f"{sum(i.fragment for i in results)} reran only their @st.fragment",
              f"- Warm-up before the clock (1 student, every screen, cold caches): {len(warm)} interactions, "
              f"slowest {max((w.seconds for w in warm), default=0):.1f} s, errors {sum(1 for w in warm if w.error)}",
              f"- Interactions: {len(results)} in {wall:.0f} s ({len(results) / wall:.1f}/s); "
              f"load generator CPU {cpu:.0f} s (it shares the machine with the server)",
              *([f"- Server CPU: {server_cpu:.0f} s in {wall:.0f} s ({100 * server_cpu / wall:.0f} % of one core), "
                 f"{server_cpu / max(1, len(results)):.2f} s per interaction: one process runs Python on about "
                 f"one core at a time (the GIL), so {processes} process(es) serve at most about "
                 f"{processes * len(results) / server_cpu:.1f} interactions/s like these, given as many free cores",
                 f"- Server CPU per student-minute: {60 * server_cpu / max(1, len(ready)) / wall:.2f} s"]
                if server_cpu else []),
              f"- Largest websocket message {Student.largest_seen / 1024:.0f} KiB (server.maxMessageSize: 200 MB); "
              f"most bytes in one interaction {largest / 1024:.0f} KiB", "",
              "## Time per interaction (rerun request → script_finished; view rows: drawn in the browser, nothing "
              "sent; browser rows: a real Chromium tab, key press → the view drawn)", "",
              *timing_rows(results), *error_lines(results + warm), "",
              *(split_rows(servers, ready, results, cpu_by_server, memory) if servers else []),
              "## Server memory (VmRSS" + (", summed over the app servers)" if len(servers) > 1 else ")"), "",
              *memory_rows(samples, marks), "",
              "## Targets" + (" (a class at GPT-2 small's sizes)" if targets is TARGETS_GPT2 else ""), "",
              "| target | measured | met |", "|---|---|---|",
              f"| {targets['sessions']} students connected | {len(ready)} of {args.sessions} | "
              f"{verdict(len(ready) >= targets['sessions'])}"
              + (" (this run asked for fewer)" if args.sessions < targets['sessions'] else "") + " |",
              f"| 0 errors | {len(errors)} | {verdict(not errors)} |"]
    if ok_times:
        p95 = percentile(ok_times, 95)
        lines.append(f"| p95 ≤ {targets['p95_s']:g} s (protocol interactions) | {p95:.2f} s | "
                     f"{verdict(p95 <= targets['p95_s'])} |")
    if len(memory.peaks) > 1:  # the memory target is per process
        peak = max(memory.peaks.values())
    if peak is not None:
        lines.append(f"| RSS ≤ {targets['rss_mb']} MB (per process) | peak {peak:.0f} MB | "
                     f"{verdict(peak <= targets['rss_mb'])} |")
    if growth is not None:
        settle = getattr(args, "settle", None)
        after = "second half" if settle is None else f"after the first {settle:.0f} s"
        lines.append(f"| RSS flat after warm-up ({after} ≤ +{targets['flat_mb']} MB) | {growth:+.0f} MB | "
                     f"{verdict(growth <= targets['flat_mb'])} |")
    summary = {"servers": processes, "interactions": len(results), "seconds": wall, "rate": len(results) / wall,
               "median": statistics.median(ok_times) if ok_times else None,
               "p95": percentile(ok_times, 95) if ok_times else None, "errors": len(errors),
               "connected": len(ready), "server_cpu": server_cpu}
    return "\n".join(lines) + "\n", summary
