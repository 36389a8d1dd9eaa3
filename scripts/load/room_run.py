"""The room mode's run (room.py says what each session does): the class, stage by stage, and the figures it keeps.

The room is started through the store itself (rooms/store.py: the code and the teacher's token), in the store that
every app server of the run uses: --rooms-store, or a fresh SQLite file (set in ATTENTION_ROOMS_STORE before the
servers start, so they inherit it). The teacher joins with `?room=CODE&teacher=TOKEN`, each student with `?room=CODE`.
"""
import asyncio
import os
import random
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rooms.backends import ENV, open_store
from rooms.store import start_room
from streamlit.proto.WidgetStates_pb2 import WidgetState

from .measure import MemorySampler, cpu_seconds
from .protocol import Student
from .room import Panel, Seat, answer, expected_counts, lesson_moves, open_stage
from .room_report import room_report
from .students import Interaction, warm_up


def prepare_store(args) -> str:
    """The store URL of this run: --rooms-store, or a fresh SQLite file; the servers started after this inherit it."""
    url = args.rooms_store or f"sqlite:///{Path(tempfile.mkdtemp(prefix='load-room-')) / 'rooms.sqlite3'}"
    os.environ[ENV] = url
    return url


@dataclass
class Phase:
    stage: str
    name: str  # open, answer, discuss, lesson
    seconds: float
    cpu: float | None  # server CPU s (summed over the app servers)
    interactions: list


@dataclass
class Stage:
    screen: str
    qids: list
    wanted: dict  # qid -> Counter of the values the students were told were stored
    panel: list | None  # the teacher's last counts before the reveal, in question order
    panel_lag: float | None  # last "Sent" -> the panel first showing every answer (s)
    stored: dict  # qid -> Tally, read from the store after the reveal
    students_revealed: int = 0
    notes: list = field(default_factory=list)


async def room_run(base: str, pids, args, url: str) -> tuple[str, list, list]:
    """The whole class in one room on `base` (one server, or HAProxy with `pids` = {name: pid}): the report, the
    stages (what was sent, shown and stored) and the failed interactions."""
    store = open_store(url)
    started, code, token = start_room(store)
    if not started.ok:
        raise SystemExit(f"could not start a room in {url}: {started.message}")
    servers = pids if isinstance(pids, dict) else {}
    results, warm, phases, stages = [], [], [], []
    rng = random.Random(args.seed)
    with MemorySampler(pids) as memory:
        def cpu():
            found = [cpu_seconds(pid) for pid in memory.pids.values()]
            return sum(found) if found and None not in found else None
        for name in servers or [""]:  # imports, caches and first charts of every screen, on every server
            await asyncio.wait_for(warm_up(base, args, warm, name), args.timeout * 3 * (2 + 6 * len(args.screens)))
        teacher = Seat(Student(base, 0, args.timeout, random.Random(rng.random()), f"room={code}&teacher={token}"),
                       random.Random(rng.random()), "teacher")
        seats = []
        for n in range(args.sessions):
            own = random.Random(rng.random())
            seats.append(Seat(Student(base, n + 1, args.timeout, own, f"room={code}"), own, "student"))
        await join(teacher, results, 0)
        joined = await asyncio.gather(*(join(s, results, args.ramp) for s in seats))
        seats = [s for s, ok in zip(seats, joined) if ok]
        class_start, cpu_start = time.perf_counter(), cpu()
        for screen in args.screens:
            stages.append(await one_stage(screen, teacher, seats, args, results, phases, cpu, store, code))
        wall, cpu_total = time.perf_counter() - class_start, cpu()
        for seat in [teacher, *seats]:
            await seat.student.close()
        peaks = dict(memory.peaks)
    total = (cpu_total - cpu_start) if cpu_total is not None and cpu_start is not None else None
    report = room_report(args, url, servers, seats, teacher, results, warm, phases, stages, wall, total, peaks)
    return report, stages, [i for i in results + warm if i.error]


async def join(seat: Seat, results, ramp: float) -> bool:
    """Open the join link (home with ?room=...) within `ramp` s; False when the session never got in."""
    await asyncio.sleep(seat.rng.uniform(0, ramp))
    try:
        await seat.student.connect()
    except Exception as error:
        results.append(Interaction(seat.student.number, "join", "home", 0.0, f"connect: {type(error).__name__}: {error}"))
        return False
    run, _ = await seat.request(results, "join", "home", page_name="")
    return run is not None


async def one_stage(screen, teacher: Seat, seats: list, args, results, phases, cpu, store, code) -> Stage:
    """One stage: open, answer, discuss, reveal and lesson; each phase's wall time, server CPU and interactions."""
    mark = [time.perf_counter(), cpu(), len(results)]

    def phase(name):
        now, used = time.perf_counter(), cpu()
        phases.append(Phase(screen, name, now - mark[0], None if used is None or mark[1] is None else used - mark[1],
                            results[mark[2]:]))
        mark[:] = [now, used, len(results)]

    await open_stage(teacher, results, screen, 0)
    await asyncio.gather(*(open_stage(s, results, screen, s.rng.uniform(0, args.spread)) for s in seats))
    phase("open")
    stop, panel, reveal_at = asyncio.Event(), Panel(), [None]

    def shown_lesson(seat):
        def after(run):
            if seat.revealed_at is None and reveal_at[0] is not None and seat.send_key() is None:
                seat.revealed_at = time.perf_counter()
                results.append(Interaction(seat.student.number, "reveal → lesson on the student's page", screen,
                                           seat.revealed_at - reveal_at[0], server=seat.student.server))
        return after

    pollers = [asyncio.create_task(teacher.poll(results, screen, stop, panel.after))]
    pollers += [asyncio.create_task(s.poll(results, screen, stop, shown_lesson(s))) for s in seats]
    sent = []

    async def think_then_answer(seat):
        seat.revealed_at = None
        await asyncio.sleep(seat.rng.uniform(1, args.answer_window))
        await answer(seat, results, screen, args.resend, sent)

    await asyncio.gather(*(think_then_answer(s) for s in seats))
    phase("answer")
    qids = next((q for q in ([qid for _k, qid, _w in s.questions()] for s in seats) if q), [])
    wanted = expected_counts(seats, qids)
    target, last = [sum(wanted[q].values()) for q in qids], max((t for t, _n, _k in sent), default=None)
    stage = Stage(screen, qids, wanted, None, None, {})
    waited_until = time.perf_counter() + args.discuss
    while panel.first_showing(target) is None and time.perf_counter() < waited_until + 10:
        await asyncio.sleep(0.1)
    if time.perf_counter() < waited_until:
        await asyncio.sleep(waited_until - time.perf_counter())
    shown = panel.first_showing(target)
    stage.panel = panel.reads[-1][1] if panel.reads else None
    stage.panel_lag = None if shown is None or last is None else shown - last
    phase("discuss")
    key = next((k for k in teacher.student.widgets if k.endswith(":room-reveal")), None)
    if key is None:
        stage.notes.append("the teacher's page had no 'Reveal to the room' button")
    else:
        reveal_at[0] = time.perf_counter()
        await teacher.request(results, "teacher: reveal", screen,
                              widgets=[WidgetState(id=teacher.student.widgets[key][1].id, trigger_value=True)])
        deadline = time.perf_counter() + 2 * args.timeout
        while any(s.revealed_at is None for s in seats) and time.perf_counter() < deadline:
            await asyncio.sleep(0.1)
    stop.set()
    await asyncio.gather(*pollers, return_exceptions=True)
    stage.students_revealed = sum(s.revealed_at is not None for s in seats)
    until = time.perf_counter() + args.lesson_time
    await asyncio.gather(*(lesson_moves(s, results, screen, until, args.think) for s in seats))
    phase("lesson")
    stage.stored = store.counts(code, qids)
    return stage


def room_main(args, flags) -> str:
    """--room: on a server it starts (or --servers N behind HAProxy, or --url with the same --rooms-store)."""
    from cluster import cluster

    from .servers import local_server, quiet_cancel

    url = prepare_store(args)

    async def go(base, pids):
        asyncio.get_running_loop().set_exception_handler(quiet_cancel)
        per_stage = args.spread + args.answer_window + args.discuss + args.lesson_time + 4 * args.timeout
        return (await asyncio.wait_for(room_run(base, pids, args, url), 600 + per_stage * len(args.screens)))[0]
    if args.url:
        if not args.rooms_store:
            raise SystemExit("--room with --url needs --rooms-store: the store that server uses")
        pids = [int(p) for p in (args.pid or "").split(",") if p.strip()]
        named = {f"app{n + 1}": pid for n, pid in enumerate(pids)} if len(pids) > 1 else (pids[0] if pids else None)
        return asyncio.run(go(args.url.rstrip("/"), named))
    if args.servers:
        with cluster(args.servers, extra_args=tuple(flags)) as c:
            report = asyncio.run(go(c.url, {name: s.pid for name, s in c.servers.items()}))
            return report + "\nHAProxy at the end: " + ", ".join(
                f"{name} {row['status']} ({row['stot']} connections)" for name, row in c.status().items()) + "\n"
    with local_server(flags) as (base, pid, _log):
        return asyncio.run(go(base, pid))
