"""Where a class's room lives: one interface, two backends, picked by one setting.

Behind HAProxy the students of one room land on different app processes, so a room cannot live in one
process's memory. SQLite (the default, no setup) is shared by every process on one machine; Redis is
for several machines. Both run the same checks in the same order, and tests/test_rooms_store.py runs
one suite against both.

    store = open_store()                      # rooms/backends.py: reads ATTENTION_ROOMS_STORE; raises StoreUnavailable
    result, code, token = start_room(store)
    store.answer(code, "scores:argmax:ab12", student_id, "2")  # Result(ok=True) or a refusal with a reason
"""
import abc
import re
import time
from collections import Counter
from dataclasses import dataclass
from itertools import islice
from typing import Callable

from rooms.codes import new_code, new_teacher_token, parse_code, token_matches, valid_student_id
from rooms.results import STORED, Reason, Result, Room, StoreUnavailable, Tally, refused  # noqa: F401 (re-exported)


# --- The bounds. Storage is at most about MAX_ROOMS * MAX_ANSWERS answers (50 * 20,000 = 1,000,000
# rows of under 200 bytes: about 200 MB), whatever visitors send; a refusal names the bound it hit.
EXPIRY_S = 4 * 3600  # a room expires 4 h after its last write (answer, reveal, view); reads do not count
MAX_ROOMS = 50  # live rooms per store: far more classes than one 2-core server can teach at once
MAX_QUESTIONS = 300  # question ids per room: about 40 per set of settings, so a lesson can change them often
MAX_STUDENTS = 250  # student ids per room (a lecture hall); so also at most 250 answers per question
MAX_ANSWERS = 20_000  # answers per room: 60 students x 300 questions, or 250 students x 80
MAX_VALUE_LEN = 64  # an answer as the app writes it: an option, "yes"/"no" or a number
MAX_QUESTION_ID_LEN = 96  # "stage:name:<16 hex digits>" is about 40
MAX_REVEAL_LEN = 500  # the revealed answer's text
MAX_VIEW_LEN = 2_000  # the teacher's screen and URL state
RATE_LIMIT = 30  # answer writes per student per RATE_WINDOW_S: no one predicts 30 answers a minute
RATE_WINDOW_S = 60
QUESTION_ID = re.compile(r"[A-Za-z0-9:_.\-]+")
# The teacher's view becomes a link in students' hands: URL characters only (anything else %-encoded).
VIEW = re.compile(r"[A-Za-z0-9\-._~%&=+,:/?]*")


@dataclass(frozen=True)
class Limits:
    """The bounds above; tests pass small ones so a bound is reached with a few answers."""
    expiry_s: float = EXPIRY_S
    rooms: int = MAX_ROOMS
    questions: int = MAX_QUESTIONS
    students: int = MAX_STUDENTS
    answers: int = MAX_ANSWERS
    value_len: int = MAX_VALUE_LEN
    rate: int = RATE_LIMIT
    rate_window_s: float = RATE_WINDOW_S


class Store(abc.ABC):
    """Public methods check their input here, once for both backends; the _methods do the storing,
    each one atomically, re-checking the room (it may expire or fill between two calls)."""

    def __init__(self, *, limits: Limits | None = None, clock: Callable[[], float] | None = None):
        self.limits = limits or Limits()
        self.clock = clock or time.time

    # -- what a backend provides (each raises StoreUnavailable when it fails) --
    @abc.abstractmethod
    def _load(self, code: str) -> tuple[Room, str] | None: """The room and its token, expired or not."""
    @abc.abstractmethod
    def _create(self, code: str, token: str, now: float) -> Reason | None: ...
    @abc.abstractmethod
    def _answer(self, code: str, qid: str, student: str, value: str, now: float) -> Reason | None: ...
    @abc.abstractmethod
    def _my_answer(self, code: str, qid: str, student: str) -> str | None: ...
    @abc.abstractmethod
    def _counts(self, code: str, qids: list[str]) -> dict[str, Counter]: ...
    @abc.abstractmethod
    def _reveal(self, code: str, qid: str, text: str, now: float) -> Reason | None: ...
    @abc.abstractmethod
    def _revealed(self, code: str, qid: str) -> str | None: ...
    @abc.abstractmethod
    def _set_view(self, code: str, query: str, now: float) -> Reason | None: ...
    @abc.abstractmethod
    def _view(self, code: str) -> str | None: ...

    def close(self) -> None:
        pass

    # -- the interface --
    def create_room(self, code: str, teacher_token: str) -> Result:
        if not _is_code(code) or not isinstance(teacher_token, str) or len(teacher_token) < 16:
            return refused(Reason.BAD_INPUT)
        return _result(self._create(code, teacher_token, self.clock()))

    def _lookup(self, code) -> tuple[Result, Room | None, str | None]:
        """(ok, the live room, its token), or (why not, None, None); one read of the store."""
        if not _is_code(code):
            return refused(Reason.BAD_CODE), None, None
        loaded = self._load(code)
        if loaded is None:
            return refused(Reason.UNKNOWN_ROOM), None, None
        if loaded[0].expires_at <= self.clock():
            return refused(Reason.EXPIRED), None, None
        return STORED, *loaded

    def check_room(self, code) -> Result:
        """ok for a live room, else why not: BAD_CODE, UNKNOWN_ROOM or EXPIRED (for the join screen)."""
        return self._lookup(code)[0]

    def room(self, code) -> Room | None:
        """The live room, or None when the code is malformed, unknown or expired."""
        return self._lookup(code)[1]

    def is_teacher(self, code, token) -> bool:
        result, _, stored = self._lookup(code)
        return result.ok and token_matches(stored, token)

    def answer(self, code, question_id, student_id, value) -> Result:
        """Store one student's answer (the latest counts until the reveal), or say why not."""
        if not _is_code(code):
            return refused(Reason.BAD_CODE)
        if not (_valid_qid(question_id) and valid_student_id(student_id) and isinstance(value, str)
                and 0 < len(value) <= self.limits.value_len and value.isprintable()):
            return refused(Reason.BAD_INPUT)
        return _result(self._answer(code, question_id, student_id, value, self.clock()))

    def my_answer(self, code, question_id, student_id) -> str | None:
        """This student's own answer (for "you and 14 others said key 3"); no one else's is ever returned."""
        if self.room(code) is None or not _valid_qid(question_id) or not valid_student_id(student_id):
            return None
        return self._my_answer(code, question_id, student_id)

    def counts(self, code, question_ids) -> dict[str, Tally]:
        """For each valid question id asked (the first MAX_QUESTIONS): how many answered and how they split.
        Empty for a room that is not live."""
        qids = list(dict.fromkeys(q for q in islice(question_ids, self.limits.questions) if _valid_qid(q)))
        if not qids or self.room(code) is None:
            return {}
        found = self._counts(code, qids)
        return {q: Tally(sum(found.get(q, Counter()).values()), found.get(q, Counter())) for q in qids}

    def reveal(self, code, question_id, answer_text) -> Result:
        """Close a question and record its answer (the app checks is_teacher first)."""
        if not _is_code(code):
            return refused(Reason.BAD_CODE)
        if not (_valid_qid(question_id) and isinstance(answer_text, str)
                and 0 < len(answer_text) <= MAX_REVEAL_LEN):
            return refused(Reason.BAD_INPUT)
        return _result(self._reveal(code, question_id, answer_text, self.clock()))

    def revealed(self, code, question_id) -> str | None:
        if self.room(code) is None or not _valid_qid(question_id):
            return None
        return self._revealed(code, question_id)

    def set_teacher_view(self, code, url_query) -> Result:
        """The teacher's screen and settings, for students to open in one click (the app checks is_teacher)."""
        if not _is_code(code):
            return refused(Reason.BAD_CODE)
        if not isinstance(url_query, str) or len(url_query) > MAX_VIEW_LEN or not VIEW.fullmatch(url_query):
            return refused(Reason.BAD_INPUT)
        token = self._lookup(code)[2]
        if token and token in url_query:  # the one secret must never reach a student
            return refused(Reason.TOKEN_IN_VIEW)
        return _result(self._set_view(code, url_query, self.clock()))

    def teacher_view(self, code) -> str | None:
        return self._view(code) if self.room(code) is not None else None


def _is_code(code) -> bool:
    """A code in parse_code's form (the app parses what a person typed before it calls the store)."""
    return isinstance(code, str) and parse_code(code) == code


def _valid_qid(qid) -> bool:
    return isinstance(qid, str) and len(qid) <= MAX_QUESTION_ID_LEN and QUESTION_ID.fullmatch(qid) is not None


def _result(reason: Reason | None) -> Result:
    return STORED if reason is None else refused(reason)


def start_room(store: Store, tries: int = 5) -> tuple[Result, str, str]:
    """(ok, code, token) for a new room; a code already in use is redrawn. On refusal code and token are ""."""
    for _ in range(tries):
        code, token = new_code(), new_teacher_token()
        result = store.create_room(code, token)
        if result.ok:
            return result, code, token
        if result.reason is not Reason.CODE_TAKEN:
            break
    return result, "", ""
