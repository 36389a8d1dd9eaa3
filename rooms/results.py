"""What the rooms' store answers: a result with a reason when it refuses, a room, a question's tally.

Apart from rooms/store.py so the screens can import these words without a backend.
"""
from collections import Counter
from dataclasses import dataclass
from enum import Enum

from rooms.codes import CODE_LEN


class StoreUnavailable(Exception):
    """The store cannot be opened or stopped answering: the app says rooms are off and keeps working."""


class Reason(str, Enum):
    BAD_CODE = "bad_code"
    UNKNOWN_ROOM = "unknown_room"
    EXPIRED = "expired"
    CODE_TAKEN = "code_taken"
    BAD_INPUT = "bad_input"
    REVEALED = "revealed"
    RATE_LIMITED = "rate_limited"
    TOO_MANY_ROOMS = "too_many_rooms"
    TOO_MANY_QUESTIONS = "too_many_questions"
    TOO_MANY_STUDENTS = "too_many_students"
    TOO_MANY_ANSWERS = "too_many_answers"
    TOKEN_IN_VIEW = "token_in_view"

    @property
    def message(self) -> str:
        return _MESSAGES[self]


_MESSAGES = {
    Reason.BAD_CODE: f"That is not a room code: a room code is {CODE_LEN} letters and digits, like K7M-P3X.",
    Reason.UNKNOWN_ROOM: "No room has that code. Check it against the teacher's screen.",
    Reason.EXPIRED: "That room has closed: rooms close a few hours after their last answer.",
    Reason.CODE_TAKEN: "That code is in use by another room.",
    Reason.BAD_INPUT: "That answer could not be stored (it is not in the form the app sends).",
    Reason.REVEALED: "The answer has been revealed, so answers to this question are closed.",
    Reason.RATE_LIMITED: "Too many answers in a minute: wait a moment, then answer again.",
    Reason.TOO_MANY_ROOMS: "This server holds as many rooms as it may; try again later.",
    Reason.TOO_MANY_QUESTIONS: "This room has reached its limit of questions.",
    Reason.TOO_MANY_STUDENTS: "This room is full.",
    Reason.TOO_MANY_ANSWERS: "This room has reached its limit of answers.",
    Reason.TOKEN_IN_VIEW: "The teacher's view would carry the teacher's token to students; it was not shared.",
}


@dataclass(frozen=True)
class Result:
    ok: bool
    reason: Reason | None = None

    @property
    def message(self) -> str:
        return "" if self.ok else self.reason.message


STORED = Result(True)


def refused(reason: Reason) -> Result:
    return Result(False, reason)


@dataclass(frozen=True)
class Room:
    code: str
    created: float
    last_active: float
    expires_at: float
    students: int  # ids that ever answered
    questions: int
    answers: int


@dataclass(frozen=True)
class Tally:
    answered: int
    values: Counter  # value -> how many gave it (never who)
