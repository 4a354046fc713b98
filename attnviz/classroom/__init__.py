"""The live classroom, without Streamlit: rooms a lecturer opens and students join.

    room.py         a Room (code, key digest, pushed example, question, phase, version), errors
    store.py        RoomStore, the rules over any backend (joins.py, lecturers.py, ...)
    memory_store.py MemoryStore, one record a room in this process (the default)
    redis_store.py  RedisStore, for several replicas (ATTNVIZ_REDIS_URL)
    questions.py    the room's question: the Predict-then-reveal bank on the pushed example
    screens.py      what the projector and a phone show in each phase (sections.py: its parts,
                    plain data that a phone client can take as JSON)

``make_store()`` picks the store: Redis when ``ATTNVIZ_REDIS_URL`` is set, else in process.
"""

import os

from attnviz.classroom.lecturers import PASSPHRASE_VARIABLE
from attnviz.classroom.memory_store import MemoryStore
from attnviz.classroom.room import (
    CODE_ALPHABET,
    CODE_LENGTH,
    LESSONS_UNAFFECTED,
    NotAnsweringError,
    RateLimitedError,
    Room,
    RoomClosedError,
    RoomError,
    RoomFullError,
    RoomLockedError,
    RoomNotFoundError,
    StoreRefusedError,
    StoreUnavailableError,
    TooManyRoomsError,
    WrongKeyError,
    normal_code,
)
from attnviz.classroom.store import RoomStore, Tally

REDIS_URL_VARIABLE = "ATTNVIZ_REDIS_URL"


def make_store(environ=None):
    """A RedisStore on ``ATTNVIZ_REDIS_URL`` when it is set (signed with ``ATTNVIZ_SECRET``),
    else a MemoryStore; "Open a room" asks for ``ATTNVIZ_STAFF_PASSPHRASE`` when it is set. A
    malformed URL, or no secret, raises StoreUnavailableError (the page says so)."""
    environ = os.environ if environ is None else environ
    url = environ.get(REDIS_URL_VARIABLE, "").strip()
    if not url:
        store = MemoryStore()
    else:
        from attnviz.classroom.redis_store import RedisStore  # redis is needed only here

        try:
            store = RedisStore(url, secret=environ.get("ATTNVIZ_SECRET", ""))
        except StoreUnavailableError:
            raise  # no secret: its own sentence
        except ValueError as exc:
            raise StoreUnavailableError(
                f"{REDIS_URL_VARIABLE} is not a Redis URL (redis://host:port/db): the classroom "
                f"cannot start. {LESSONS_UNAFFECTED}"
            ) from exc
    store.staff_passphrase = environ.get(PASSPHRASE_VARIABLE, "").strip()
    return store


__all__ = [
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "REDIS_URL_VARIABLE",
    "MemoryStore",
    "NotAnsweringError",
    "RateLimitedError",
    "Room",
    "RoomClosedError",
    "RoomError",
    "RoomFullError",
    "RoomLockedError",
    "RoomNotFoundError",
    "RoomStore",
    "StoreRefusedError",
    "StoreUnavailableError",
    "Tally",
    "TooManyRoomsError",
    "WrongKeyError",
    "make_store",
    "normal_code",
]
