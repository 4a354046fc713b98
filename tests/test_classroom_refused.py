"""A Redis that answers but refuses writes, against a real redis-server (tools/services.py): out
of memory (``maxmemory`` reached, ``noeviction``) and read-only (a replica of a master that is
not there). A student joining or answering and a lecturer opening, pushing or revealing each get
the store's words (StoreRefusedError), never redis's errors; nothing already stored is lost: the
answers given before are still counted when the refusal ends, and new ones work."""

import contextlib
import inspect

import pytest

from attnviz.classroom import StoreRefusedError, StoreUnavailableError
from attnviz.classroom.health import health
from attnviz.classroom.peer_redis import RedisPeer
from attnviz.classroom.redis_store import RedisSketches, RedisStore
from attnviz.links.shared import settings_query
from attnviz.settings import Settings
from tools.browser import free_port
from tools.services import redis_server

EXAMPLE = settings_query(Settings())
SKETCH = "sketch:causal:2"  # classroom.sketch.sketch_kind("causal", 2): 6 keys
FILL = "redis.call('SET', KEYS[1], string.rep('x', tonumber(ARGV[1]))) return 1"


@pytest.fixture(scope="module")
def url(needs_redis):
    with redis_server() as url:
        yield url


@contextlib.contextmanager
def out_of_memory(r):
    """Redis full, as in class: ``maxmemory`` just above what it uses (INFO memory), no
    eviction, then 1 MB more stored by a Lua script (made in Redis: no large request held, so
    the server stays past its limit); every write is refused until ``maxmemory`` is 0 again."""
    used = int(r.info("memory")["used_memory"])
    r.config_set("maxmemory-policy", "noeviction")
    r.config_set("maxmemory", used + 64 * 1024)
    try:
        r.eval(FILL, 1, "attnviz-test:filler", 1 << 20)
        yield
    finally:
        r.config_set("maxmemory", 0)
        r.delete("attnviz-test:filler")


@contextlib.contextmanager
def read_only(r):
    """Redis read-only: a replica of a port where nothing listens (its data is kept, since no
    master ever sends another), until REPLICAOF NO ONE."""
    r.replicaof("127.0.0.1", free_port())
    try:
        yield
    finally:
        r.replicaof("NO", "ONE")


REFUSALS = [(out_of_memory, "it is out of memory"), (read_only, "it is read-only")]


def said_plainly(attempt, why, *typed):
    """``attempt()`` raises StoreRefusedError that says ``why`` and that nothing is lost, and
    quotes none of ``typed``."""
    with pytest.raises(StoreRefusedError) as caught:
        attempt()
    message = str(caught.value)
    assert f"(Redis) refused to save this change: {why}." in message
    assert "Nothing already saved is lost" in message and "see to the store" in message
    assert not any(text in message for text in typed), message
    assert caught.value.reason == why and "cannot be reached" not in message
    assert isinstance(caught.value, StoreUnavailableError)  # every page says it as a warning


@pytest.mark.parametrize(("refusal", "why"), REFUSALS, ids=["out_of_memory", "read_only"])
def test_a_refused_write_is_said_on_both_sides_and_loses_nothing(url, refusal, why):
    store = RedisStore(url)
    store.r.flushdb()
    room, key = store.open(EXAMPLE, "lecturer")
    room = store.push_question(room.code, key, 0, "row_sum", 3)
    for sid in ("s1", "s2", "s3"):
        store.join(room.code, sid)
    store.answer(room.code, "s1", 0)
    store.answer(room.code, "s2", 2)
    store.confide(room.code, "s1", 2)
    sketching, sketch_key = store.open(EXAMPLE, "lecturer")
    sketching = store.push_question(sketching.code, sketch_key, 0, SKETCH, 6)
    store.join(sketching.code, "s1")
    before = store.tally(room.code)
    with refusal(store.r):
        attempts = [
            lambda: store.join(room.code, "newcomer"),  # a new student
            lambda: store.answer(room.code, "s3", 1),  # a first answer
            lambda: store.answer(room.code, "s1", 2),  # a changed one
            lambda: store.confide(room.code, "s2", 1),
            lambda: store.im_lost(room.code, "s2"),
            lambda: store.answer_sketch(sketching.code, "s1", (1, 5, 0, 0, 0, 0)),
            lambda: store.open(EXAMPLE, "lecturer"),  # the lecturer opens a room
            lambda: store.push_example(room.code, key, {**EXAMPLE, "d_k": "2"}),
            lambda: store.push_question(room.code, key, 0, "shift", 3),
            lambda: store.reveal(room.code, key),
            lambda: store.close(room.code, key),
        ]
        attempts += [  # past the rate limit's count, which is refused first: the scripts
            lambda: store._add_student(room, "newcomer", 500, "network", 120),
            lambda: store._set_answer(room, "s3", 1),
            lambda: store._set_answer(room, "s1", 2),  # would move a count: refused whole
            lambda: store._set_sketch(sketching, "s1", (1, 5, 0, 0, 0, 0)),
        ]
        for attempt in attempts:
            said_plainly(attempt, why, room.code, key, "newcomer", "s1", "s2", "s3")
        assert store.room(room.code) == room  # reads still work: the room is as it was
        assert store.tally(room.code) == before
        assert store.poll(room.code, "s3") == room.version  # the phones still follow the room
        lines = health(store, room.code).lines()
        assert f"Redis: connected, but it refuses to save changes ({why})" in lines[-1]
        assert "Answers in: 2 of 3 joined" in lines
    assert store.tally(room.code) == before  # the refusal has ended: nothing was lost
    assert store.my_answer(room.code, "s1") == 0 and store.my_confidence(room.code, "s1") == 2
    store.join(room.code, "newcomer")
    store.answer(room.code, "s3", 1)
    store.answer(room.code, "newcomer", 1)
    tally = store.tally(room.code)
    assert (tally.counts, tally.answered, tally.students) == ((1, 2, 1), 4, 4)
    assert store.reveal(room.code, key).phase == "revealed"
    assert "Redis: connected." in health(store, room.code).lines()[-1]


def test_every_redis_call_goes_through_plain_errors():
    """Every method of the Redis store that talks to Redis is wrapped by ``plain_errors``, or
    calls ``_guarded`` (which is): none lets redis's own errors reach a page."""
    scripts = ("self._answer(", "self._join(", "self._confide(", "self._lost_script(", "script(")
    for cls in (RedisStore, RedisPeer, RedisSketches):
        for name, method in vars(cls).items():
            if not inspect.isfunction(method) or name in ("__init__", "_register_peer_scripts"):
                continue  # registering a script sends nothing to Redis
            source = inspect.getsource(method)
            talks = "self.r." in source or any(call in source for call in scripts)
            wrapped = hasattr(method, "__wrapped__") or "self._guarded(" in source
            assert wrapped or not talks, f"{cls.__name__}.{name} lets redis's errors through"
