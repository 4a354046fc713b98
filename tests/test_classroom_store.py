"""The room store's contract, the same tests against every backend: in process, fakeredis,
and a real redis-server started on loopback (tools/services.py). Every limit and bad input:
wrong key, ended room, full room, closed room, flooding answers and joins, too many rooms,
codes that are no codes, what is too long to store, a Redis that is gone."""

import time

import pytest

from attnviz import limits
from attnviz.classroom import (
    CODE_ALPHABET,
    MemoryStore,
    NotAnsweringError,
    RateLimitedError,
    Room,
    RoomClosedError,
    RoomError,
    RoomFullError,
    RoomNotFoundError,
    StoreUnavailableError,
    TooManyRoomsError,
    WrongKeyError,
    bounds,
    make_store,
    memory_store,
    redis_store,
)
from attnviz.classroom.redis_store import RedisStore
from attnviz.links.shared import settings_query
from attnviz.settings import Settings
from tools.browser import free_port
from tools.services import redis_server

EXAMPLE = settings_query(Settings())


class Clock:
    """Time that the test moves: starts now (Redis expires keys on its own clock)."""

    def __init__(self):
        self.now = time.time()

    def __call__(self):
        return self.now


@pytest.fixture(scope="module")
def real_redis(needs_redis):
    with redis_server() as url:
        yield url


def _maker(kind, request):
    """A function clock -> a fresh, empty store of the backend ``kind``."""
    if kind == "memory":
        return lambda clock: MemoryStore(clock=clock)
    if kind == "fakeredis":
        import fakeredis

        server = fakeredis.FakeServer()
        return lambda clock: RedisStore(client=fakeredis.FakeRedis(server=server), clock=clock)
    url = request.getfixturevalue("real_redis")
    RedisStore(url).r.flushdb()
    return lambda clock: RedisStore(url, clock=clock)


@pytest.fixture(params=["memory", "fakeredis", "redis"])
def make(request):
    return _maker(request.param, request)


@pytest.fixture(params=["fakeredis", "redis"])
def make_shared(request):
    """The backends that several processes share."""
    return _maker(request.param, request)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(make, clock):
    return make(clock)


def asked(store, n_options=3):
    """A room with a question of ``n_options`` pushed: (room, key)."""
    room, key = store.open(EXAMPLE, "lecturer")
    room = store.push_question(room.code, key, 0, "row_sum", n_options)
    return room, key


def busy(store, clock, code, seconds):
    """Move the clock ``seconds`` on, a student joining room ``code`` every 50 minutes: it is
    never idle (bounds.py), so only its lifetime can end it."""
    end = clock.now + seconds
    store.join(code, "busy")
    while clock.now + 50 * 60 < end:
        clock.now += 50 * 60
        store.join(code, "busy")
    clock.now = end


def test_a_lesson_round(store):
    room, key = store.open(EXAMPLE, "lecturer")
    assert len(room.code) == 6 and set(room.code) <= set(CODE_ALPHABET)
    assert room.settings_query == EXAMPLE and room.kind is None
    assert store.room(room.code.lower()) == room  # a code typed in small letters finds it
    room = store.push_question(room.code, key, 7, "row_sum", 4)
    assert (room.kind, room.quiz_seed, room.question_no) == ("row_sum", 7, 1)
    assert room.phase == "answering"
    for sid in ("s1", "s2", "s3"):
        store.join(room.code, sid)
    store.answer(room.code, "s1", 0)
    store.answer(room.code, "s2", 2)
    store.answer(room.code, "s3", 2)
    store.answer(room.code, "s3", 1)  # a new tap replaces the last answer
    tally = store.tally(room.code)
    assert (tally.counts, tally.answered, tally.students) == ((1, 1, 1, 0), 3, 3)
    assert store.my_answer(room.code, "s3") == 1 and store.my_answer(room.code, "nobody") is None
    before = store.version(room.code)
    room = store.reveal(room.code, key)
    assert room.phase == "revealed" and room.version == before + 1
    with pytest.raises(NotAnsweringError):
        store.answer(room.code, "s1", 3)
    assert store.tally(room.code).counts == (1, 1, 1, 0)  # the reveal shows what was given
    room = store.push_question(room.code, key, 7, "shift", 3)  # Next question
    assert room.question_no == 2 and store.tally(room.code) == store.tally(room.code)
    assert store.tally(room.code).counts == (0, 0, 0)
    assert store.my_answer(room.code, "s1") is None
    room = store.push_example(room.code, key, {**EXAMPLE, "d_k": "2"})
    assert room.settings_query["d_k"] == "2" and room.kind is None


def test_a_restarted_replica_finds_the_room(make_shared, clock):
    """Two store objects on one Redis (two replicas; a replica after a restart) share rooms."""
    first = make_shared(clock)
    room, key = asked(first)
    second = make_shared(clock)
    second.join(room.code, "s1")
    second.answer(room.code, "s1", 2)
    assert first.tally(room.code).counts == (0, 0, 1)
    assert second.reveal(room.code, key).phase == "revealed"


def test_only_the_lecturers_key_changes_a_room(store):
    room, key = asked(store)
    changes = [
        lambda k: store.push_example(room.code, k, EXAMPLE),
        lambda k: store.push_question(room.code, k, 1, "shift", 3),
        lambda k: store.reveal(room.code, k),
        lambda k: store.close(room.code, k),
    ]
    for change in changes:
        for wrong in (None, "", key[:-1], key + "x", "<b>key</b>"):
            with pytest.raises(WrongKeyError, match="not the lecturer's key"):
                change(wrong)
    assert store.room(room.code) == room  # unchanged, version too
    assert store.room(room.code).key_digest != key  # the key itself is not stored


def test_a_room_ends_after_its_lifetime(store, clock):
    room, _ = asked(store)
    busy(store, clock, room.code, limits.ROOM_LIFETIME_SECONDS - 1)
    store.join(room.code, "s1")
    clock.now += 2
    with pytest.raises(RoomNotFoundError, match=r"No open room has the code .* 4 hours"):
        store.join(room.code, "s2")


def test_a_full_room_says_so(store):
    room, _ = asked(store)
    for k in range(limits.MAX_ROOM_STUDENTS):  # 250 networks: no burst from one
        store.join(room.code, f"s{k}", f"10.0.{k % 250}.{k // 250}")
    store.join(room.code, "s0")  # a student already in may come back
    with pytest.raises(RoomFullError, match=f"full: it has {limits.MAX_ROOM_STUDENTS} students"):
        store.join(room.code, "one-too-many")
    assert store.tally(room.code).students == limits.MAX_ROOM_STUDENTS


def test_a_closed_room_takes_nobody(store):
    room, key = asked(store)
    store.join(room.code, "s1")
    store.close(room.code, key)
    with pytest.raises(RoomClosedError, match="closed"):
        store.join(room.code, "s2")
    with pytest.raises(RoomClosedError):
        store.answer(room.code, "s1", 0)
    with pytest.raises(RoomClosedError):
        store.reveal(room.code, key)


def test_flooding_answers_is_limited_per_minute(store, clock):
    room, _ = asked(store)
    store.join(room.code, "s1")
    clock.now = (clock.now // 60 + 1) * 60  # the start of a minute
    for k in range(limits.MAX_ANSWERS_PER_MINUTE):
        store.answer(room.code, "s1", k % 3)
    with pytest.raises(RateLimitedError, match=f"at most {limits.MAX_ANSWERS_PER_MINUTE} a minute"):
        store.answer(room.code, "s1", 0)
    assert store.tally(room.code).answered == 1  # still one answer, the last kept
    clock.now += 60
    store.answer(room.code, "s1", 0)
    assert store.my_answer(room.code, "s1") == 0


def test_guessing_codes_is_slowed(store, clock):
    clock.now = (clock.now // 60 + 1) * 60
    for k in range(limits.MAX_JOINS_PER_MINUTE):
        with pytest.raises(RoomNotFoundError):
            store.join("ABCDE" + CODE_ALPHABET[k], "guesser")
    with pytest.raises(RateLimitedError, match="no room from this browser: at most 10 a minute"):
        store.join("ABCDEF", "guesser")
    room, _ = asked(store)
    store.join(room.code, "honest")  # another session is not held up
    store.join(room.code, "guesser")  # and a right code joins, even after the misses


def test_misses_are_counted_per_network_and_a_right_code_always_joins(store, clock):
    """A guesser with a new browser id on every try is held by its network (its /24): its
    misses past MAX_CODE_GUESSES_PER_ADDRESS say so; a classmate behind the same NAT with the
    right code joins, and so does a student already in the room, coming back."""
    clock.now = (clock.now // 60 + 1) * 60
    room, _ = asked(store)
    store.join(room.code, "in-already", "198.51.100.7")
    for k in range(limits.MAX_CODE_GUESSES_PER_ADDRESS):
        with pytest.raises(RoomNotFoundError):
            code = "ABCD" + CODE_ALPHABET[k // 30] + CODE_ALPHABET[k % 30]
            store.join(code, f"guesser{k}", f"198.51.100.{k % 200}")
    with pytest.raises(RateLimitedError, match="no room from this network: at most 60 a minute"):
        store.join("ABCDEF", "guesser-next", "198.51.100.250")  # the same /24
    store.join(room.code, "classmate", "198.51.100.7")  # the right code: in at once
    store.join(room.code, "in-already", "198.51.100.7")
    with pytest.raises(RoomNotFoundError):
        store.join("ABCDEF", "elsewhere", "198.51.101.7")  # another /24: a plain miss
    assert store.tally(room.code).students == 2


def test_one_browser_is_one_vote_and_a_class_behind_one_address_all_count(store, clock):
    """Ballot stuffing from one browser (any number of its sessions: one id) is one vote;
    a class of 120 behind one NAT (one address, 120 browsers), a tenth of whom mistype the code
    first, all join and all count."""
    clock.now = (clock.now // 60 + 1) * 60
    room, _ = asked(store)
    for tab in range(30):  # 30 tabs of one browser: the same id, each tap replacing the last
        if tab < limits.MAX_JOINS_PER_MINUTE:  # past it, its joins wait a minute
            store.join(room.code, "stuffer", "198.51.100.7")
        store.answer(room.code, "stuffer", tab % 2)
    assert store.tally(room.code).answered == 1
    nat = "203.0.113.1"
    for k in range(120):
        if k % 10 == 0:
            with pytest.raises(RoomNotFoundError):
                store.join("ABCDEF", f"phone{k}", nat)  # a typo first
        store.join(room.code, f"phone{k}", nat)
        store.answer(room.code, f"phone{k}", k % 3)
    tally = store.tally(room.code)
    assert (tally.students, tally.answered) == (121, 121)
    given = [k % 3 for k in range(120)] + [29 % 2]  # the class's, and the stuffer's last
    assert tally.counts == tuple(given.count(option) for option in range(3))


def test_the_lecturers_browser_holds_the_room(make_shared, clock):
    """The browser that opens a room holds it: another replica finds the room and its key by
    the browser's id alone (a reload, a deck's next slide, a reconnect elsewhere)."""
    first, second = make_shared(clock), make_shared(clock)
    room, key = first.open(EXAMPLE, "laptop")
    assert second.held("laptop") == (room.code, key)
    assert second.held("a-phone") is None
    second.close(room.code, key)
    assert first.held("laptop") == (room.code, key)  # closed: still its lecturer's, to reopen
    new_room, new_key = first.reopen(room.code, key, "laptop")
    assert second.held("laptop") == (new_room.code, new_key)  # one room a browser
    clock.now += limits.ROOM_LIFETIME_SECONDS + limits.ENDED_ROOM_KEEP_SECONDS + 1
    assert first.held("laptop") is None  # the record is gone


def test_a_lecturer_link_works_once(store, clock):
    room, key = asked(store)  # opened by the browser "lecturer"
    fresh = store.take_link(room.code, key, "projector-pc", "198.51.100.1")
    assert fresh != key and store.held("projector-pc") == (room.code, fresh)
    assert store.held("lecturer") is None  # the controls moved with the link
    with pytest.raises(WrongKeyError, match="works once"):
        store.take_link(room.code, key, "someone", "203.0.113.2")  # the spent link
    with pytest.raises(WrongKeyError):
        store.reveal(room.code, key)
    store.reveal(room.code, fresh)
    clock.now = (clock.now // 60 + 1) * 60
    for k in range(limits.MAX_KEY_TRIES_PER_MINUTE):
        with pytest.raises(WrongKeyError):
            store.take_link(room.code, f"wrong{k}", f"tab{k}", "192.0.2.3")
    with pytest.raises(RateLimitedError, match="lecturer links tried"):
        store.take_link(room.code, fresh, "tab-next", "192.0.2.3")  # per address, too
    assert store.held("projector-pc") == (room.code, fresh)


def test_rooms_are_bounded(store, clock):
    """MAX_ROOMS open, each with students, from as many networks: the lecturer is told when the
    next frees; ended rooms make room."""
    for k in range(limits.MAX_ROOMS):
        room, _ = store.open(EXAMPLE, f"lecturer{k}", f"10.{k // 100}.{k % 100}.1")
        store.join(room.code, f"s{k}")
    clock.now += 60
    said = (
        f"{limits.MAX_ROOMS} open rooms, the most it keeps, and each has students: the next "
        "frees in about 59 minutes if it stays idle"
    )
    with pytest.raises(TooManyRoomsError, match=said):
        store.open(EXAMPLE, "one-more", "192.0.2.1")
    clock.now += limits.ROOM_LIFETIME_SECONDS + 1
    store.open(EXAMPLE, "one-more", "192.0.2.1")  # ended rooms make room


def test_idle_rooms_free_the_cap_and_the_next_to_free_is_said(store, clock, monkeypatch):
    """An ended idle room counts no more against MAX_ROOMS; a lecturer refused is told when the
    next room frees, its idle end (only as far as known) beside its lifetime's, certain."""
    monkeypatch.setattr(bounds, "MAX_ROOMS", 4)
    monkeypatch.setattr(redis_store, "MAX_ROOMS", 4)
    monkeypatch.setattr(memory_store, "MAX_ROOMS", 4)
    first = clock.now
    codes = [store.open(EXAMPLE, f"lecturer{k}", f"192.0.2.{k}")[0].code for k in range(4)]
    for code in codes:
        store.join(code, "s1")  # each in use: none ends to make room
    clock.now += 5 * 60
    store.join(codes[0], "s1")  # the first stays an hour more
    said = (
        r"already has 4 open rooms, the most it keeps, and each has students: the next frees in "
        r"about 55 minutes if it stays idle, and in about 4 hours at the latest\. Try again then\."
    )
    with pytest.raises(TooManyRoomsError, match=said):
        store.open(EXAMPLE, "late", "198.51.100.1")
    clock.now += 55 * 60  # the three others end, idle for an hour
    codes[1:] = [store.open(EXAMPLE, f"late{k}", f"198.51.100.{k}")[0].code for k in range(3)]
    for code in codes[1:]:
        store.join(code, "s1")
    with pytest.raises(TooManyRoomsError, match="4 open rooms"):
        store.open(EXAMPLE, "later", "198.51.100.9")
    last = first + limits.ROOM_LIFETIME_SECONDS - 5 * 60  # the first room's last 5 minutes
    while True:  # all four in use till then
        for code in codes:
            store.join(code, "s1")
        if clock.now >= last:
            break
        clock.now = min(clock.now + 50 * 60, last)
    with pytest.raises(TooManyRoomsError, match=r"the next frees in about 5 minutes\. Try"):
        store.open(EXAMPLE, "later", "198.51.100.9")  # the first room's lifetime ends first


def test_opening_rooms_is_limited_per_address(store, clock):
    """A script that opens rooms from a fresh browser each time is held by its address."""
    clock.now = (clock.now // 60 + 1) * 60
    for k in range(limits.MAX_OPENS_PER_ADDRESS):
        store.open(EXAMPLE, f"fresh{k}", "203.0.113.5")
    with pytest.raises(RateLimitedError, match="rooms opened from your network: at most 6"):
        store.open(EXAMPLE, "fresh-next", "203.0.113.5")
    store.open(EXAMPLE, "lecturer", "198.51.100.7")  # a lecturer elsewhere is not held up
    clock.now += 60
    store.open(EXAMPLE, "fresh-next", "203.0.113.5")


def test_one_address_holds_a_bounded_number_of_rooms(store, clock):
    """At most MAX_ROOMS_PER_ADDRESS open at once from one address, said in words with when the
    next frees; an ended idle room frees its place; another address is not held up."""
    clock.now = (clock.now // 60 + 1) * 60
    first = clock.now
    for k in range(limits.MAX_ROOMS_PER_ADDRESS):
        clock.now = first + 60 * (k // limits.MAX_OPENS_PER_ADDRESS)  # within the minute's
        room, _ = store.open(EXAMPLE, f"lecturer{k}", "203.0.113.5")
        store.join(room.code, "s1")  # in use: each stays an hour without activity
    clock.now = first + 2 * 60
    said = (
        f"{limits.MAX_ROOMS_PER_ADDRESS} rooms opened from your network are open now, the most "
        "one network may hold at once: the next frees in about 58 minutes if it stays idle"
    )
    with pytest.raises(TooManyRoomsError, match=said):
        store.open(EXAMPLE, "one-more", "203.0.113.5")
    store.open(EXAMPLE, "elsewhere", "198.51.100.7")
    clock.now = first + limits.ROOM_IDLE_SECONDS + 1  # the first minute's rooms end, idle
    store.open(EXAMPLE, "one-more", "203.0.113.5")


def test_opening_rooms_is_limited_per_session(store):
    for _ in range(limits.MAX_OPENS_PER_MINUTE):
        store.open(EXAMPLE, "lecturer")
    with pytest.raises(RateLimitedError, match="rooms opened"):
        store.open(EXAMPLE, "lecturer")


@pytest.mark.parametrize("text", ["", "ABC", "ABCDEFG", "0OIL1A", "<b>x</b>", "ABC_DEF"])
def test_what_is_not_a_code_says_what_a_code_is(store, text):
    with pytest.raises(RoomError, match="A room code is 6 characters") as caught:
        store.join(text, "s1")
    assert not isinstance(caught.value, RoomNotFoundError)


def test_bad_answers_are_refused(store):
    room, _ = asked(store, n_options=3)
    with pytest.raises(NotAnsweringError, match="not joined"):
        store.answer(room.code, "stranger", 0)  # never joined
    store.join(room.code, "s1")
    for option in (-1, 3, 1.0, "1", None):
        with pytest.raises(RoomError, match="one of the question's 3 options"):
            store.answer(room.code, "s1", option)
    with pytest.raises(RoomError, match="session id"):
        store.join(room.code, "x" * 65)
    fresh, _ = store.open(EXAMPLE, "lecturer2")
    store.join(fresh.code, "s1")
    with pytest.raises(NotAnsweringError, match="no question"):
        store.answer(fresh.code, "s1", 0)  # before the first question


def test_what_is_stored_is_bounded(store):
    room, key = store.open(EXAMPLE, "lecturer")
    huge = {**EXAMPLE, "tokens": "x " * limits.MAX_STORED_CHARS}
    with pytest.raises(RoomError, match=f"at most {limits.MAX_STORED_CHARS}"):
        store.push_example(room.code, key, huge)
    with pytest.raises(RoomError):
        store.open(huge, "lecturer")
    assert store.room(room.code).settings_query == EXAMPLE
    with pytest.raises(RoomError, match="2 to 64 options"):
        store.push_question(room.code, key, 0, "row_sum", 1000)


def test_a_damaged_value_in_redis_is_no_room(clock):
    import fakeredis

    client = fakeredis.FakeRedis()
    store = RedisStore(client=client, clock=clock)
    room, _ = store.open(EXAMPLE, "lecturer")
    client.set(f"attnviz:room:{room.code}", b"{not json")
    with pytest.raises(RoomNotFoundError):
        store.room(room.code)
    assert Room.from_json('{"code": "<b>", "key_digest": "", "opened": 0, "expires": 1}') is None


def test_a_room_written_to_redis_by_another_party_is_refused(real_redis, clock):
    """Another party with the Redis password but not the replicas' secret rewrites a room (a
    key digest of its own, its words on every phone): the replicas refuse the record."""
    from attnviz.classroom.room import key_digest

    store = RedisStore(real_redis, clock=clock)
    store.r.flushdb()  # no other test's rooms or rate buckets
    room, _ = store.open(EXAMPLE, "lecturer")
    value = store.r.get(f"attnviz:room:{room.code}").decode()
    forged = room.changed(
        key_digest=key_digest("the attacker's key"),
        settings=(("text", "VISIT evil.example NOW"),),
    )
    for text in (forged.to_json(), value.split(".", 1)[0] + "." + forged.to_json()):
        store.r.set(f"attnviz:room:{room.code}", text)
        with pytest.raises(RoomNotFoundError):
            store.room(room.code)
        with pytest.raises(RoomNotFoundError):
            store.push_question(room.code, "the attacker's key", 0, "row_sum", 3)
    other = RedisStore(real_redis, clock=clock, secret="another server's secret, 32 chars")
    store.r.set(f"attnviz:room:{room.code}", value)  # the replicas' own record again
    assert store.room(room.code) == room
    with pytest.raises(RoomNotFoundError):
        other.room(room.code)  # a server with another secret reads no room
    for secret in ("", "short", "CHANGE-ME-SECRET and more words"):
        with pytest.raises(StoreUnavailableError, match="ATTNVIZ_SECRET is not set"):
            RedisStore(real_redis, secret=secret)
    env = {"ATTNVIZ_REDIS_URL": real_redis, "ATTNVIZ_SECRET": ""}
    with pytest.raises(StoreUnavailableError, match="openssl rand -hex 32"):
        make_store(env)


def test_redis_unreachable_and_lost_mid_class_say_so(needs_redis):
    port = free_port()
    gone = RedisStore(f"redis://127.0.0.1:{port}/0")
    with pytest.raises(StoreUnavailableError, match="cannot be reached"):
        gone.open(EXAMPLE, "lecturer")
    with redis_server(port) as url:
        store = RedisStore(url)
        room, _ = asked(store)
        store.join(room.code, "s1")
    with pytest.raises(StoreUnavailableError, match="lesson pages work as before"):
        store.answer(room.code, "s1", 0)  # the server went away mid-class
    with pytest.raises(StoreUnavailableError, match="not a Redis URL"):
        make_store({"ATTNVIZ_REDIS_URL": "http://nowhere", "ATTNVIZ_SECRET": "a" * 32})
    assert isinstance(make_store({}), MemoryStore)


# "Sketch the row": a vector answer per student, kept like the options (classroom/sketch_store)
SKETCH = "sketch:causal:2"  # classroom.sketch.sketch_kind("causal", 2): 6 keys, 3 allowed


def sketched(store):
    room, key = store.open(EXAMPLE, "lecturer")
    room = store.push_question(room.code, key, 0, SKETCH, 6)
    for sid in ("s1", "s2", "s3"):
        store.join(room.code, sid)
    return room, key


def test_a_sketch_round(store):
    room, key = sketched(store)
    store.answer_sketch(room.code, "s1", (1, 5, 0, 0, 0, 0))
    store.answer_sketch(room.code, "s2", [2, 2, 1, 0, 0, 0])
    store.answer_sketch(room.code, "s3", (0, 0, 5, 0, 0, 0))
    store.answer_sketch(room.code, "s3", (3, 0, 1, 0, 0, 0))  # a new sketch replaces the last
    with pytest.raises(NotAnsweringError, match="no question to answer"):
        store.answer(room.code, "s1", 0)  # a sketch is no multiple choice
    assert store.my_sketch(room.code, "s3") == (3, 0, 1, 0, 0, 0)
    assert store.my_sketch(room.code, "nobody") is None
    expected = ((1, 5, 0, 0, 0, 0), (2, 2, 1, 0, 0, 0), (3, 0, 1, 0, 0, 0))
    assert store.sketches(room.code) == expected  # sorted: anonymous, the same on any replica
    store.reveal(room.code, key)
    with pytest.raises(NotAnsweringError, match="no row to sketch"):
        store.answer_sketch(room.code, "s1", (5, 0, 0, 0, 0, 0))
    assert store.sketches(room.code) == expected  # the reveal shows what was given
    room = store.push_question(room.code, key, 0, SKETCH, 6)  # asked again: a new question
    assert store.sketches(room.code) == () and store.my_sketch(room.code, "s1") is None
    store.answer_sketch(room.code, "s1", (0, 1, 0, 0, 0, 0))
    store.push_question(room.code, key, 0, "row_sum", 3)
    assert store.sketches(room.code) == () and store.my_sketch(room.code, "s1") is None
    with pytest.raises(NotAnsweringError, match="no row to sketch"):
        store.answer_sketch(room.code, "s1", (0, 1, 0))


@pytest.mark.parametrize(
    ("levels", "says"),
    [
        ((1, 2, 3), "6 whole numbers"),
        ((1, 2, 3, 0, 0, 0, 0), "6 whole numbers"),
        ((1, 9, 0, 0, 0, 0), "0 to 5"),
        ((1, -1, 0, 0, 0, 0), "0 to 5"),
        ((1, 0.5, 0, 0, 0, 0), "whole numbers"),
        (("<b>", 0, 0, 0, 0, 0), "whole number"),
        ((0, 0, 0, 0, 0, 0), "raise at least one bar"),
        (None, "whole number"),
    ],
)
def test_bad_sketches_are_refused(store, levels, says):
    room, _ = sketched(store)
    with pytest.raises(RoomError, match=says):
        store.answer_sketch(room.code, "s1", levels)
    assert store.sketches(room.code) == ()


def test_a_sketch_needs_a_joined_student_and_is_rate_limited(store, clock):
    room, _ = sketched(store)
    with pytest.raises(NotAnsweringError, match="not joined"):
        store.answer_sketch(room.code, "stranger", (1, 0, 0, 0, 0, 0))
    clock.now = (clock.now // 60 + 1) * 60
    for _ in range(limits.MAX_ANSWERS_PER_MINUTE):
        store.answer_sketch(room.code, "s1", (1, 0, 0, 0, 0, 0))
    with pytest.raises(RateLimitedError, match="answers"):
        store.answer_sketch(room.code, "s1", (0, 1, 0, 0, 0, 0))
    assert store.sketches(room.code) == ((1, 0, 0, 0, 0, 0),)


def test_sketches_end_with_the_room(store, clock):
    room, _ = sketched(store)
    store.answer_sketch(room.code, "s1", (1, 0, 0, 0, 0, 0))
    if isinstance(store, RedisStore):  # the hash expires when the room does, on Redis's clock
        ttl = store.r.ttl(store.sketches_key(room.code, room.question_no))
        assert 0 < ttl <= limits.ROOM_LIFETIME_SECONDS + 2
    clock.now += limits.ROOM_LIFETIME_SECONDS + 1
    with pytest.raises(RoomNotFoundError):
        store.sketches(room.code)
    if isinstance(store, MemoryStore):  # an ended room's sketches go with the next change
        sketched(store)
        assert store._rooms[room.code].sketches == (None, {})  # the ended room's record only


def test_replicas_share_the_sketches(make_shared, clock):
    first = make_shared(clock)
    room, _ = sketched(first)
    second = make_shared(clock)
    second.answer_sketch(room.code, "s2", (0, 0, 4, 0, 0, 0))
    assert first.sketches(room.code) == ((0, 0, 4, 0, 0, 0),)
    assert first.my_sketch(room.code, "s2") == (0, 0, 4, 0, 0, 0)
