# ruff: noqa: F811  (the contract fixtures of test_classroom_store are used by name)
"""Peer instruction in the room store, the same contract against every backend (in process,
fakeredis, a real redis-server): two rounds with a discussion, the twin, confidence, "I'm lost",
the phones blanked, the report's records; a reload (a new store object on the same data) finds
the round; every key expires with its room; the bounds of limits.py."""

import json

import pytest

from attnviz import limits
from attnviz.classroom import NotAnsweringError, RoomError, WrongKeyError
from attnviz.classroom.peer import TWIN, Peer
from attnviz.classroom.redis_store import RedisStore
from attnviz.classroom.room import Room
from attnviz.classroom.rounds import RoundError, countdown_left, moves_sentence, next_step
from tests.test_classroom_store import (  # noqa: F401
    EXAMPLE,
    _maker,
    clock,
    make,
    make_shared,
    real_redis,
    store,
)

SIDS = ("s1", "s2", "s3", "s4")
FIRST = (0, 1, 1, 2)  # round 1's taps: right is 1
SECOND = (1, 1, 1, 0)  # round 2's: two moved onto the right answer, one away from nowhere
TWIN_TAPS = (0, 0, 2, 0)  # the twin's right is 0: three right


def two_rounds(store):
    """A room with a two-round question (3 options, B right) and four students in."""
    room, key = store.open(EXAMPLE, "lecturer")
    room = store.push_question(room.code, key, 0, "row_sum", 3, rounds=2, right=1)
    for sid in SIDS:
        store.join(room.code, sid)
    return room, key


def test_vote_discuss_revote_reveal_and_the_twin(store, clock):
    room, key = two_rounds(store)
    code = room.code
    assert (room.peer.rounds, room.peer.round_no, room.phase) == (2, 1, "answering")
    for sid, k in zip(SIDS, FIRST, strict=True):
        store.answer(code, sid, k)
    store.confide(code, "s1", 2)  # sure, and wrong
    store.confide(code, "s2", 2)  # sure, and right
    room = store.end_round(code, key)
    assert room.phase == "locked" and next_step(room)[0] == "discuss"
    with pytest.raises(NotAnsweringError, match="Round 1 has ended: wait for the next one"):
        store.answer(code, "s1", 1)  # round 1 is locked
    room = store.discuss(code, key, 120)
    assert room.phase == "discussing" and room.peer.discuss_until == clock.now + 120
    assert countdown_left(room, clock.now + 30) == 90 and countdown_left(room, clock.now + 999) == 0
    with pytest.raises(NotAnsweringError):
        store.answer(code, "s1", 1)
    room = store.second_round(code, key)
    assert (room.peer.round_no, room.phase) == (2, "answering")
    assert store.my_answers(code, "s1") == {1: 0}  # round 1's answer, for the student only
    assert store.tally(code).answered == 0  # round 2 counts afresh
    for sid, k in zip(SIDS, SECOND, strict=True):
        store.answer(code, sid, k)
    store.confide(code, "s4", 0)
    assert store.my_confidence(code, "s4") == 0 and store.my_confidence(code, "s1") is None
    store.end_round(code, key)
    room = store.reveal(code, key)
    summary = store.rounds_summary(code)
    assert summary["1"]["counts"] == [1, 2, 1] and summary["2"]["counts"] == [1, 3, 0]
    assert summary["1"]["right_share"] == 0.5 and summary["2"]["right_share"] == 0.75
    assert summary["moves"] == [(0, 1, 1), (1, 1, 2), (2, 0, 1)]
    assert summary["1"]["confidence"][2] == (2, 1, 1)  # sure: one right, one wrong
    assert summary["2"]["confidence"][0] == (0, 0, 1)
    assert moves_sentence(summary["moves"], 1) == (
        "2 of 4 changed their answer; 1 moved to the right one; right answers went from "
        "50 % to 75 %."
    )
    assert next_step(room) == ("twin", "Twin question")
    room = store.twin(code, key, 5, 4, 0)
    assert (room.peer.round_no, room.n_options, room.phase) == (TWIN, 4, "answering")
    for sid, k in zip(SIDS, TWIN_TAPS, strict=True):
        store.answer(code, sid, k)
    store.reveal(code, key)
    summary = store.rounds_summary(code)
    assert summary["twin"]["counts"] == [3, 0, 1, 0] and summary["twin"]["right_share"] == 0.75
    assert summary["2"]["counts"] == [1, 3, 0]  # the two rounds are still there
    assert store.my_answers(code, "s4") == {1: 2, 2: 0, TWIN: 0}


def closed_agree(store, code, open_round):
    """store.closed_answers(code) holds every student's my_answers but round ``open_round``'s
    (the one taking answers, None: none): the rounds no student can change any more."""
    closed = store.closed_answers(code)
    for sid in SIDS:
        mine = {r: a for r, a in store.my_answers(code, sid).items() if r != open_round}
        assert {r: answers[sid] for r, answers in closed.items() if sid in answers} == mine
    return closed


def test_closed_answers_are_the_rounds_that_take_none(store):
    room, key = two_rounds(store)
    code = room.code
    for sid, k in zip(SIDS, FIRST, strict=True):
        store.answer(code, sid, k)
    assert closed_agree(store, code, 1) == {}  # round 1 still takes answers
    store.end_round(code, key)
    assert closed_agree(store, code, None) == {1: dict(zip(SIDS, FIRST, strict=True))}
    store.second_round(code, key)
    store.answer(code, "s1", 2)
    assert set(closed_agree(store, code, 2)) == {1}
    store.end_round(code, key)
    store.reveal(code, key)
    assert closed_agree(store, code, None)[2] == {"s1": 2}
    store.twin(code, key, 5, 4, 0)
    store.answer(code, "s3", 3)
    assert set(closed_agree(store, code, TWIN)) == {1, 2}
    store.reveal(code, key)
    assert closed_agree(store, code, None)[TWIN] == {"s3": 3}


def test_a_reload_finds_the_round_on_any_replica(make_shared, clock):
    first = make_shared(clock)
    room, key = two_rounds(first)
    first.answer(room.code, "s1", 2)
    first.end_round(room.code, key)
    first.discuss(room.code, key, 60)
    second = make_shared(clock)  # another replica, or the lecturer's page after a reload
    again = second.room(room.code)
    assert (again.phase, again.peer.round_no, again.peer.discuss_seconds) == ("discussing", 1, 60)
    second.second_round(room.code, key)
    second.answer(room.code, "s1", 1)
    assert first.my_answers(room.code, "s1") == {1: 2, 2: 1}


def test_steps_out_of_order_say_where_the_room_is(store):
    room, key = store.open(EXAMPLE, "lecturer")
    with pytest.raises(RoundError, match="no question has been asked yet"):
        store.end_round(room.code, key)
    room = store.push_question(room.code, key, 0, "row_sum", 3)  # one vote
    with pytest.raises(RoundError, match="after round 1 of a two-round question"):
        store.discuss(room.code, key, 60)
    with pytest.raises(RoundError, match="after a question's reveal"):
        store.twin(room.code, key, 1, 3, 0)
    assert next_step(room) == ("reveal", "Reveal")
    store.reveal(room.code, key)
    with pytest.raises(RoundError, match="Nothing to reveal: round 1 has been revealed"):
        store.reveal(room.code, key)
    room, key = two_rounds(store)
    with pytest.raises(RoundError, match="countdown is 0, 1, 2, 3 minutes"):
        store.discuss(room.code, key, 30)
    with pytest.raises(WrongKeyError):
        store.end_round(room.code, key + "x")
    with pytest.raises(RoomError, match="no step"):
        store.step(room.code, key, "close")
    assert store.step(room.code, key, "end_round").phase == "locked"


def test_confidence_only_after_an_answer_and_before_the_reveal(store):
    room, key = two_rounds(store)
    with pytest.raises(NotAnsweringError, match="Answer first"):
        store.confide(room.code, "s1", 1)
    store.answer(room.code, "s1", 0)
    for level in (-1, 3, "2", None):
        with pytest.raises(RoomError, match="guessing, fairly sure, sure"):
            store.confide(room.code, "s1", level)
    store.confide(room.code, "s1", 1)
    store.end_round(room.code, key)
    store.confide(room.code, "s1", 2)  # until the reveal, a new tap replaces the last
    assert store.my_confidence(room.code, "s1") == 2
    store.reveal(room.code, key)
    with pytest.raises(NotAnsweringError):
        store.confide(room.code, "s1", 0)


def test_im_lost_counts_once_a_minute_and_only_the_lecturer_sees_it(store, clock):
    room, key = two_rounds(store)
    assert store.im_lost(room.code, "s1") is True
    assert store.im_lost(room.code, "s1") is False  # within the cooldown: not again
    clock.now += 30
    store.im_lost(room.code, "s2")
    assert store.lost_count(room.code, key) == 2
    with pytest.raises(RoomError, match="Only the lecturer"):
        store.lost_count(room.code, "not the key")
    with pytest.raises(NotAnsweringError, match="Join the room first"):
        store.im_lost(room.code, "stranger")
    clock.now += limits.LOST_WINDOW_SECONDS - 10  # s1's tap is now older than the window
    assert store.lost_count(room.code, key) == 1
    assert store.im_lost(room.code, "s1") is True
    _, minutes = store.report(room.code, key)
    assert sum(minutes.values()) == 3 and min(minutes) == 0


def test_the_phones_can_be_blanked(store):
    room, key = two_rounds(store)
    assert store.blank(room.code, key, True).peer.blank
    room = store.push_question(room.code, key, 0, "shift", 3)
    assert room.peer.blank  # blanked until the lecturer shows the phones the room again
    assert not store.blank(room.code, key, False).peer.blank


def test_the_report_keeps_every_question_and_no_student_id(store):
    room, key = two_rounds(store)
    code = room.code
    store.answer(code, "s1", 1)
    store.push_question(code, key, 0, "shift", 4, right=3)  # the next question
    store.answer(code, "s2", 3)
    store.im_lost(code, "s3")
    records, minutes = store.report(code, key)
    assert [(r["question"], r["kind"], r["rounds"]) for r in records] == [
        (1, "row_sum", 2),
        (2, "shift", 1),
    ]
    assert records[0]["1"]["counts"] == [0, 1, 0] and records[1]["1"]["counts"] == [0, 0, 0, 1]
    text = json.dumps([records, minutes])
    assert not any(sid in text for sid in SIDS)
    with pytest.raises(RoomError, match="Only the lecturer"):
        store.report(code, None)


def test_questions_per_room_are_bounded(store):
    room, key = store.open(EXAMPLE, "lecturer")
    for _ in range(limits.MAX_QUESTIONS_PER_ROOM):
        store.push_question(room.code, key, 0, "row_sum", 3)
    with pytest.raises(RoomError, match=f"asked {limits.MAX_QUESTIONS_PER_ROOM} questions"):
        store.push_question(room.code, key, 0, "row_sum", 3)
    records, _ = store.report(room.code, key)
    assert len(records) == limits.MAX_QUESTIONS_PER_ROOM


def test_every_key_expires_with_its_room(real_redis, clock):
    store = RedisStore(real_redis, clock=clock)
    store.r.flushdb()
    room, key = two_rounds(store)
    store.answer(room.code, "s1", 1)
    store.confide(room.code, "s1", 2)
    store.im_lost(room.code, "s2")
    store.end_round(room.code, key)
    store.discuss(room.code, key, 0)
    store.second_round(room.code, key)
    store.answer(room.code, "s1", 1)
    store.reveal(room.code, key)
    store.twin(room.code, key, 3, 3, 0)
    store.answer(room.code, "s1", 0)
    store.push_question(room.code, key, 0, "shift", 3)  # keeps question 1's record
    keys = [k.decode() for k in store.r.keys(f"attnviz:room:{room.code}*")]
    assert any(k.endswith(":report") for k in keys) and any(k.endswith(":lost") for k in keys)
    assert not any(":q1r" in k for k in keys)  # the last question's answers are gone
    record = f"attnviz:room:{room.code}"  # the ended room's record outlives it (lifecycle.py),
    kept_keys = (record, f"{record}:active", f"{record}:joined")  # with why it ended (bounds.py)
    for k in keys:
        ttl = store.r.ttl(k)
        kept = limits.ENDED_ROOM_KEEP_SECONDS if k in kept_keys else 0
        assert 0 < ttl <= limits.ROOM_LIFETIME_SECONDS + kept + 2, (k, ttl)


def test_a_damaged_round_state_is_the_default_one():
    for junk in (None, "x", {"rounds": 9}, {"round_no": 7}, {"right": "B"}, []):
        assert Peer.from_data(junk) == Peer()
    room = Room(code="K7QX4M", key_digest="", opened=0.0, expires=1.0, peer=Peer(rounds=2))
    assert Room.from_json(room.to_json()) == room
