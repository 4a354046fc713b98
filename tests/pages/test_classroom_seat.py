"""The lecturer's own credential through the Classroom page (ui/pages/classroom_seat.py), under
the App (its routes served: the page hands the key to /api/lecturer, which the route tests of
tests/test_classroom_credential.py cover) and without it (AppTest as it is, a host that runs
app.py as a plain script: the browser's id holds the controls, as before the App). The attacks
of issue 45 replayed: a stolen browser id, a student's lecturer link, a spent link."""

import json

import pytest

from attnviz.classroom.credential import ROUTES_SERVED, credential_value
from attnviz.ui.pages import classroom_seat
from attnviz.ui.pages.classroom_shared import KEY, ROOM, room_store
from tests.helpers import as_browser, run
from tests.pages.test_classroom import LECTURER_KEYS, PAGE, buttons, click

pytestmark = pytest.mark.usefixtures("empty_rooms")


@pytest.fixture(params=["app", "script"])
def served(request):
    """Whether the App's routes are served ("app") or not ("script"), for the test."""
    if request.param == "app":
        ROUTES_SERVED.set()
    yield request.param == "app"
    ROUTES_SERVED.clear()


@pytest.fixture
def app():
    ROUTES_SERVED.set()
    yield
    ROUTES_SERVED.clear()


def sends_cookie(monkeypatch, code=None, key=None):
    """Every AppTest session from now on is a browser that sends the lecturer cookie of room
    ``code`` with ``key`` (None: no lecturer cookie)."""
    value = None if code is None else credential_value(code, key)
    monkeypatch.setattr(classroom_seat, "sent_cookie", lambda: value)


def posted(at):
    """The routes this run's scripts POST to, with their bodies: [(path, body text)]."""
    found = []
    for element in at.get("html"):
        body = element.proto.body
        for path in (classroom_seat.TAKE_PATH, classroom_seat.LEAVE_PATH):
            if f'"path": {json.dumps(path)}' in body:  # _post's call
                found.append((path, body))
    return found


def test_a_stolen_browser_id_holds_no_controls_under_the_app(app, monkeypatch):
    """Issue 45's attack: the lecturer's ``attnviz_browser`` value, copied into another
    browser (a shared lecture-hall PC is enough). Under the App it gets the landing page: the
    controls are the lecturer's own cookie, which the copy does not have."""
    as_browser(monkeypatch, "lecturer-laptop1")
    lecturer = run(PAGE)
    click(lecturer, "cls_open")
    code, key = lecturer.session_state[ROOM], lecturer.session_state[KEY]
    [(path, body)] = posted(lecturer)  # the cookie asked for, once
    assert path == classroom_seat.TAKE_PATH and code in body and key in body
    lecturer.run()
    assert posted(lecturer) == []
    assert room_store().held("lecturer-laptop1") is None  # nothing kept under the id
    thief = run(PAGE)  # the same browser id, no lecturer cookie
    assert not buttons(thief) & LECTURER_KEYS and "cls_open" in buttons(thief)
    assert KEY not in thief.session_state and room_store().tally(code).students == 0
    sends_cookie(monkeypatch, code, key)  # the lecturer's own browser, reloaded
    reloaded = run(PAGE)
    assert {"cls_ask", "cls_close", "cls_leave"} <= buttons(reloaded)
    assert posted(reloaded) == []  # the browser has the cookie already
    as_browser(monkeypatch, "someone-else0001")  # the cookie holds, whatever the browser id
    assert {"cls_ask", "cls_close"} <= buttons(run(PAGE))


def test_without_the_app_the_browser_id_holds_the_controls_as_before(monkeypatch):
    """Where the routes are not served, no cookie can be set by the server: the browser's id
    holds the controls (and a copy of it gets them: said in classroom/credential.py)."""
    as_browser(monkeypatch, "lecturer-laptop1")
    lecturer = run(PAGE)
    click(lecturer, "cls_open")
    code, key = lecturer.session_state[ROOM], lecturer.session_state[KEY]
    assert posted(lecturer) == [] and room_store().held("lecturer-laptop1") == (code, key)
    assert {"cls_ask", "cls_close"} <= buttons(run(PAGE))


def test_close_and_leave_this_computer_clear_the_cookie(app, monkeypatch):
    as_browser(monkeypatch, "lecture-hall-pc1")
    lecturer = run(PAGE)
    click(lecturer, "cls_open")
    code, key = lecturer.session_state[ROOM], lecturer.session_state[KEY]
    sends_cookie(monkeypatch, code, key)
    shared = run(PAGE)  # the hall's PC, the next morning: still the room's
    click(shared, "cls_leave")
    assert [path for path, _ in posted(shared)] == [classroom_seat.LEAVE_PATH]
    assert f"This browser no longer holds room {code}'s controls" in shared.info[0].value
    assert not buttons(shared) & LECTURER_KEYS
    shared.run()  # the cookie this session was sent is not taken again
    assert not buttons(shared) & LECTURER_KEYS and ROOM not in shared.session_state
    room_store().room(code)  # the room goes on
    closing = run(PAGE)  # a session whose browser still sent the cookie
    click(closing, "cls_close")
    assert [path for path, _ in posted(closing)] == [classroom_seat.LEAVE_PATH]
    closing.run()
    assert posted(closing) == []  # once


def test_a_students_lecturer_link_asks_first(served, monkeypatch):
    """Issue 45's attack: a student opens a room of their own and sends its lecturer link to
    the lecturer, whose class's room is open. The lecturer is asked; the class's room keeps
    its controls unless the lecturer takes the link."""
    as_browser(monkeypatch, "student-phone001")
    student = run(PAGE)
    click(student, "cls_open")
    theirs, their_key = student.session_state[ROOM], student.session_state[KEY]
    as_browser(monkeypatch, "lecturer-laptop1")
    lecturer = run(PAGE)
    click(lecturer, "cls_open")
    ours, our_key = lecturer.session_state[ROOM], lecturer.session_state[KEY]
    if served:
        sends_cookie(monkeypatch, ours, our_key)
    opened = run(PAGE, {"room": theirs, "key": their_key})
    asked = "\n".join(w.value for w in opened.warning)
    assert f"This browser holds the controls of room {ours}, which is open" in asked
    assert {"cls_keep_room", "cls_take_link", "cls_close"} <= buttons(opened)
    assert opened.session_state[ROOM] == ours  # the class's room, its controls drawn
    assert room_store().room(theirs).key_matches(their_key)  # the link is not spent
    click(opened, "cls_keep_room")
    assert opened.session_state[ROOM] == ours and "cls_take_link" not in buttons(opened)
    assert room_store().room(theirs).key_matches(their_key)
    assert room_store().tally(theirs).students == 0  # nobody joined it either
    again = run(PAGE, {"room": theirs, "key": their_key})
    click(again, "cls_take_link")  # the lecturer meant it
    assert again.session_state[ROOM] == theirs
    assert not room_store().room(theirs).key_matches(their_key)  # spent


def test_a_refused_or_spent_link_joins_nobody(served, monkeypatch):
    as_browser(monkeypatch, "lecturer-laptop1")
    lecturer = run(PAGE)
    click(lecturer, "cls_open")
    code, key = lecturer.session_state[ROOM], lecturer.session_state[KEY]
    as_browser(monkeypatch, "projector-pc0001")
    run(PAGE, {"room": code, "key": key})  # taken here: the link is spent
    as_browser(monkeypatch, "someone-else0001")
    for link in ({"room": code, "key": key}, {"room": code, "key": "x" * 24}):
        opener = run(PAGE, link)
        assert "not the lecturer's key" in "\n".join(e.value for e in opener.error)
        opener.run()  # and the page's next run (a poll, a click) joins nobody either
        assert ROOM not in opener.session_state and "room" not in opener.query_params
    assert room_store().tally(code).students == 0
