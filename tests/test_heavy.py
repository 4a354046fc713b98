"""The fair heavy queue (attnviz/serve/fair_queue.py, the server's HEAVY in attnviz/serve/gate.py),
with threads and events: order and concurrency counted, never timed."""

import threading

import pytest

from attnviz.serve import gate as serve_gate
from attnviz.serve.fair_queue import LARGE, SMALL, BusyError, FairGate
from attnviz.serve.store import kept
from tests.helpers import fresh_store


def until(condition):
    """Until ``condition()`` holds (other threads make it so; counted, not timed)."""
    while not condition():
        threading.Event().wait(0.001)


class Jobs:
    """Jobs started in threads, each held inside the gate until released."""

    def __init__(self, gate):
        self.gate, self.started, self.threads, self.releases = gate, [], [], {}
        self.errors = []

    def start(self, name, visitor, cost=None, on_wait=None, lane=None):
        self.releases[name] = threading.Event()

        def work():
            try:
                with self.gate.admit(visitor, cost=cost, what=name, on_wait=on_wait, lane=lane):
                    self.started.append(name)
                    self.releases[name].wait(10)
            except BaseException as exc:
                self.errors.append((name, exc))

        self.threads.append(threading.Thread(target=work))
        self.threads[-1].start()

    def finish(self, name):
        self.releases[name].set()

    def join(self):
        for event in self.releases.values():
            event.set()
        for t in self.threads:
            t.join(10)


def test_visitors_are_served_in_turn_not_in_the_order_their_jobs_came():
    gate = FairGate({LARGE: 1}, per_visitor=3)
    jobs = Jobs(gate)
    jobs.start("hold", "x")
    until(lambda: jobs.started == ["hold"])
    arrivals = [("a1", "a"), ("a2", "a"), ("a3", "a"), ("b1", "b"), ("b2", "b"), ("c1", "c")]
    for k, (name, visitor) in enumerate(arrivals):  # each joins the queue after the one before
        jobs.start(name, visitor)
        until(lambda k=k: len(gate.waiting(LARGE)) == k + 1)
    assert gate.waiting(LARGE) == ["a", "b", "c", "a", "b", "a"]
    order = ["hold", "a1", "b1", "c1", "a2", "b2", "a3"]
    for k, name in enumerate(order):
        until(lambda k=k: len(jobs.started) == k + 1)
        jobs.finish(name)
    jobs.join()
    assert jobs.started == order and not jobs.errors


def test_one_job_per_visitor_queued_or_running_the_next_is_refused_at_once():
    gate = FairGate({LARGE: 1})  # per_visitor=1, the server's default
    jobs = Jobs(gate)
    jobs.start("a1", "a")
    until(lambda: jobs.started == ["a1"])
    jobs.start("b1", "b")  # waits
    until(lambda: gate.waiting(LARGE) == ["b"])
    for visitor in ("a", "b"):  # seven tabs of one visitor hold one place
        with pytest.raises(BusyError, match="already have"), gate.admit(visitor):
            pass
    assert gate.waiting(LARGE) == ["b"] and gate.doing("a") == ["a1"]
    jobs.finish("a1")
    until(lambda: jobs.started == ["a1", "b1"])
    assert gate.doing("a") == []  # a's job has finished: a may ask again
    jobs.finish("b1")
    with gate.admit("a"):
        pass
    jobs.join()
    assert not jobs.errors


def test_short_work_never_waits_behind_a_max_size_computation():
    gate = FairGate({LARGE: 1, SMALL: 1}, small_seconds=4)
    jobs = Jobs(gate)
    jobs.start("huge", "attacker", cost=None)  # unknown cost: the large lane
    until(lambda: jobs.started == ["huge"])
    jobs.start("long training", "other", cost=17)
    until(lambda: gate.waiting(LARGE) == ["other"])
    jobs.start("default training", "student", cost=3.8)  # starts while the large one runs
    until(lambda: jobs.started == ["huge", "default training"])
    assert gate.waiting(LARGE) == ["other"] and gate.lanes[LARGE].running == 1
    assert gate.queued_cost(SMALL) == 3.8 and gate.queued_cost(LARGE) == 17  # per lane
    jobs.join()
    assert gate.lanes[SMALL].peak == 1 and gate.lanes[LARGE].peak == 1 and not jobs.errors


def test_a_visitor_who_leaves_is_dropped_and_the_next_is_served():
    gate, left = FairGate({LARGE: 1}), threading.Event()

    class Stop(BaseException):  # as Streamlit's StopException when a session is closed
        pass

    def still_here(ahead, first):
        if left.is_set():
            raise Stop

    jobs = Jobs(gate)
    jobs.start("hold", "x")
    until(lambda: jobs.started == ["hold"])
    jobs.start("gone", "leaver", cost=7, on_wait=still_here)
    jobs.start("next", "student")
    until(lambda: gate.waiting(LARGE) == ["leaver", "student"])
    left.set()
    gate.poke()  # what the heartbeat does every second
    until(lambda: gate.waiting(LARGE) == ["student"])
    assert gate.queued_cost() == 0 and [n for n, e in jobs.errors] == ["gone"]
    jobs.finish("hold")
    until(lambda: jobs.started == ["hold", "next"])
    jobs.join()


def test_at_most_a_lanes_slots_run_at_once_and_nesting_never_deadlocks():
    gate = FairGate({LARGE: 2})
    jobs = Jobs(gate)
    for k in range(10):
        jobs.start(k, f"visitor {k}")
    until(lambda: len(jobs.started) == 2 and len(gate.waiting(LARGE)) == 8)
    jobs.join()
    assert sorted(jobs.started) == list(range(10)) and gate.lanes[LARGE].peak == 2
    with gate.admit("a"), gate.admit("a"):  # a heavy computation inside another, one thread
        assert gate.running == 1
    assert gate.running == 0 and gate.queued_cost() == 0


def test_a_lane_named_by_the_work_holds_its_own_slots_whatever_the_cost():
    """The chat model's lane (serve/gate.py CHAT): short or long, its jobs run one at a time,
    and neither waits for the other lanes nor makes them wait."""
    gate = FairGate({LARGE: 1, SMALL: 1, "chat": 1})
    jobs = Jobs(gate)
    jobs.start("generation", "a", cost=30, lane="chat")
    jobs.start("reading", "b", cost=0.5, lane="chat")  # short: still the chat lane
    jobs.start("training", "c", cost=30)
    jobs.start("pdf", "d", cost=1)
    until(lambda: sorted(jobs.started) == ["generation", "pdf", "training"])
    assert gate.waiting("chat") == ["b"] and gate.lanes["chat"].running == 1
    jobs.finish("generation")
    until(lambda: "reading" in jobs.started)
    jobs.join()
    assert gate.lanes["chat"].peak == 1 and not jobs.errors


def test_heavy_shared_cache_misses_go_through_the_gate(monkeypatch):
    """Concurrent heavy misses of distinct keys: at most the gate's slots compute at once."""
    gate = FairGate({LARGE: 2}, per_visitor=8)
    monkeypatch.setattr(serve_gate, "HEAVY", gate)
    fresh_store(monkeypatch)
    release, running, lock = threading.Event(), [0], threading.Lock()
    peak = [0]

    @kept(entries=20, heavy=lambda k: "a test")
    def heavy(k):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        release.wait(10)
        with lock:
            running[0] -= 1
        return k

    threads = [threading.Thread(target=heavy, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    until(lambda: gate.running == 2 and len(gate.waiting(LARGE)) == 6)
    release.set()
    for t in threads:
        t.join(10)
    assert peak[0] == 2 and gate.lanes[LARGE].peak == 2


def test_a_downloads_deferred_work_runs_in_the_visitors_turn(monkeypatch):
    """A PDF is made on click in a thread of Streamlit's (no page): in the turn of the visitor
    whose page drew the button, small lane, and refused while that visitor has a job."""
    gate = FairGate({LARGE: 1, SMALL: 1})
    monkeypatch.setattr(serve_gate, "HEAVY", gate)
    monkeypatch.setattr(serve_gate, "_VISITOR", [lambda: "lecturer"])  # as a page's would say
    seen = []
    make = serve_gate.deferred(lambda: seen.append(gate.doing("lecturer")) or b"%PDF", "a PDF", 3.2)
    jobs = Jobs(gate)
    jobs.start("huge", "attacker")  # the large lane is busy: the PDF does not wait for it
    until(lambda: jobs.started == ["huge"])
    assert make() == b"%PDF" and seen == [["a PDF"]] and gate.lanes[SMALL].peak == 1
    jobs.start("training", "lecturer", cost=3)
    until(lambda: "training" in jobs.started)
    with pytest.raises(BusyError):
        make()
    jobs.join()
