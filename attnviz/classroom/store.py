"""The rules of rooms: one interface, ``RoomStore``, over any backend.

``RoomStore`` holds every rule (who may change a room, the limits, the messages); a backend
gives it a few primitives on its own data: the in-process ``memory_store.MemoryStore`` (one
lock, for one server, as on Streamlit Community Cloud) and ``redis_store.RedisStore`` (several
replicas). The same contract tests run against both (tests/test_classroom_store.py).

    store.open(settings_query, sid, address, passphrase) -> (room, key)   the lecturer
    store.push_example / push_question / reveal / close(code, key, ...)   only with the key
    store.join(code, sid, address), store.answer(code, sid, option)       a student
    store.lock / set_class_size / keep_answered / recent_joins   the room's size (joins.py)
    store.room(code), store.version(code), store.tally(code), store.my_answer(code, sid)
    and the rounds of peer instruction (peer_store.PeerRules: end_round, discuss, twin ...)
    store.record / successor / reopen / poll / phones_now    an ended room (lifecycle.py)
    store.held / take_link / trust_deck                      the lecturer's browser (lecturers.py)

``sid`` is a browser's random id (ui/visitor.py), ``address`` the client's address; ``option``
an index into the current question's options. A room ends after its lifetime, or sooner when
idle; rooms are bounded per store and per network (bounds.py).
"""

import time
from dataclasses import dataclass

from attnviz.classroom import rounds as peer_rounds
from attnviz.classroom.bounds import owner_of
from attnviz.classroom.joins import Joins
from attnviz.classroom.lecturers import Lecturers
from attnviz.classroom.lifecycle import Lifecycle
from attnviz.classroom.peer_store import PeerRules
from attnviz.classroom.room import (
    CODE_PROBLEM,
    NotAnsweringError,
    RateLimitedError,
    RoomClosedError,
    RoomError,
    TooManyRoomsError,
    WrongKeyError,
    answers_closed,
    check_sid,
    normal_code,
    not_found,
    opened_room,
)
from attnviz.classroom.sketch import is_sketch
from attnviz.limits import (
    MAX_ANSWERS_PER_MINUTE,
    MAX_OPENS_PER_ADDRESS,
    MAX_OPENS_PER_MINUTE,
)

RATE_WINDOW_SECONDS = 60


@dataclass(frozen=True)
class Tally:
    """How the class has answered the current question's round: ``counts`` (n_options,) students per
    option, ``answered`` their sum (a sketch question: the phones that sketched), ``students``
    how many have joined the room."""

    counts: tuple
    answered: int
    students: int


class RoomStore(PeerRules, Lifecycle, Lecturers, Joins):
    """The rules of rooms, over a backend's primitives (the methods that start with ``_``)."""

    in_process = False  # whether the rooms live in this server's memory (a restart ends them)

    clock = staticmethod(time.time)

    # -- what a backend gives ---------------------------------------------------------------
    # A room's end is its lifetime's or its idle end (bounds.py): a backend keeps when each room
    # was last active and whether anyone joined; a join, an answer and a change mark it active.
    def _get(self, code):  # the open or closed Room under code, or None (none, or ended)
        raise NotImplementedError

    def _create(self, room):  # store a new room (its owner: bounds.owner_of); False if the
        # code is taken; bounds.check_caps's TooManyRoomsError; a full store first ends the
        # bounds.oldest_unjoined room (expires now, evicted)
        raise NotImplementedError

    def _update(self, code, change):  # atomically room -> change(room), marked active; the new
        raise NotImplementedError  # Room; a closed or ended one leaves every cap

    def _add_student(self, room, sid, most, network, burst):  # joins.py: AGAIN (already in),
        # else FULL at ``most`` students, BURST when ``burst`` new students came from
        # ``network`` in the last JOIN_WINDOW_SECONDS, else JOINED (logged with ``network``);
        # marked active unless refused
        raise NotImplementedError

    def _joins(self, room, since):  # the networks of the new students since ``since``, one a
        raise NotImplementedError  # student

    def _keep_students(self, room, sids):  # the students not in ``sids`` leave; how many
        raise NotImplementedError

    def _sketchers(self, room):  # the browsers that sketched the current question
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

    def open(self, settings_query, sid, address="unknown", passphrase=None, hold=True):
        """(a new room showing the example ``settings_query``, the lecturer's key); browser
        ``sid`` holds it when ``hold`` (lecturers.py: where the App's routes are not served).
        The staff ``passphrase``, when the store asks one (lecturers.py). Opens are limited per
        browser and per client network (bounds.network_of), and the rooms open at once per
        store and per network (bounds.check_caps), said in words."""
        self.check_passphrase(passphrase, address)
        network = owner_of(address)
        self.limit(f"open:{check_sid(sid)}", MAX_OPENS_PER_MINUTE, "rooms opened")
        self.limit(f"opens:{network}", MAX_OPENS_PER_ADDRESS, "rooms opened", "your network")
        for _ in range(8):  # 887 million codes: a collision is rare, eight in a row never
            key, nonce = self.minted_key()
            room = opened_room(settings_query, self.clock(), key, network)
            if self._create(room):
                if hold:
                    self.hold(room, nonce, sid)
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

    def answer(self, code, sid, option):
        """Session ``sid``'s answer to the current question: ``option`` (int index); a new
        answer replaces the last one, until the reveal."""
        sid, room = self._students_room(code, sid)
        if room.kind is None or is_sketch(room.kind) or room.phase != "answering":
            raise NotAnsweringError(peer_rounds.not_answering(room))
        if not isinstance(option, int) or not 0 <= option < room.n_options:
            raise RoomError(f"An answer is one of the question's {room.n_options} options.")
        if not self._set_answer(room, sid, option):
            raise answers_closed("answers")

    def _students_room(self, code, sid):
        """(``sid`` checked, room ``code``) for a student's answer or sketch: counted against
        MAX_ANSWERS_PER_MINUTE, refused in words once the lecturer has ended the room."""
        sid = check_sid(sid)
        self.limit(f"answer:{sid}", MAX_ANSWERS_PER_MINUTE, "answers")
        room = self.room(code)
        if room.closed:
            raise RoomClosedError(f"Room {room.code} is closed: the lecturer has ended it.")
        return sid, room

    def my_answer(self, code, sid):
        """Session ``sid``'s answer (option index) to the current question, or None."""
        room = self.room(code)
        return None if room.kind is None else self._answer_of(room, check_sid(sid))

    def tally(self, code):
        """The current question's Tally."""
        room = self.room(code)
        counts = tuple(self._counts(room)) if room.kind is not None else ()
        answered = len(self._all_sketches(room)) if is_sketch(room.kind) else sum(counts)
        return Tally(counts, answered, self._n_students(room))

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
        """End the room: students see that it is closed; it takes no answers, and counts
        against no cap (bounds.py) from now on."""
        return self._change(code, key, lambda r: r.changed(phase="closed"))
