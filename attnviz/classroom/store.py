"""Where rooms live: one interface, ``RoomStore``, and the in-process store (the default).

``RoomStore`` holds every rule (who may change a room, the limits, the messages); a backend
gives it a few primitives on its own data: the in-process ``MemoryStore`` below (one lock, for
one server, as on Streamlit Community Cloud) and ``redis_store.RedisStore`` (several replicas).
The same contract tests run against both (tests/test_classroom_store.py).

    store.open(settings_query, sid, address) -> (room, key)   the lecturer
    store.push_example / push_question / reveal / close(code, key, ...)   only with the key
    store.join(code, sid, address), store.answer(code, sid, option)       a student
    store.room(code), store.version(code), store.tally(code), store.my_answer(code, sid)
    and the rounds of peer instruction (peer_store.PeerRules: end_round, discuss, twin ...)
    store.record / successor / reopen / poll / phones_now    an ended room (lifecycle.py)
    store.held / take_link / trust_deck                      the lecturer's browser (lecturers.py)

``sid`` is a browser's random id (ui/visitor.py), ``address`` the client's address; ``option``
an index into the current question's options. A room ends after its lifetime, or sooner when
idle; rooms are bounded per store and per address (bounds.py).
"""

import threading
import time
from collections import Counter
from dataclasses import dataclass

from attnviz.classroom import rounds as peer_rounds
from attnviz.classroom.bounds import as_now, check_caps, ends, owner_of
from attnviz.classroom.lecturers import Lecturers
from attnviz.classroom.lifecycle import Lifecycle, kept_until
from attnviz.classroom.peer_store import MemoryPeer, PeerRules
from attnviz.classroom.room import (
    CODE_PROBLEM,
    NotAnsweringError,
    RateLimitedError,
    RoomClosedError,
    RoomError,
    RoomFullError,
    RoomNotFoundError,
    TooManyRoomsError,
    WrongKeyError,
    check_sid,
    normal_code,
    not_found,
    opened_room,
)
from attnviz.classroom.sketch import is_sketch
from attnviz.classroom.sketch_store import MemorySketches
from attnviz.limits import (
    ENDED_ROOM_KEEP_SECONDS,
    MAX_ANSWERS_PER_MINUTE,
    MAX_JOINS_PER_MINUTE,
    MAX_KEPT_ROOMS,
    MAX_OPENS_PER_ADDRESS,
    MAX_OPENS_PER_MINUTE,
    MAX_ROOM_STUDENTS,
    PHONE_SEEN_SECONDS,
)

RATE_WINDOW_SECONDS = 60


@dataclass(frozen=True)
class Tally:
    """How the class has answered the current question's round: ``counts`` (n_options,) students per
    option, ``answered`` their sum, ``students`` how many have joined the room."""

    counts: tuple
    answered: int
    students: int


class RoomStore(PeerRules, Lifecycle, Lecturers):
    """The rules of rooms, over a backend's primitives (the methods that start with ``_``)."""

    in_process = False  # whether the rooms live in this server's memory (a restart ends them)

    clock = staticmethod(time.time)

    # -- what a backend gives ---------------------------------------------------------------
    # A room's end is its lifetime's or its idle end (bounds.py): a backend keeps when each room
    # was last active and whether anyone joined; a join, an answer and a change mark it active.
    def _get(self, code):  # the open or closed Room under code, or None (none, or ended)
        raise NotImplementedError

    def _create(self, room, owner):  # store a new room opened by owner (bounds.owner_of);
        # False if the code is taken; bounds.check_caps's TooManyRoomsError
        raise NotImplementedError

    def _update(self, code, change):  # atomically room -> change(room), marked active; the new
        raise NotImplementedError  # Room

    def _add_student(self, room, sid):  # join, marked active; False when the room is full
        raise NotImplementedError

    def _n_students(self, room):
        raise NotImplementedError

    def _set_answer(self, room, sid, option):  # False unless the round takes answers; active
        raise NotImplementedError

    def _answer_of(self, room, sid):
        raise NotImplementedError

    def _counts(self, room):  # (n_options,) ints
        raise NotImplementedError

    def _hit(self, bucket):  # count this hit; the hits in the bucket's current minute
        raise NotImplementedError

    def _peek(self, bucket):  # the hits in the bucket's current minute, none counted
        raise NotImplementedError

    def _held(self, browser):  # the text that _set_held keeps for browser, or None
        raise NotImplementedError

    def _set_held(self, browser, text, until):  # keep text for browser until (epoch seconds)
        raise NotImplementedError

    # an ended room (lifecycle.py): its record is kept until lifecycle.kept_until(room)
    def _record(self, code):  # the Room as it stands (bounds.as_now), open or ended, or None
        raise NotImplementedError

    def _successor(self, code):  # the code of the room reopened from it, or None
        raise NotImplementedError

    def _set_successor(self, room, code):  # room (ended or closed) -> the reopened ``code``
        raise NotImplementedError

    def _seen(self, room, sid, now):  # session sid polled the room at now
        raise NotImplementedError

    def _n_seen(self, room, since):  # sessions that polled the room since ``since``
        raise NotImplementedError

    def ping(self):
        """Raise StoreUnavailableError when the store cannot be reached, StoreRefusedError when
        it refuses to save a change (Redis: out of memory, read-only)."""

    # -- the rules --------------------------------------------------------------------------
    def limit(self, bucket, most, what, who="this browser"):
        """Count a hit on ``bucket``; RateLimitedError past ``most`` in a minute."""
        if self._hit(bucket) > most:
            raise RateLimitedError(
                f"Too many {what} from {who}: at most {most} a minute. Wait a minute, then try "
                "again."
            )

    def open(self, settings_query, sid, address="unknown", hold=True):
        """(a new room showing the example ``settings_query``, the lecturer's key); browser
        ``sid`` holds it when ``hold`` (lecturers.py). Opens are limited per browser and per
        client ``address``, and the rooms open at once per store and per address
        (bounds.check_caps), said in words."""
        self.limit(f"open:{check_sid(sid)}", MAX_OPENS_PER_MINUTE, "rooms opened")
        self.limit(f"opens:{address}", MAX_OPENS_PER_ADDRESS, "rooms opened", "your network")
        for _ in range(8):  # 887 million codes: a collision is rare, eight in a row never
            room, key = opened_room(settings_query, self.clock())
            if self._create(room, owner_of(address)):
                if hold:
                    self.hold(room, key, sid)
                return room, key
        raise TooManyRoomsError("No free room code was found: try again.")  # pragma: no cover

    def room(self, code):
        """The Room under ``code`` (typed or from a link), open or closed; RoomError if the
        text is no code, RoomNotFoundError if no room has it."""
        normal = normal_code(code)
        if normal is None:
            raise RoomError(CODE_PROBLEM)
        room = self._get(normal)
        if room is None:
            raise not_found(normal)
        return room

    def version(self, code):
        """The room's version number: the phones poll it."""
        return self.room(code).version

    def join(self, code, sid, address="unknown"):
        """Let browser ``sid`` into the room (again is fine); the Room. Joins are counted per
        browser, and codes that are no room per ``address``, so guessing codes is slowed; a
        closed or full room says so."""
        sid = check_sid(sid)
        self.limit(f"join:{sid}", MAX_JOINS_PER_MINUTE, "attempts to join a room")
        self.check_guesses(address)
        try:
            room = self.room(code)
        except RoomNotFoundError:
            self.count_guess(address)
            raise
        if room.closed:
            raise RoomClosedError(f"Room {room.code} is closed: the lecturer has ended it.")
        if not self._add_student(room, sid):
            raise RoomFullError(
                f"Room {room.code} is full: it has {MAX_ROOM_STUDENTS} students, the most a "
                "room takes. Ask the lecturer to open a second room."
            )
        return room

    def answer(self, code, sid, option):
        """Session ``sid``'s answer to the current question: ``option`` (int index); a new
        answer replaces the last one, until the reveal."""
        sid = check_sid(sid)
        self.limit(f"answer:{sid}", MAX_ANSWERS_PER_MINUTE, "answers")
        room = self.room(code)
        if room.closed:
            raise RoomClosedError(f"Room {room.code} is closed: the lecturer has ended it.")
        if room.kind is None or is_sketch(room.kind) or room.phase != "answering":
            raise NotAnsweringError(peer_rounds.not_answering(room))
        if not isinstance(option, int) or not 0 <= option < room.n_options:
            raise RoomError(f"An answer is one of the question's {room.n_options} options.")
        if not self._set_answer(room, sid, option):
            raise NotAnsweringError(
                "The answers are closed for this question (it was revealed, or the lecturer "
                "moved on), or you have not joined this room."
            )

    def my_answer(self, code, sid):
        """Session ``sid``'s answer (option index) to the current question, or None."""
        room = self.room(code)
        return None if room.kind is None else self._answer_of(room, check_sid(sid))

    def tally(self, code):
        """The current question's Tally."""
        room = self.room(code)
        counts = tuple(self._counts(room)) if room.kind is not None else ()
        return Tally(counts, sum(counts), self._n_students(room))

    def _change(self, code, key, change):
        """Apply ``change`` (Room -> Room) with the lecturer's ``key``; the new Room."""
        room = self.room(code)
        if not room.key_matches(key):
            raise WrongKeyError(
                f"That is not the lecturer's key of room {room.code}: only the lecturer's link "
                "can change the room."
            )
        if room.closed:
            raise RoomClosedError(f"Room {room.code} is closed: open a new room.")
        return self._update(room.code, change)

    def push_example(self, code, key, settings_query):
        """Show the example ``settings_query`` (links.shared.settings_query's mapping) on every
        phone; the question is cleared (it was computed on the old example)."""
        settings = tuple(sorted((str(k), str(v)) for k, v in dict(settings_query).items()))
        self._keep_before_change(code, key)
        return self._change(
            code,
            key,
            lambda r: r.changed(settings=settings, kind=None, n_options=0, phase="answering"),
        )

    def push_question(self, code, key, quiz_seed, kind, n_options, rounds=1, right=-1):
        """Ask question ``kind`` of question set ``quiz_seed`` on the room's example: a new
        question number, round 1's answers open. ``rounds``: 1 (one vote) or 2 (vote, discuss,
        revote: rounds.py); ``right``: the right option, for the report (-1: not said)."""
        if not 2 <= int(n_options) <= 64:
            raise RoomError("A question has 2 to 64 options.")
        self._keep_before_change(code, key)
        return self._change(
            code, key, lambda r: peer_rounds.asked(r, quiz_seed, kind, n_options, rounds, right)
        )

    def _keep_before_change(self, code, key):
        """The current question's numbers into the report, when the lecturer moves on."""
        room = self.room(code)
        if room.key_matches(key) and not room.closed:
            self.keep_record(room)

    def reveal(self, code, key):
        """Close the answers and show everyone the class's distribution and the answer."""
        return self._change(code, key, peer_rounds.revealed)

    def close(self, code, key):
        """End the room: students see that it is closed; it takes no answers."""
        return self._change(code, key, lambda r: r.changed(phase="closed"))


class MemoryStore(MemoryPeer, MemorySketches, RoomStore):
    """Rooms in this process's memory, behind one lock: the default, for one server. An ended
    room's record stays in ``_rooms`` until lifecycle.kept_until (at most MAX_KEPT_ROOMS), with
    its ``_active`` and ``_owner`` entries."""

    in_process = True

    def __init__(self, clock=None):
        if clock is not None:
            self.clock = clock
        self._lock = threading.Lock()
        self._rooms = {}  # code -> Room
        self._students = {}  # code -> {sid}
        self._answers = {}  # code -> (question_no, {round_no: {sid: option}})
        self._sketches = {}  # code -> (question_no, {sid: levels}): sketch_store
        self._hits = {}  # bucket -> (minute, hits)
        self._next = {}  # code -> the code of the room reopened from it
        self._polled = {}  # code -> {sid: when it last polled}, the last PHONE_SEEN_SECONDS
        self._held_by = {}  # browser -> (text, until): the room it holds (lecturers.py)
        self._active = {}  # code -> (when it was last active, whether anyone joined): bounds.py
        self._owner = {}  # code -> bounds.owner_of the address that opened it

    def _as_now(self, room, now):  # under the lock: the room as it stands (bounds.as_now)
        return as_now(room, *self._active.get(room.code, (None, False)), now)

    def _touched(self, code, joined=False):  # under the lock: room ``code`` was active now
        joined = joined or self._active.get(code, (None, False))[1]
        self._active[code] = (self.clock(), joined)

    def _purge(self, now):
        end = {c: ends(r, *self._active.get(c, (None, False))) for c, r in self._rooms.items()}
        for code in [c for c, e in end.items() if e <= now]:
            for table in (
                self._students,
                self._answers,
                self._sketches,
                self._polled,
                *self._peer_tables(),
            ):
                table.pop(code, None)  # an ended room keeps only its record
        gone = [c for c, e in end.items() if e + ENDED_ROOM_KEEP_SECONDS <= now]  # kept_until
        extra = len(end) - len(gone) - MAX_KEPT_ROOMS  # the oldest records go first
        if extra > 0:
            gone += sorted(end, key=end.get)[len(gone) : len(gone) + extra]
        for code in gone:
            for table in (self._rooms, self._next, self._active, self._owner):
                table.pop(code, None)
        minute = int(now // RATE_WINDOW_SECONDS)
        self._held_by = {b: h for b, h in self._held_by.items() if h[1] > now}
        if len(self._hits) > 10_000:
            self._hits = {b: h for b, h in self._hits.items() if h[0] == minute}

    def _get(self, code):
        with self._lock:
            room = self._rooms.get(code)
            room = None if room is None else self._as_now(room, self.clock())
            return room if room is not None and room.expires > self.clock() else None

    def _create(self, room, owner):
        with self._lock:
            now = self.clock()
            self._purge(now)
            if room.code in self._rooms:
                return False
            everyone, owned = [], []
            for code, stored in self._rooms.items():
                if self._as_now(stored, now).expires > now:
                    pair = (ends(stored, *self._active.get(code, (None, False))), stored.expires)
                    everyone.append(pair)
                    if self._owner.get(code) == owner:
                        owned.append(pair)
            check_caps(everyone, owned, now)
            self._rooms[room.code] = room
            self._students[room.code] = set()
            self._active[room.code] = (room.opened, False)
            self._owner[room.code] = owner
            return True

    def _update(self, code, change):
        with self._lock:
            room = self._rooms.get(code)
            if room is None or self._as_now(room, self.clock()).expires <= self.clock():
                raise not_found(code)
            new = change(room)
            new.to_json()  # the same bound as a shared store's
            self._rooms[code] = new
            self._touched(code)
            return new

    def _add_student(self, room, sid):
        with self._lock:
            students = self._students.setdefault(room.code, set())
            if sid not in students and len(students) >= MAX_ROOM_STUDENTS:
                return False
            students.add(sid)
            self._touched(room.code, joined=True)
            return True

    def _n_students(self, room):
        with self._lock:
            return len(self._students.get(room.code, ()))

    def _set_answer(self, room, sid, option):
        with self._lock:
            now = self._rooms.get(room.code)
            if (
                now is None
                or now.phase != "answering"
                or now.question_no != room.question_no
                or now.peer.round_no != room.peer.round_no
                or sid not in self._students.get(room.code, ())
            ):
                return False
            question_no, by_round = self._answers.get(room.code, (None, {}))
            if question_no != room.question_no:
                by_round = {}  # the last question's answers are no longer needed
            by_round.setdefault(room.peer.round_no, {})[sid] = option
            self._answers[room.code] = (room.question_no, by_round)
            self._touched(room.code, joined=True)
            return True

    def _answer_of(self, room, sid):
        return self._round_answers(room, room.peer.round_no).get(sid)

    def _counts(self, room):
        counted = Counter(self._round_answers(room, room.peer.round_no).values())
        return [counted.get(k, 0) for k in range(room.n_options)]

    def _hit(self, bucket):
        now = self.clock()
        minute = int(now // RATE_WINDOW_SECONDS)
        with self._lock:
            self._purge(now)
            start, hits = self._hits.get(bucket, (minute, 0))
            hits = hits + 1 if start == minute else 1
            self._hits[bucket] = (minute, hits)
            return hits

    def _peek(self, bucket):
        minute = int(self.clock() // RATE_WINDOW_SECONDS)
        with self._lock:
            start, hits = self._hits.get(bucket, (minute, 0))
            return hits if start == minute else 0

    def _held(self, browser):
        with self._lock:
            text, until = self._held_by.get(browser, (None, 0))
            return text if until > self.clock() else None

    def _set_held(self, browser, text, until):
        with self._lock:
            self._held_by[browser] = (text, until)

    def _record(self, code):
        with self._lock:
            room = self._rooms.get(code)
            room = None if room is None else self._as_now(room, self.clock())
            return room if room is not None and kept_until(room) > self.clock() else None

    def _successor(self, code):
        with self._lock:
            return self._next.get(code) if code in self._rooms else None

    def _set_successor(self, room, code):
        with self._lock:
            self._next[room.code] = code

    def _seen(self, room, sid, now):
        with self._lock:
            polled = self._polled.setdefault(room.code, {})
            polled[sid] = now
            if len(polled) > MAX_ROOM_STUDENTS:  # bounded: only the recent ones count
                cutoff = now - PHONE_SEEN_SECONDS
                self._polled[room.code] = {s: t for s, t in polled.items() if t >= cutoff}

    def _n_seen(self, room, since):
        with self._lock:
            return sum(t >= since for t in self._polled.get(room.code, {}).values())
