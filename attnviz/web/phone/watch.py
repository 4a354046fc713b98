"""Phones that wait for their room to change (a long poll): one watcher per room with waiting
phones reads the room's version every PHONE_WATCH_SECONDS and wakes them all when it changes.

A waiting phone costs nothing but its open request: 500 phones waiting on one room are one
read of the store every PHONE_WATCH_SECONDS, not 500. A change made in another process (the
lecturer's page on another replica, through Redis) is seen at the next read. Runs on the
server's event loop; ``read(code)`` (the room's version, or a poll's ENDED / NEXT text) is
awaited, so a Redis store's read runs in a worker thread.
"""

import asyncio
import contextlib

from attnviz.limits import PHONE_WATCH_SECONDS


class Watch:
    """The rooms with waiting phones: {code: (the version last read, the Event of its change,
    how many wait)}."""

    def __init__(self, read, every=PHONE_WATCH_SECONDS):
        self._read, self._every = read, every
        self._rooms = {}  # code -> [version, asyncio.Event, waiting]

    async def changed(self, code, seen, timeout):
        """Wait until room ``code``'s version is other than ``seen`` (True), or ``timeout``
        seconds (False)."""
        entry = self._rooms.get(code)
        if entry is None:
            entry = self._rooms[code] = [seen, asyncio.Event(), 0]
            asyncio.get_running_loop().create_task(self._watch(code))
        if entry[0] != seen:
            return True
        entry[2] += 1
        event = entry[1]
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), timeout)
        finally:
            entry[2] -= 1
        return event.is_set()

    async def _watch(self, code):
        """Read room ``code`` every ``every`` seconds while a phone waits on it."""
        entry = self._rooms[code]
        try:
            while True:
                await asyncio.sleep(self._every)
                if entry[2] <= 0:
                    return
                try:
                    version = await self._read(code)
                except Exception:  # the store away: the phones' next requests say so
                    continue
                if version != entry[0]:
                    entry[0] = version
                    entry[1].set()
                    entry[1] = asyncio.Event()
        finally:
            self._rooms.pop(code, None)

    def waiting(self):
        """{code: phones waiting now}."""
        return {code: entry[2] for code, entry in self._rooms.items()}
