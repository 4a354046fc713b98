"""A fair queue for heavy work: visitors served in turn, a bounded number of jobs each, and a
lane of its own for short work. No Streamlit (attnviz/ui/heavy.py draws the waiting notice).

Heavy work (a tiny GPT's training, a max-size example, a model's forward pass, the chat
model's generation, a class set's PDF) runs only when a slot of its *lane* is free:

* **Lanes, not priorities.** Work whose estimated cost is at most ``small_seconds`` (a
  default training, a PDF, the real model's forward pass) goes to the small lane; the rest
  (max-size examples, long trainings) to the large one. Each lane has slots of its own. Work
  may name a lane of its own instead (``admit(lane=...)``: the chat model's, serve/gate.py).
  Priorities alone would not do: a running computation cannot be paused (a Python thread is
  not preemptible), so short work that jumped the queue would still wait for the
  max-size computation already running. With a lane of its own, short work waits at most
  behind other short work; the price is that one short and one long computation may run at
  once, for the few seconds the short one takes.
* **At most ``per_visitor`` jobs per visitor**, queued or running, in both lanes together: one
  more is refused at once (``BusyError``), so seven tabs of one visitor hold one place, not seven.
* **Visitors in turn (round robin)**, not jobs in arrival order: in each lane the visitors
  waiting form a rotation; each is served one job, then goes behind the others.
* **A visitor who leaves is dropped**: while waiting, ``on_wait`` is called whenever the
  number ahead changes and at least every ``heartbeat`` seconds; when it raises (Streamlit's
  stop of a closed or rerun session does), the job leaves the queue.

A thread that holds a slot and asks again (a heavy computation inside another) goes on at once.
"""

import threading
from collections import OrderedDict, deque
from contextlib import contextmanager
from dataclasses import dataclass, field

SMALL, LARGE = "small", "large"


class BusyError(Exception):
    """A visitor asked for more heavy work than ``per_visitor`` while theirs queues or runs."""

    def __init__(self, visitor, doing):
        self.visitor, self.doing = visitor, tuple(doing)
        super().__init__(
            f"you already have {' and '.join(self.doing)} waiting or running on this server "
            "(in this tab or another): this one can start once that has finished."
        )


@dataclass(eq=False)
class Ticket:
    """One job: whose (``visitor``), in which lane, what it is and its cost (seconds)."""

    visitor: str
    lane: str
    what: str = "a large computation"
    cost: float = 0.0
    running: bool = False


@dataclass
class _Lane:
    slots: int
    running: int = 0
    peak: int = 0  # the most jobs seen running at once
    rotation: OrderedDict = field(default_factory=OrderedDict)  # visitor -> deque of tickets


class FairGate:
    """Heavy work in lanes, each with ``slots`` (lane name -> slots), served in turn by
    visitor, at most ``per_visitor`` jobs each."""

    def __init__(self, slots, *, per_visitor=1, small_seconds=4.0, heartbeat=1.0):
        self.lanes = {name: _Lane(n) for name, n in slots.items()}
        self.per_visitor = per_visitor
        self.small_seconds = small_seconds
        self.heartbeat = heartbeat
        self._tickets = []  # every ticket waiting or running
        self._changed = threading.Condition()
        self._held = threading.local()
        self._pokes = 0

    def lane_for(self, cost):
        """The small lane for work of a known cost up to ``small_seconds``, else the large."""
        small = cost is not None and cost <= self.small_seconds and SMALL in self.lanes
        return SMALL if small else LARGE

    @property
    def slots(self):
        """Heavy computations that may run at once, every lane together."""
        return sum(lane.slots for lane in self.lanes.values())

    @property
    def running(self):
        return sum(lane.running for lane in self.lanes.values())

    def queued_cost(self, lane=None):
        """The costs of every job waiting or running, in ``lane`` (None: in all)."""
        with self._changed:
            return sum(t.cost for t in self._tickets if lane in (None, t.lane))

    def waiting(self, lane):
        """The visitors of ``lane``'s waiting jobs, in the order they will be served."""
        with self._changed:
            return [t.visitor for t in self._order(self.lanes[lane])]

    def doing(self, visitor):
        """What ``visitor`` has waiting or running: [what]."""
        with self._changed:
            return [t.what for t in self._tickets if t.visitor == visitor]

    def poke(self):
        """Wake every waiter to call its ``on_wait`` again (as the heartbeat does)."""
        with self._changed:
            self._pokes += 1
            self._changed.notify_all()

    @contextmanager
    def admit(self, visitor, *, cost=None, what="a large computation", on_wait=None, lane=None):
        """Hold a slot of ``lane`` (a lane's name; None: ``cost``'s lane, ``lane_for``) for the
        ``with`` block.

        Raises ``BusyError`` at once if ``visitor`` has ``per_visitor`` jobs already. While it
        waits, ``on_wait(ahead, first)`` is called (outside the lock) when the number of jobs
        ahead in its lane changes and every ``heartbeat`` seconds; ``first`` is the number when
        it began waiting. If ``on_wait`` raises, the job leaves the queue and the exception
        goes on."""
        if getattr(self._held, "depth", 0):
            self._held.depth += 1
            try:
                yield
            finally:
                self._held.depth -= 1
            return
        name = self.lane_for(cost) if lane is None else lane
        lane = self.lanes[name]
        ticket = Ticket(visitor, name, what, cost or 0.0)
        with self._changed:
            mine = [t.what for t in self._tickets if t.visitor == visitor]
            if len(mine) >= self.per_visitor:
                raise BusyError(visitor, mine)
            self._tickets.append(ticket)
            lane.rotation.setdefault(visitor, deque()).append(ticket)
            try:
                self._wait_for_turn(lane, ticket, on_wait)
            except BaseException:  # the session stopped or reran while it waited: leave
                self._leave(lane, ticket)
                raise
            self._start(lane, ticket)
        self._held.depth = 1
        try:
            yield
        finally:
            self._held.depth = 0
            with self._changed:
                lane.running -= 1
                self._tickets.remove(ticket)
                self._changed.notify_all()

    def _order(self, lane):
        """The lane's waiting tickets in service order: round by round, in each round one job
        of each visitor in the rotation's order (called with the lock held)."""
        queues = [list(q) for q in lane.rotation.values()]
        order, depth = [], 0
        while any(len(q) > depth for q in queues):
            order += [q[depth] for q in queues if len(q) > depth]
            depth += 1
        return order

    def _ahead(self, lane, ticket):
        return lane.running + self._order(lane).index(ticket)

    def _start(self, lane, ticket):
        """``ticket`` (first in order) runs: its visitor goes behind the others."""
        queue = lane.rotation[ticket.visitor]
        queue.popleft()
        if queue:
            lane.rotation.move_to_end(ticket.visitor)
        else:
            del lane.rotation[ticket.visitor]
        ticket.running = True
        lane.running += 1
        lane.peak = max(lane.peak, lane.running)
        self._changed.notify_all()  # the next in line may go too, if a slot is free

    def _leave(self, lane, ticket):
        queue = lane.rotation[ticket.visitor]
        queue.remove(ticket)
        if not queue:
            del lane.rotation[ticket.visitor]
        self._tickets.remove(ticket)
        self._changed.notify_all()

    def _wait_for_turn(self, lane, ticket, on_wait):
        """Wait (the lock held, released while waiting) until ``ticket`` is first in its lane
        and a slot is free, calling ``on_wait`` when the number ahead changes, at a poke and
        at every heartbeat."""
        first = shown = None
        pokes = self._pokes
        while not (lane.running < lane.slots and self._order(lane)[0] is ticket):
            ahead = self._ahead(lane, ticket)
            first = ahead if first is None else first
            if on_wait is not None and (ahead != shown or pokes != self._pokes):
                shown, pokes = ahead, self._pokes
                self._changed.release()
                try:
                    on_wait(ahead, first)
                finally:
                    self._changed.acquire()
                continue  # things may have moved while it drew: look again first
            if not self._changed.wait(self.heartbeat):
                self._pokes += 1  # a heartbeat: every waiter checks it is still wanted
                self._changed.notify_all()

    def give_up(self):
        """Forget everything (tests)."""
        with self._changed:
            self._tickets.clear()
            for lane in self.lanes.values():
                lane.rotation.clear()
                lane.running = lane.peak = 0
            self._changed.notify_all()
