"""The Classroom as a slide of a lecture deck, through AppTest: the slide's question goes to
the lecturer's room on arrival (once: a reload keeps the answers), Next goes on to the deck's
next slide, and the room follows the lecturer from slide to slide in a browser cookie, which
nothing outside a deck's Classroom slide reads (tests/browser/test_classroom.py drives the
cookie in a real browser)."""

import pytest

from attnviz.classroom.room import new_key
from attnviz.ui.pages import classroom_deck
from attnviz.ui.pages.classroom_deck import LECTURER_COOKIE, parse_remembered
from attnviz.ui.pages.classroom_shared import KEY, ROOM, forget_room_store, room_store
from tests.helpers import run, text_of

PAGE = "pages/14_Classroom.py"
DECK = "Home;Classroom?question=row_sum;Why_scale/1"
LECTURER_KEYS = {"cls_push", "cls_ask", "cls_reveal", "cls_next", "cls_close"}


@pytest.fixture(autouse=True)
def fresh_store():
    forget_room_store()
    yield
    forget_room_store()


def on_slide(question="row_sum", **more):
    """The Classroom slide of DECK (slide 2) as its link opens it: a new session."""
    query = {"deck": DECK, "slide": "2", "present": "on", "question": question} | more
    return run(PAGE, {k: v for k, v in query.items() if v is not None})


def remembering(monkeypatch, code, key):
    """This browser holds the lecturer's cookie of room ``code``."""
    monkeypatch.setattr(classroom_deck, "remembered_lecturer", lambda: (code, key))


def click(at, key):
    at.button(key=key).click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def next_link(at):
    """The href of the deck bar's Next (a link to the next slide's page)."""
    html = "\n".join(h.proto.body for h in at.get("html") if "attnviz-slide" in h.proto.body)
    return [part.split('"')[0] for part in html.split('href="')[1:]]


def test_the_slide_asks_its_question_of_the_lecturers_room():
    lecturer = on_slide()
    assert "This slide asks the class:" in text_of(lecturer)  # before any room
    assert any(h.startswith("./Why_scale?") and "slide=3" in h for h in next_link(lecturer))
    click(lecturer, "cls_open")  # opened on the slide itself
    room = room_store().room(lecturer.session_state[ROOM])
    assert (room.kind, room.phase, room.question_no) == ("row_sum", "answering", 1)
    assert "cls_reveal" in {b.key for b in lecturer.button}
    cookie = f"{LECTURER_COOKIE}={room.code}.{lecturer.session_state[KEY]}"
    assert any(cookie in h.proto.body for h in lecturer.get("html"))  # for the next slide
    assert any("slide=1" in h for h in next_link(lecturer))  # Previous: the deck's first
    assert not any(h.startswith("./Why_scale") for h in next_link(lecturer))  # Reveal first
    assert lecturer.button(key="step_next").label == "Reveal ▶"  # what the clicker's → presses
    click(lecturer, "step_next")
    assert room_store().room(room.code).phase == "revealed"
    assert "cls_lect_dist" in {c.key for c in lecturer.get("plotly_chart")}
    assert any(h.startswith("./Why_scale?") and "slide=3" in h for h in next_link(lecturer))


def test_the_next_slides_session_finds_the_room_and_a_reload_keeps_the_answers(monkeypatch):
    first = on_slide()
    click(first, "cls_open")
    code, key = first.session_state[ROOM], first.session_state[KEY]
    student = run(PAGE, {"room": code})
    click(student, "cls_opt_1")
    remembering(monkeypatch, code, key)
    arrived = on_slide()  # the deck's link again: a new session, the cookie sent with it
    assert LECTURER_KEYS - {"cls_next", "cls_push"} <= {b.key for b in arrived.button}
    room = room_store().room(code)
    assert (room.kind, room.question_no) == ("row_sum", 1)  # not asked again
    assert room_store().tally(code).answered == 1  # the class's answers are kept
    other = on_slide(question="shape")  # a later slide with another question
    room = room_store().room(code)
    assert (room.kind, room.question_no) == ("shape", 2)
    assert not other.exception and room_store().tally(code).answered == 0
    causal = on_slide(question="causal_row")  # not askable without the causal mask
    assert "cannot be asked on its example" in "\n".join(w.value for w in causal.warning)
    assert room_store().room(code).kind == "shape"


def test_a_cookie_is_read_only_on_a_decks_classroom_slide(monkeypatch):
    lecturer = on_slide()
    click(lecturer, "cls_open")
    code, key = lecturer.session_state[ROOM], lecturer.session_state[KEY]
    remembering(monkeypatch, code, key)
    plain = run(PAGE)  # the Classroom outside a deck: a reload needs the lecturer's link
    assert not {b.key for b in plain.button} & LECTURER_KEYS
    remembering(monkeypatch, code, new_key())  # a cookie with another key
    stranger = on_slide()
    assert not {b.key for b in stranger.button} & LECTURER_KEYS
    assert ROOM not in stranger.session_state


def test_a_slide_with_a_question_attnviz_does_not_have():
    at = on_slide(question="<b>nope</b>")
    warning = "\n".join(w.value for w in at.warning)
    assert "`question=<b>nope</b>` in the slide is not a question of attnviz" in warning  # code


def test_the_cookie_is_read_strictly():
    key = new_key()
    assert parse_remembered(f"K7QX4M.{key}") == ("K7QX4M", key)
    for bad in (None, "", "K7QX4M", f"k7qx4m.{key}", f"K7QX4O.{key}", f"K7QX4M.{key}<b>"):
        assert parse_remembered(bad) is None, bad


def test_a_peer_slide_runs_the_whole_loop_on_the_clickers_next():
    """``rounds=2``: each → takes the question's next step, then the deck's next slide."""
    lecturer = on_slide(rounds="2")
    click(lecturer, "cls_open")
    code = lecturer.session_state[ROOM]
    student = run(PAGE, {"room": code})
    click(student, "cls_opt_1")
    seen = []
    for _ in range(7):
        seen.append(lecturer.button(key="step_next").label)
        assert not any(h.startswith("./Why_scale") for h in next_link(lecturer))
        click(lecturer, "step_next")
        if seen[-1] == "Round 2 ▶":
            click(student.run(), "cls_opt_1")
        room = room_store().room(code)
        if room.peer.round_no == 3 and room.phase == "answering":
            click(student.run(), "cls_opt_0")
    assert seen == [
        "End round 1 ▶",
        "Discuss with your neighbour ▶",
        "Round 2 ▶",
        "End round 2 ▶",
        "Reveal ▶",
        "Twin question ▶",
        "Reveal the twin ▶",
    ]
    assert room_store().room(code).phase == "revealed"
    assert any(h.startswith("./Why_scale?") and "slide=3" in h for h in next_link(lecturer))
    assert room_store().my_answers(code, student.query_params["me"])[1] == 1
    bad = on_slide(rounds="7")
    assert "rounds" in "\n".join(w.value for w in bad.warning)
