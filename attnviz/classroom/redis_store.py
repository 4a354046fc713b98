"""Rooms in Redis, shared by several replicas of the app (``ATTNVIZ_REDIS_URL``).

Keys, under ``attnviz:`` (every one expires when its room ends, ROOM_LIFETIME_SECONDS after it
opened, but the room's record and successor, kept ENDED_ROOM_KEEP_SECONDS longer; a rate bucket
after its minute):

    room:{code}                    the Room as JSON (room.Room.to_json), signed with the replicas'
                                   shared secret (sealed.py): one key, one GET a poll;
                                   past room.expires, the ended room's record (lifecycle.py)
    room:{code}:next               the code of the room its lecturer reopened from it
    room:{code}:active             when the room was last active (a join, an answer, a change
                                   of the lecturer's), seconds since the epoch, and
    room:{code}:joined             "1" once anyone has joined: its idle end (bounds.py), both
                                   kept as long as its record, read with it in one MGET
    room:{code}:seen               a sorted set sid -> when it last polled (the last few seconds)
    room:{code}:answering          the question and round taking answers ("4.2",
                                   rounds.answer_slot); absent otherwise
    room:{code}:students           a set of session ids
    room:{code}:joins              a sorted set "network|sid" -> when, of the new students of
                                   the last JOIN_WINDOW_SECONDS (joins.py; network a digest)
    room:{code}:q{n}r{r}:answers   a hash sid -> option: one answer per student per round
    room:{code}:q{n}r{r}:counts    a hash option -> students (HINCRBY)
    room:{code}:q{n}r{r}:confidence, :lost, :lost_minutes, :report   peer_redis.py
    room:{code}:q{n}:sketches      a hash sid -> "0,5,1,2": "sketch the row" (RedisSketches)
    rooms                          a sorted set code -> when its lifetime ends (to bound the
                                   rooms: open ones only; a room closed, or ended early, leaves
                                   it at once, a room found ended by idleness when next read)
    owner:{digest}                 the same, of the rooms opened from one client network
                                   (bounds.owner_of: a digest, never the address)
    ping                           the health panel's probe write (``ping``), gone in a minute
    rate:{bucket}:{minute}         hits in that minute (INCR)
    lecturer:{browser}             the room a browser's lecturer holds, JSON with the nonce of
                                   its key, never the key (lecturers.py), expiring with the
                                   room's record

An answer and a join are each one Lua script, so they are atomic: a new answer moves its
student's count from the old option to the new one, and only while the question takes answers;
a join admits a browser already in the room, else at most ``most`` students and a network's
burst (joins.py); each marks the room active in the same script. The
lecturer's changes are WATCH/MULTI transactions on the room's key. Every method raises the
store's own errors in words, never redis's (redis_errors.py): a lost connection
StoreUnavailableError, a change Redis refuses (out of memory, read-only) StoreRefusedError. A
refused change changes nothing: Redis refuses a Lua script at its first write and discards a
MULTI whole, so what is stored is kept.
"""

import contextlib
import os
from dataclasses import replace

import redis

from attnviz.classroom.bounds import as_now, check_caps, lifetime_or_idle_end, oldest_unjoined
from attnviz.classroom.lifecycle import kept_until
from attnviz.classroom.peer_redis import RedisPeer, question_keys
from attnviz.classroom.redis_errors import plain_errors
from attnviz.classroom.room import Room, RoomNotFoundError, StoreUnavailableError, not_found
from attnviz.classroom.rounds import answer_slot
from attnviz.classroom.sealed import SECRET_VARIABLE, seal, secret_problem, unseal
from attnviz.classroom.sketch_redis import RedisSketches
from attnviz.classroom.store import RATE_WINDOW_SECONDS, RoomStore
from attnviz.limits import (
    JOIN_WINDOW_SECONDS,
    MAX_ROOM_STUDENTS,
    MAX_ROOMS,
    MAX_ROOMS_PER_ADDRESS,
    PHONE_SEEN_SECONDS,
    ROOM_LIFETIME_SECONDS,
)

PREFIX = "attnviz:"
TIMEOUT_SECONDS = 1.0  # a Redis that does not answer in 1 s is treated as unreachable

ANSWER = """
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return -1 end
if redis.call('SISMEMBER', KEYS[4], ARGV[1]) == 0 then return -1 end
redis.call('SET', KEYS[5], ARGV[5], 'EXAT', ARGV[6])
local previous = redis.call('HGET', KEYS[2], ARGV[1])
if previous == ARGV[3] then return 1 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('HINCRBY', KEYS[3], ARGV[3], 1)
if previous then redis.call('HINCRBY', KEYS[3], previous, -1) end
redis.call('EXPIREAT', KEYS[2], ARGV[4])
redis.call('EXPIREAT', KEYS[3], ARGV[4])
return 1
"""  # KEYS: answering, answers, counts, students, active; ARGV: sid, answer slot, option,
#     expires, now, the record's end (lifecycle.kept_until)

JOIN = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then
  redis.call('SET', KEYS[2], ARGV[4], 'EXAT', ARGV[5])
  return 1
end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
local prefix, n = ARGV[6] .. '|', 0
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '(' .. ARGV[8], '+inf')) do
  if string.sub(member, 1, #prefix) == prefix then n = n + 1 end
end
if n >= tonumber(ARGV[7]) then return -2 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('EXPIREAT', KEYS[1], ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', ARGV[8])
redis.call('ZADD', KEYS[4], ARGV[4], prefix .. ARGV[1])
redis.call('EXPIREAT', KEYS[4], ARGV[3])
redis.call('SET', KEYS[2], ARGV[4], 'EXAT', ARGV[5])
redis.call('SET', KEYS[3], '1', 'EXAT', ARGV[5])
return 2
"""  # KEYS: students, active, joined, joins; ARGV: sid, most students, expires, now, the
#     record's end, network, burst, the window's start (joins.py: AGAIN 1, JOINED 2, FULL 0,
#     BURST -2). Its first write is SADD, which Redis refuses when out of memory: a script
#     that wrote once runs to its end, so nothing may write before it


class RedisStore(RedisPeer, RedisSketches, RoomStore):
    """Rooms in the Redis at ``url`` (``redis://host:port/db``), or in ``client`` (e.g. a
    fakeredis.FakeRedis in the fast tests), signed with ``secret`` (else ATTNVIZ_SECRET's):
    StoreUnavailableError, in words, when there is none."""

    def __init__(self, url=None, client=None, clock=None, secret=None):
        secret = os.environ.get(SECRET_VARIABLE, "") if secret is None else secret
        problem = secret_problem(secret)
        if problem:
            raise StoreUnavailableError(problem)
        self._secret = secret
        if clock is not None:
            self.clock = clock
        self.r = client or redis.Redis.from_url(
            url,
            socket_timeout=TIMEOUT_SECONDS,
            socket_connect_timeout=TIMEOUT_SECONDS,
            health_check_interval=30,
        )
        self._answer = self.r.register_script(ANSWER)
        self._join = self.r.register_script(JOIN)
        self._register_peer_scripts()

    def _key(self, code, *parts):
        return PREFIX + ":".join(("room", code, *parts))

    def _sealed(self, room):
        """The Room's JSON, signed with the replicas' secret (sealed.py)."""
        return seal(self._secret, room.to_json())

    @plain_errors
    def _guarded(self, call):
        """``call()``, redis's errors raised in words (``plain_errors``; peer_redis.py)."""
        return call()

    @plain_errors
    def ping(self):
        """A small write (``ping``, gone in a minute): StoreUnavailableError when Redis cannot
        be reached, StoreRefusedError when it answers but refuses writes."""
        self.r.set(PREFIX + "ping", 1, ex=60)

    def _activity(self, code):
        """The keys of room ``code``'s last activity and whether anyone joined (bounds.py)."""
        return self._key(code, "active"), self._key(code, "joined")

    def _read_room(self, code, stored, now):
        """The Room in MGET's (room, active, joined) as it stands at ``now``, or None when
        absent, damaged, not signed with the replicas' secret (sealed.py), or another code's."""
        value, active, joined = stored
        text = None if value is None else unseal(self._secret, value.decode("utf-8", "replace"))
        room = None if text is None else Room.from_json(text)
        if room is None or room.code != code:
            return None
        return as_now(room, _seconds(active), joined is not None, now)

    @plain_errors
    def _get(self, code):
        stored = self.r.mget(self._key(code), *self._activity(code))
        room = self._read_room(code, stored, self.clock())
        return room if room is not None and room.expires > self.clock() else None

    @plain_errors
    def _open_ends(self, index, now):
        """(when it ends if idle, when its lifetime ends, code, whether anyone joined) of each
        open room in the sorted set ``index`` (code -> lifetime's end); the rooms ended by
        idleness leave it."""
        listed = self.r.zrangebyscore(index, now, "+inf", withscores=True)
        keys = [k for code, _ in listed for k in self._activity(code.decode())]
        stored = self.r.mget(keys) if keys else []
        found, ended = [], []
        for k, (code, lifetime) in enumerate(listed):
            joined = stored[2 * k + 1] is not None
            end = lifetime_or_idle_end(lifetime, _seconds(stored[2 * k]), joined)
            if end > now:
                found.append((end, lifetime, code.decode(), joined))
            else:
                ended.append(code)
        if ended:
            self.r.zrem(index, *ended)
        return found

    @plain_errors
    def _owners(self, codes):
        """The owner (bounds.owner_of) of each room in ``codes``, "" when unreadable."""
        stored = self.r.mget([self._key(code) for code in codes]) if codes else []
        rooms = [self._read_room(c, (v, None, None), 0) for c, v in zip(codes, stored, strict=True)]
        return [room.owner if room is not None else "" for room in rooms]

    def _evict(self, code, now):
        """End open room ``code`` now, to make room (bounds.oldest_unjoined)."""
        with contextlib.suppress(RoomNotFoundError):  # it ended meanwhile: room enough
            self._update(code, lambda r: replace(r, expires=now, evicted=True))

    @plain_errors
    def _create(self, room):
        now, rooms, owned = self.clock(), PREFIX + "rooms", f"{PREFIX}owner:{room.owner}"
        for index in (rooms, owned):
            self.r.zremrangebyscore(index, "-inf", now)
        mine = self._open_ends(owned, now)
        live = self._open_ends(rooms, now) if self.r.zcard(rooms) >= MAX_ROOMS else []
        if len(live) >= MAX_ROOMS and len(mine) < MAX_ROOMS_PER_ADDRESS:
            owners = self._owners([code for _, _, code, _ in live])
            found = [
                (code, end - ROOM_LIFETIME_SECONDS, joined, owner)
                for (_, end, code, joined), owner in zip(live, owners, strict=True)
            ]
            victim = oldest_unjoined(found)
            if victim is not None:  # the store is full: it ends first
                self._evict(victim, now)
                live = [entry for entry in live if entry[2] != victim]
        check_caps([e[:2] for e in live], [e[:2] for e in mine], now, "The shared store")
        keep = int(kept_until(room)) + 1
        record = self._key(room.code)
        if not self.r.set(record, self._sealed(room), nx=True, exat=keep):
            return False
        pipe = self.r.pipeline()
        pipe.set(self._activity(room.code)[0], repr(room.opened), exat=keep)
        for index in (rooms, owned):
            pipe.zadd(index, {room.code: room.expires})
            pipe.expireat(index, int(room.expires) + 1)
        pipe.execute()
        return True

    @plain_errors
    def _update(self, code, change):
        key = self._key(code)
        with self.r.pipeline() as pipe:
            while True:
                try:
                    pipe.watch(key)
                    stored = pipe.mget(key, *self._activity(code))
                    now = self.clock()
                    room = self._read_room(code, stored, now)
                    if room is None or room.expires <= now:
                        raise not_found(code)
                    new = change(room)
                    expires, keep = int(room.expires) + 1, int(kept_until(room)) + 1
                    pipe.multi()
                    pipe.set(key, self._sealed(new), exat=keep)
                    pipe.set(self._activity(code)[0], repr(now), exat=keep)
                    answering = self._key(code, "answering")
                    if new.phase == "answering" and new.kind is not None:
                        pipe.set(answering, answer_slot(new), exat=expires)
                    else:
                        pipe.delete(answering)
                    if new.closed or new.expires <= now:  # it leaves every cap at once
                        pipe.zrem(PREFIX + "rooms", code)
                        pipe.zrem(f"{PREFIX}owner:{new.owner}", code)
                    if new.question_no != room.question_no:  # the last answers are not needed
                        pipe.delete(*question_keys(self, code, room.question_no))
                        pipe.delete(self.sketches_key(code, room.question_no))
                    pipe.execute()
                    return new
                except redis.WatchError:
                    continue

    @plain_errors
    def _add_student(self, room, sid, most, network, burst):
        keys = [self._key(room.code, "students"), *self._activity(room.code)]
        keys.append(self._key(room.code, "joins"))
        now = self.clock()
        args = [sid, min(most, MAX_ROOM_STUDENTS), int(room.expires) + 1, repr(now)]
        args += [int(kept_until(room)) + 1, network, burst, repr(now - JOIN_WINDOW_SECONDS)]
        return int(self._join(keys=keys, args=args))

    @plain_errors
    def _joins(self, room, since):
        stored = self.r.zrangebyscore(self._key(room.code, "joins"), since, "+inf")
        return [member.decode("utf-8", "replace").split("|", 1)[0] for member in stored]

    @plain_errors
    def _keep_students(self, room, sids):
        key = self._key(room.code, "students")
        gone = [sid for sid in self.r.smembers(key) if sid.decode("utf-8", "replace") not in sids]
        if gone:
            self.r.srem(key, *gone)
        return len(gone)

    @plain_errors
    def _n_students(self, room):
        return int(self.r.scard(self._key(room.code, "students")))

    def _question_keys(self, room, round_no=None):
        """(answers, counts) keys of the room's current round (or of round ``round_no``)."""
        q = f"q{room.question_no}r{round_no or room.peer.round_no}"
        return self._key(room.code, q, "answers"), self._key(room.code, q, "counts")

    @plain_errors
    def _set_answer(self, room, sid, option):
        answers, counts = self._question_keys(room)
        keys = [self._key(room.code, "answering"), answers, counts]
        keys += [self._key(room.code, "students"), self._activity(room.code)[0]]
        args = [sid, answer_slot(room), option, int(room.expires) + 1]
        args += [repr(self.clock()), int(kept_until(room)) + 1]
        return self._answer(keys=keys, args=args) == 1

    @plain_errors
    def _answer_of(self, room, sid):
        value = self.r.hget(self._question_keys(room)[0], sid)
        try:
            option = int(value)
        except (TypeError, ValueError):
            return None
        return option if 0 <= option < room.n_options else None

    @plain_errors
    def _counts(self, room):
        stored = self.r.hgetall(self._question_keys(room)[1])
        counts = [0] * room.n_options
        for option, count in stored.items():
            try:
                k, n = int(option), int(count)
            except ValueError:
                continue
            if 0 <= k < room.n_options:
                counts[k] = max(n, 0)
        return counts

    @plain_errors
    def _hit(self, bucket):
        minute = int(self.clock() // RATE_WINDOW_SECONDS)
        key = f"{PREFIX}rate:{bucket}:{minute}"
        pipe = self.r.pipeline()
        pipe.incr(key)
        pipe.expire(key, RATE_WINDOW_SECONDS * 2)
        return int(pipe.execute()[0])

    @plain_errors
    def _peek(self, bucket):
        minute = int(self.clock() // RATE_WINDOW_SECONDS)
        return int(self.r.get(f"{PREFIX}rate:{bucket}:{minute}") or 0)

    @plain_errors
    def _held(self, browser):
        text = self.r.get(f"{PREFIX}lecturer:{browser}")
        return None if text is None else text.decode("utf-8", "replace")

    @plain_errors
    def _set_held(self, browser, text, until):
        self.r.set(f"{PREFIX}lecturer:{browser}", text, exat=int(until) + 1)

    @plain_errors
    def _record(self, code):
        stored = self.r.mget(self._key(code), *self._activity(code))
        room = self._read_room(code, stored, self.clock())  # an idle room's record ends sooner
        return room if room is not None and kept_until(room) > self.clock() else None

    @plain_errors
    def _successor(self, code):
        value = self.r.get(self._key(code, "next"))
        return None if value is None else value.decode("ascii", "replace")

    @plain_errors
    def _set_successor(self, room, code):
        self.r.set(self._key(room.code, "next"), code, exat=int(kept_until(room)) + 1)

    @plain_errors
    def _seen(self, room, sid, now):
        key = self._key(room.code, "seen")
        pipe = self.r.pipeline(transaction=False)
        pipe.zadd(key, {sid: now})
        pipe.zremrangebyscore(key, "-inf", now - PHONE_SEEN_SECONDS)  # bounded: the recent
        pipe.expireat(key, int(room.expires) + 1)
        pipe.execute()

    @plain_errors
    def _n_seen(self, room, since):
        return int(self.r.zcount(self._key(room.code, "seen"), since, "+inf"))


def _seconds(value):
    """A stored timestamp (bytes) as seconds since the epoch, or None when absent or damaged."""
    try:
        return None if value is None else float(value)
    except ValueError:
        return None
