"""A classroom room: its code, the lecturer's key, the example and question it shows, its phase.

A room is a small frozen value that any store (``memory``, ``redis_store``) keeps as JSON:

    code         6 characters of CODE_ALPHABET (no 0/O, 1/I/L look-alikes), e.g. "K7QX4M"
    key_digest   sha256 of the lecturer's secret key (the key itself is never stored)
    opened       when it opened, expires when it ends (seconds since the epoch)
    settings     the pushed example: the sidebar's Settings in their URL form, a tuple of
                 (name, text) pairs, never arrays (every phone computes the same numbers)
    quiz_seed    the Predict-then-reveal question set asked on that example
    kind         the current question's kind (attnviz.lessons.KINDS), or None before one
    question_no  1, 2, 3 ... one per question pushed: answers are kept per question number
    n_options    how many options the current question has (answers are option indices)
    phase        "answering", "locked", "discussing", "revealed" or "closed"
    peer         the question's rounds (peer.Peer: vote, discuss, revote, twin; rounds.py)
    version      bumped on every change: phones poll it and redraw only when it changed
    owner        the digest of the network that opened it (bounds.owner_of): its rooms' cap
    locked       True: the room takes no new student (one already in it comes back)
    class_size   0, or the most students the lecturer lets in (at most MAX_ROOM_STUDENTS)
    evicted      True: it ended early to make room for a new one while the store was full
    idle_minutes 0, or the minutes without activity after which the room ended (never stored:
                 a store derives it when it reads the room, bounds.as_now)
"""

import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import asdict, dataclass, field, replace

from attnviz.classroom.peer import Peer
from attnviz.limits import (
    MAX_ROOM_STUDENTS,
    MAX_STORED_CHARS,
    ROOM_IDLE_EMPTY_SECONDS,
    ROOM_IDLE_SECONDS,
    ROOM_LIFETIME_SECONDS,
)

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # 31 characters that are not look-alikes
CODE_LENGTH = 6  # 31**6, about 887 million codes
PHASES = ("answering", "locked", "discussing", "revealed", "closed")  # rounds.py
KEY_BYTES = 18  # the lecturer's key: 24 URL-safe characters, 144 random bits


class RoomError(ValueError):
    """Something a student or lecturer asked of a room that cannot be done: the message says
    what, and what to do instead (it is shown as it is)."""


class RoomNotFoundError(RoomError):
    """No open room has this code: wrong, or ended (a room lasts ROOM_LIFETIME_SECONDS, less
    when idle: bounds.py)."""


class RoomClosedError(RoomError):
    """The lecturer has closed the room."""


class RoomFullError(RoomError):
    """The room already has MAX_ROOM_STUDENTS students."""


class WrongKeyError(RoomError):
    """The lecturer's key does not match the room's."""


class RoomLockedError(RoomError):
    """The lecturer locked the room to new students."""


class TooManyRoomsError(RoomError):
    """The store already holds MAX_ROOMS open rooms, or the lecturer's address
    MAX_ROOMS_PER_ADDRESS."""


class RateLimitedError(RoomError):
    """A session asked too often in a minute (joins, answers, rooms opened)."""


class NotAnsweringError(RoomError):
    """An answer came when the room takes none: before the first question, after the reveal."""


def answers_closed(what):
    """The NotAnsweringError for a student's ``what`` ("answers", "sketches") that the backend
    would not keep: the question moved on since the room was read, or the browser never joined."""
    return NotAnsweringError(
        f"The {what} are closed for this question (it was revealed, or the lecturer moved on), "
        "or you have not joined this room."
    )


class StoreUnavailableError(RoomError):
    """The shared store (Redis) cannot be reached: the classroom cannot work until it is back."""


LESSONS_UNAFFECTED = "The lesson pages work as before."  # ends a page's sentence on the store


class StoreRefusedError(StoreUnavailableError):
    """The shared store (Redis) is reached but refuses to save a change (out of memory,
    read-only): the classroom cannot move on until it is seen to, and what it holds is kept.
    A StoreUnavailableError, so every page says it the same way (a warning in words, never a
    traceback); ``reason`` says why in a few words ("it is out of memory")."""

    def __init__(self, message, reason):
        super().__init__(message)
        self.reason = reason


def new_code():
    """A random room code: CODE_LENGTH characters of CODE_ALPHABET."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def new_key():
    """A random lecturer key (URL-safe text)."""
    return secrets.token_urlsafe(KEY_BYTES)


def derived_key(secret, nonce):
    """The lecturer key that ``nonce`` (text) gives with the store's ``secret``: a store keeps
    the nonce of the room a browser holds (lecturers.py), never the key, and only a replica,
    which has the secret, can make the key from it. URL-safe text of KEY_BYTES bytes."""
    mac = hmac.new(str(secret).encode(), f"lecturer-key:{nonce}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()[:KEY_BYTES]).decode("ascii")


def key_digest(key):
    """The sha256 hex digest of ``key`` (what a room stores instead of the key)."""
    return hashlib.sha256(str(key).encode("utf-8", "replace")).hexdigest()


def normal_code(text):
    """(the code in ``text`` written as stored, or None when it cannot be a room code).

    Spaces and dashes are dropped and letters made capitals, so "k7q x4m" finds "K7QX4M"."""
    code = "".join(str(text).split()).replace("-", "").upper()
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        return None
    return code


CODE_PROBLEM = (
    f"A room code is {CODE_LENGTH} characters from {CODE_ALPHABET} (no 0, 1, I, L or O): "
    "check the code on the projector."
)


@dataclass(frozen=True)
class Room:
    """One room's state (module docstring); a store keeps it as ``to_json``."""

    code: str
    key_digest: str
    opened: float
    expires: float
    settings: tuple = ()
    quiz_seed: int = 0
    kind: str | None = None
    question_no: int = 0
    n_options: int = 0
    phase: str = "answering"
    version: int = 1
    peer: Peer = field(default_factory=Peer)
    owner: str = ""
    locked: bool = False
    class_size: int = 0
    evicted: bool = False
    idle_minutes: int = 0

    def key_matches(self, key):
        """Whether ``key`` is this room's lecturer key, compared in constant time."""
        return key is not None and hmac.compare_digest(key_digest(key), self.key_digest)

    @property
    def closed(self):
        return self.phase == "closed"

    @property
    def settings_query(self):
        """The pushed example as a query mapping {name: text} (``settings.from_query``)."""
        return dict(self.settings)

    def changed(self, **fields):
        """This room with ``fields`` changed and its version bumped."""
        return replace(self, **fields, version=self.version + 1)

    def to_json(self):
        """The stored form; raises RoomError past MAX_STORED_CHARS."""
        data = asdict(self)
        data["settings"] = [list(pair) for pair in self.settings]
        del data["idle_minutes"]  # derived when read, never stored
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        if len(text) > MAX_STORED_CHARS:
            raise RoomError(
                f"The room's state would take {len(text)} characters (at most "
                f"{MAX_STORED_CHARS}): push a shorter example."
            )
        return text

    @classmethod
    def from_json(cls, text):
        """A Room from ``to_json``'s text, or None when it is not one (a damaged or foreign
        value in the store is treated as no room, never trusted or raised)."""
        try:
            data = json.loads(text)
            room = cls(
                code=str(data["code"]),
                key_digest=str(data["key_digest"]),
                opened=float(data["opened"]),
                expires=float(data["expires"]),
                settings=tuple((str(k), str(v)) for k, v in data.get("settings", ())),
                quiz_seed=int(data.get("quiz_seed", 0)),
                kind=None if data.get("kind") is None else str(data["kind"]),
                question_no=int(data.get("question_no", 0)),
                n_options=int(data.get("n_options", 0)),
                phase=str(data.get("phase", "answering")),
                version=int(data.get("version", 1)),
                peer=Peer.from_data(data.get("peer")),
                owner=str(data.get("owner", "")),
                locked=data.get("locked") is True,
                class_size=min(max(int(data.get("class_size", 0)), 0), MAX_ROOM_STUDENTS),
                evicted=data.get("evicted") is True,
            )
        except (ValueError, TypeError, KeyError, AttributeError):
            return None
        if room.phase not in PHASES or normal_code(room.code) != room.code:
            return None
        return room


def opened_room(settings_query, now, key, owner=""):
    """A new Room opened at ``now`` with the example ``settings_query``, lecturer ``key``,
    by the network whose digest is ``owner``."""
    room = Room(
        code=new_code(),
        key_digest=key_digest(key),
        opened=now,
        expires=now + ROOM_LIFETIME_SECONDS,
        settings=tuple(sorted((str(k), str(v)) for k, v in dict(settings_query).items())),
        owner=str(owner),
    )
    room.to_json()  # refuses an example too long to store
    return room


def lasting():
    """How long a room lasts, in words: its lifetime, and its idle ends (bounds.py)."""
    hours = ROOM_LIFETIME_SECONDS / 3600
    return (
        f"a room ends {hours:g} hours after it opens, or sooner when idle: after "
        f"{ROOM_IDLE_EMPTY_SECONDS // 60} minutes without activity while nobody has joined it, "
        f"after {ROOM_IDLE_SECONDS // 60} minutes without a join, answer or change"
    )


def not_found(code):
    """The error for a code that names no open room."""
    return RoomNotFoundError(
        f"No open room has the code {code}: check the code on the projector ({lasting()})."
    )


MAX_SID_CHARS = 64  # a session id as the page makes it is 16 characters


def check_sid(sid):
    """``sid`` as text, or RoomError when it is empty or longer than MAX_SID_CHARS."""
    sid = str(sid)
    if not sid or len(sid) > MAX_SID_CHARS:
        raise RoomError(f"A session id is 1 to {MAX_SID_CHARS} characters.")
    return sid
