"""The server's store (attnviz/serve/store.py), through ``serve.store.kept`` and
``serve.slots.Slot``: bounds, one budget, one computation per key."""

import threading

import numpy as np
import pytest

from attnviz.serve import pins
from attnviz.serve import store as cache
from attnviz.serve.slots import Slot
from attnviz.serve.store import kept
from tests.helpers import fresh_store

THREADS = 16


def wait_for_waiters(count):
    """Until ``count`` callers wait for the one computation in progress (counted, not timed)."""
    while True:
        with cache._LOCK:
            flights = list(cache._FLIGHTS.values())
        if flights and flights[0].waiters >= count:
            return
        threading.Event().wait(0.001)


class Held:
    """A computation in progress, held: ``hold(k)`` records the call in ``calls``, says it
    has ``started`` and waits for ``release`` (10 s at most), so that others ask meanwhile."""

    def __init__(self):
        self.calls, self.started, self.release = [], threading.Event(), threading.Event()

    def hold(self, k):
        self.calls.append(k)
        self.started.set()
        self.release.wait(10)


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    fresh_store(monkeypatch)


def test_the_shared_caches_are_bounded_in_entries_and_share_one_budget(monkeypatch):
    monkeypatch.setattr(cache, "MAX_CACHE_MB", 1)
    calls = []

    @kept(entries=4)
    def make(k):
        calls.append(k)
        return (np.zeros(50_000),)  # 0.4 MB each: two fit in 1 MB, three do not

    @kept(entries=3)
    def small(k):
        calls.append(("small", k))
        return k

    for k in range(10):
        make(k)
        small(k)
    assert cache.shared_cache_bytes() <= 1e6
    make(9)
    assert calls.count(9) == 1  # the latest is kept: no recomputation
    make(0)
    assert calls.count(0) == 2  # the oldest went
    small(9)
    small(6)
    assert calls.count(("small", 9)) == 1 and calls.count(("small", 6)) == 2  # 3 entries kept


def test_a_cache_is_bounded_in_mb_too_and_a_pinned_one_is_never_evicted_for_another(monkeypatch):
    monkeypatch.setattr(cache, "MAX_CACHE_MB", 2)
    slot = Slot("test.pinned", lambda: np.zeros(125_000))
    pinned = slot.get()  # 1 MB

    @kept(entries=10, mb=0.5)
    def make(k):
        return np.zeros(25_000)  # 0.2 MB: two fit in the cache's own 0.5 MB

    for k in range(6):
        make(k)
    rows = {row["cache"]: row for row in cache.cache_report()}
    mine = rows[f"{__name__}.{make.__qualname__}"]
    assert mine["entries"] == 2 and mine["MB"] == 0.4 and mine["max_MB"] == 0.5
    assert slot.peek() is pinned
    total = rows["all, with computations in progress"]
    assert total["MB"] == 1.4 and total["max_MB"] == 2


def test_a_pinned_entry_outlives_any_pressure_until_released_or_its_time_ends(monkeypatch):
    """A lecture's trained run (``pin``) stays whatever the other pages fill the store with,
    until it is unpinned or its seconds pass; then it goes as any other."""
    monkeypatch.setattr(cache, "MAX_CACHE_MB", 1)
    now = [1000.0]
    monkeypatch.setattr(pins, "now", lambda: now[0])
    calls = []

    @kept(entries=2)
    def make(k):
        calls.append(k)
        return np.zeros(50_000)  # 0.4 MB: two fit in the 1-MB budget

    make.pin("lecture", seconds=60)
    make("lecture")
    for k in range(20):  # 45 minutes of other pages, in entries and in MB
        make(k)
    assert make.peek("lecture") is not None and make.pinned_for("lecture") == 60
    now[0] += 61  # the pin's time is over: the next pressure evicts it
    make(20)
    make(21)
    assert make.peek("lecture") is None and make.pinned_for("lecture") is None
    make.pin("again", seconds=60)
    make("again")
    make.unpin("again")  # released: the next two evict it
    make(22)
    make(23)
    assert make.peek("again") is None


def test_a_class_opening_one_key_at_once_computes_it_once():
    held = Held()

    @kept(entries=4)
    def slow(k):
        held.hold(k)  # every other thread asks while this one computes
        return np.full(3, k)

    results = [None] * THREADS
    waiting = threading.Barrier(THREADS + 1)

    def student(i):
        waiting.wait()
        results[i] = slow(7)

    threads = [threading.Thread(target=student, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    waiting.wait()
    held.started.wait(10)
    wait_for_waiters(THREADS - 1)  # all the others asked while the first computes
    held.release.set()
    for t in threads:
        t.join(10)
    assert held.calls == [7]
    assert all(r is results[0] for r in results) and results[0].tolist() == [7, 7, 7]


def test_waiters_of_a_failed_computation_get_its_error_and_nothing_is_kept():
    held = Held()

    @kept(entries=4)
    def fails(k):
        held.hold(k)
        raise ValueError(f"no {k}")

    errors = []

    def student():
        try:
            fails(1)
        except ValueError as exc:
            errors.append(str(exc))

    owner = threading.Thread(target=student)
    owner.start()
    held.started.wait(10)
    others = [threading.Thread(target=student) for _ in range(4)]
    for t in others:
        t.start()
    wait_for_waiters(4)
    held.release.set()
    for t in [owner, *others]:
        t.join(10)
    assert not any(t.is_alive() for t in [owner, *others])  # no deadlock
    assert errors == ["no 1"] * 5
    assert not cache._FLIGHTS and cache.shared_cache_bytes() == 0  # not kept
    assert held.calls == [1]  # the waiters got the owner's error: not computed again each
    with pytest.raises(ValueError):
        fails(1)  # asked again: computed again
    assert held.calls == [1, 1]


def test_a_stopped_owners_waiters_compute_it_themselves():
    """Streamlit's stop or rerun of the owner's session is its own: a waiter computes."""

    class Stop(BaseException):  # as streamlit's StopException: not an Exception
        pass

    held = Held()

    @kept(entries=4)
    def once(k):
        if not held.calls:  # the owner's
            held.hold(k)
            raise Stop
        held.calls.append(k)
        return k * 2

    got = []

    def owner():
        try:
            once(3)
        except Stop:
            got.append("stopped")

    first = threading.Thread(target=owner)
    first.start()
    held.started.wait(10)
    second = threading.Thread(target=lambda: got.append(once(3)))
    second.start()
    wait_for_waiters(1)
    held.release.set()
    first.join(10)
    second.join(10)
    assert sorted(map(str, got)) == ["6", "stopped"] and held.calls == [3, 3]


def test_arrays_in_flight_count_against_the_budget(monkeypatch):
    monkeypatch.setattr(cache, "MAX_CACHE_MB", 1)

    @kept(entries=10)
    def small_ones(k):
        return np.zeros(50_000)  # 0.4 MB

    seen = []

    @kept(entries=10, estimate=lambda k: 800_000)
    def big(k):
        seen.append(cache.shared_cache_bytes())  # while it runs: what is kept + its estimate
        return np.zeros(1000)

    small_ones(1)
    small_ones(2)  # 0.8 MB kept
    big(1)
    assert seen[0] <= 1e6  # the kept results gave way to the computation in progress
    assert small_ones.peek(1) is None


def test_keywords_reach_the_function_but_not_the_key():
    calls = []

    @kept(entries=4)
    def run(choice, *, train):
        calls.append(choice)
        return train()

    assert run("a", train=lambda: 1) == 1
    assert run("a", train=lambda: 2) == 1  # kept by its key alone
    assert run.peek("a") == 1 and run.peek("b") is None and calls == ["a"]
    assert run.kept() == [(("a",), 1)]
    run.forget()
    assert run.peek("a") is None


def test_a_slot_is_made_once_with_its_progress_and_forgotten_on_demand():
    made = []
    slot = Slot("test.slot", lambda **progress: made.append(progress) or len(made))
    assert slot.peek() is None and made == []  # peek never makes it
    assert slot.get(bar="x") == 1 and slot.get(bar="y") == 1 and made == [{"bar": "x"}]
    slot.forget()
    assert slot.peek() is None and slot.get() == 2


def test_the_report_ends_with_the_servers_memory_against_its_budget():
    from attnviz.limits import BASE_MB, MAX_CACHE_MB, SERVER_MB, WORKING_MB

    last = cache.cache_report()[-1]
    assert last["max_MB"] == SERVER_MB == BASE_MB + WORKING_MB + MAX_CACHE_MB
    assert 0 < last["MB"] == pytest.approx(cache.rss_mb(), rel=0.5)


def test_pins_are_bounded_on_the_server(monkeypatch):
    """At most MAX_PINNED_ENTRIES entries pinned at once, every lecture's: the next is refused
    (its caller says so), a re-pin of one already pinned is not a new one."""
    from attnviz.limits import MAX_PINNED_ENTRIES

    @kept(entries=MAX_PINNED_ENTRIES + 2)
    def make(k):
        return k

    assert all(make.pin(k, seconds=60) for k in range(MAX_PINNED_ENTRIES))
    assert not make.pin("one more", seconds=60) and make.pin(0, seconds=90)
    make.unpin(1)
    assert make.pin("one more", seconds=60)
