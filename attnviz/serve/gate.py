"""One heavy link cannot stall the class: the heavy work that runs at once is bounded.

A heavy computation (a tiny GPT's training, a max-size example, the real model's forward pass)
runs only when one of ``limits.HEAVY_AT_ONCE`` slots (one core fewer than the server has, at
least one) is free; the others queue in the order they came, and their page says "waiting: k
ahead of you" with a progress bar (``attnviz.ui.heavy.waiting_notice``, installed with
``show_waiting_with``). Everything else (a student's change at classroom sizes, every cache hit)
never waits here. ``HEAVY`` is the server's one gate; ``gated(compute, what, cost)`` runs
through it. No Streamlit.
"""

import threading
from collections import deque
from contextlib import contextmanager

from attnviz.limits import HEAVY_AT_ONCE


class Gate:
    """At most ``slots`` holders at once; the rest wait first come, first served.

    ``cost`` (e.g. a training's projected seconds) is counted while a holder waits and runs:
    ``queued_cost`` is what the server has promised to compute before a newcomer's turn. A
    thread that holds a slot and asks again (a heavy computation inside another) goes on
    without waiting, so nesting never deadlocks.
    """

    def __init__(self, slots):
        self.slots = slots
        self.running = 0  # holders now
        self.peak = 0  # the most holders seen at once (tests count it)
        self._queue = deque()  # tickets waiting, the first in front
        self._costs = {}  # ticket -> cost, waiting or running
        self._changed = threading.Condition()
        self._held = threading.local()

    def queued_cost(self):
        """The costs of every holder and every waiter, in all."""
        with self._changed:
            return sum(self._costs.values())

    def ahead(self, ticket):
        """How many computations run or wait before ``ticket`` (called with the lock held)."""
        return self.running + self._queue.index(ticket)

    @contextmanager
    def admit(self, cost=0.0, on_wait=None):
        """Hold a slot for the ``with`` block; while waiting, ``on_wait(ahead, first)`` is
        called (outside the lock) each time the number ahead changes, ``first`` being the
        number ahead when it began waiting."""
        if getattr(self._held, "depth", 0):
            self._held.depth += 1
            try:
                yield
            finally:
                self._held.depth -= 1
            return
        ticket = object()
        with self._changed:
            self._costs[ticket] = cost
            self._queue.append(ticket)
            try:
                self._wait_for_turn(ticket, on_wait)
            except BaseException:  # the session stopped or reran while it waited: leave
                self._queue.remove(ticket)
                del self._costs[ticket]
                self._changed.notify_all()
                raise
            self._queue.popleft()
            self.running += 1
            self.peak = max(self.peak, self.running)
            self._changed.notify_all()  # the next in line may go too, if a slot is free
        self._held.depth = 1
        try:
            yield
        finally:
            self._held.depth = 0
            with self._changed:
                self.running -= 1
                del self._costs[ticket]
                self._changed.notify_all()

    def _wait_for_turn(self, ticket, on_wait):
        """Wait (the lock held, released while waiting) until ``ticket`` is first and a slot
        is free, telling ``on_wait`` how many are ahead whenever that changes."""
        first = shown = None
        while not (self._queue[0] is ticket and self.running < self.slots):
            ahead = self.ahead(ticket)
            first = ahead if first is None else first
            if on_wait is not None and ahead != shown:
                shown = ahead
                self._changed.release()
                try:
                    on_wait(ahead, first)
                finally:
                    self._changed.acquire()
                continue  # things may have moved while it drew: look again first
            self._changed.wait()

    def give_up(self):
        """Forget everything (tests)."""
        with self._changed:
            self._queue.clear()
            self._costs.clear()
            self.running = self.peak = 0
            self._changed.notify_all()


HEAVY = Gate(HEAVY_AT_ONCE)


# How a page shows a wait: ``notice(what)`` -> (``on_wait`` for ``Gate.admit``, a callable that
# clears what it drew) or (None, None). The UI installs its own (``ui.heavy.waiting_notice``:
# "Waiting: k ahead of you"); here, nothing is shown.
_NOTICE = [lambda what: (None, None)]


def show_waiting_with(notice):
    """Let ``notice(what)`` (see ``_NOTICE``) show every wait for a heavy slot."""
    _NOTICE[0] = notice


def gated(compute, what="a large computation", cost=0.0):
    """``compute()`` once a heavy slot is free, with the waiting notice meanwhile."""
    on_wait, clear = _NOTICE[0](what)
    try:
        with HEAVY.admit(cost, on_wait):
            if clear is not None:
                clear()
            return compute()
    finally:
        if clear is not None:
            clear()
