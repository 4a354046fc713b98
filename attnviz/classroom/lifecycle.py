"""A room's end and what follows it: the record an ended room leaves, the room its lecturer
reopens from it (with the same example and question), and the phones' poll, which follows
them there and tells who is connected now. A mixin of ``store.RoomStore``; no Streamlit.

    store.record(code)           -> the Room as last stored, open or ended (kept
                                    ENDED_ROOM_KEEP_SECONDS after it ends), or None
    store.successor(code)        -> the code of the room its lecturer reopened from it, or None
    store.reopen(code, key, sid, address, hold) -> (new room, new key): the same example and
                                    question, asked again; the ended room then names it as its
                                    successor (an open as any other: limited per address)
    store.poll(code, sid)        -> the room's version (and ``sid`` counts as connected,
                                    unless the store refuses writes), or ENDED, or NEXT + the
                                    successor's code
    store.phones_now(code)       -> how many phones polled in the last PHONE_SEEN_SECONDS

Why following is sound: only the holder of the ended room's lecturer key can name a successor
(the record keeps the key's digest), so no student can lead a class into a room of their own.
Without a record (an in-process store whose server restarted, or a record past its keep) a
phone cannot be led anywhere: it says the room ended and offers the code box.
"""

import contextlib

from attnviz.classroom.room import (
    RoomError,
    RoomNotFoundError,
    StoreRefusedError,
    WrongKeyError,
    lasting,
    normal_code,
    not_found,
)
from attnviz.limits import (
    ENDED_ROOM_KEEP_SECONDS,
    MAX_ROOMS,
    PHONE_SEEN_SECONDS,
    ROOM_IDLE_EMPTY_SECONDS,
    ROOM_LIFETIME_SECONDS,
)

ENDED = "ended"  # what a poll of a room that has ended (and leads nowhere yet) sees
NEXT = "next:"  # + the successor's code


def kept_until(room):
    """When a room's record ends (seconds since the epoch): ENDED_ROOM_KEEP_SECONDS after it
    ends (a room as it stands, bounds.as_now: an idle room's end is sooner than its lifetime's)."""
    return room.expires + ENDED_ROOM_KEEP_SECONDS


class Lifecycle:
    """The rules of ended rooms, over a backend's ``_record``, ``_successor``,
    ``_set_successor``, ``_seen`` and ``_n_seen`` (store.RoomStore documents them)."""

    def record(self, code):
        """The Room under ``code`` as last stored, open, closed or ended; None when no record
        is kept (never was, kept no longer, or lost with an in-process store's server)."""
        normal = normal_code(code)
        return None if normal is None else self._record(normal)

    def successor(self, code):
        """The code of the room that the lecturer of ``code`` opened from it, or None."""
        normal = normal_code(code)
        return None if normal is None else self._successor(normal)

    def reopen(self, code, key, sid, address="unknown", hold=True):
        """(a new room with the example and question of the ended or closed room ``code``, its
        key) for the holder of ``code``'s lecturer ``key`` (browser ``sid`` at client
        ``address``, who holds it when ``hold``: ``open``); the phones still polling ``code``
        follow it. A room still open is refused (close it first)."""
        old = self.record(code)
        if old is None:
            raise not_found(normal_code(code) or str(code)[:8])
        if not old.key_matches(key):
            raise WrongKeyError(
                f"That is not the lecturer's key of room {old.code}: only its lecturer can "
                "reopen it."
            )
        if not old.closed and old.expires > self.clock():
            raise RoomError(f"Room {old.code} is still open: close it before reopening it.")
        # its lecturer's key stands for the staff passphrase: they opened the room before
        passphrase = self.staff_passphrase
        room, new_key = self.open(old.settings_query, sid, address, passphrase, hold=hold)
        if old.kind is not None:
            room = self.push_question(room.code, new_key, old.quiz_seed, old.kind, old.n_options)
        self._set_successor(old, room.code)
        return room, new_key

    def poll(self, code, sid):
        """A phone's poll of room ``code``: its version, or ENDED, or NEXT + the code of the
        room its lecturer reopened from it (a closed room, too, may lead to one). A poll of an
        open room counts session ``sid`` as connected now (``phones_now``)."""
        try:
            room = self.room(code)
        except RoomNotFoundError:
            successor = self.successor(code)
            return NEXT + successor if successor else ENDED
        if room.closed:
            successor = self._successor(room.code)
            return NEXT + successor if successor else room.version
        with contextlib.suppress(StoreRefusedError):  # a refusal: only the health panel's
            self._seen(room, str(sid)[:64], self.clock())  # count misses this phone
        return room.version

    def phones_now(self, code):
        """How many sessions polled room ``code`` in the last PHONE_SEEN_SECONDS."""
        room = self.room(code)
        return self._n_seen(room, self.clock() - PHONE_SEEN_SECONDS)


def ended_reason(record, joined, in_process):
    """Why a room a phone or the lecturer is in can no longer be found, as a sentence.

    ``record``: the store's record of the room (lifecycle), or None; ``joined``: whether this
    browser was in the room (its address says so), so that a mistyped code is told apart;
    ``in_process``: whether the store is this server's memory. None when the code is simply no
    room's (the page then says to check the code)."""
    hours = ROOM_LIFETIME_SECONDS / 3600
    if record is not None:
        if record.closed:
            return f"Room {record.code} has ended: the lecturer closed it."
        if record.evicted:
            return (
                f"Room {record.code} has ended: the server's rooms were all taken ({MAX_ROOMS} "
                "open), and then a room that nobody has joined ends to make room for another "
                "lecturer's (the oldest, of the network that holds the most rooms)."
            )
        if record.idle_minutes:
            idle = f"Room {record.code} has ended: it was idle for {record.idle_minutes} minutes"
            if record.idle_minutes * 60 == ROOM_IDLE_EMPTY_SECONDS:
                return f"{idle} (nobody joined it, and nothing changed), and an idle room ends."
            return (
                f"{idle} (no join, answer or change), and an idle room ends; its answers are gone."
            )
        return (
            f"Room {record.code} has ended: a room lasts {hours:g} hours, and its answers are gone."
        )
    if not joined:
        return None
    if in_process:
        return (
            "This room has ended: the server restarted, and it kept its rooms in its memory "
            "only, so the room and its answers are gone."
        )
    return (
        f"This room has ended: the shared store no longer has it ({lasting()}), so its answers "
        "are gone."
    )
