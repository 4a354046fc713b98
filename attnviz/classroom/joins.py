"""Who comes into a room: a student's join, and the lecturer's hold on the room's size. A mixin
of ``store.RoomStore``; no Streamlit.

    store.join(code, sid, address)        -> the Room: browser ``sid`` is in it (again is fine)
    store.lock(code, key, on)             the room takes no new student (or takes them again)
    store.set_class_size(code, key, n)    at most ``n`` students (0: MAX_ROOM_STUDENTS)
    store.keep_answered(code, key)        -> how many left: the students become those who
                                             answered the current question
    store.recent_joins(code, key)         -> Arrivals: new students in the last
                                             JOIN_WINDOW_SECONDS, from how many networks

The rules of a join, in order: a right code always joins (codes that were no room are counted
only on a miss, per browser and per network); a browser already in the room is never refused;
a closed room, a locked one, a full one (its class size, or MAX_ROOM_STUDENTS) takes no new
student; nor a network that brought MAX_NEW_STUDENTS_PER_NETWORK new students into the room in
the last JOIN_WINDOW_SECONDS (a script: the lecturer sees it in ``recent_joins``). A network is
``bounds.network_of`` (an IPv4 /24, an IPv6 /64), kept as a digest (``bounds.owner_of``).
"""

from collections import Counter
from dataclasses import dataclass, replace

from attnviz.classroom.bounds import owner_of
from attnviz.classroom.room import (
    RateLimitedError,
    RoomClosedError,
    RoomError,
    RoomFullError,
    RoomLockedError,
    RoomNotFoundError,
    check_sid,
)
from attnviz.classroom.sketch import is_sketch
from attnviz.limits import (
    JOIN_WINDOW_SECONDS,
    MAX_CODE_GUESSES_PER_ADDRESS,
    MAX_JOINS_PER_MINUTE,
    MAX_NEW_STUDENTS_PER_NETWORK,
    MAX_ROOM_STUDENTS,
    MAX_ROUNDS_PER_QUESTION,
)

# what a backend's _add_student says
FULL, AGAIN, JOINED, BURST = 0, 1, 2, -2


@dataclass(frozen=True)
class Arrivals:
    """New students in the last JOIN_WINDOW_SECONDS: ``students``, from ``networks`` networks,
    ``most`` of them from one network; ``burst``: that network reached
    MAX_NEW_STUDENTS_PER_NETWORK (more than a class brings: its further joins wait)."""

    students: int
    networks: int
    most: int
    limit: int = MAX_NEW_STUDENTS_PER_NETWORK  # the room's network_burst

    @property
    def burst(self):
        return self.most >= self.limit


def network_burst(room):
    """New students one network may bring into ``room`` in JOIN_WINDOW_SECONDS:
    MAX_NEW_STUDENTS_PER_NETWORK, or the class size its lecturer set when that is larger (a
    lecture hall whose phones all come through one NAT or one Wi-Fi network joins at once)."""
    return max(MAX_NEW_STUDENTS_PER_NETWORK, room.class_size or 0)


class Joins:
    """The rules of joining, over a backend's ``_add_student``, ``_joins``, ``_keep_students``
    and ``_sketchers`` (store.RoomStore documents them) and the rate buckets."""

    def join(self, code, sid, address="unknown"):
        """Let browser ``sid``, at client ``address``, into room ``code`` (again is fine); the
        Room. A refusal says why in words (module docstring)."""
        sid = check_sid(sid)
        network = owner_of(address)
        try:
            room = self.room(code)
        except RoomNotFoundError:
            self.count_miss(sid, network)
            raise
        if room.closed:
            raise RoomClosedError(f"Room {room.code} is closed: the lecturer has ended it.")
        most = 0 if room.locked else (room.class_size or MAX_ROOM_STUDENTS)
        burst = network_burst(room)
        said = self._add_student(room, sid, most, network, burst)
        if said == BURST:
            raise RateLimitedError(
                f"Room {room.code} has taken {burst} new students from "
                f"your network in the last {JOIN_WINDOW_SECONDS} seconds, the most it takes "
                "from one network: wait a minute, then join again."
            )
        if said == FULL:
            raise self._why_full(room)
        return room

    def _why_full(self, room):
        """The refusal of a new student: locked, at its class size, or at MAX_ROOM_STUDENTS."""
        if room.locked:
            return RoomLockedError(
                f"Room {room.code} takes no new students: the lecturer has locked it. Ask the "
                "lecturer if you belong in it."
            )
        if room.class_size:
            return RoomFullError(
                f"Room {room.code} is full: it has {room.class_size} students, the class size "
                "its lecturer set. Ask the lecturer."
            )
        return RoomFullError(
            f"Room {room.code} is full: it has {MAX_ROOM_STUDENTS} students, the most a room "
            "takes. Ask the lecturer to open a second room."
        )

    def count_miss(self, sid, network):
        """Count a room code that was no room, from browser ``sid`` at ``network`` (a digest);
        RateLimitedError past MAX_JOINS_PER_MINUTE from the browser or
        MAX_CODE_GUESSES_PER_ADDRESS from the network in this minute."""
        for bucket, most, who in (
            (f"join:{sid}", MAX_JOINS_PER_MINUTE, "this browser"),
            (f"guess:{network}", MAX_CODE_GUESSES_PER_ADDRESS, "this network"),
        ):
            if self._hit(bucket) > most:
                raise RateLimitedError(
                    f"Too many room codes that were no room from {who}: at most {most} a "
                    "minute. Check the code on the projector: the right code joins at once."
                )

    def lock(self, code, key, on=True):
        """Lock the room to new students (``on``), or open it to them again; the Room."""
        return self._change(code, key, lambda r: replace(r, locked=bool(on)))

    def set_class_size(self, code, key, size):
        """At most ``size`` students (int, 0 to MAX_ROOM_STUDENTS; 0: no cap of the
        lecturer's); the students already in stay. The Room."""
        if not isinstance(size, int) or not 0 <= size <= MAX_ROOM_STUDENTS:
            raise RoomError(
                f"A class size is a whole number from 0 (no cap) to {MAX_ROOM_STUDENTS}."
            )
        return self._change(code, key, lambda r: replace(r, class_size=size))

    def answered(self, room):
        """The browsers that answered ``room``'s current question, in any round (or sketched)."""
        if room.kind is None:
            return set()
        if is_sketch(room.kind):
            return set(self._sketchers(room))
        rounds = range(1, MAX_ROUNDS_PER_QUESTION + 1)
        return {sid for r in rounds for sid in self._round_answers(room, r)}

    def keep_answered(self, code, key):
        """The room's students become those who answered its current question (``answered``):
        the others leave it, and rejoin unless the room is locked. How many left."""
        room = self._lecturers(code, key)
        if room.closed:
            raise RoomClosedError(f"Room {room.code} is closed: open a new room.")
        if room.kind is None:
            raise RoomError("No question has been asked yet: nobody has answered.")
        return self._keep_students(room, self.answered(room))

    def recent_joins(self, code, key):
        """The room's Arrivals (the lecturer's view only)."""
        room = self._lecturers(code, key)
        networks = Counter(self._joins(room, self.clock() - JOIN_WINDOW_SECONDS))
        most = max(networks.values(), default=0)
        return Arrivals(sum(networks.values()), len(networks), most, network_burst(room))
