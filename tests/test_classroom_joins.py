"""Whom a room takes (classroom/joins.py) and the caps that free (bounds.py), the same tests
against every backend (the fixtures of tests/test_classroom_store.py): the lecturer's lock,
class size, reset to those who answered and view of the joins; a network's burst; a closed
room leaving every cap; a full store ending the oldest room nobody joined; the staff
passphrase; no lecturer key in any store."""

import pytest

from attnviz import limits
from attnviz.classroom import (
    NotAnsweringError,
    RateLimitedError,
    RoomError,
    RoomFullError,
    RoomLockedError,
    RoomNotFoundError,
    TooManyRoomsError,
    WrongKeyError,
    bounds,
    lifecycle,
    make_store,
    memory_store,
    redis_store,
)
from attnviz.classroom.bounds import network_of, owner_of
from attnviz.classroom.lifecycle import ended_reason
from tests import test_classroom_store as contract

EXAMPLE, asked = contract.EXAMPLE, contract.asked
make, make_shared, real_redis = contract.make, contract.make_shared, contract.real_redis
clock, store = contract.clock, contract.store  # the contract's fixtures: every backend


@pytest.mark.parametrize(
    ("address", "network"),
    [
        ("198.51.100.7", "198.51.100.0/24"),
        ("198.51.100.250", "198.51.100.0/24"),
        ("::ffff:198.51.100.9", "198.51.100.0/24"),  # IPv4-mapped: the same network
        ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        ("this machine", "this machine"),
        ("", ""),
    ],
)
def test_limits_count_a_network_not_an_address(address, network):
    assert network_of(address) == network
    assert owner_of(address) == owner_of(network)  # the digest the store keeps
    assert not network or network not in owner_of(address)


def test_another_network_is_another_bucket():
    assert network_of("198.51.101.7") != network_of("198.51.100.7")
    assert network_of("2001:db8:1:3::1") != network_of("2001:db8:1:2::1")


def test_a_locked_room_takes_no_new_student_and_keeps_its_own(store):
    room, key = asked(store)
    store.join(room.code, "in-already")
    with pytest.raises(WrongKeyError):
        store.lock(room.code, "not the key")
    locked = store.lock(room.code, key)
    assert locked.locked and locked.version == room.version  # the phones need not redraw
    with pytest.raises(RoomLockedError, match="takes no new students: the lecturer has locked"):
        store.join(room.code, "newcomer")
    assert store.join(room.code, "in-already").code == room.code  # a reload comes back in
    store.answer(room.code, "in-already", 1)
    store.lock(room.code, key, on=False)
    store.join(room.code, "newcomer")
    assert store.tally(room.code).students == 2


def test_a_class_size_caps_the_joins(store):
    room, key = asked(store)
    for bad in (-1, limits.MAX_ROOM_STUDENTS + 1, 2.5, "30"):
        with pytest.raises(RoomError, match="A class size is a whole number from 0"):
            store.set_class_size(room.code, key, bad)
    store.set_class_size(room.code, key, 3)
    for sid in ("s1", "s2", "s3"):
        store.join(room.code, sid)
    with pytest.raises(RoomFullError, match="it has 3 students, the class size its lecturer set"):
        store.join(room.code, "s4")
    store.join(room.code, "s1")  # one of the three, again
    store.set_class_size(room.code, key, 0)  # no cap of the lecturer's
    store.join(room.code, "s4")


def test_a_burst_from_one_network_is_slowed_and_shown_to_the_lecturer(store, clock):
    """A script from one /24 (any number of its addresses and browser ids) brings at most
    MAX_NEW_STUDENTS_PER_NETWORK new students a window; the lecturer sees the joins, the
    networks and the burst; the class on another network is not held up."""
    room, key = asked(store)
    burst = limits.MAX_NEW_STUDENTS_PER_NETWORK
    for k in range(burst):
        store.join(room.code, f"script{k}", f"203.0.113.{k % 250}")
    with pytest.raises(RateLimitedError, match=f"taken {burst} new students from your network"):
        store.join(room.code, "script-next", "203.0.113.99")
    store.join(room.code, "script0", "203.0.113.0")  # one already in: never refused
    store.join(room.code, "student", "198.51.100.7")
    seen = store.recent_joins(room.code, key)
    assert (seen.students, seen.networks, seen.most, seen.burst) == (burst + 1, 2, burst, True)
    with pytest.raises(RoomError, match="Only the lecturer"):
        store.recent_joins(room.code, "not the key")
    clock.now += limits.JOIN_WINDOW_SECONDS + 1
    store.join(room.code, "script-next", "203.0.113.99")  # the next window's
    seen = store.recent_joins(room.code, key)
    assert (seen.students, seen.networks, seen.burst) == (1, 1, False)
    assert store.tally(room.code).students == burst + 2


def test_the_students_become_those_who_answered(store):
    room, key = asked(store)
    for sid in ("s1", "s2", "s3", "s4", "s5"):
        store.join(room.code, sid)
    store.answer(room.code, "s1", 0)
    store.answer(room.code, "s4", 2)
    assert store.keep_answered(room.code, key) == 3
    assert store.tally(room.code) == store.tally(room.code).__class__((1, 0, 1), 2, 2)
    with pytest.raises(NotAnsweringError, match="not joined"):
        store.answer(room.code, "s2", 1)  # one who left
    store.lock(room.code, key)
    with pytest.raises(RoomLockedError):
        store.join(room.code, "s2")  # locked: the reset holds
    store.answer(room.code, "s1", 1)  # those who stayed answer on
    fresh, fresh_key = store.open(EXAMPLE, "lecturer2")
    with pytest.raises(RoomError, match="No question has been asked yet"):
        store.keep_answered(fresh.code, fresh_key)
    with pytest.raises(RoomError, match="Only the lecturer"):
        store.keep_answered(room.code, "not the key")


def test_a_closed_room_leaves_every_cap_at_once(store, clock, monkeypatch):
    """Ten rooms opened and closed from one network: the eleventh opens (the opens a minute
    still count); a full store with a closed room has a place."""
    clock.now = (clock.now // 60 + 1) * 60
    for k in range(limits.MAX_ROOMS_PER_ADDRESS + 1):
        clock.now += 60 * (k % limits.MAX_OPENS_PER_ADDRESS == 0)  # within a minute's opens
        room, key = store.open(EXAMPLE, f"lecturer{k}", f"127.0.0.{k + 2}")
        store.join(room.code, "s1")  # in use: it would hold its place an hour
        store.close(room.code, key)
    for module in (bounds, redis_store, memory_store):
        monkeypatch.setattr(module, "MAX_ROOMS", 2)
    kept, _ = store.open(EXAMPLE, "a", "192.0.2.1")
    room, key = store.open(EXAMPLE, "b", "198.51.100.1")
    for code in (kept.code, room.code):
        store.join(code, "s1")
    with pytest.raises(TooManyRoomsError, match="2 open rooms"):
        store.open(EXAMPLE, "c", "203.0.113.1")
    store.close(room.code, key)
    store.open(EXAMPLE, "c", "203.0.113.1")


def test_a_full_store_ends_the_oldest_room_nobody_joined(store, clock, monkeypatch):
    """At MAX_ROOMS, a lecturer still opens a room: the oldest room that nobody joined ends,
    and its lecturer is told why (and may reopen it); a room with students never ends so."""
    for module in (bounds, redis_store, memory_store, lifecycle):
        monkeypatch.setattr(module, "MAX_ROOMS", 3)
    used, _ = store.open(EXAMPLE, "lecturer0", "192.0.2.1")
    store.join(used.code, "s1")
    clock.now += 60
    oldest, oldest_key = store.open(EXAMPLE, "lecturer1", "198.51.100.1")
    clock.now += 60
    younger, _ = store.open(EXAMPLE, "lecturer2", "203.0.113.1")
    clock.now += 60
    innocent, _ = store.open(EXAMPLE, "innocent", "198.18.0.1")
    with pytest.raises(RoomNotFoundError):
        store.room(oldest.code)
    record = store.record(oldest.code)
    assert record.evicted and record.expires == clock.now
    said = ended_reason(record, joined=True, in_process=store.in_process)
    assert said.startswith(f"Room {oldest.code} has ended: the server's rooms were all taken (3")
    assert store.room(younger.code) and store.room(used.code)
    reopened, _ = store.reopen(oldest.code, oldest_key, "lecturer1", "198.51.100.1")
    with pytest.raises(RoomNotFoundError):
        store.room(younger.code)  # the next oldest that nobody joined made room for it
    store.join(reopened.code, "s2")
    store.join(innocent.code, "s3")
    with pytest.raises(TooManyRoomsError, match="and each has students: the next frees"):
        store.open(EXAMPLE, "late", "198.18.1.1")


def test_a_flood_ends_its_own_rooms_before_a_lone_lecturers(store, clock, monkeypatch):
    """The room that ends to make room is of the network that holds the most: a lecturer's
    room, older than the flood's and still empty, outlasts them."""
    for module in (bounds, redis_store, memory_store, lifecycle):
        monkeypatch.setattr(module, "MAX_ROOMS", 3)
    lone, _ = store.open(EXAMPLE, "lecturer", "192.0.2.1")
    flood = []
    for k in range(4):
        clock.now += 60
        flood.append(store.open(EXAMPLE, f"flood{k}", f"198.51.100.{k}")[0].code)
    assert store.room(lone.code)  # the flood's own rooms ended, the oldest first
    assert [c for c in flood if store.record(c).evicted] == flood[:2]


def test_an_optional_staff_passphrase_opens_rooms(store, clock):
    clock.now = (clock.now // 60 + 1) * 60
    store.open(EXAMPLE, "anyone")  # off by default
    store.staff_passphrase = "correct horse battery"
    for typed in (None, "", "correct horse", "<b>x</b>"):
        with pytest.raises(WrongKeyError, match="takes the staff passphrase") as caught:
            store.open(EXAMPLE, "visitor", "192.0.2.7", typed)
        assert typed is None or typed == "" or typed not in str(caught.value)
    room, key = store.open(EXAMPLE, "staff", "198.51.100.7", "correct horse battery")
    store.close(room.code, key)
    store.reopen(room.code, key, "staff", "198.51.100.7")  # its key stands for the passphrase
    for _ in range(limits.MAX_PASSPHRASE_TRIES_PER_MINUTE - 4):
        with pytest.raises(WrongKeyError):
            store.open(EXAMPLE, "visitor", "192.0.2.8", "guess")
    with pytest.raises(RateLimitedError, match="staff passphrases tried from your network"):
        store.open(EXAMPLE, "visitor", "192.0.2.9", "correct horse battery")
    env = {"ATTNVIZ_STAFF_PASSPHRASE": " correct horse battery \n"}
    assert make_store(env).staff_passphrase == "correct horse battery"
    assert make_store({}).staff_passphrase == ""


def test_no_store_keeps_a_lecturer_key(make_shared, clock):
    """Redis keeps digests and nonces, never a lecturer key (its append-only file, a backup);
    another replica, with the secret, makes the key again."""
    first, second = make_shared(clock), make_shared(clock)
    room, key = asked(first)
    fresh = second.take_link(room.code, key, "projector-pc", "192.0.2.1")
    spent, _ = first.open(EXAMPLE, "other-laptop")
    stored = []
    for name in first.r.scan_iter("attnviz:*"):
        kind = first.r.type(name).decode()
        if kind == "string":
            stored.append(first.r.get(name))
        elif kind == "hash":
            stored += [*first.r.hkeys(name), *first.r.hvals(name)]
        elif kind == "set":
            stored += list(first.r.smembers(name))
        elif kind == "zset":
            stored += list(first.r.zrange(name, 0, -1))
        stored.append(name)
    text = b" ".join(stored).decode("utf-8", "replace")
    assert room.code in text and key not in text and fresh not in text
    assert first.held("projector-pc") == (room.code, fresh)
    assert spent.code in text


def test_the_in_process_store_keeps_one_record_a_room(clock):
    store = memory_store.MemoryStore(clock=clock)
    room, key = asked(store)
    store.join(room.code, "s1")
    store.answer(room.code, "s1", 0)
    assert set(store._rooms) == {room.code}
    kept = store._rooms[room.code]
    assert kept.students == {"s1"} and kept.answers == (room.question_no, {1: {"s1": 0}})
    assert key not in repr(store._held_by)  # a nonce, never the key
    clock.now += limits.ROOM_LIFETIME_SECONDS + 1
    store.open(EXAMPLE, "next")  # the ended room keeps only its record
    assert store._rooms[room.code].students == set() and store.record(room.code)


def test_a_class_size_lets_a_hall_behind_one_network_join_at_once(store):
    """A lecturer who sets a class size larger than MAX_NEW_STUDENTS_PER_NETWORK lets that many
    come from one network in a window (a hall's phones through one NAT), and no more."""
    room, key = asked(store)
    size = limits.MAX_NEW_STUDENTS_PER_NETWORK + 30
    store.set_class_size(room.code, key, size)
    for k in range(size):
        store.join(room.code, f"phone{k}", "203.0.113.7")
    seen = store.recent_joins(room.code, key)
    assert (seen.students, seen.most, seen.limit, seen.burst) == (size, size, size, True)
    with pytest.raises(RoomError, match=f"it has {size} students, the class size"):
        store.join(room.code, "one-more", "198.51.100.7")
