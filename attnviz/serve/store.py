"""The server's store, in one place: what every session shares, under one memory budget.

Everything attnviz keeps for all sessions lives here: the results of ``kept``
functions (each page's examples, the real model's sentences, finished charts, the tiny GPT's
trained runs) and ``serve.slots``' pinned values (the two models, the room store). Each cache
has its bound in entries and in MB, and ``limits.MAX_CACHE_MB`` bounds them all together, so
"how much can this server hold" has one answer: ``cache_report``. Sessions keep the keys
(Settings, an edit, a text), a ``Lookup`` of them where a fragment or a callback needs one,
never the results. No Streamlit. The way in is ``kept`` (or a ``serve.slots.Slot``):

    @kept(CACHE_EXAMPLES[0], CACHE_EXAMPLES[1], estimate=example_bytes, heavy=heavy_example)
    def cached_example(settings): ...

Like ``st.cache_resource`` (one read-only copy for all, never copied per rerun), with three
differences that a classroom needs: one computation per key however many sessions miss it at
once; every cache draws on one budget, ``limits.MAX_CACHE_MB`` in all (the results used longest
ago go first); and it is out of reach of Streamlit's "Clear cache" message, which any browser
may send and which would empty every cache for every user.

A class that opens one link computes it once: concurrent misses of one key wait for the first
computation (single flight), whose arrays count against the budget while it runs (its
estimate), and memory freed by an eviction goes back to the system at once.
"""

import ctypes
import functools
import gc
import sys
import threading
import types
from collections import OrderedDict
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field

import numpy as np

from attnviz.limits import BASE_MB, MAX_CACHE_MB, SERVER_MB, WORKING_MB
from attnviz.serve import pins
from attnviz.serve.gate import gated

MB = 1e6


def result_bytes(value):
    """Bytes of the numpy arrays that ``value`` holds (a frozen result, an Example, a tuple,
    list or dict of them), each array counted once: what keeping it in a cache costs."""
    seen, total, todo = set(), 0, [value]
    while todo:
        item = todo.pop()
        if isinstance(item, np.ndarray):
            base = item
            while isinstance(base.base, np.ndarray):  # a read-only view: its memory
                base = base.base
            if id(base) not in seen:
                seen.add(id(base))
                total += base.nbytes
        elif isinstance(item, (tuple, list)):
            todo.extend(item)
        elif isinstance(item, dict):
            todo.extend(item.values())
        elif hasattr(item, "__dataclass_fields__"):
            todo.extend(getattr(item, name) for name in item.__dataclass_fields__)
    return total


def object_bytes(value):
    """Bytes of everything ``value`` reaches (Python objects by ``sys.getsizeof``, arrays by
    their memory), not entering modules, classes or functions: for values that are not only
    arrays, e.g. a Plotly figure (the geometry page's, 0.2 MB of JSON, holds about 2 MB)."""
    modules = {id(vars(m)) for m in list(sys.modules.values()) if hasattr(m, "__dict__")}
    skip = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)
    seen, total, todo = set(), 0, [value]
    while todo:
        item = todo.pop()
        if id(item) in seen or isinstance(item, skip) or id(item) in modules:
            continue
        seen.add(id(item))
        if isinstance(item, np.ndarray):
            total += result_bytes(item)
            continue
        total += sys.getsizeof(item)
        todo.extend(gc.get_referents(item))
    return total


@dataclass
class _Bounds:
    max_entries: int
    max_bytes: float
    pinned: bool  # never evicted to make room for another cache (the model)


@dataclass
class _Flight:
    """A computation in progress: waiters wait for ``done``; ``estimate`` counts against the
    budget meanwhile."""

    estimate: int
    done: threading.Event = field(default_factory=threading.Event)
    waiters: int = 0  # callers that have waited for it
    value: object = None
    error: BaseException | None = None


# (cache name, key) -> (value, its bytes), the latest used last; computations in progress.
_STORE = OrderedDict()
_FLIGHTS = {}
_CACHES = {}  # cache name -> _Bounds
_LOCK = threading.Lock()


def _register(name, max_entries, max_mb=None, *, pinned=False):
    """Declare cache ``name`` with its bounds (``max_mb`` None: only the whole budget)."""
    max_bytes = MAX_CACHE_MB * MB if max_mb is None else max_mb * MB
    _CACHES[name] = _Bounds(max_entries, max_bytes, pinned)


def _cached_call(name, key, compute, *, estimate=0, size=result_bytes, on_wait=None, heavy=None):
    """The value of ``key`` in cache ``name`` (``_register``-ed), made by ``compute()`` on a
    miss, for every session.

    Single flight: while one caller computes a key, the others asking for it wait for that
    result (inside ``on_wait()``, a context manager such as ``st.spinner``, if given) instead
    of computing it again. ``estimate`` (bytes) counts against the budget while it is computed;
    ``size(value)`` is what the kept value costs. An exception is raised and never kept;
    callers waiting for it get the same exception, or, when it was the owner's own control
    flow (Streamlit's stop or rerun of that session, not an ``Exception``), compute it
    themselves. Others' hits never wait behind a computation. ``heavy`` (what it is, in a
    few words) runs the computation through ``serve.gate``'s gate: one heavy computation
    per core at a time, the rest queued.
    """
    if name not in _CACHES:
        raise KeyError(f"cache {name!r} is not registered")
    full = (name, key)
    while True:
        with _LOCK:
            entry = _STORE.get(full)
            if entry is not None:
                _STORE.move_to_end(full)
                return entry[0]
            flight = _FLIGHTS.get(full)
            owner = flight is None
            if owner:
                flight = _FLIGHTS[full] = _Flight(int(estimate))
                evicted = _evict()
            else:
                flight.waiters += 1
        if owner:
            break
        with on_wait() if on_wait is not None and not flight.done.is_set() else nullcontext():
            flight.done.wait()
        if flight.error is None:
            return flight.value
        if isinstance(flight.error, Exception):
            raise flight.error
        # the owner's session stopped or reran: this caller computes it (a new flight)
    if evicted:
        release_freed_memory()
    try:
        value = compute() if heavy is None else gated(compute, heavy)
        nbytes = size(value)
    except BaseException as exc:
        with _LOCK:
            del _FLIGHTS[full]
        flight.error = exc
        flight.done.set()
        raise
    with _LOCK:
        _STORE[full] = (value, nbytes)
        del _FLIGHTS[full]
        evicted = _evict(keep=full)
    flight.value = value
    flight.done.set()
    if evicted:
        release_freed_memory()  # the evicted arrays' memory, back to the system
    return value


def _peek(name, key):
    """The kept value of ``key`` in cache ``name``, or None (never computes)."""
    with _LOCK:
        entry = _STORE.get((name, key))
        if entry is None:
            return None
        _STORE.move_to_end((name, key))
        return entry[0]


def _entries(name):
    """[(key, value)] of every entry cache ``name`` keeps now, the latest used last."""
    with _LOCK:
        return [(full[1], entry[0]) for full, entry in _STORE.items() if full[0] == name]


def _evict(keep=None):
    """Drop entries past their cache's bounds, then the oldest until what is kept and what is
    in flight fit the budget (never ``keep``, the entry just made, nor a pinned cache's to
    make room for another's, nor a pinned entry: ``serve.pins``); True if any went. Called with the
    lock held."""
    now = pins.now()
    dropped = False
    by_cache = {}
    for full, (_, nbytes) in _STORE.items():
        by_cache.setdefault(full[0], []).append((full, nbytes))
    for name, entries in by_cache.items():
        bounds = _CACHES[name]
        count, held = len(entries), sum(nbytes for _, nbytes in entries)
        for full, nbytes in entries:  # the oldest first
            if count <= bounds.max_entries and held <= bounds.max_bytes:
                break
            if full != keep and not pins.held(full, now):
                del _STORE[full]
                count, held, dropped = count - 1, held - nbytes, True
    budget = MAX_CACHE_MB * MB
    total = sum(nbytes for _, nbytes in _STORE.values())
    total += sum(flight.estimate for flight in _FLIGHTS.values())
    for full in list(_STORE):
        if total <= budget:
            break
        if full == keep or _CACHES[full[0]].pinned or pins.held(full, now):
            continue
        total -= _STORE.pop(full)[1]
        dropped = True
    return dropped


@functools.cache
def _malloc_trim():
    try:
        return getattr(ctypes.CDLL(None), "malloc_trim", None)
    except OSError:  # no C library to open (not a POSIX system)
        return None


def release_freed_memory():
    """Ask the C library to hand free memory back to the system (glibc's ``malloc_trim``).

    Each session's script runs in a thread of its own, and glibc keeps what a thread freed in
    that thread's arena: without this, the memory of evicted results stays counted against the
    server (measured: about 22 MB more per distinct max-size link, never levelling). Called
    after an eviction, never at import; does nothing where the C library has no malloc_trim.
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def shared_cache_bytes():
    """Bytes every cache holds now, in all, with the estimates of those in progress."""
    with _LOCK:
        return sum(nbytes for _, nbytes in _STORE.values()) + sum(
            flight.estimate for flight in _FLIGHTS.values()
        )


def rss_mb():
    """This process's resident memory now (MB, Linux's VmRSS), or None where unknown."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024 / MB
    except OSError:
        pass
    return None


def cache_report():
    """How much this server holds, and may hold: one row per cache, {"cache", "entries",
    "max_entries", "MB", "max_MB"}, then the total against ``limits.MAX_CACHE_MB``, then the
    server's RSS against ``limits.SERVER_MB`` (the caches, BASE_MB and WORKING_MB in all)."""
    with _LOCK:
        held = {}
        for (name, _), (_, nbytes) in _STORE.items():
            count, total = held.get(name, (0, 0))
            held[name] = (count + 1, total + nbytes)
        in_flight = sum(flight.estimate for flight in _FLIGHTS.values())
        rows = [
            {
                "cache": name,
                "entries": held.get(name, (0, 0))[0],
                "max_entries": bounds.max_entries,
                "MB": held.get(name, (0, 0))[1] / MB,
                "max_MB": min(bounds.max_bytes, MAX_CACHE_MB * MB) / MB,
            }
            for name, bounds in sorted(_CACHES.items())
        ]
    rows.append(
        {
            "cache": "all, with computations in progress",
            "entries": sum(row["entries"] for row in rows),
            "max_entries": sum(row["max_entries"] for row in rows),
            "MB": sum(row["MB"] for row in rows) + in_flight / MB,
            "max_MB": float(MAX_CACHE_MB),
        }
    )
    rows.append(
        {
            "cache": f"the server's memory (RSS): {BASE_MB} MB to start, {WORKING_MB} MB at "
            "work, the caches",
            "entries": None,
            "max_entries": None,
            "MB": rss_mb(),
            "max_MB": float(SERVER_MB),
        }
    )
    return rows


def kept(entries, mb=None, *, estimate=None, heavy=None, size=result_bytes):
    """Keep the decorated function's results for its latest ``entries`` distinct positional
    arguments (and at most ``mb`` MB), for every session.

    The positional arguments are the key: small and hashable (Settings, numbers, text), never
    arrays, and everything the value depends on. Keyword arguments reach the function but not
    the key: what it shows its progress in (a page's element), or arrays the key names by their
    digest; ``on_wait`` (a context manager, e.g. ``st.spinner``) is entered while this caller
    waits for another's computation of the same key. ``estimate(*key)`` (bytes) counts against
    the budget while it is computed; ``heavy(*key)`` is what the computation is in a few words
    when it is heavy (else None): it then waits for a heavy slot (``serve.gate``); ``size``
    is what a kept value costs (``result_bytes``: its arrays; ``object_bytes``: everything).

    The kept function also has ``peek(*key)`` (the kept value or None, never computing),
    ``kept()`` ([(key, value)] of every entry now, the latest used last), ``forget()``, and
    ``pin(*key, seconds=...)`` / ``unpin(*key)`` / ``pinned_for(*key)``: an entry kept from
    eviction for ``seconds`` (a lecture's runs; False when the server's pins are all taken,
    ``limits.MAX_PINNED_ENTRIES``; the seconds left, or None).
    """

    def wrap(fn):
        name = f"{fn.__module__}.{fn.__qualname__}"
        _register(name, entries, mb)

        @functools.wraps(fn)
        def cached(*key, on_wait=None, **context):
            return _cached_call(
                name,
                key,
                lambda: fn(*key, **context),
                estimate=0 if estimate is None else estimate(*key),
                size=size,
                on_wait=on_wait,
                heavy=None if heavy is None else heavy(*key),
            )

        cached.peek = lambda *key: _peek(name, key)
        cached.kept = lambda: _entries(name)
        cached.forget = lambda: forget(name)
        cached.pin = lambda *key, seconds: pins.pin(name, key, seconds)
        cached.unpin = lambda *key: pins.unpin(name, key)
        cached.pinned_for = lambda *key: pins.pinned_for(name, key)
        cached.cache_name = name
        return cached

    return wrap


def forget(name):
    """Drop cache ``name``'s entries (tests: as if the server had just started)."""
    with _LOCK:
        for full in [full for full in _STORE if full[0] == name]:
            del _STORE[full]


def clear_shared_caches():
    """Empty every cache and drop every pin (tests: as if the server had just started)."""
    with _LOCK:
        _STORE.clear()
    pins.clear()


@dataclass(frozen=True)
class Lookup:
    """What a session keeps instead of a result: ``fn(*args)`` on demand, ``fn`` a module-level
    function whose results live in a shared cache and ``args`` its small keys (Settings, an
    Edit, a text, a head's index). Fragments, callbacks' args and download buttons get one.

    Refuses a numpy array among ``args``: that would put the arrays back in the session.
    """

    fn: Callable
    args: tuple = ()

    def __post_init__(self):
        if any(isinstance(arg, np.ndarray) for arg in self.args):
            raise TypeError("a Lookup takes small keys, never arrays")

    def __call__(self):
        return self.fn(*self.args)
