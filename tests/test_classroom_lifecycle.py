"""A room's end and what follows, against every backend (the contract tests' fixtures): an
ended room's record and words, reopening it with the same example and question, phones that
follow, phones connected now, bounded records; and deploy/redis.conf's persistence, with a real
redis-server shut down and started again on the same folder."""

import os
import signal

import pytest

from attnviz import limits
from attnviz.classroom import MemoryStore, RoomError, RoomNotFoundError, WrongKeyError
from attnviz.classroom import memory_store as store_module
from attnviz.classroom.lifecycle import ENDED, NEXT, ended_reason
from attnviz.classroom.redis_store import RedisStore
from tests import test_classroom_store as contract
from tools.services import redis_server

EXAMPLE, asked, busy = contract.EXAMPLE, contract.asked, contract.busy
make, real_redis = contract.make, contract.real_redis  # the contract's fixtures: every backend
clock, store = contract.clock, contract.store


def test_an_ended_room_leaves_a_record_and_says_so(store, clock):
    room, _ = asked(store)
    busy(store, clock, room.code, limits.ROOM_LIFETIME_SECONDS + 1)  # never idle: it ran out
    with pytest.raises(RoomNotFoundError):
        store.room(room.code)
    record = store.record(room.code)
    assert (record.code, record.kind, record.settings) == (room.code, room.kind, room.settings)
    assert store.poll(room.code, "s1") == ENDED and store.successor(room.code) is None
    words = ended_reason(record, joined=False, in_process=store.in_process)
    assert words == f"Room {room.code} has ended: a room lasts 4 hours, and its answers are gone."
    assert store.record("ABCDEF") is None and store.record("no code") is None


def test_the_lecturer_reopens_an_ended_room_and_its_phones_follow(store, clock):
    old, key = asked(store, n_options=4)
    store.join(old.code, "s1")
    with pytest.raises(RoomError, match="is still open: close it"):
        store.reopen(old.code, key, "lecturer")
    clock.now += limits.ROOM_LIFETIME_SECONDS + 1
    with pytest.raises(WrongKeyError):
        store.reopen(old.code, key[:-1] + ("A" if key[-1] != "A" else "B"), "student")
    assert store.poll(old.code, "s1") == ENDED
    new, new_key = store.reopen(old.code, key, "lecturer")
    assert new.code != old.code and new_key != key
    assert (new.settings, new.quiz_seed, new.kind, new.n_options) == (
        old.settings,
        old.quiz_seed,
        old.kind,
        old.n_options,
    )
    assert new.phase == "answering" and new.question_no == 1
    assert store.poll(old.code, "s1") == NEXT + new.code  # the phone joins it on its own
    store.join(new.code, "s1")
    store.answer(new.code, "s1", 3)
    assert store.tally(new.code).counts == (0, 0, 0, 1)


def test_a_room_nobody_joined_ends_after_a_short_idle_time(store, clock):
    """Idle, as after its lifetime: the record is kept and says why in words, the phones are
    told, the lecturer still holds it and reopens it in one click, and the phones follow."""
    room, key = store.open(EXAMPLE, "lecturer")
    clock.now += 10 * 60
    store.push_question(room.code, key, 0, "row_sum", 3)  # a change of the lecturer's: active
    clock.now += limits.ROOM_IDLE_EMPTY_SECONDS - 1
    assert store.poll(room.code, "phone") == store.room(room.code).version  # a poll: not active
    clock.now += 2
    for gone in (store.room, lambda code: store.join(code, "s1")):
        with pytest.raises(RoomNotFoundError):
            gone(room.code)
    with pytest.raises(RoomNotFoundError):
        store.reveal(room.code, key)
    assert store.poll(room.code, "phone") == ENDED
    record = store.record(room.code)
    assert (record.idle_minutes, record.kind) == (15, "row_sum")
    assert ended_reason(record, joined=True, in_process=store.in_process) == (
        f"Room {room.code} has ended: it was idle for 15 minutes (nobody joined it, and nothing "
        "changed), and an idle room ends."
    )
    assert store.held("lecturer") == (room.code, key)
    new, _ = store.reopen(room.code, key, "lecturer", "192.0.2.1")
    assert (new.kind, new.settings) == (record.kind, record.settings)
    assert store.poll(room.code, "phone") == NEXT + new.code


@pytest.mark.parametrize("activity", ["join", "answer", "change"])
def test_a_room_ends_after_an_hour_without_activity(store, clock, activity):
    """A join, an answer or a change of the lecturer's at 50 minutes keeps the room open at 70;
    an hour after the last of them, it ends."""
    room, key = asked(store)
    store.join(room.code, "s1")
    clock.now += 50 * 60
    act = {
        "join": lambda: store.join(room.code, "s2"),
        "answer": lambda: store.answer(room.code, "s1", 1),
        "change": lambda: store.reveal(room.code, key),
    }
    act[activity]()
    clock.now += 20 * 60
    assert store.room(room.code).idle_minutes == 0  # 70 minutes after the first join: open
    clock.now += limits.ROOM_IDLE_SECONDS - 20 * 60 - 1
    store.room(room.code)
    clock.now += 2
    with pytest.raises(RoomNotFoundError):
        store.room(room.code)
    assert store.poll(room.code, "s1") == ENDED
    record = store.record(room.code)
    assert ended_reason(record, joined=True, in_process=store.in_process) == (
        f"Room {room.code} has ended: it was idle for 60 minutes (no join, answer or change), "
        "and an idle room ends; its answers are gone."
    )
    clock.now += limits.ENDED_ROOM_KEEP_SECONDS  # kept as long after its end as any record
    assert store.record(room.code) is None and store.held("lecturer") is None


def test_a_closed_room_reopens_too(store):
    old, key = asked(store)
    store.close(old.code, key)
    assert store.poll(old.code, "s1") == store.room(old.code).version  # closed, leads nowhere
    new, _ = store.reopen(old.code, key, "lecturer")
    assert store.poll(old.code, "s1") == NEXT + new.code
    assert "the lecturer closed it" in ended_reason(store.record(old.code), True, False)


def test_phones_connected_now_are_those_that_polled_lately(store, clock):
    room, _ = asked(store)
    for sid in ("s1", "s2", "s3"):
        store.join(room.code, sid)
        store.poll(room.code, sid)
    store.poll(room.code, "s1")  # twice: one phone
    assert store.phones_now(room.code) == 3
    clock.now += limits.PHONE_SEEN_SECONDS + 1
    store.poll(room.code, "s2")
    assert store.phones_now(room.code) == 1


def test_a_room_gone_without_record_is_told_apart_from_a_mistyped_code():
    assert ended_reason(None, joined=False, in_process=True) is None  # check the code
    assert "the server restarted" in ended_reason(None, joined=True, in_process=True)
    assert "the shared store no longer has it" in ended_reason(None, True, in_process=False)


def test_an_in_process_store_keeps_a_bounded_number_of_records(clock, monkeypatch):
    monkeypatch.setattr(store_module, "MAX_KEPT_ROOMS", 3)
    store = MemoryStore(clock=clock)
    codes = []
    for k in range(5):
        codes.append(store.open(EXAMPLE, f"lecturer{k}")[0].code)
        clock.now += limits.ROOM_LIFETIME_SECONDS + 1  # each ends before the next opens
    store.open(EXAMPLE, "last")
    assert len(store._rooms) <= 3 + 1
    assert store.record(codes[0]) is None and store.record(codes[-1]) is not None
    clock.now += limits.ENDED_ROOM_KEEP_SECONDS + limits.ROOM_LIFETIME_SECONDS
    store.open(EXAMPLE, "later")
    assert len(store._rooms) == 1  # every record past its keep is dropped


def test_the_recipes_redis_gives_back_every_room_and_answer_after_a_restart(tmp_path, needs_redis):
    from tools.browser import free_port

    port = free_port()
    with redis_server(port, recipe=True, folder=tmp_path) as url:
        store = RedisStore(url)
        rooms = []
        for k in range(3):
            room, key = store.open(EXAMPLE, f"lecturer{k}")
            room = store.push_question(room.code, key, k, "row_sum", 3)
            for s in range(4):
                store.join(room.code, f"s{s}")
                store.answer(room.code, f"s{s}", (s + k) % 3)
            store.poll(room.code, "s0")
            rooms.append((room, store.tally(room.code)))
        assert store.r.config_get("appendonly") == {"appendonly": "yes"}
        assert store.r.config_get("appendfsync") == {"appendfsync": "everysec"}
        store.r.shutdown()  # what `systemctl restart` does: SHUTDOWN, then start again
    for restart in ("killed", "done"):
        with redis_server(port, recipe=True, folder=tmp_path) as url:
            store = RedisStore(url)
            for room, tally in rooms:
                assert store.room(room.code) == room
                assert store.tally(room.code) == tally
                assert [store.my_answer(room.code, f"s{s}") for s in range(4)] == [
                    (s + room.quiz_seed) % 3 for s in range(4)
                ]
            if restart == "killed":  # kill -9 (no snapshot on the way out): the append-only
                room, key = store.open(EXAMPLE, "lecturer9")  # file has every change
                rooms.append((store.push_question(room.code, key, 1, "row_sum", 3), None))
                for s in range(4):
                    store.join(room.code, f"s{s}")
                    store.answer(room.code, f"s{s}", (s + 1) % 3)
                rooms[-1] = (rooms[-1][0], store.tally(room.code))
                os.kill(int(store.r.info("server")["process_id"]), signal.SIGKILL)
