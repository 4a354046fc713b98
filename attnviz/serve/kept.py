"""``@kept``: the one way to keep a computation for every visitor, in the server's store.

    @kept(CACHE_EXAMPLES[0], CACHE_EXAMPLES[1], estimate=example_bytes, heavy=heavy_example)
    def cached_example(settings): ...

Like ``st.cache_resource`` (one read-only copy for all, never copied per rerun), with three
differences that a classroom needs: one computation per key however many sessions miss it at
once; every cache draws on one budget, ``limits.MAX_CACHE_MB`` in all (the results used longest
ago go first); and it is out of reach of Streamlit's "Clear cache" message, which any browser
may send and which would empty every cache for every user. No Streamlit.
"""

import functools

from attnviz.serve.store import (
    _cached_call,
    _entries,
    _peek,
    _pin,
    _pinned_for,
    _register,
    _unpin,
    forget,
    result_bytes,
)


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
        cached.pin = lambda *key, seconds: _pin(name, key, seconds)
        cached.unpin = lambda *key: _unpin(name, key)
        cached.pinned_for = lambda *key: _pinned_for(name, key)
        cached.cache_name = name
        return cached

    return wrap
