"""The Classroom page through AppTest on a real redis-server that is out of memory: a student
answering or joining and the lecturer revealing read why in words (no exception box), the
lecturer's health panel says it, and once Redis takes writes again the answer given before is
still counted."""

import pytest

from attnviz.ui.pages.classroom_shared import ROOM, forget_room_store, room_store
from tests.helpers import run, text_of
from tests.pages.test_classroom import PAGE, click, opened
from tests.test_classroom_refused import out_of_memory
from tools.services import redis_server

pytestmark = pytest.mark.usefixtures("empty_rooms")

WHY = "it is out of memory"
NOTHING_LOST = "Nothing already saved is lost"


def said(words):
    return "\n".join(el.value for el in words)


def test_redis_out_of_memory_is_said_on_both_sides_and_loses_no_answer(monkeypatch, needs_redis):
    with redis_server() as url:
        monkeypatch.setenv("ATTNVIZ_REDIS_URL", url)
        forget_room_store()
        lecturer = opened()
        code = lecturer.session_state[ROOM]
        student = run(PAGE, {"room": code})
        click(student, "cls_opt_0")
        with out_of_memory(room_store().r):
            click(student, "cls_opt_1")  # click() asserts that no exception was drawn
            assert WHY in said(student.warning) and NOTHING_LOST in said(student.warning)
            newcomer = run(PAGE, {"room": code})  # a phone that scans the code now
            assert WHY in said(newcomer.warning) and not newcomer.exception
            click(lecturer, "cls_reveal")
            assert WHY in said(lecturer.error) and NOTHING_LOST in said(lecturer.error)
            assert f"refuses to save changes ({WHY})" in text_of(lecturer)  # health panel
        assert room_store().tally(code).counts[:2] == (1, 0)  # the first answer, kept
        click(student, "cls_opt_1")
        assert "Your answer: **B**" in said(student.success)
        click(lecturer, "cls_reveal")
        assert room_store().room(code).phase == "revealed"
