"""Which browser is a room's lecturer, a one-time lecturer link, and the staff passphrase. A
mixin of ``store.RoomStore``; no Streamlit.

    store.held(browser)                   -> (code, key) of the room this browser's lecturer
                                             holds (open, closed or ended, while its record is
                                             kept and the key is still the room's), or None
    store.take_link(code, key, browser, address) -> the room's new key: a lecturer link used
                                             once; its key is then no key, and ``browser``
                                             holds the room
    store.trust_deck(browser, deck) / store.trusts_deck(browser, deck)   a lecture deck the
                                             lecturer confirmed may push its slides to the room
    store.check_passphrase(typed, network) before a room opens, when the store has a
                                             ``staff_passphrase`` (ATTNVIZ_STAFF_PASSPHRASE)

A browser (ui/visitor.py: a random id in its cookie) holds at most one room: the last it opened,
reopened or took with the lecturer link. A reload, a deck's next slide or a reconnect to another
replica finds the room by the browser's id, so no key needs to stay in an address or a cookie.
A lecturer link, once used, is spent: the history of the browser that opened it, and the Referer
of its first requests, keep a key that opens nothing. The lecturer's page shows the new link.

No store keeps a lecturer key: a room keeps its digest, and what a browser holds keeps a random
nonce from which only a replica, with the store's secret, makes the key (room.derived_key). A
copy of Redis's data (its append-only file, a backup) changes no room.
"""

import hmac
import json

from attnviz.classroom.bounds import owner_of
from attnviz.classroom.lifecycle import kept_until
from attnviz.classroom.room import WrongKeyError, derived_key, key_digest, new_key
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

    def hold(self, room, nonce, browser, deck=""):
        """Let ``browser`` hold ``room`` (as lecturer, with the key of ``nonce``) until its
        record ends."""
        value = json.dumps({"code": room.code, "nonce": nonce, "deck": deck})
        self._set_held(str(browser), value, kept_until(room))

    def _held_record(self, browser):
        """(room, key, deck, nonce) of what ``browser`` holds, the key still the room's; or
        None."""
        text = self._held(str(browser))
        if text is None:
            return None
        try:
            data = json.loads(text)
            code, nonce, deck = str(data["code"]), str(data["nonce"]), str(data.get("deck", ""))
        except (ValueError, KeyError, TypeError):
            return None
        room, key = self.record(code), derived_key(self._secret, nonce)  # None once not kept
        return (room, key, deck, nonce) if room is not None and room.key_matches(key) else None

    def held(self, browser):
        """(code, key) of the room ``browser``'s lecturer holds, or None."""
        found = self._held_record(browser)
        return None if found is None else (found[0].code, found[1])

    def take_link(self, code, key, browser, address):
        """A lecturer link (``code``, ``key``) opened in ``browser`` from ``address``: the
        room's new key, which ``browser`` now holds (a closed room keeps its key). Tries are
        limited per browser and per address; a wrong key raises WrongKeyError."""
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
        self.hold(room, nonce, browser)
        return fresh

    def trust_deck(self, browser, deck):
        """The lecturer of ``browser`` confirmed that lecture deck ``deck`` (its link's text)
        may push its slides to the room held."""
        found = self._held_record(browser)
        if found is not None:
            self.hold(found[0], found[3], browser, deck=key_digest(deck))

    def trusts_deck(self, browser, deck):
        """Whether ``deck`` is the deck the lecturer of ``browser`` confirmed for its room."""
        found = self._held_record(browser)
        return found is not None and found[2] == key_digest(deck)

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
