"""A class on one Streamlit process, or on several behind HAProxy: a load test, a memory soak, a cold start.

    python scripts/load_test.py                      # 30 students for 120 s on a server it starts
    python scripts/load_test.py --quick              # 5 students for 20 s
    python scripts/load_test.py --browsers 2         # plus 2 real Chromium sessions
    python scripts/load_test.py --preset gpt2-small  # every student on exercise 3.3's sizes
    python scripts/load_test.py --soak               # RSS after warm-up, then after 100 and 1,000 more reruns
    python scripts/load_test.py --cold-start         # `streamlit run` -> home page rendered in Chromium
    python scripts/load_test.py --every-screen       # RSS after every screen with both presets (one student)
    python scripts/load_test.py --url http://127.0.0.1:8501 --pid 1234   # a server already running
    python scripts/load_test.py --servers 2          # 2 app servers behind HAProxy (scripts/cluster.py)
    python scripts/load_test.py --compare 1,2 --sessions 30 --duration 60 --preset gpt2-small
                                                     # 1, then 2 servers behind HAProxy, same run: the speed-up
    python scripts/load_test.py --url http://127.0.0.1:8501 --pid 1234,5678   # a balancer already running
    python scripts/load_test.py --room --sessions 60 # one class room: every student answers every stage's questions
    python scripts/load_test.py --room --servers 2 --rooms-store redis://127.0.0.1:6390/0   # the room on Redis

Each simulated student speaks Streamlit's own websocket protocol (/_stcore/stream, subprotocol
"streamlit", binary BackMsg/ForwardMsg protobufs), as the browser does: it opens a screen, then
moves its sliders (query, key, dropout, heads; now and then d_out in the sidebar), switches
screens, and pauses between moves. An interaction is one rerun request with a changed widget
value, timed until the server's `script_finished`. The server's memory (VmRSS from
/proc/<pid>/status) is sampled every second. Everything is bounded: a per-interaction timeout, an
overall deadline, and the server it started is stopped on exit (Ctrl-C included). Loopback only.

Through a balancer (--servers, --compare, or --url of one), each student keeps the APP_SERVER cookie
HAProxy sets on its first websocket, as a browser does, and sends it again when it reconnects. The
report then says how students split across servers: each server's share of students and
interactions, its CPU and its memory. The warm-up visits every screen once on every server.

What the protocol sessions do not do: draw charts or fetch images (the browser does that after
script_finished). --browsers adds real Chromium sessions that measure what a student sees.
"""
import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

from local_server import streamlit_flags, wait_healthy
from screens import registry

from .chromium import cold_start
from .classroom import load_run
from .room_run import room_main
from .scaling import cluster_run, compare
from .servers import local_server, quiet_cancel, require_loopback
from .soak import memory_tour, soak_run

STAGES = registry.STAGE_PATHS  # URL paths of the stage screens


async def first(pair):
    return (await pair)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--sessions", type=int, default=30, help="simulated students (default 30)")
    parser.add_argument("--duration", type=float, default=120, help="seconds of load (default 120)")
    parser.add_argument("--quick", action="store_true", help="5 students for 20 s (soak: 20 then 100 reruns)")
    parser.add_argument("--url", help="a running server on this machine (default: start one on a free port)")
    parser.add_argument("--pid", help="that server's process id, for its memory; behind a balancer, the app "
                                      "servers' pids in order (app1,app2,...), comma-separated")
    parser.add_argument("--servers", type=int, help="start N app servers behind HAProxy (scripts/cluster.py)")
    parser.add_argument("--compare", help="e.g. 1,2: the same load on 1, then 2 servers behind HAProxy, "
                                          "and the speed-up")
    parser.add_argument("--preset", choices=["book", "gpt2-small", "custom"], default="book")
    parser.add_argument("--params", default=None, help="extra URL query string, e.g. 'input=random&tokens=256'")
    parser.add_argument("--screens", default=",".join(STAGES), help="URL paths students visit (comma-separated)")
    parser.add_argument("--think", type=float, default=2.0, help="mean pause between a student's moves, s (default 2)")
    parser.add_argument("--ramp", type=float, default=10.0, help="students connect over this many seconds (default 10)")
    parser.add_argument("--sidebar-share", type=float, default=0.15, help="share of moves that change d_out")
    parser.add_argument("--timeout", type=float, default=60, help="seconds before one interaction counts as failed")
    parser.add_argument("--browsers", type=int, default=0, help="real Chromium sessions besides the protocol ones")
    parser.add_argument("--settle", type=float, default=None,
                        help="the RSS check compares the end of the run with this many seconds in (default: half "
                             "the run); a 10-minute class soak: --duration 600 --settle 120")
    parser.add_argument("--soak", action="store_true", help="memory soak instead of the load test")
    parser.add_argument("--soak-sessions", type=int, default=4, help="students sharing the soak's reruns (default 4)")
    parser.add_argument("--soak-timeout", type=float, default=1800,
                        help="stop the soak after this many s (default 1800)")
    parser.add_argument("--every-screen", action="store_true",
                        help="RSS of a fresh server after one student visits every screen, book then GPT-2 small")
    parser.add_argument("--cold-start", action="store_true",
                        help="time streamlit run -> home page rendered in Chromium")
    parser.add_argument("--repeats", type=int, default=None, help="cold starts to time (default 3, quick 1)")
    parser.add_argument("--cold-screen", default="", help="the cold start's first visit: this URL path (default home)")
    parser.add_argument("--cold-after", type=float, default=0,
                        help="the cold start's first visit this many s after the server starts (default: at once)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a Streamlit config option for the server it starts, e.g. runner.postScriptGC=false")
    parser.add_argument("--seed", type=int, default=0, help="seed of the students' choices")
    room = parser.add_argument_group("room mode (scripts/load/room.py says what each session does)")
    room.add_argument("--room", action="store_true", help="one class room: students answer every stage's questions, "
                                                          "the teacher's panel counts them")
    room.add_argument("--rooms-store", help="the room store (sqlite:///... or redis://...; default: a fresh SQLite file)")
    room.add_argument("--answer-window", type=float, default=20, help="students answer within this many s (default 20)")
    room.add_argument("--discuss", type=float, default=10, help="s between the answers and the reveal (default 10)")
    room.add_argument("--lesson-time", type=float, default=15, help="s of lesson moves after each reveal (default 15)")
    room.add_argument("--spread", type=float, default=3, help="students open the teacher's stage within this many s")
    room.add_argument("--resend", type=float, default=0.1, help="share of students who change an answer (default 0.1)")
    parser.add_argument("--out", type=Path, help="also write the markdown report to this file")
    args = parser.parse_args()
    if args.quick:
        args.sessions = min(args.sessions, 5) if args.sessions == 30 else args.sessions
        args.duration = 20 if args.duration == 120 else args.duration
        args.ramp = min(args.ramp, 3)
        args.answer_window, args.discuss, args.lesson_time = (min(v, 6) for v in (args.answer_window, args.discuss,
                                                                                   args.lesson_time))
    args.repeats = args.repeats or (1 if args.quick else 3)
    args.load_at_start = os.getloadavg()[0] if hasattr(os, "getloadavg") else None  # before any server starts
    args.screens = [s.strip() for s in args.screens.split(",") if s.strip()]
    params = [] if args.preset == "book" else [f"preset={args.preset}"]
    args.params = "&".join(params + ([args.params] if args.params else []))
    if (args.servers or args.compare) and (args.soak or args.cold_start or args.url):
        parser.error("--servers and --compare are for the load test on servers it starts")
    pids = [int(p) for p in (args.pid or "").split(",") if p.strip()]

    if args.room:
        if args.compare or args.soak or args.cold_start or args.every_screen or args.browsers:
            parser.error("--room runs on its own (with --servers, --url or neither)")
        report = room_main(args, streamlit_flags(args.option))
    elif args.compare:
        report = compare(args, [int(n) for n in args.compare.split(",")])
    elif args.cold_start:
        report = cold_start(args)
    else:
        async def go(base, pid):
            asyncio.get_running_loop().set_exception_handler(quiet_cancel)
            if args.every_screen:
                return await memory_tour(base, pid, args)
            return await (soak_run(base, pid, args) if args.soak else first(load_run(base, pid, args)))
        try:
            if args.url:
                require_loopback(args.url)
                wait_healthy(args.url.rstrip("/"), time.time() + 30)
                named = {f"app{n + 1}": pid for n, pid in enumerate(pids)} if len(pids) > 1 else None
                report = asyncio.run(go(args.url.rstrip("/"), named or (pids[0] if pids else None)))
            elif args.servers:
                report = cluster_run(args, args.servers)[0]
            else:
                with local_server(streamlit_flags(args.option)) as (base, pid, log):
                    report = asyncio.run(go(base, pid))
                    tail = [line for line in log.read_text(errors="replace").splitlines()
                            if "Traceback" in line or "Error" in line][-5:]
                    if tail:
                        report += "\nServer log lines with errors:\n\n" + "\n".join(f"    {t}" for t in tail) + "\n"
        except KeyboardInterrupt:
            sys.exit("interrupted; the server this script started has been stopped")
    print(report)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(report)

