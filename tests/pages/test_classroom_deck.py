"""The Classroom as a slide of a lecture deck, through AppTest: the slide's question goes to
the lecturer's room on arrival (once: a reload keeps the answers), Next goes on to the deck's
next slide, and the room follows the lecturer's browser from slide to slide (its id, as its
cookie would send it: tests/browser/test_classroom.py drives the cookie in a real browser).
A deck the lecturer did not start pushes nothing until the lecturer confirms it."""

import pytest

from attnviz.classroom.room import new_key
from attnviz.ui.pages.classroom_shared import KEY, ROOM, room_store
from tests.helpers import as_browser, browser_of, run, text_of

pytestmark = pytest.mark.usefixtures("empty_rooms")

PAGE = "app_pages/Classroom.py"
DECK = "Home;Classroom?question=row_sum;Why_scale/1"
LECTURER_KEYS = {"cls_push", "cls_ask", "cls_reveal", "cls_next", "cls_close"}


def on_slide(question="row_sum", **more):
    """The Classroom slide of DECK (slide 2) as its link opens it: a new session."""
    query = {"deck": DECK, "slide": "2", "present": "on", "question": question} | more
    return run(PAGE, {k: v for k, v in query.items() if v is not None})


def click(at, key):
    at.button(key=key).click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def next_link(at):
    """The href of the deck bar's Next (a link to the next slide's page)."""
    html = "\n".join(h.proto.body for h in at.get("html") if "attnviz-slide" in h.proto.body)
    return [part.split('"')[0] for part in html.split('href="')[1:]]


def test_the_slide_asks_its_question_of_the_lecturers_room(monkeypatch):
    as_browser(monkeypatch, "lecturer-laptop1")
    lecturer = on_slide()
    assert "This slide asks the class:" in text_of(lecturer)  # before any room
    assert any(h.startswith("./Why_scale?") and "slide=3" in h for h in next_link(lecturer))
    click(lecturer, "cls_open")  # opened on the slide itself
    room = room_store().room(lecturer.session_state[ROOM])
    assert (room.kind, room.phase, room.question_no) == ("row_sum", "answering", 1)
    assert "cls_reveal" in {b.key for b in lecturer.button}
    assert not any(lecturer.session_state[KEY] in h.proto.body for h in lecturer.get("html"))
    assert any("slide=1" in h for h in next_link(lecturer))  # Previous: the deck's first
    assert not any(h.startswith("./Why_scale") for h in next_link(lecturer))  # Reveal first
    assert lecturer.button(key="step_next").label == "Reveal ▶"  # what the clicker's → presses
    click(lecturer, "step_next")
    assert room_store().room(room.code).phase == "revealed"
    assert "cls_lect_dist" in {c.key for c in lecturer.get("plotly_chart")}
    assert any(h.startswith("./Why_scale?") and "slide=3" in h for h in next_link(lecturer))


def test_the_next_slides_session_finds_the_room_and_a_reload_keeps_the_answers(monkeypatch):
    student = run(PAGE)  # a phone: its own browser
    as_browser(monkeypatch, "lecturer-laptop1")
    first = on_slide()
    click(first, "cls_open")
    code = first.session_state[ROOM]
    monkeypatch.undo()
    student.query_params["room"] = code
    click(student.run(), "cls_opt_1")
    as_browser(monkeypatch, "lecturer-laptop1")
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


def test_a_deck_the_lecturer_did_not_start_pushes_nothing_unasked(monkeypatch):
    """A deck link made elsewhere (its own words and question), opened in the lecturer's
    browser: the room keeps its example and question until the lecturer confirms the deck."""
    as_browser(monkeypatch, "lecturer-laptop1")
    lecturer = run(PAGE)
    click(lecturer, "cls_open")
    click(lecturer, "cls_ask")  # a question of the lecturer's own, answers open
    code = lecturer.session_state[ROOM]
    before = room_store().room(code)
    evil = "Home;Classroom?question=shape&tokens=VISIT+evil.example+NOW"
    crafted = run(
        PAGE,
        {
            "deck": evil,
            "slide": "2",
            "present": "on",
            "question": "shape",
            "tokens": "VISIT evil.example NOW",
        },
    )
    assert room_store().room(code) == before  # nothing pushed
    assert f"has not pushed to room {code} yet" in "\n".join(w.value for w in crafted.warning)
    assert crafted.button(key="step_next").label != "Reveal ▶"  # → does not step the room
    click(crafted, "cls_trust_deck")  # the lecturer confirms: now it pushes
    assert room_store().room(code).kind == "shape"
    plain = run(PAGE)  # the Classroom outside a deck: the same browser's lecturer
    assert LECTURER_KEYS - {"cls_next", "cls_push"} <= {b.key for b in plain.button}
    as_browser(monkeypatch, "another-browser1")
    stranger = on_slide()  # the deck's link in another browser: no lecturer
    assert not {b.key for b in stranger.button} & LECTURER_KEYS
    assert ROOM not in stranger.session_state


def test_a_lecturer_link_moves_the_controls_once(monkeypatch):
    as_browser(monkeypatch, "lecturer-laptop1")
    lecturer = run(PAGE)
    click(lecturer, "cls_open")
    code, key = lecturer.session_state[ROOM], lecturer.session_state[KEY]
    as_browser(monkeypatch, "projector-pc0001")
    projector = run(PAGE, {"room": code, "key": key})
    assert {"cls_ask", "cls_close"} <= {b.key for b in projector.button}
    assert "room" not in projector.query_params and "key" not in projector.query_params
    assert projector.session_state[KEY] != key  # the link is spent
    again = run(PAGE, {"room": code, "key": key})  # the same link, opened again
    assert "works once" in "\n".join(e.value for e in again.error)
    as_browser(monkeypatch, "lecturer-laptop1")
    assert not {b.key for b in run(PAGE).button} & LECTURER_KEYS  # the controls moved
    lecturer.run()  # the first browser's own session, at its next run: the landing page
    assert ROOM not in lecturer.session_state and "cls_open" in {b.key for b in lecturer.button}
    assert new_key() != key


def test_a_slide_with_a_question_attnviz_does_not_have():
    at = on_slide(question="<b>nope</b>")
    warning = "\n".join(w.value for w in at.warning)
    assert "`question=<b>nope</b>` in the slide is not a question of attnviz" in warning  # code


def test_a_peer_slide_runs_the_whole_loop_on_the_clickers_next():
    """``rounds=2``: each → takes the question's next step, then the deck's next slide."""
    lecturer = on_slide(rounds="2")
    click(lecturer, "cls_open")
    code = lecturer.session_state[ROOM]
    student = run(PAGE, {"room": code})
    student_id = browser_of(student)
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
    assert room_store().my_answers(code, student_id)[1] == 1
    bad = on_slide(rounds="7")
    assert "rounds" in "\n".join(w.value for w in bad.warning)
