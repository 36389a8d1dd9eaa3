"""The rooms on Redis (Debian's redis-server), for app processes on several machines: the same checks,
in the same order, as rooms/sqlite_store.py.

A room is six hashes with the room's code as their hash tag, plus one sorted set of live rooms:
    room       token, created, last (activity), view
    students   student -> "window_start:n" (membership and the rate limit)
    answers    "qid\\nstudent" -> value           questions  qid -> how many answered
    tallies    "qid\\nvalue" -> how many gave it   reveals    qid -> the answer's text
Every write is one Lua script, so it runs atomically however many app processes write at once, and it
sets EXPIRE on every key it may have touched. "qid\\n..." is unambiguous: ids and values hold no newline.
"""
import functools
import math
from collections import Counter

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from rooms.store import Reason, Room, Store, StoreUnavailable

SOCKET_TIMEOUT_S = 1.0  # a dead or unreachable server costs a page at most this long, then rooms are off
# Keys outlive the room by an hour so a late student hears "closed", not "unknown"; then Redis drops them.
GRACE_S = 3600
PARTS = ("room", "students", "answers", "tallies", "questions", "reveals")

# Shared head of every write script. KEYS: the six parts in PARTS order, then the index.
# ARGV: now, expiry_s, ttl_s, code, then the script's own arguments from ARGV[5].
_HEAD = """
local now, expiry, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local function touch()
  for i = 1, #KEYS do redis.call('EXPIRE', KEYS[i], ttl) end
end
local function why_not_live()
  local last = redis.call('HGET', KEYS[1], 'last')
  if not last then return 'unknown_room' end
  if tonumber(last) + expiry <= now then return 'expired' end
  return nil
end
local function mark()  -- a write: the room's last activity, its place among the live rooms, fresh TTLs
  redis.call('HSET', KEYS[1], 'last', ARGV[1])
  redis.call('ZADD', KEYS[7], now, ARGV[4])
  touch()
  return 'ok'
end
"""

_CREATE = _HEAD + """
redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', now - expiry)  -- forget expired rooms (their TTLs drop them)
local last = redis.call('HGET', KEYS[1], 'last')
if last and tonumber(last) + expiry > now then return 'code_taken' end
if redis.call('ZCARD', KEYS[7]) >= tonumber(ARGV[6]) then return 'too_many_rooms' end
if last then redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]) end
redis.call('HSET', KEYS[1], 'token', ARGV[5], 'created', ARGV[1])
return mark()
"""

# ARGV[5..]: student, qid, value, max students, max questions, max answers, rate, rate window
_ANSWER = _HEAD + """
local why = why_not_live()
if why then return why end
local student, qid, value = ARGV[5], ARGV[6], ARGV[7]
local seen = redis.call('HGET', KEYS[2], student)
if not seen and redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[8]) then return 'too_many_students' end
local window, n = now, 0
if seen then
  local w, c = string.match(seen, '^([^:]+):(%d+)$')
  if now - tonumber(w) < tonumber(ARGV[12]) then window, n = tonumber(w), tonumber(c) end
end
redis.call('HSET', KEYS[2], student, string.format('%.6f:%d', window, n + 1))
touch()
if n + 1 > tonumber(ARGV[11]) then return 'rate_limited' end  -- counted: stays refused until the window ends
if redis.call('HEXISTS', KEYS[6], qid) == 1 then return 'revealed' end
local field = qid .. '\\n' .. student
local old = redis.call('HGET', KEYS[3], field)
if not old then
  local asked = redis.call('HEXISTS', KEYS[5], qid) == 1
  if not asked and redis.call('HLEN', KEYS[5]) >= tonumber(ARGV[9]) then return 'too_many_questions' end
  if redis.call('HLEN', KEYS[3]) >= tonumber(ARGV[10]) then return 'too_many_answers' end
  redis.call('HINCRBY', KEYS[5], qid, 1)
elseif redis.call('HINCRBY', KEYS[4], qid .. '\\n' .. old, -1) <= 0 then
  redis.call('HDEL', KEYS[4], qid .. '\\n' .. old)
end
redis.call('HINCRBY', KEYS[4], qid .. '\\n' .. value, 1)
redis.call('HSET', KEYS[3], field, value)  -- latest wins
return mark()
"""

# ARGV[5..]: qid, text, max questions
_REVEAL = _HEAD + """
local why = why_not_live()
if why then return why end
if redis.call('HEXISTS', KEYS[5], ARGV[5]) == 0 then
  if redis.call('HLEN', KEYS[5]) >= tonumber(ARGV[7]) then return 'too_many_questions' end
  redis.call('HSET', KEYS[5], ARGV[5], 0)
end
redis.call('HSET', KEYS[6], ARGV[5], ARGV[6])
return mark()
"""

_VIEW = _HEAD + """
local why = why_not_live()
if why then return why end
redis.call('HSET', KEYS[1], 'view', ARGV[5])
return mark()
"""


def _guarded(method):
    """Any Redis or socket failure becomes StoreUnavailable, the one error the app handles."""
    @functools.wraps(method)
    def call(self, *args):
        try:
            return method(self, *args)
        except (redis.RedisError, OSError) as error:
            raise StoreUnavailable(f"the Redis rooms store failed: {type(error).__name__}: {error}") from error
    return call


class RedisStore(Store):
    def __init__(self, url: str, *, prefix: str = "attention-rooms:", **kwargs):
        super().__init__(**kwargs)
        self.prefix = prefix
        try:
            # No retries and short timeouts: an unreachable store must turn rooms off within a second or
            # two, not hold every student's page through redis-py's default backoff.
            self.redis = redis.Redis.from_url(
                url, decode_responses=True, socket_timeout=SOCKET_TIMEOUT_S,
                socket_connect_timeout=SOCKET_TIMEOUT_S, retry=Retry(NoBackoff(), 0), health_check_interval=30)
            self.redis.ping()
        except (redis.RedisError, OSError, ValueError) as error:
            raise StoreUnavailable(f"cannot reach the Redis rooms store: {type(error).__name__}: {error}") from error
        self._scripts = {name: self.redis.register_script(body) for name, body in
                         (("create", _CREATE), ("answer", _ANSWER), ("reveal", _REVEAL), ("view", _VIEW))}

    def close(self) -> None:
        self.redis.close()

    def _keys(self, code: str) -> list[str]:
        # {code} is a hash tag: on a Redis Cluster all of one room's keys would share a slot
        return [f"{self.prefix}{{{code}}}:{part}" for part in PARTS] + [f"{self.prefix}index"]

    def _run(self, name: str, code: str, now: float, *args) -> Reason | None:
        ttl = math.ceil(self.limits.expiry_s + GRACE_S)
        reply = self._scripts[name](keys=self._keys(code),
                                    args=[repr(float(now)), repr(float(self.limits.expiry_s)), ttl, code, *args])
        return None if reply == "ok" else Reason(reply)

    @_guarded
    def _load(self, code):
        keys = self._keys(code)
        pipe = self.redis.pipeline(transaction=True)  # MULTI: the room and its sizes from one moment
        pipe.hmget(keys[0], "created", "last", "token")
        for key in (keys[1], keys[4], keys[2]):
            pipe.hlen(key)
        (created, last, token), students, questions, answers = pipe.execute()
        if last is None:
            return None
        last = float(last)
        return Room(code, float(created), last, last + self.limits.expiry_s, students, questions, answers), token

    @_guarded
    def _create(self, code, token, now):
        return self._run("create", code, now, token, self.limits.rooms)

    @_guarded
    def _answer(self, code, qid, student, value, now):
        lim = self.limits
        return self._run("answer", code, now, student, qid, value, lim.students, lim.questions, lim.answers,
                         lim.rate, repr(float(lim.rate_window_s)))

    @_guarded
    def _my_answer(self, code, qid, student):
        return self.redis.hget(self._keys(code)[2], f"{qid}\n{student}")

    @_guarded
    def _counts(self, code, qids):
        # One hash per room, bounded by MAX_ANSWERS fields (in class: a few per question), filtered here.
        wanted, found = set(qids), {}
        for field, n in self.redis.hgetall(self._keys(code)[3]).items():
            qid, _, value = field.partition("\n")
            if qid in wanted and int(n) > 0:
                found.setdefault(qid, Counter())[value] = int(n)
        return found

    @_guarded
    def _reveal(self, code, qid, text, now):
        return self._run("reveal", code, now, qid, text, self.limits.questions)

    @_guarded
    def _revealed(self, code, qid):
        return self.redis.hget(self._keys(code)[5], qid)

    @_guarded
    def _set_view(self, code, query, now):
        return self._run("view", code, now, query)

    @_guarded
    def _view(self, code):
        return self.redis.hget(self._keys(code)[0], "view")
