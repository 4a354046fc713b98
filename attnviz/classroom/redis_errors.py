"""Redis's errors in words, for the Redis store's methods (redis_store.py, peer_redis.py): a
Redis that cannot be reached, and one that answers but refuses a write.

    @plain_errors       a method raising redis.ConnectionError / TimeoutError raises
                        StoreUnavailableError; any other redis.RedisError (OutOfMemoryError when
                        ``maxmemory`` is reached with ``noeviction``, ReadOnlyError on a replica)
                        StoreRefusedError, why named from the error's class (``refused``)

The words never quote redis's own text: it can hold a key, and a key can hold a session id.
"""

import functools

import redis

from attnviz.classroom.room import StoreRefusedError, StoreUnavailableError

# Why Redis refused, in words, by redis-py's error class (any other RedisError: OTHER_REFUSAL)
REFUSALS = (
    (redis.exceptions.OutOfMemoryError, "it is out of memory", "give it more memory"),
    (redis.exceptions.ReadOnlyError, "it is read-only", "make it writable again"),
)
OTHER_REFUSAL = ("it answered with an error", "check its log")


def refused(exc):
    """The StoreRefusedError for redis's error ``exc``: why, named from its class, never its
    text (which may quote a key or a value)."""
    reason, remedy = next(
        ((r, m) for kind, r, m in REFUSALS if isinstance(exc, kind)), OTHER_REFUSAL
    )
    return StoreRefusedError(
        f"The classroom's shared store (Redis) refused to save this change: {reason}. Nothing "
        f"already saved is lost: the answers given so far are kept. Try again in a moment; if "
        f"it keeps refusing, the lecturer or IT should see to the store ({remedy}).",
        reason,
    )


def plain_errors(method):
    """Raise redis's errors in words: a connection lost or timed out as StoreUnavailableError,
    any other (a write refused: out of memory, read-only) as StoreRefusedError."""

    @functools.wraps(method)
    def wrapped(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            raise StoreUnavailableError(
                "The classroom's shared store (Redis) cannot be reached, so rooms cannot be "
                "opened, joined or answered right now. The lesson pages work as before; this "
                "page tries again on its own."
            ) from exc
        except redis.RedisError as exc:
            raise refused(exc) from exc

    return wrapped
