"""The room mode's report: answer latency, the teacher's panel, lost answers, and the room's share of server CPU."""
from collections import Counter

from .report import error_lines, header, percentile, timing_rows, verdict

PANEL_S = 2.0  # issue 31: the panel shows the last answer within 2 s
ANSWER_P95_S = 1.0  # and an answer takes at most 1 s at the 95th percentile
ROOM_PHASES, LESSON_PHASES = ("answer", "discuss"), ("open", "lesson")


def _sent(interaction) -> bool:
    return interaction.kind == "answer: press → Sent"


def room_report(args, url, servers, seats, teacher, results, warm, phases, stages, wall, cpu, peaks) -> str:
    store = "Redis" if url.startswith(("redis", "unix")) else "SQLite"
    where = f"{len(servers)} app servers behind HAProxy" if servers else "one server"
    lines = header(f"Room: {args.sessions} students in one room on {where}, {store} store", args)
    polls = [i for i in results if i.kind.startswith("poll")]
    lines += [f"- Store: `{url}`; room started through the store, teacher and students joined by its link",
              f"- Students joined: {len(seats)} of {args.sessions} (within {args.ramp:.0f} s) and 1 teacher; stages "
              f"{', '.join(args.screens)}; per stage: open within {args.spread:.0f} s, answer within "
              f"{args.answer_window:.0f} s, {args.discuss:.0f} s discussion, reveal, {args.lesson_time:.0f} s of lesson "
              f"(think {args.think:.1f} s ± 50 %); {100 * args.resend:.0f} % of students change one answer and send again",
              f"- Interactions: {len(results)} in {wall:.0f} s, of which {len(polls)} timed-fragment polls "
              f"({len(polls) / wall:.1f}/s)" + (f"; server CPU {cpu:.0f} s ({100 * cpu / wall:.0f} % of one core)"
                                                 if cpu is not None else ""),
              f"- Warm-up before the class (1 student, every screen, each server): {len(warm)} interactions, "
              f"errors {sum(1 for w in warm if w.error)}", "",
              "## Time per interaction (request → script_finished; `answer: press → Sent`: the press to the "
              "\"Sent\" message, a wait behind the tab's own poll included)", "",
              *timing_rows(results), *error_lines(results + warm), ""]
    lines += answers_table(stages) + cpu_table(phases) + (split(servers, seats, teacher, results) if servers else [])
    sent = [i.seconds for i in results if _sent(i) and i.error is None]
    lags = [s.panel_lag for s in stages]
    lost = sum(_lost(s) for s in stages)
    errors = [i for i in results + warm if i.error]
    worst_lag = max((lag for lag in lags if lag is not None), default=None)
    lines += ["## Targets", "", "| target | measured | met |", "|---|---|---|",
              f"| {args.sessions} students in the room | {len(seats)} | {verdict(len(seats) == args.sessions)} |",
              (f"| p95 ≤ {ANSWER_P95_S:g} s, press → \"Sent\" | {percentile(sent, 95):.2f} s over {len(sent)} sends "
               f"(max {max(sent):.2f} s) | {verdict(percentile(sent, 95) <= ANSWER_P95_S)} |") if sent else
              "| p95 ≤ 1 s, press → \"Sent\" | no send measured | **no** |",
              f"| the panel shows the last answer within {PANEL_S:g} s | worst stage "
              + (f"{max(0.0, worst_lag):.2f} s" if worst_lag is not None else "never") + " | "
              + verdict(worst_lag is not None and None not in lags and worst_lag <= PANEL_S) + " |",
              f"| 0 lost answers (panel = sent = store) | {lost} | {verdict(lost == 0)} |",
              f"| 0 errors | {len(errors)} | {verdict(not errors)} |"]
    if peaks:
        lines += ["", "RSS peak per app server: " + ", ".join(f"{n} {mb:.0f} MB" for n, mb in peaks.items()) + "."]
    return "\n".join(lines) + "\n"


def _lost(stage) -> int:
    """Answers the students were told were stored that the store or the panel does not count."""
    sent = [sum(stage.wanted[q].values()) for q in stage.qids]
    stored = [stage.stored[q].answered if q in stage.stored else 0 for q in stage.qids]
    panel = stage.panel or [0] * len(sent)
    return sum(max(0, a - min(b, c)) for a, b, c in zip(sent, stored, panel))


def answers_table(stages) -> list[str]:
    rows = ["## Answers and the teacher's panel, per stage", "",
            "Sent: the answers each student was told were stored (\"Sent k of n\", less any refused), the latest per "
            "student and question. Panel: the counts the teacher's page showed last before the reveal. Store: read "
            "directly after the reveal. Split: the store's values per question equal the latest ones sent.", "",
            "| stage | questions | sent | panel | store | split | lost | last Sent → panel shows it, s | "
            "students shown the lesson |", "|---|---:|---|---|---|---|---:|---:|---:|"]
    for s in stages:
        sent = [sum(s.wanted[q].values()) for q in s.qids]
        stored = [s.stored[q].answered if q in s.stored else 0 for q in s.qids]
        same = all(q in s.stored and Counter(s.stored[q].values) == s.wanted[q] for q in s.qids)
        lag = "never" if s.panel_lag is None else f"{max(0.0, s.panel_lag):.2f}"
        rows.append(f"| {s.screen} | {len(s.qids)} | {sent} | {s.panel} | {stored} | {'same' if same else '**differs**'} "
                    f"| {_lost(s)} | {lag} | {s.students_revealed} |" + (f" {'; '.join(s.notes)}" if s.notes else ""))
    return rows + ["", "A lag of 0.00: the panel's poll already showed the last answer when its \"Sent\" arrived.", ""]


def cpu_table(phases) -> list[str]:
    rows = ["## Server CPU by phase (from /proc, summed over the app servers and over the stages)", "",
            "| phase | what runs | wall s | server CPU s | % of one core | requests | CPU per request ms |",
            "|---|---|---:|---:|---:|---:|---:|"]
    what = {"open": "the stage's page up to its questions", "answer": "picks, sends, every tab's timed polls",
            "discuss": "polls only: the room at rest", "lesson": "the reveal's lesson runs, the lesson's moves"}
    totals = {}
    for name in ("open", "answer", "discuss", "lesson"):
        mine = [p for p in phases if p.name == name]
        wall = sum(p.seconds for p in mine)
        cpu = None if any(p.cpu is None for p in mine) else sum(p.cpu for p in mine)
        sent = sum(1 for p in mine for i in p.interactions if not i.kind.startswith(("view", "reveal →", "answer: press")))
        totals[name] = (wall, cpu, sent)
        rows.append(f"| {name} | {what[name]} | {wall:.0f} | " + ("–" if cpu is None else f"{cpu:.1f}") + " | "
                    + ("–" if cpu is None else f"{100 * cpu / max(wall, 1e-9):.0f}") + f" | {sent} | "
                    + ("–" if cpu is None or not sent else f"{1000 * cpu / sent:.1f}") + " |")
    if all(totals[n][1] is not None for n in totals):
        room, lesson = (sum(totals[n][1] for n in names) for names in (ROOM_PHASES, LESSON_PHASES))
        wall_room = sum(totals[n][0] for n in ROOM_PHASES)
        rows += ["", f"- The room's phases (answer + discuss, {wall_room:.0f} s): {room:.1f} s of server CPU, "
                 f"{100 * room / max(room + lesson, 1e-9):.0f} % of the class's; the lessons' phases (open + lesson): "
                 f"{lesson:.1f} s."]
    return rows + [""]


def split(servers, seats, teacher, results) -> list[str]:
    rows = ["## How the room split across servers", "", "| server | students | polls answered | sends answered |",
            "|---|---:|---:|---:|"]
    landed = [s.student.first_server for s in seats]
    for name in servers:
        polls = sum(1 for i in results if i.server == name and i.kind.startswith("poll") and not i.error)
        sends = sum(1 for i in results if i.server == name and _sent(i) and not i.error)
        rows.append(f"| {name} | {landed.count(name)} | {polls} | {sends} |")
    return rows + ["", f"The teacher's page is on {teacher.student.first_server or 'an unnamed server'}: its counts "
                   "come from the store, whichever server each answer went through.", ""]
