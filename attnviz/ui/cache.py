"""The server's caches, in one place: what every session shares, under one memory budget.

``shared_cache`` keeps a function's results keyed by its small arguments (Settings, never
arrays) for every session; ``limits.MAX_SHARED_CACHE_MB`` bounds all of them together.
"""

import ctypes
import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attnviz.limits import MAX_SHARED_CACHE_MB


def result_bytes(value):
    """Bytes of the numpy arrays that ``value`` holds (a frozen result, an Example, a tuple of
    them), each array counted once: what keeping it in a cache costs."""
    seen, total, todo = set(), 0, [value]
    while todo:
        item = todo.pop()
        if isinstance(item, np.ndarray):
            base = item if item.base is None else item.base  # a read-only view: its memory
            if id(base) not in seen and isinstance(base, np.ndarray):
                seen.add(id(base))
                total += base.nbytes
        elif isinstance(item, (tuple, list)):
            todo.extend(item)
        elif hasattr(item, "__dataclass_fields__"):
            todo.extend(getattr(item, name) for name in item.__dataclass_fields__)
    return total


# Every shared cache's entries, in one store so that one memory budget bounds them all:
# (function, arguments) -> (result, its bytes), the latest used last.
_STORE = OrderedDict()
_STORE_LOCK = threading.Lock()


def shared_cache(max_entries):
    """Keep ``fn``'s results for its latest ``max_entries`` distinct arguments, for every session.

    Like ``st.cache_resource`` (one read-only copy for all, never copied per rerun), with two
    differences that a classroom needs: every shared cache draws on one budget,
    ``limits.MAX_SHARED_CACHE_MB`` of arrays in all (the results used longest ago go first:
    the largest are about 25 MB, the usual ones a few KB), and it is out of reach of
    Streamlit's "Clear cache" message, which any browser may send and which would empty every
    cache for every user. Arguments must be small and hashable (Settings, never arrays).

    A miss is computed outside the store's lock, so other sessions' hits never wait behind a
    slow computation (two sessions missing the same arguments at once may both compute).
    Exceptions are raised, never kept.
    """

    def wrap(fn):
        name = f"{fn.__module__}.{fn.__qualname__}"

        @functools.wraps(fn)
        def cached(*args):
            key = (name, args)
            with _STORE_LOCK:
                if key in _STORE:
                    _STORE.move_to_end(key)
                    return _STORE[key][0]
            value = fn(*args)
            with _STORE_LOCK:
                _STORE[key] = (value, result_bytes(value))
                _STORE.move_to_end(key)
                evicted = _evict(name, max_entries)
            if evicted:
                release_freed_memory()  # the evicted arrays' memory, back to the system
            return value

        return cached

    return wrap


def _evict(name, max_entries):
    """Drop ``name``'s entries past its ``max_entries``, then the store's oldest past the
    budget (never the entry just made); True if any went. Called with the store's lock held."""
    mine = [key for key in _STORE if key[0] == name]
    dropped = mine[: max(0, len(mine) - max_entries)]
    for key in dropped:
        del _STORE[key]
    budget = MAX_SHARED_CACHE_MB * 1e6
    while len(_STORE) > 1 and sum(size for _, size in _STORE.values()) > budget:
        _STORE.popitem(last=False)
        dropped.append(None)
    return bool(dropped)


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


def release_freed_memory():
    """Ask the C library to hand free memory back to the system (glibc's ``malloc_trim``).

    Each session's script runs in a thread of its own, and glibc keeps what a thread freed in
    that thread's arena: without this, the memory of evicted results stays counted against the
    server (measured: about 22 MB more per distinct max-size link, never levelling). Called
    after an eviction, never at import; does nothing where the C library has no malloc_trim.
    """
    try:
        trim = getattr(ctypes.CDLL(None), "malloc_trim", None)
    except OSError:  # no C library to open (not a POSIX system)
        trim = None
    if trim is not None:
        trim(0)


def shared_cache_bytes():
    """Bytes of arrays every shared cache holds now, in all."""
    with _STORE_LOCK:
        return sum(size for _, size in _STORE.values())


def clear_shared_caches():
    """Empty every shared cache (tests: as if the server had just started)."""
    with _STORE_LOCK:
        _STORE.clear()
