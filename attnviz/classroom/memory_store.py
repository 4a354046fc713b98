"""Rooms in this process's memory, behind one lock: the default store, for one server (as on
Streamlit Community Cloud). A restart ends every room. No Streamlit.

One record a room (``Kept``): the Room and everything kept beside it (its students, answers,
polls ...), so that a room's end drops its record's tables at once and a record past its keep
goes whole. Beside the rooms: the rate buckets and the rooms that browsers hold.
"""

import secrets
import threading
from collections import Counter
from dataclasses import dataclass, field, replace

from attnviz.classroom.bounds import as_now, check_caps, ends, oldest_unjoined
from attnviz.classroom.joins import AGAIN, BURST, FULL, JOINED
from attnviz.classroom.lifecycle import kept_until
from attnviz.classroom.peer_store import MemoryPeer
from attnviz.classroom.room import Room, not_found
from attnviz.classroom.sketch_store import MemorySketches
from attnviz.classroom.store import RATE_WINDOW_SECONDS, RoomStore
from attnviz.limits import (
    ENDED_ROOM_KEEP_SECONDS,
    JOIN_WINDOW_SECONDS,
    MAX_KEPT_ROOMS,
    MAX_ROOM_STUDENTS,
    MAX_ROOMS,
    MAX_ROOMS_PER_ADDRESS,
    PHONE_SEEN_SECONDS,
)


@dataclass
class Kept:
    """One room in the in-process store. ``active``: when it was last active, ``joined``:
    whether anyone has (bounds.py); ``joins`` [(when, network)] of its new students in the last
    JOIN_WINDOW_SECONDS; each per-question table is (question_no, {...}), dropped when the
    question changes; ``report`` {question_no: record text}; ``successor`` the code of the room
    reopened from it."""

    room: Room
    active: float
    joined: bool = False
    students: set = field(default_factory=set)
    joins: list = field(default_factory=list)
    answers: tuple = (None, {})  # {round_no: {sid: option}}
    confidence: tuple = (None, {})  # {round_no: {sid: level}}
    sketches: tuple = (None, {})  # {sid: levels}
    polled: dict = field(default_factory=dict)  # sid -> when it last polled
    lost_at: dict = field(default_factory=dict)  # sid -> its last counted "I'm lost"
    lost_min: dict = field(default_factory=dict)  # minute since it opened -> taps
    report: dict = field(default_factory=dict)
    successor: str | None = None

    def ended(self):
        """The room ended: it keeps only its record (and its successor)."""
        self.students, self.joins, self.polled = set(), [], {}
        self.answers = self.confidence = self.sketches = (None, {})
        self.lost_at, self.lost_min, self.report = {}, {}, {}

    def of_question(self, table, question_no):
        """What per-question ``table`` ("answers", "confidence", "sketches") holds for question
        ``question_no``: a new {} while it holds an earlier question's."""
        number, values = getattr(self, table)
        return values if number == question_no else {}

    def takes(self, room, sid):
        """Whether this room still takes browser ``sid``'s answer to the question of ``room``
        (the Room as the caller read it): still answering it, and ``sid`` has joined."""
        return (
            self.room.phase == "answering"
            and self.room.question_no == room.question_no
            and sid in self.students
        )


class MemoryStore(MemoryPeer, MemorySketches, RoomStore):
    """Rooms in this process's memory (module docstring). An ended room's record stays until
    lifecycle.kept_until, at most MAX_KEPT_ROOMS records."""

    in_process = True

    def __init__(self, clock=None):
        if clock is not None:
            self.clock = clock
        self._lock = threading.Lock()
        self._secret = secrets.token_hex(32)  # lecturer keys from nonces (lecturers.py)
        self._rooms = {}  # code -> Kept
        self._hits = {}  # bucket -> (minute, hits)
        self._held_by = {}  # browser -> (text, until): the room it holds (lecturers.py)

    def _now(self, kept, now):  # under the lock: the room as it stands (bounds.as_now)
        return as_now(kept.room, kept.active, kept.joined, now)

    def _open(self, code):  # under the lock: the Kept of an open or closed room, or None
        kept, now = self._rooms.get(code), self.clock()
        return kept if kept is not None and self._now(kept, now).expires > now else None

    def _touched(self, kept, joined=False):  # under the lock: the room was active now
        kept.active, kept.joined = self.clock(), kept.joined or joined

    def _purge(self, now):
        end = {c: ends(k.room, k.active, k.joined) for c, k in self._rooms.items()}
        for code in [c for c, e in end.items() if e <= now]:
            self._rooms[code].ended()
        gone = [c for c, e in end.items() if e + ENDED_ROOM_KEEP_SECONDS <= now]  # kept_until
        extra = len(end) - len(gone) - MAX_KEPT_ROOMS  # the oldest records go first
        if extra > 0:
            gone += sorted(end, key=end.get)[len(gone) : len(gone) + extra]
        for code in gone:
            self._rooms.pop(code, None)
        minute = int(now // RATE_WINDOW_SECONDS)
        self._held_by = {b: h for b, h in self._held_by.items() if h[1] > now}
        if len(self._hits) > 10_000:
            self._hits = {b: h for b, h in self._hits.items() if h[0] == minute}

    def _get(self, code):
        with self._lock:
            kept = self._open(code)
            return None if kept is None else self._now(kept, self.clock())

    def _create(self, room):
        with self._lock:
            now = self.clock()
            self._purge(now)
            if room.code in self._rooms:
                return False
            live = [
                k
                for k in self._rooms.values()
                if not k.room.closed and self._now(k, now).expires > now
            ]
            owned = [k for k in live if k.room.owner == room.owner]
            if len(live) >= MAX_ROOMS and len(owned) < MAX_ROOMS_PER_ADDRESS:
                found = [(k.room.code, k.room.opened, k.joined, k.room.owner) for k in live]
                victim = oldest_unjoined(found)
                if victim is not None:  # the store is full: it ends first
                    kept = self._rooms[victim]
                    kept.room = replace(kept.room, expires=now, evicted=True)
                    kept.ended()
                    live.remove(kept)
            pairs = [(ends(k.room, k.active, k.joined), k.room.expires) for k in live]
            mine = [(ends(k.room, k.active, k.joined), k.room.expires) for k in owned]
            check_caps(pairs, mine, now)
            self._rooms[room.code] = Kept(room, active=room.opened)
            return True

    def _update(self, code, change):
        with self._lock:
            kept = self._open(code)
            if kept is None:
                raise not_found(code)
            new = change(kept.room)
            new.to_json()  # the same bound as a shared store's
            kept.room = new
            self._touched(kept)
            return new

    def _add_student(self, room, sid, most, network, burst):
        with self._lock:
            kept = self._open(room.code)
            if kept is None:
                raise not_found(room.code)
            if sid in kept.students:
                self._touched(kept, joined=True)
                return AGAIN
            if len(kept.students) >= min(most, MAX_ROOM_STUDENTS):
                return FULL
            now = self.clock()
            kept.joins = [(t, n) for t, n in kept.joins if t > now - JOIN_WINDOW_SECONDS]
            if sum(n == network for _, n in kept.joins) >= burst:
                return BURST
            kept.students.add(sid)
            kept.joins.append((now, network))
            self._touched(kept, joined=True)
            return JOINED

    def _joins(self, room, since):
        with self._lock:
            kept = self._rooms.get(room.code)
            return [] if kept is None else [n for t, n in kept.joins if t >= since]

    def _keep_students(self, room, sids):
        with self._lock:
            kept = self._rooms.get(room.code)
            if kept is None:
                return 0
            before = len(kept.students)
            kept.students &= set(sids)
            return before - len(kept.students)

    def _n_students(self, room):
        with self._lock:
            kept = self._rooms.get(room.code)
            return 0 if kept is None else len(kept.students)

    def _set_answer(self, room, sid, option):
        with self._lock:
            kept = self._rooms.get(room.code)
            if (
                kept is None
                or not kept.takes(room, sid)
                or kept.room.peer.round_no != room.peer.round_no
            ):
                return False
            by_round = kept.of_question("answers", room.question_no)
            by_round.setdefault(room.peer.round_no, {})[sid] = option
            kept.answers = (room.question_no, by_round)
            self._touched(kept, joined=True)
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
            kept = self._rooms.get(code)
            room = None if kept is None else self._now(kept, self.clock())
            return room if room is not None and kept_until(room) > self.clock() else None

    def _successor(self, code):
        with self._lock:
            kept = self._rooms.get(code)
            return None if kept is None else kept.successor

    def _set_successor(self, room, code):
        with self._lock:
            kept = self._rooms.get(room.code)
            if kept is not None:
                kept.successor = code

    def _seen(self, room, sid, now):
        with self._lock:
            kept = self._rooms.get(room.code)
            if kept is None:
                return
            kept.polled[sid] = now
            if len(kept.polled) > MAX_ROOM_STUDENTS:  # bounded: only the recent ones count
                cutoff = now - PHONE_SEEN_SECONDS
                kept.polled = {s: t for s, t in kept.polled.items() if t >= cutoff}

    def _n_seen(self, room, since):
        with self._lock:
            kept = self._rooms.get(room.code)
            return 0 if kept is None else sum(t >= since for t in kept.polled.values())
