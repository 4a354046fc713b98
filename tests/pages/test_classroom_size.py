"""The lecturer's hold on who is in the room, through AppTest (classroom_size.py): the joins of
the last minute, a network's burst flagged, Lock in one click, a class size, keep only those
who answered; the staff passphrase on the landing page. The rules themselves:
tests/test_classroom_joins.py."""

import pytest

from attnviz import limits
from attnviz.ui.pages.classroom_shared import ROOM, room_store
from tests.helpers import as_browser, browser_of, run, text_of
from tests.pages.test_classroom import PAGE, buttons, click, opened, reload

pytestmark = pytest.mark.usefixtures("empty_rooms")


def errors(at):
    return "\n".join(e.value for e in at.error)


def test_the_lecturer_sees_the_joins_and_locks_the_room_in_one_click(monkeypatch):
    lecturer = opened()
    code = lecturer.session_state[ROOM]
    for k in range(3):
        as_browser(monkeypatch, f"phone-{k:010d}")
        student = run(PAGE, {"room": code})
    lecturer.run()
    window = limits.JOIN_WINDOW_SECONDS
    said = f"**Joining:** 3 new students in the last {window} s, from 1 network; 3 in the room."
    assert said in text_of(lecturer)
    click(lecturer, "cls_lock")
    assert room_store().room(code).locked
    as_browser(monkeypatch, "a-late-newcomer1")
    late = run(PAGE, {"room": code})
    assert f"Room {code} takes no new students: the lecturer has locked it" in errors(late)
    assert not any(b.startswith("cls_opt_") for b in buttons(late))
    as_browser(monkeypatch, "phone-0000000002")
    back = reload(student)  # one already in, reloading: never refused
    assert "cls_opt_0" in buttons(back) and not errors(back)
    assert "Locked: nobody new joins" in text_of(lecturer)
    click(lecturer, "cls_lock")  # Unlock
    assert not room_store().room(code).locked
    assert "cls_opt_0" in buttons(run(PAGE, {"room": code}))
    assert room_store().tally(code).students == 3
    as_browser(monkeypatch, "a-late-newcomer1")
    assert "cls_opt_0" in buttons(run(PAGE, {"room": code}))
    assert room_store().tally(code).students == 4


def test_a_burst_from_one_network_is_flagged_to_the_lecturer():
    lecturer = opened()
    code = lecturer.session_state[ROOM]
    most = limits.MAX_NEW_STUDENTS_PER_NETWORK
    for k in range(most):
        room_store().join(code, f"script{k:010d}", f"203.0.113.{k % 200}")
    lecturer.run()
    warned = "\n".join(w.value for w in lecturer.warning)
    assert f"{most} of them came from one network, the most the room takes" in warned
    assert f"**Joining:** {most} new students in the last" in text_of(lecturer)


def test_a_class_size_and_keeping_only_those_who_answered():
    lecturer = opened()
    code = lecturer.session_state[ROOM]
    students = [run(PAGE, {"room": code}) for _ in range(3)]
    click(students[1], "cls_opt_0")
    lecturer.run()
    keep = lecturer.button(key="cls_keep_answered")
    assert keep.label == "Keep only the 1 who answered question 1"
    assert "The 2 others in the room leave it" in text_of(lecturer)
    click(lecturer, "cls_keep_answered")
    assert room_store().tally(code).students == 1
    assert lecturer.button(key="cls_keep_answered").disabled  # nobody else to drop
    lecturer.number_input(key=f"cls_class_size_{code}").set_value(2).run()
    assert room_store().room(code).class_size == 2
    run(PAGE, {"room": code})  # the second student
    third = run(PAGE, {"room": code})
    assert "it has 2 students, the class size its lecturer set" in errors(third)
    assert room_store().my_answer(code, browser_of(students[1])) == 0  # who stayed answers on


def test_a_staff_passphrase_opens_rooms_when_the_server_asks_one():
    lecturer = run(PAGE)
    assert "cls_passphrase" not in {t.key for t in lecturer.text_input}  # off by default
    room_store().staff_passphrase = "correct horse battery"
    lecturer = run(PAGE)
    click(lecturer, "cls_open")
    assert "takes the staff passphrase" in errors(lecturer)
    assert ROOM not in lecturer.session_state
    lecturer.text_input(key="cls_passphrase").set_value("correct horse battery").run()
    click(lecturer, "cls_open")
    assert {"cls_ask", "cls_lock"} <= buttons(lecturer)
