"""The heavy-work gate (attnviz/serve/gate.py), with threads: concurrency counted, never timed."""

import threading

from attnviz.serve import store as cache
from attnviz.serve.gate import Gate
from attnviz.serve.kept import kept


def until(condition):
    """Until ``condition()`` holds (other threads make it so; counted, not timed)."""
    while not condition():
        threading.Event().wait(0.001)


def queued(gate):
    with gate._changed:
        return len(gate._queue)


def test_at_most_slots_run_at_once_and_every_one_runs():
    gate, inside, lock = Gate(2), [], threading.Lock()
    release = threading.Event()
    done = []

    def work(k):
        with gate.admit():
            with lock:
                inside.append(k)
            release.wait(10)
            done.append(k)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(10)]
    for t in threads:
        t.start()
    until(lambda: len(inside) == 2 and queued(gate) == 8)  # two run, eight wait
    release.set()
    for t in threads:
        t.join(10)
    assert sorted(done) == list(range(10)) and gate.peak == 2 and gate.running == 0


def test_the_queue_is_first_come_first_served_and_says_how_many_are_ahead():
    gate, order, told = Gate(1), [], {}
    releases = {k: threading.Event() for k in range(4)}

    def work(k):
        with gate.admit(on_wait=lambda ahead, first: told.setdefault(k, []).append(ahead)):
            order.append(k)
            releases[k].wait(10)

    threads = []
    for k in range(4):  # each joins the queue after the one before it
        threads.append(threading.Thread(target=work, args=(k,)))
        threads[-1].start()
        until(lambda k=k: len(order) == 1 and queued(gate) == k)
    for k in range(4):
        until(lambda k=k: len(order) == k + 1)
        releases[k].set()
    for t in threads:
        t.join(10)
    assert order == [0, 1, 2, 3]
    assert told[1] == [1] and told[2] == [2, 1] and told[3] == [3, 2, 1]  # running + ahead


def test_a_waiter_that_stops_leaves_the_queue_and_nesting_never_deadlocks():
    gate, release = Gate(1), threading.Event()

    class Stop(BaseException):  # as Streamlit's StopException while a page draws
        pass

    def stopped(ahead, first):
        raise Stop

    got = []

    def hold():
        with gate.admit(cost=5):
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    until(lambda: gate.running == 1)

    def leaver():
        try:
            with gate.admit(cost=7, on_wait=stopped):
                got.append("ran")
        except Stop:
            got.append("left")

    t = threading.Thread(target=leaver)
    t.start()
    t.join(10)
    assert got == ["left"] and queued(gate) == 0 and gate.queued_cost() == 5
    release.set()
    holder.join(10)
    with gate.admit(), gate.admit():  # a heavy computation inside another, in one thread
        assert gate.running == 1
    assert gate.running == 0 and gate.queued_cost() == 0


def test_heavy_shared_cache_misses_go_through_the_gate(monkeypatch):
    """Concurrent heavy misses of distinct keys: at most the gate's slots compute at once."""
    gate = Gate(2)
    monkeypatch.setattr("attnviz.serve.gate.HEAVY", gate)
    cache.clear_shared_caches()
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
    until(lambda: gate.running == 2 and queued(gate) == 6)
    release.set()
    for t in threads:
        t.join(10)
    assert peak[0] == 2 and gate.peak == 2
    cache.clear_shared_caches()
