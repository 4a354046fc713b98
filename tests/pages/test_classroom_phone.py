"""The Classroom page's smaller asks for phones (#46 item 9) through AppTest, where the App is
not served (so phones get the Streamlit page, and the lecturer's page says so): no A while a
question's answer can be read off A, and no lecturer's part on a student's link after the room
closed."""

import pytest

from attnviz.classroom.questions import ANSWER_IN_A, all_questions
from attnviz.serve.classroom import room_settings
from attnviz.ui.pages.classroom_shared import KEY, ROOM, room_store
from attnviz.ui.text import md_escape
from tests.helpers import chart_specs, run, text_of

pytestmark = pytest.mark.usefixtures("empty_rooms")

PAGE = "app_pages/Classroom.py"


def click(at, key):
    at.button(key=key).click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_without_the_app_the_join_link_opens_this_page_and_says_so():
    lecturer = click(run(PAGE), "cls_open")
    assert "Phones open this Classroom page" in text_of(lecturer)  # no App under AppTest
    assert "/Classroom?room=" in lecturer.get("code")[0].value


def test_no_a_on_a_phone_while_the_question_reads_its_answer_off_a():
    lecturer = click(run(PAGE), "cls_open")
    code, key = lecturer.session_state[ROOM], lecturer.session_state[KEY]
    room = room_store().room(code)
    question = next(
        q for q in all_questions(room_settings(room), room.quiz_seed) if q.kind in ANSWER_IN_A
    )
    n, right = len(question.options), question.answer_index
    room_store().push_question(code, key, room.quiz_seed, question.kind, n, 1, right)
    student = run(PAGE, {"room": code})
    assert md_escape(question.text) in text_of(student)
    assert "cls_room_A" not in chart_specs(student)
    room_store().reveal(code, key)
    student.run()
    assert "cls_room_A" in chart_specs(student)


@pytest.mark.parametrize("joined", [True, False])
def test_a_students_link_to_a_closed_room_offers_no_lecturers_part(joined):
    lecturer = click(run(PAGE), "cls_open")
    code = lecturer.session_state[ROOM]
    run(PAGE, {"room": code})
    click(lecturer, "cls_close")
    phone = run(PAGE, {"room": code, "joined": "1"} if joined else {"room": code})
    assert "cls_open" not in {b.key for b in phone.button}
    assert "Lecturers: open a room" not in text_of(phone)
    if joined:  # the reloaded phone: the room's own closing words
        assert "The lecturer has closed this room" in text_of(phone)
    else:
        assert f"Room {code} is closed" in "\n".join(e.value for e in phone.error)
