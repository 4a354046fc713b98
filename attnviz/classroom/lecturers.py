"""Which browser is a room's lecturer, a one-time lecturer link, and the staff passphrase. A
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
    store.check_passphrase(typed, network) before a room opens, when the store has a
                                             ``staff_passphrase`` (ATTNVIZ_STAFF_PASSPHRASE)

Who holds a room's controls: where the App's routes are served, the lecturer's own cookie
(classroom/credential.py: HttpOnly, it names the room and holds its key), and the store keeps
nothing of it under the browser's id. Where they are not (AppTest, a host that runs app.py as a
plain script), the store's record of what the browser's id (ui/visitor.py) holds, as before
the App: ``hold``. A browser holds at most one room: the last it opened, reopened or took with
the lecturer link. A lecturer link, once used, is spent: the history of the browser that opened
it, and the Referer of its first requests, keep a key that opens nothing. The lecturer's page
shows the new link.

No store keeps a lecturer key: a room keeps its digest, what a browser holds keeps a random
nonce from which only a replica, with the store's secret, makes the key (room.derived_key), and
a deck's trust is kept under the key's digest. A copy of Redis's data (its append-only file, a
backup) changes no room.
"""

import hmac
import json

from attnviz.classroom.bounds import owner_of
from attnviz.classroom.lifecycle import kept_until
from attnviz.classroom.room import (
    RateLimitedError,
    RoomError,
    WrongKeyError,
    derived_key,
    key_digest,
    new_key,
)
from attnviz.limits import MAX_KEY_TRIES_PER_MINUTE, MAX_PASSPHRASE_TRIES_PER_MINUTE

PASSPHRASE_VARIABLE = "ATTNVIZ_STAFF_PASSPHRASE"


class Lecturers:
    """The rules, over a backend's ``_held``, ``_set_held`` (store.RoomStore documents them),
    its ``_secret`` and the rate buckets."""

    staff_passphrase = ""  # "": anyone may open a room; else "Open a room" asks for it

    def minted_key(self):
        """(a new lecturer key, the nonce it is made from: room.derived_key)."""
        nonce = new_key()
        return derived_key(self._secret, nonce), nonce

    def hold(self, room, nonce, browser):
        """Let ``browser`` hold ``room`` (as lecturer, with the key of ``nonce``) until its
        record ends: where the App's routes are not served (the module's docstring)."""
        value = json.dumps({"code": room.code, "nonce": nonce})
        self._set_held(str(browser), value, kept_until(room))

    def _held_record(self, browser):
        """(room, key) of what ``browser`` holds, the key still the room's; or None."""
        text = self._held(str(browser))
        if text is None:
            return None
        try:
            data = json.loads(text)
            code, nonce = str(data["code"]), str(data["nonce"])
        except (ValueError, KeyError, TypeError):
            return None
        room, key = self.record(code), derived_key(self._secret, nonce)  # None once not kept
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
        room's new key, which ``browser`` holds when ``hold`` (else the lecturer's cookie
        will). Tries are limited per browser and per address; a wrong key raises
        WrongKeyError."""
        for who in (f"browser:{browser}", f"address:{owner_of(address)}"):
            self.limit(f"key:{who}", MAX_KEY_TRIES_PER_MINUTE, "lecturer links tried")
        room = self.room(code)
        if not room.key_matches(key):
            raise WrongKeyError(
                f"The link's key is not the lecturer's key of room {room.code} (a lecturer "
                "link works once: the lecturer's page shows the current one). To take part "
                "as a student, join with the room's code."
            )
        fresh, nonce = self.minted_key()  # a closed room, too: its link is spent
        room = self._update(room.code, lambda r: r.changed(key_digest=key_digest(fresh)))
        if hold:
            self.hold(room, nonce, browser)
        return fresh

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
        WrongKeyError (or the store's not-found error), counted against the network of
        ``address``, which is refused (RateLimitedError) after MAX_KEY_TRIES_PER_MINUTE such
        misses in a minute, for the rest of the minute. Only misses count: a lecturer's own
        hand-overs never do."""
        bucket = f"key-miss:{owner_of(address)}"
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

    def check_passphrase(self, typed, address):
        """Nothing when the store asks no staff passphrase, or ``typed`` is it; else
        WrongKeyError (tries limited per network of ``address``)."""
        if not self.staff_passphrase:
            return
        most, bucket = MAX_PASSPHRASE_TRIES_PER_MINUTE, f"staff:{owner_of(address)}"
        self.limit(bucket, most, "staff passphrases tried", "your network")
        if not hmac.compare_digest(key_digest(typed or ""), key_digest(self.staff_passphrase)):
            raise WrongKeyError(
                "Opening a room on this server takes the staff passphrase that its "
                "administrator set, and the passphrase given is not it."
            )
