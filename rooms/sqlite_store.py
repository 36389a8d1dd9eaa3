"""The rooms in one SQLite file, shared by every app process on the machine (the default: no setup).

WAL mode lets the teacher's panel read while students write; every write is one transaction that takes
the write lock up front (rooms/sqlite_pool.py), so each answer's checks and its write see one state
however many processes write at once. Only "?" parameters carry values into the SQL.
"""
import os
from collections import Counter
from pathlib import Path

from rooms.sqlite_pool import Pool
from rooms.store import Reason, Room, Store, StoreUnavailable

SWEEP_ROOMS = 2  # expired rooms deleted per new room: bounded work per call, yet expired rooms never pile up

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (code TEXT PRIMARY KEY, token TEXT NOT NULL, created REAL NOT NULL,
    last REAL NOT NULL, view TEXT, students INTEGER NOT NULL DEFAULT 0, questions INTEGER NOT NULL DEFAULT 0,
    answers INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS rooms_by_last ON rooms (last);
-- one row per student of a room: membership (bounded) and the rate limit's window
CREATE TABLE IF NOT EXISTS students (code TEXT NOT NULL, student TEXT NOT NULL, window REAL NOT NULL,
    n INTEGER NOT NULL, PRIMARY KEY (code, student)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS questions (code TEXT NOT NULL, qid TEXT NOT NULL, revealed TEXT,
    PRIMARY KEY (code, qid)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS answers (code TEXT NOT NULL, qid TEXT NOT NULL, student TEXT NOT NULL,
    value TEXT NOT NULL, PRIMARY KEY (code, qid, student)) WITHOUT ROWID;
"""


class SQLiteStore(Store):
    def __init__(self, path, **kwargs):
        super().__init__(**kwargs)
        self.path = Path(path)
        self.pool = Pool(self.path)
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            if hasattr(os, "getuid") and self.path.parent.stat().st_uid != os.getuid():
                # a shared temp dir: someone else's folder there could read or plant our rooms
                raise StoreUnavailable(f"{self.path.parent} belongs to another user")
            with self.pool.connect() as con:
                mode = con.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                if mode != "wal":
                    raise StoreUnavailable(f"SQLite refused WAL mode for {self.path} (got {mode})")
                con.executescript(SCHEMA)
        except (OSError, ValueError) as error:  # ValueError: a path with a NUL byte
            raise StoreUnavailable(f"cannot open the rooms file {self.path}: {error}") from error

    def close(self) -> None:
        self.pool.close()

    def _live(self, con, code: str, now: float):
        """The room's row (last, students, questions, answers, token), or the reason there is none."""
        row = con.execute("SELECT last, students, questions, answers, token FROM rooms WHERE code = ?",
                          (code,)).fetchone()
        if row is None:
            return None, Reason.UNKNOWN_ROOM
        if row[0] + self.limits.expiry_s <= now:
            return None, Reason.EXPIRED
        return row, None

    def _load(self, code):
        with self.pool.connect() as con:
            row = con.execute("SELECT created, last, students, questions, answers, token FROM rooms "
                              "WHERE code = ?", (code,)).fetchone()
        if row is None:
            return None
        created, last, students, questions, answers, token = row
        return Room(code, created, last, last + self.limits.expiry_s, students, questions, answers), token

    def _create(self, code, token, now):
        with self.pool.write() as con:
            cutoff = now - self.limits.expiry_s
            old = con.execute("SELECT code FROM rooms WHERE last <= ? ORDER BY last LIMIT ?",
                              (cutoff, SWEEP_ROOMS)).fetchall()
            row = con.execute("SELECT last FROM rooms WHERE code = ?", (code,)).fetchone()
            if row is not None and row[0] > cutoff:
                return Reason.CODE_TAKEN
            for (gone,) in old + ([(code,)] if row is not None else []):
                for table in ("answers", "questions", "students", "rooms"):
                    con.execute(f"DELETE FROM {table} WHERE code = ?", (gone,))  # table: a fixed name
            if con.execute("SELECT COUNT(*) FROM rooms WHERE last > ?", (cutoff,)).fetchone()[0] >= self.limits.rooms:
                return Reason.TOO_MANY_ROOMS
            con.execute("INSERT INTO rooms (code, token, created, last) VALUES (?, ?, ?, ?)", (code, token, now, now))
        return None

    def _answer(self, code, qid, student, value, now):
        lim = self.limits
        with self.pool.write() as con:
            room, why = self._live(con, code, now)
            if why:
                return why
            _, students, questions, answers, _ = room
            seen = con.execute("SELECT window, n FROM students WHERE code = ? AND student = ?",
                               (code, student)).fetchone()
            if seen is None and students >= lim.students:
                return Reason.TOO_MANY_STUDENTS
            window, n = seen if seen and now - seen[0] < lim.rate_window_s else (now, 0)
            con.execute("INSERT INTO students (code, student, window, n) VALUES (?, ?, ?, ?) ON CONFLICT "
                        "(code, student) DO UPDATE SET window = excluded.window, n = excluded.n",
                        (code, student, window, n + 1))
            if seen is None:
                con.execute("UPDATE rooms SET students = students + 1 WHERE code = ?", (code,))
            if n + 1 > lim.rate:  # refused, but counted: a spammer stays refused until the window passes
                return Reason.RATE_LIMITED
            question = con.execute("SELECT revealed FROM questions WHERE code = ? AND qid = ?",
                                   (code, qid)).fetchone()
            if question is not None and question[0] is not None:
                return Reason.REVEALED
            old = con.execute("SELECT value FROM answers WHERE code = ? AND qid = ? AND student = ?",
                              (code, qid, student)).fetchone()
            if old is None:
                if question is None and questions >= lim.questions:
                    return Reason.TOO_MANY_QUESTIONS
                if answers >= lim.answers:
                    return Reason.TOO_MANY_ANSWERS
                if question is None:
                    con.execute("INSERT INTO questions (code, qid) VALUES (?, ?)", (code, qid))
                con.execute("UPDATE rooms SET answers = answers + 1, questions = questions + ? WHERE code = ?",
                            (int(question is None), code))
            # latest wins: one row per (room, question, student), overwritten
            con.execute("INSERT INTO answers (code, qid, student, value) VALUES (?, ?, ?, ?) ON CONFLICT "
                        "(code, qid, student) DO UPDATE SET value = excluded.value", (code, qid, student, value))
            con.execute("UPDATE rooms SET last = ? WHERE code = ?", (now, code))
        return None

    def _my_answer(self, code, qid, student):
        with self.pool.connect() as con:
            row = con.execute("SELECT value FROM answers WHERE code = ? AND qid = ? AND student = ?",
                              (code, qid, student)).fetchone()
        return row[0] if row else None

    def _counts(self, code, qids):
        marks = ", ".join("?" * len(qids))  # only "?"s enter the SQL; the ids are parameters
        with self.pool.connect() as con:
            rows = con.execute(f"SELECT qid, value, COUNT(*) FROM answers WHERE code = ? AND qid IN ({marks}) "
                               "GROUP BY qid, value", (code, *qids)).fetchall()
        found: dict[str, Counter] = {}
        for qid, value, n in rows:
            found.setdefault(qid, Counter())[value] = n
        return found

    def _reveal(self, code, qid, text, now):
        with self.pool.write() as con:
            room, why = self._live(con, code, now)
            if why:
                return why
            known = con.execute("SELECT 1 FROM questions WHERE code = ? AND qid = ?", (code, qid)).fetchone()
            if known is None and room[2] >= self.limits.questions:
                return Reason.TOO_MANY_QUESTIONS
            con.execute("INSERT INTO questions (code, qid, revealed) VALUES (?, ?, ?) ON CONFLICT (code, qid) "
                        "DO UPDATE SET revealed = excluded.revealed", (code, qid, text))
            con.execute("UPDATE rooms SET last = ?, questions = questions + ? WHERE code = ?",
                        (now, int(known is None), code))
        return None

    def _revealed(self, code, qid):
        with self.pool.connect() as con:
            row = con.execute("SELECT revealed FROM questions WHERE code = ? AND qid = ?", (code, qid)).fetchone()
        return row[0] if row else None

    def _set_view(self, code, query, now):
        with self.pool.write() as con:
            _, why = self._live(con, code, now)
            if why:
                return why
            con.execute("UPDATE rooms SET view = ?, last = ? WHERE code = ?", (query, now, code))
        return None

    def _view(self, code):
        with self.pool.connect() as con:
            row = con.execute("SELECT view FROM rooms WHERE code = ?", (code,)).fetchone()
        return row[0] if row else None
