"""How a room is doing, for its lecturer (not the projector): phones connected now, answers in,
and where the rooms live (so what a restart would lose). No Streamlit.

    health(store, code) -> Health(phones_now, answered, students, store_state)
"""

from dataclasses import dataclass

from attnviz.classroom.room import StoreRefusedError, StoreUnavailableError
from attnviz.limits import PHONE_SEEN_SECONDS

IN_PROCESS = "In this server only: a restart of the server ends the room and loses its answers."
REDIS_UP = "Redis: connected. A restart of a replica, or of Redis, keeps the room and its answers."
REDIS_DOWN = "Redis: cannot be reached. Phones cannot join or answer until it is back."
REDIS_REFUSING = (
    "Redis: connected, but it refuses to save changes ({reason}). Phones cannot join or answer, "
    "and the room cannot move on, until the store is seen to; the answers already in are kept."
)


@dataclass(frozen=True)
class Health:
    """``phones_now`` sessions that polled the room in the last PHONE_SEEN_SECONDS,
    ``answered`` of ``students`` (joined) for the current question, ``store_state`` a sentence;
    the counts are None when the store cannot be reached."""

    phones_now: int | None
    answered: int | None
    students: int | None
    store_state: str

    def lines(self):
        """The panel's lines, as plain text."""
        if self.phones_now is None:
            return [self.store_state]
        return [
            f"Phones connected now: {self.phones_now} (asked for the room in the last "
            f"{PHONE_SEEN_SECONDS} s)",
            f"Answers in: {self.answered} of {self.students} joined",
            self.store_state,
        ]


def health(store, code):
    """The Health of room ``code`` in ``store`` (a RoomStore); RoomError when there is no such
    open room."""
    if store.in_process:
        state = IN_PROCESS
    else:
        try:
            store.ping()  # Redis: a small write, so a store that refuses them says so here
            state = REDIS_UP
        except StoreRefusedError as exc:
            state = REDIS_REFUSING.format(reason=exc.reason)  # its counts can still be read
        except StoreUnavailableError:
            return Health(None, None, None, REDIS_DOWN)
    try:
        tally = store.tally(code)
        phones = store.phones_now(code)
    except StoreRefusedError as exc:
        return Health(None, None, None, REDIS_REFUSING.format(reason=exc.reason))
    except StoreUnavailableError:
        return Health(None, None, None, REDIS_DOWN)
    return Health(phones, tally.answered, tally.students, state)
