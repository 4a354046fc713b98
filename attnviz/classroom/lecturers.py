"""Which browser is a room's lecturer, a one-time lecturer link, and the limits on guessing. A
mixin of ``store.RoomStore``; no Streamlit.

    store.held(browser)                   -> (code, key) of the room this browser's lecturer
                                             holds (open, closed or ended, while its record is
                                             kept and the key is still the room's), or None
    store.take_link(code, key, browser, address) -> the room's new key: a lecturer link used
                                             once; its key is then no key, and ``browser``
                                             holds the room
    store.trust_deck(browser, deck) / store.trusts_deck(browser, deck)   a lecture deck the
                                             lecturer confirmed may push its slides to the room
    store.check_guesses(address)          before a room code is looked up for a join

A browser (ui/visitor.py: a random id in its cookie) holds at most one room: the last it opened,
reopened or took with the lecturer link. A reload, a deck's next slide or a reconnect to another
replica finds the room by the browser's id, so no key needs to stay in an address or a cookie.
A lecturer link, once used, is spent: the history of the browser that opened it, and the Referer
of its first requests, keep a key that opens nothing. The lecturer's page shows the new link.
"""

import json

from attnviz.classroom.lifecycle import kept_until
from attnviz.classroom.room import RateLimitedError, WrongKeyError, key_digest, new_key
from attnviz.limits import (
    MAX_CODE_GUESSES_PER_ADDRESS,
    MAX_KEY_TRIES_PER_MINUTE,
)


class Lecturers:
    """The rules, over a backend's ``_held``, ``_set_held`` (store.RoomStore documents them)
    and the rate buckets."""

    def hold(self, room, key, browser, deck=""):
        """Let ``browser`` hold ``room`` (as lecturer, with ``key``) until its record ends."""
        value = json.dumps({"code": room.code, "key": key, "deck": deck})
        self._set_held(str(browser), value, kept_until(room))

    def _held_record(self, browser):
        """(room, key, deck) of what ``browser`` holds, the key still the room's; or None."""
        text = self._held(str(browser))
        if text is None:
            return None
        try:
            data = json.loads(text)
            code, key, deck = str(data["code"]), str(data["key"]), str(data.get("deck", ""))
        except (ValueError, KeyError, TypeError):
            return None
        room = self.record(code)  # None once its record is no longer kept
        return (room, key, deck) if room is not None and room.key_matches(key) else None

    def held(self, browser):
        """(code, key) of the room ``browser``'s lecturer holds, or None."""
        found = self._held_record(browser)
        return None if found is None else (found[0].code, found[1])

    def take_link(self, code, key, browser, address):
        """A lecturer link (``code``, ``key``) opened in ``browser`` from ``address``: the
        room's new key, which ``browser`` now holds (a closed room keeps its key). Tries are
        limited per browser and per address; a wrong key raises WrongKeyError."""
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
        self.hold(room, key, browser)
        return key

    def trust_deck(self, browser, deck):
        """The lecturer of ``browser`` confirmed that lecture deck ``deck`` (its link's text)
        may push its slides to the room held."""
        found = self._held_record(browser)
        if found is not None:
            self.hold(found[0], found[1], browser, deck=key_digest(deck))

    def trusts_deck(self, browser, deck):
        """Whether ``deck`` is the deck the lecturer of ``browser`` confirmed for its room."""
        found = self._held_record(browser)
        return found is not None and found[2] == key_digest(deck)

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
