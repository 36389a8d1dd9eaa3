"""Memory: the soak (reruns back to back, RSS after each stage) and the tour of every screen with both presets."""
import argparse
import asyncio
import random
import statistics
import time

from screens import registry

from .measure import MemorySampler, rss_mb
from .protocol import MOVABLE, SIDEBAR_MOVE, Student
from .report import TARGETS, error_lines, header, percentile, verdict
from .students import switch, timed, warm_up


async def memory_tour(base, pid, args) -> str:
    """A fresh server and one student: every screen of the registry, moving each slider once, with the
    book preset and then with GPT-2 small; the server's RSS after each round."""
    lines = header("Memory after every screen with both presets", args)
    rows = ["| after | reruns | errors | RSS MB |", "|---|---:|---:|---:|", f"| start | – | – | {rss_mb(pid):.0f} |"]
    every = [s.url_path for s in registry.SCREENS if s.url_path]
    peak = 0.0
    for preset in ("book", "gpt2-small"):
        tour = argparse.Namespace(**vars(args))
        tour.params, tour.screens = ("" if preset == "book" else "preset=gpt2-small"), every
        results = []
        await asyncio.wait_for(warm_up(base, tour, results), args.timeout * 3 * (2 + 6 * len(every)))
        rss = rss_mb(pid)
        peak = max(peak, rss)
        rows.append(f"| every screen, {preset} | {len(results)} | {sum(1 for r in results if r.error)} | {rss:.0f} |")
    lines += [f"Screens: {', '.join(every)}.", "", *rows, "",
              f"Target: ≤ {TARGETS['rss_mb']} MB after every screen with both presets: {verdict(peak <= TARGETS['rss_mb'])}."]
    return "\n".join(lines) + "\n"


async def soak_run(base, pid, args) -> str:
    """After warm-up, `stages` reruns (100 then 1,000 more), RSS after each stage."""
    stages = [20, 100] if args.quick else [100, 1000]
    results, warm = [], []
    with MemorySampler(pid, interval=2.0) as memory:
        await asyncio.wait_for(warm_up(base, args, warm), args.timeout * 3 * (2 + 6 * len(args.screens)))
        await asyncio.sleep(2)
        baseline = memory.now()
        rows = ["| after | reruns | seconds | median s | p95 s | errors | RSS MB | Δ since warm-up MB |",
                "|---|---:|---:|---:|---:|---:|---:|---:|",
                f"| warm-up (every screen once) | – | – | – | – | {sum(1 for w in warm if w.error)} | "
                f"{baseline or 0:.0f} | 0 |"]
        students = [Student(base, n + 1, args.timeout, random.Random(args.seed + n), args.params)
                    for n in range(args.soak_sessions)]
        for student in students:
            await student.connect()
            await timed(student, warm, "open", args.screens[0], page_name=args.screens[0])
        hard_deadline = time.monotonic() + args.soak_timeout
        done_total, growth = 0, None

        async def worker(student, count, out):
            rng = student.rng
            for n in range(count):
                if time.monotonic() > hard_deadline:
                    return
                if n % 5 == 4:  # switch screens every few moves
                    await switch(student, out, rng.choice(args.screens))
                    continue
                keys = [k for k in MOVABLE + (SIDEBAR_MOVE,) if k in student.widgets]
                state = None
                for key in rng.sample(keys, len(keys)):
                    state = student.move(key)
                    if state is not None:
                        break
                if state is None:
                    await switch(student, out, rng.choice(args.screens))
                else:
                    await timed(student, out, f"move {key}", "-", widgets=[state],
                                fragment_id=student.fragment_of(key))

        try:
            for count in stages:
                out = []
                share = [count // len(students) + (1 if i < count % len(students) else 0) for i in range(len(students))]
                t0 = time.monotonic()
                await asyncio.gather(*(worker(s, n, out) for s, n in zip(students, share)))
                seconds = time.monotonic() - t0
                await asyncio.sleep(2)
                now = memory.now()
                done_total += len(out)
                results += out
                times = [i.seconds for i in out if i.error is None]
                growth = (now - baseline) if now is not None and baseline is not None else None
                rows.append(f"| {done_total} reruns | {len(out)} | {seconds:.0f} | "
                            + (f"{statistics.median(times):.3f} | {percentile(times, 95):.3f}"
                               if times else "– | –")
                            + f" | {sum(1 for i in out if i.error)} | {now or 0:.0f} | "
                            + (f"{growth:+.0f}" if growth is not None else "–") + " |")
                if time.monotonic() > hard_deadline:
                    rows.append(f"| stopped: --soak-timeout {args.soak_timeout:.0f} s reached | | | | | | | |")
                    break
        finally:
            for student in students:
                await student.close()
        peak = max((mb for _, mb in memory.samples), default=None)
    lines = header(f"Memory soak: {args.soak_sessions} students, {' then '.join(map(str, stages))} reruns", args)
    lines += ["Reruns are back to back (no think time): slider moves on the current screen and a screen switch "
              "every fifth rerun. RSS is read 2 s after each stage.", "", *rows, "", *error_lines(results), ""]
    if growth is not None:
        lines.append(f"Target: RSS within {TARGETS['flat_mb']} MB of the warm-up figure after all reruns: "
                     f"{growth:+.0f} MB, met: {verdict(abs(growth) <= TARGETS['flat_mb'])}. Peak {peak:.0f} MB.")
    return "\n".join(lines) + "\n"
