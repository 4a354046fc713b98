"""The Classroom page when a room has ended, through AppTest: the words on the phone and on the
lecturer's view (a restarted in-process server; a room past its 4 hours; an idle room), told
apart from a mistyped code; the lecturer's one-click new room, which the phones follow; a
phone's own answer after a replica restart, read back from Redis; the lecturer's health panel."""

import time

import pytest

from attnviz import limits
from attnviz.ui.pages.classroom_shared import KEY, ROOM, forget_room_store, room_store
from tests.helpers import as_browser, browser_of, run, text_of
from tests.pages.test_classroom import PAGE, buttons, click, opened, reload
from tests.test_classroom_store import Clock, busy
from tools.services import redis_server

pytestmark = pytest.mark.usefixtures("empty_rooms")


def errors(at):
    return "\n".join(e.value for e in at.error)


def test_a_restarted_in_process_server_says_the_room_ended_on_both_sides():
    lecturer = opened()
    code = lecturer.session_state[ROOM]
    student = run(PAGE, {"room": code})  # its reload: a new session (and here a new id too)
    click(student, "cls_opt_0")
    forget_room_store()  # the server restarted: its rooms were in its memory
    phone = reload(student)  # the phone's tab reconnects to the new server
    assert f"Room {code}" in text_of(phone)
    assert "This room has ended: the server restarted" in errors(phone)
    assert "cls_join" in buttons(phone) and not any(b.startswith("cls_opt") for b in buttons(phone))
    mistyped = run(PAGE, {"room": code})  # the same code typed by someone never in it
    assert "No open room has the code" in errors(mistyped) and "has ended" not in errors(mistyped)
    lecturer.run()
    assert "This room has ended: the server restarted" in text_of(lecturer)
    click(lecturer, "cls_reopen_sidebar")  # one click: a new room, the sidebar's example
    assert lecturer.session_state[ROOM] != code and "cls_ask" in buttons(lecturer)


def test_an_ended_room_reopens_in_one_click_and_its_phones_follow(monkeypatch):
    lecturer = opened()
    code = lecturer.session_state[ROOM]
    old = room_store().room(code)
    student = run(PAGE, {"room": code})
    clock = Clock()
    monkeypatch.setattr(room_store(), "clock", clock)
    busy(room_store(), clock, code, limits.ROOM_LIFETIME_SECONDS + 1)  # never idle: it ran out
    student.run()
    assert f"Room {code} has ended: a room lasts 4 hours" in errors(student)
    assert "moves to it on its own" in text_of(student)
    lecturer.run()
    assert f"Room {code} has ended" in text_of(lecturer)
    click(lecturer, "cls_reopen")
    new = room_store().room(lecturer.session_state[ROOM])
    assert new.code != code and (new.settings, new.kind) == (old.settings, old.kind)
    student.run()  # what its poll does when it sees the new room
    assert student.session_state[ROOM] == new.code and student.query_params["room"] == new.code
    assert any(b.startswith("cls_opt_") for b in buttons(student))
    click(student, "cls_opt_1")
    assert room_store().tally(new.code).counts[1] == 1


def test_an_idle_room_tells_why_and_reopens_in_one_click(monkeypatch):
    """A room with no join, answer or change for an hour has ended: the phone and the lecturer
    are told why, the lecturer reopens it in one click, and the phone follows."""
    lecturer = opened()
    code = lecturer.session_state[ROOM]
    student = run(PAGE, {"room": code})  # joined: the room ends after an hour, not 15 minutes
    later = time.time() + limits.ROOM_IDLE_SECONDS + 1
    monkeypatch.setattr(room_store(), "clock", lambda: later)
    student.run()
    said = f"Room {code} has ended: it was idle for 60 minutes (no join, answer or change)"
    assert said in errors(student) and "moves to it on its own" in text_of(student)
    lecturer.run()
    assert said in text_of(lecturer)
    click(lecturer, "cls_reopen")
    new = lecturer.session_state[ROOM]
    assert new != code and "cls_reveal" in buttons(lecturer)  # the same question, asked again
    student.run()
    assert student.session_state[ROOM] == new


def test_a_closed_room_offers_the_same_question_again():
    lecturer = opened()
    code = lecturer.session_state[ROOM]
    click(lecturer, "cls_close")
    assert f"Room {code} has ended: the lecturer closed it." in text_of(lecturer)
    click(lecturer, "cls_reopen")
    assert lecturer.session_state[ROOM] != code and KEY in lecturer.session_state


def test_a_phones_own_answer_comes_back_from_redis_after_a_replica_restart(
    monkeypatch, needs_redis
):
    with redis_server() as url:
        monkeypatch.setenv("ATTNVIZ_REDIS_URL", url)
        forget_room_store()
        lecturer = opened()
        code = lecturer.session_state[ROOM]
        with monkeypatch.context() as phone_browser:
            as_browser(phone_browser, "a-phone-00000001")  # its cookie, sent on reconnect
            student = run(PAGE, {"room": code})
            click(student, "cls_opt_1")
            forget_room_store()  # the replica restarted: a new process, a new store object
            phone = reload(student)  # its tab reconnects, perhaps to the other replica
            assert "Your answer: **B**" in "\n".join(s.value for s in phone.success)
        lecturer.run()
        assert "Redis: connected" in text_of(lecturer)


def test_the_lecturers_health_panel_counts_phones_and_answers():
    lecturer = opened()
    code = lecturer.session_state[ROOM]
    students = [run(PAGE, {"room": code}) for _ in range(3)]
    click(students[0], "cls_opt_0")
    for student in students[:2]:
        room_store().poll(code, browser_of(student))  # what their fragments do
    lecturer.run()
    shown = text_of(lecturer)
    assert "Phones connected now: 2 (asked for the room in the last 5 s)" in shown
    assert "Answers in: 1 of 3 joined" in shown
    assert "In this server only: a restart of the server ends the room" in shown
    projector = run(PAGE, {"room": code, "key": lecturer.session_state[KEY], "present": "on"})
    assert "cls_reveal" in buttons(projector)  # the lecturer's view, in projector mode
    assert "Phones connected now" not in text_of(projector)  # never on the projector


def test_the_join_link_is_plain_text():
    lecturer = opened()
    code = lecturer.session_state[ROOM]
    links = [c.value for c in lecturer.code if "?room=" in c.value and "key=" not in c.value]
    assert links == [f"http://localhost:8501/Classroom?room={code}"]  # no word joiner in it


def test_a_phone_in_a_room_draws_no_settings_widgets():
    lecturer = opened()
    assert len(lecturer.text_area) == 1  # the lecturer pushes the sidebar's example
    phone = run(PAGE, {"room": lecturer.session_state[ROOM]})
    assert len(phone.text_area) == 0 and len(phone.number_input) == 0  # its rerun is lighter
    assert "shows the room's example, not these settings" in "\n".join(
        c.value for c in phone.sidebar.caption
    )
