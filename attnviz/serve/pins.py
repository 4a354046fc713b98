"""Pins: entries of the server's store (``serve.store``) kept from eviction for a stated time,
whatever else the server keeps: a prepared lecture's trained runs (``ui.lecture_prepare``).
At most MAX_PINNED_ENTRIES at once on a server, every lecture's; an expired pin is dropped the
next time it is looked at. A pin may name an entry not made yet. No Streamlit.

The store asks ``held`` under its own lock; the functions here take only this module's lock,
so the order is always the store's, then this one's.
"""

import threading
import time

from attnviz.limits import MAX_PINNED_ENTRIES

_PINS = {}  # (cache name, key) -> until when (time.monotonic()) its entry is never evicted
_LOCK = threading.Lock()


def now():
    """The clock of the pins (time.monotonic)."""
    return time.monotonic()


def pin(name, key, seconds):
    """Keep the entry of ``key`` in cache ``name`` (made now or later) for ``seconds``. True if
    pinned; False when MAX_PINNED_ENTRIES other entries are pinned now (each until its time)."""
    with _LOCK:
        at = now()
        for full in [full for full, until in _PINS.items() if until <= at]:
            del _PINS[full]
        if (name, key) not in _PINS and len(_PINS) >= MAX_PINNED_ENTRIES:
            return False
        _PINS[(name, key)] = at + seconds
        return True


def unpin(name, key):
    """The entry of ``key`` in cache ``name`` may be evicted again, as any other."""
    with _LOCK:
        _PINS.pop((name, key), None)


def pinned_for(name, key):
    """Seconds left of the pin of ``key`` in cache ``name``, or None when it is not pinned."""
    with _LOCK:
        until = _PINS.get((name, key))
    left = None if until is None else until - now()
    return left if left is not None and left > 0 else None


def held(full, at):
    """Whether entry ``full`` ((cache name, key)) is pinned at time ``at`` (an expired pin is
    dropped)."""
    with _LOCK:
        until = _PINS.get(full)
        if until is not None and until <= at:
            del _PINS[full]
            return False
        return until is not None


def clear():
    """Drop every pin (tests: as if the server had just started)."""
    with _LOCK:
        _PINS.clear()
