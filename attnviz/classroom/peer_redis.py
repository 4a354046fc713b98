"""Redis's primitives for peer instruction (peer_store.PeerRules), mixed into RedisStore.

Keys, under ``attnviz:room:{code}:``, each expiring when its room ends:

    q{n}r{r}:answers, q{n}r{r}:counts   round r's answers (redis_store.py: one Lua script)
    q{n}r{r}:confidence  a hash sid -> confidence level, only for a sid that answered round r
    lost                 a sorted set sid -> the time of its last counted "I'm lost"
    lost_minutes         a hash minute since the room opened -> taps counted
    report               a hash question number -> the question's record (JSON, no sid)

A confidence tap and an "I'm lost" are each one Lua script (atomic).
"""

from attnviz.classroom.peer_store import ROUND_NUMBERS, lost_minute
from attnviz.classroom.room import NotAnsweringError
from attnviz.limits import LOST_COOLDOWN_SECONDS

CONFIDE = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('EXPIREAT', KEYS[2], ARGV[3])
return 1
"""  # KEYS: the round's answers, its confidence; ARGV: sid, level, expires

LOST = """
if redis.call('SISMEMBER', KEYS[3], ARGV[1]) == 0 then return -1 end
local last = redis.call('ZSCORE', KEYS[1], ARGV[1])
if last and tonumber(ARGV[2]) - tonumber(last) < tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HINCRBY', KEYS[2], ARGV[4], 1)
redis.call('EXPIREAT', KEYS[1], ARGV[5])
redis.call('EXPIREAT', KEYS[2], ARGV[5])
return 1
"""  # KEYS: lost, lost_minutes, students; ARGV: sid, now, cooldown, minute, expires


def question_keys(store, code, question_no):
    """Every key of question ``question_no``'s rounds (deleted when the room moves on)."""
    keys = []
    for r in ROUND_NUMBERS:
        q = f"q{question_no}r{r}"
        keys += [store._key(code, q, part) for part in ("answers", "counts", "confidence")]
    return keys


def _int_map(stored):
    """{str: int} from a Redis hash's bytes, leaving out what is not a whole number."""
    out = {}
    for k, v in stored.items():
        try:
            out[k.decode()] = int(v)
        except (ValueError, UnicodeDecodeError):
            continue
    return out


class RedisPeer:
    """Mixed into RedisStore (its ``r``, ``_key``, ``_question_keys`` and ``_guarded``, which
    raises redis's errors in words: StoreUnavailableError, StoreRefusedError). Every Redis call
    here goes through ``_guarded``."""

    def _register_peer_scripts(self):
        self._confide = self.r.register_script(CONFIDE)
        self._lost_script = self.r.register_script(LOST)

    def _expires(self, room):
        return int(room.expires) + 1

    def _round_answers(self, room, round_no):
        answers = self._question_keys(room, round_no)[0]
        return self._guarded(lambda: _int_map(self.r.hgetall(answers)))

    def _confidence_key(self, room, round_no):
        return self._key(room.code, f"q{room.question_no}r{round_no}", "confidence")

    def _set_confidence(self, room, sid, level):
        keys = [self._question_keys(room)[0], self._confidence_key(room, room.peer.round_no)]
        args = [sid, level, self._expires(room)]
        return self._guarded(lambda: self._confide(keys=keys, args=args) == 1)

    def _confidences(self, room, round_no):
        return self._guarded(lambda: _int_map(self.r.hgetall(self._confidence_key(room, round_no))))

    def _confidence_of(self, room, round_no, sid):  # one field, not the round's every level
        value = self._guarded(lambda: self.r.hget(self._confidence_key(room, round_no), sid))
        try:
            return int(value)
        except (TypeError, ValueError):
            return None

    def _lost(self, room, sid, now):
        keys = [self._key(room.code, p) for p in ("lost", "lost_minutes", "students")]
        args = [sid, now, LOST_COOLDOWN_SECONDS, lost_minute(room, now), self._expires(room)]
        counted = self._guarded(lambda: self._lost_script(keys=keys, args=args))
        if counted == -1:
            raise NotAnsweringError("Join the room first.")
        return counted == 1

    def _lost_since(self, room, since):
        lost = self._key(room.code, "lost")
        return int(self._guarded(lambda: self.r.zcount(lost, since, "+inf")))

    def _lost_minutes(self, room):
        stored = self._guarded(lambda: self.r.hgetall(self._key(room.code, "lost_minutes")))
        return {int(k): n for k, n in _int_map(stored).items() if k.isdigit()}

    def _put_record(self, room, question_no, text):
        key = self._key(room.code, "report")

        def put():
            pipe = self.r.pipeline()
            pipe.hset(key, str(question_no), text)
            pipe.expireat(key, self._expires(room))
            pipe.execute()

        self._guarded(put)

    def _records(self, room):
        stored = self._guarded(lambda: self.r.hgetall(self._key(room.code, "report")))
        return {k.decode(): v.decode("utf-8", "replace") for k, v in stored.items()}
