"""Join codes, teacher tokens and student ids: made with `secrets`, read back strictly.

A join code is shown on the projector and typed on phones, so it is short and has no characters that
look alike on a screen or in a font (0/O/Q/D, 1/I/L, 2/Z, 5/S, 8/B, U/V). It is not a secret: anyone
in the room sees it. The teacher token is the secret: it only travels in the teacher's own link.
"""
import hmac
import re
import secrets

# 21 characters that no one confuses: 21**6 = 85,766,121 codes, so a guess finds one of the store's
# few dozen live rooms about once in a million tries (and a room only ever holds counts, no names).
ALPHABET = "ACEFGHJKMNPRTWXY34679"
CODE_LEN = 6
# What a person may type around the code: "k7m-p3x", " K7M P3X ". Anything longer is refused before
# any other work, so a pasted page of text costs nothing.
MAX_RAW_CODE_LEN = 32
_SEPARATORS = str.maketrans("", "", " -\t")

TOKEN_BYTES = 24  # token_urlsafe(24): 32 characters, 192 random bits
MAX_TOKEN_LEN = 128  # a longer "token" is refused before it is compared
STUDENT_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")  # what new_student_id() makes, with room to spare


def new_code() -> str:
    """A fresh join code, e.g. 'K7MP3X' (the store refuses a code that is live already: try again)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LEN))


def parse_code(raw) -> str | None:
    """The join code in `raw` (from a URL or a text box) in its stored form, or None if it is not one.

    Case, spaces and dashes are forgiven; a wrong length or any other character is refused, never guessed
    (a typed 'O' is not silently read as some other code's character)."""
    # ASCII first: str.upper() maps some other letters onto ASCII ones ('ﬀ' -> 'FF').
    if not isinstance(raw, str) or len(raw) > MAX_RAW_CODE_LEN or not raw.isascii():
        return None
    code = raw.strip().upper().translate(_SEPARATORS)
    if len(code) != CODE_LEN or any(ch not in ALPHABET for ch in code):
        return None
    return code


def format_code(code: str) -> str:
    """For display: 'K7M-P3X' reads more easily from the back of a room than 'K7MP3X'."""
    half = CODE_LEN // 2
    return f"{code[:half]}-{code[half:]}"


def new_teacher_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_matches(stored: str | None, given) -> bool:
    """True only for the exact token, compared in constant time (no timing hints about a forged one)."""
    if not stored or not isinstance(given, str) or not given or len(given) > MAX_TOKEN_LEN:
        return False
    return hmac.compare_digest(stored.encode(), given.encode())


def new_student_id() -> str:
    """One per browser session: answers are counted per id, so one session has one answer per question."""
    return secrets.token_urlsafe(12)  # 16 characters


def valid_student_id(raw) -> bool:
    return isinstance(raw, str) and STUDENT_ID.fullmatch(raw) is not None
