"""Which browser is a room's lecturer, a one-time lecturer link, and the limits on guessing. A
mixin of ``store.RoomStore``; no Streamlit.

    store.held(browser)                   -> (code, key) of the room this browser's lecturer
                                             holds (open, closed or ended, while its record is
                                             kept and the key is still the room's), or None
    store.let_go(browser)                 the browser holds no room any more
    store.take_link(code, key, browser, address, hold=True) -> the room's new key: a lecturer
                                             link used once; its key is then no key, and (with
                                             ``hold``) ``browser`` holds the room
    store.trust_deck(code, key, deck) / store.trusts_deck(code, key, deck)   a lecture deck
                                             the holder of the room's key confirmed may push
                                             its slides to the room
    store.check_key(code, key, address)   -> the room, when ``key`` is its lecturer's (the
                                             credential's hand-over, attnviz/web/lecturer.py)
    store.check_guesses(address)          before a room code is looked up for a join

Who holds a room's controls: where the App's routes are served, the lecturer's own cookie
(classroom/credential.py: HttpOnly, it names the room and holds its key), and the store keeps
no key of it. Where they are not (AppTest, a host that runs app.py as a plain script), the
store's record of what the browser's id (ui/visitor.py) holds, as before the App: ``hold``. A
browser holds at most one room: the last it opened, reopened or took with the lecturer link.
A lecturer link, once used, is spent: the history of the browser that opened it, and the
Referer of its first requests, keep a key that opens nothing. The lecturer's page shows the
new link. A deck's trust is kept under the key's digest: never the key.
"""

import json

from attnviz.classroom.lifecycle import kept_until
from attnviz.classroom.room import (
    RateLimitedError,
    RoomError,
    WrongKeyError,
    key_digest,
    new_key,
)
from attnviz.limits import (
    MAX_CODE_GUESSES_PER_ADDRESS,
    MAX_KEY_TRIES_PER_MINUTE,
)


class Lecturers:
    """The rules, over a backend's ``_held``, ``_set_held`` (store.RoomStore documents them)
    and the rate buckets."""

    def hold(self, room, key, browser):
        """Let ``browser`` hold ``room`` (as lecturer, with ``key``) until its record ends:
        where the App's routes are not served (the module's docstring)."""
        value = json.dumps({"code": room.code, "key": key})
        self._set_held(str(browser), value, kept_until(room))

    def _held_record(self, browser):
        """(room, key) of what ``browser`` holds, the key still the room's; or None."""
        text = self._held(str(browser))
        if text is None:
            return None
        try:
            data = json.loads(text)
            code, key = str(data["code"]), str(data["key"])
        except (ValueError, KeyError, TypeError):
            return None
        room = self.record(code)  # None once its record is no longer kept
        return (room, key) if room is not None and room.key_matches(key) else None

    def held(self, browser):
        """(code, key) of the room ``browser``'s lecturer holds, or None."""
        found = self._held_record(browser)
        return None if found is None else (found[0].code, found[1])

    def let_go(self, browser):
        """``browser`` holds no room from now on (its lecturer left the computer)."""
        self._set_held(str(browser), "{}", self.clock())

    def take_link(self, code, key, browser, address, hold=True):
        """A lecturer link (``code``, ``key``) opened in ``browser`` from ``address``: the
        room's new key (a closed room keeps its key), which ``browser`` holds when ``hold``
        (else the lecturer's cookie will). Tries are limited per browser and per address; a
        wrong key raises WrongKeyError."""
        for who in (f"browser:{browser}", f"address:{address}"):
            self.limit(f"key:{who}", MAX_KEY_TRIES_PER_MINUTE, "lecturer links tried")
        room = self.room(code)
        if not room.key_matches(key):
            raise WrongKeyError(
                f"The link's key is not the lecturer's key of room {room.code} (a lecturer "
                "link works once: the lecturer's page shows the current one). You can join "
                "the room as a student."
            )
        if not room.closed:
            fresh = new_key()
            room = self._change(room.code, key, lambda r: r.changed(key_digest=key_digest(fresh)))
            key = fresh
        if hold:
            self.hold(room, key, browser)
        return key

    def trust_deck(self, code, key, deck):
        """The holder of room ``code``'s lecturer ``key`` confirmed that lecture deck ``deck``
        (its link's text) may push its slides to the room (nothing when the key is not the
        room's). Kept under the key's digest until the room's record ends."""
        room = self.record(code)
        if room is not None and room.key_matches(key):
            value = json.dumps({"code": room.code, "deck": key_digest(deck)})
            self._set_held(f"deck:{key_digest(key)}", value, kept_until(room))

    def trusts_deck(self, code, key, deck):
        """Whether ``deck`` is the deck the holder of room ``code``'s ``key`` confirmed."""
        room = self.record(code)
        if room is None or not room.key_matches(key):
            return False
        try:
            data = json.loads(self._held(f"deck:{key_digest(key)}") or "{}")
        except ValueError:
            return False
        return data.get("code") == room.code and data.get("deck") == key_digest(deck)

    def check_key(self, code, key, address):
        """Room ``code`` (open or closed) when ``key`` is its lecturer's key; else
        WrongKeyError (or the store's not-found error), counted against ``address``, which is
        refused (RateLimitedError) after MAX_KEY_TRIES_PER_MINUTE such misses in a minute, for
        the rest of the minute. Only misses count: a lecturer's own hand-overs never do."""
        bucket = f"key-miss:{address}"
        if self._peek(bucket) >= MAX_KEY_TRIES_PER_MINUTE:
            raise RateLimitedError(
                f"Too many wrong lecturer keys from your network: at most "
                f"{MAX_KEY_TRIES_PER_MINUTE} a minute. Wait a minute, then try again."
            )
        try:
            room = self.room(code)
        except RoomError:
            self._hit(bucket)
            raise
        if not room.key_matches(key):
            self._hit(bucket)
            raise WrongKeyError(f"That is not the lecturer's key of room {room.code}.")
        return room

    def check_guesses(self, address):
        """Raise RateLimitedError when ``address`` has tried MAX_CODE_GUESSES_PER_ADDRESS room
        codes that were no room in this minute (``count_guess`` counts them)."""
        if self._peek(f"guess:{address}") >= MAX_CODE_GUESSES_PER_ADDRESS:
            raise RateLimitedError(
                f"Too many room codes that were no room from this network: at most "
                f"{MAX_CODE_GUESSES_PER_ADDRESS} a minute. Check the code on the projector, "
                "wait a minute, then try again."
            )

    def count_guess(self, address):
        """Count a room code from ``address`` that was no room."""
        self._hit(f"guess:{address}")
