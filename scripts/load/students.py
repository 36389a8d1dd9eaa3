"""What a simulated student does: open a screen, move its sliders, pause, switch screens; and the warm-up.

Every interaction is recorded as an Interaction, timed from the rerun request to `script_finished`.
"""
import asyncio
import random
import time
from dataclasses import dataclass, field

import websockets

from .protocol import MOVABLE, SIDEBAR_MOVE, VIEW_MOVES, RunResult, Student


@dataclass
class Interaction:
    """One thing a student did and how long the server took over it; `error` is None when it went well."""

    session: int
    kind: str  # "open", "switch", "move <key>", or "view move <key>" (the attention view draws it: nothing sent)
    screen: str
    seconds: float
    error: str | None = None
    bytes: int = 0
    fragment: bool = False  # the rerun was of one @st.fragment only
    server: str = ""  # the app server that answered (the APP_SERVER cookie); "" without a balancer
    at: float = field(default_factory=time.monotonic)  # when it ended (time.monotonic)


async def timed(student: Student, results: list, kind: str, screen: str, **rerun_args) -> RunResult | None:
    """One interaction, recorded. On a timeout or a closed socket the student reconnects (a reload)."""
    start = time.perf_counter()
    try:
        run = await student.rerun(**rerun_args)
    except (asyncio.TimeoutError, websockets.ConnectionClosed, OSError) as error:
        why = "timeout" if isinstance(error, asyncio.TimeoutError) else f"{type(error).__name__}: {error}"
        results.append(Interaction(student.number, kind, screen, time.perf_counter() - start, why[:300],
                                   server=student.server))
        await student.close()
        try:
            await student.connect()
            student.query_string, student.page_hash = student.params, ""  # a reload of the shared link
            await student.rerun(page_name=screen)
        except Exception:
            pass  # the next interaction records the failure
        return None
    results.append(Interaction(student.number, kind, screen, run.seconds, "; ".join(run.errors) or None, run.bytes,
                               bool(rerun_args.get("fragment_id")), student.server))
    return run


async def switch(student: Student, results: list, screen: str):
    """Click the screen in the navigation; without a navigation (a failed run) open its URL instead."""
    target = student.pages.get(screen)
    if target is None:
        return await timed(student, results, "switch", screen, page_name=screen, page_hash="")
    return await timed(student, results, "switch", screen, page_hash=target)


LEAVES_PRESET = {SIDEBAR_MOVE, "heads"}  # size controls: at GPT-2 small, moving one leaves the preset for custom


def move_kind(student: Student, key: str) -> str:
    """How the report names a move: at a preset with fixed sizes (gpt2-small), a size move is counted as what it
    is, the move that leaves the preset and then a custom size, each with its own count and cost."""
    if key not in LEAVES_PRESET or "preset=gpt2-small" not in student.params:
        return f"move {key}"
    if not student.left_preset:
        student.left_preset = True
        return f"move {key}: leaves the preset"
    return f"move {key}: a custom size"


async def student_session(base, number, args, deadline, results, rng, ready):
    """Open a screen, then move its sliders and switch screens until the deadline."""
    student = Student(base, number, args.timeout, rng, args.params)
    screen = rng.choice(args.screens)
    try:
        await asyncio.sleep(rng.uniform(0, args.ramp))  # students do not all press Enter at once
        try:
            await student.connect()
        except Exception as error:
            results.append(Interaction(number, "open", screen, 0.0, f"connect: {type(error).__name__}: {error}"))
            return
        await timed(student, results, "open", screen, page_name=screen)
        ready.append(student)
        while time.monotonic() < deadline:
            for _ in range(rng.randint(2, 4)):
                await asyncio.sleep(rng.uniform(0.5, 1.5) * args.think)
                if time.monotonic() >= deadline:
                    return
                keys = [k for k in MOVABLE if k in student.widgets or (k in VIEW_MOVES and student.has_view()
                                                                       and screen in (VIEW_MOVES[k] or {screen}))]
                if SIDEBAR_MOVE in student.widgets and (not keys or rng.random() < args.sidebar_share):
                    keys = [SIDEBAR_MOVE]
                key = rng.choice(keys) if keys else None
                if key is not None and key not in student.widgets:  # the attention view draws it: 0 requests
                    results.append(Interaction(student.number, f"view move {key}", screen, 0.0, server=student.server))
                    continue
                state = student.move(key) if key else None
                if state is None:
                    continue
                await timed(student, results, move_kind(student, key), screen, widgets=[state],
                            fragment_id=student.fragment_of(key))
            await asyncio.sleep(rng.uniform(0.5, 1.5) * args.think)
            if time.monotonic() >= deadline:
                return
            screen = rng.choice([s for s in args.screens if s != screen] or args.screens)
            await switch(student, results, screen)
    finally:
        await student.close()


async def warm_up(base, args, results, server: str = "") -> None:
    """One student visits every screen and moves each slider once (imports, caches, first charts).

    `server`: the app server to warm behind a balancer (sent as the balancer's cookie).
    """
    student = Student(base, 0, args.timeout * 3, random.Random(0), args.params, server)
    await student.connect()
    try:
        await timed(student, results, "open", "home", page_name="")
        for screen in args.screens:
            await switch(student, results, screen)
            for key in MOVABLE:
                state = student.move(key)
                if state is not None:
                    await timed(student, results, f"move {key}", screen, widgets=[state],
                            fragment_id=student.fragment_of(key))
    finally:
        await student.close()
