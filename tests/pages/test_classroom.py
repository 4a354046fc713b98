"""The Classroom page through AppTest: a lecturer and students in one process (one in-process
store, as on one server): open, ask, answer, count, reveal, close; the lecturer's link; wrong
keys and codes; an ended room; markup typed into the example; a Redis that cannot be reached."""

import time

import numpy as np
import pytest

from attnviz import limits
from attnviz.classroom.questions import all_questions, letter, question_of
from attnviz.serve.classroom import room_settings
from attnviz.ui.pages.classroom_shared import KEY, ROOM, forget_room_store, room_store
from attnviz.ui.text import md_escape
from tests.helpers import as_browser, chart_specs, decode, run, run_more, text_of
from tests.test_classroom_store import Clock, busy

pytestmark = pytest.mark.usefixtures("empty_rooms")

PAGE = "app_pages/Classroom.py"
LECTURER_KEYS = {"cls_push", "cls_ask", "cls_reveal", "cls_next", "cls_other", "cls_close"}
MARKUP = "<b>x</b> *y* [z](http://e.org)"


def click(at, key):
    at.button(key=key).click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def buttons(at):
    return {b.key for b in at.button}


def opened(**sidebar):
    """A lecturer's page with a room open and its first question asked."""
    lecturer = run(PAGE, **sidebar)
    click(lecturer, "cls_open")
    click(lecturer, "cls_ask")
    return lecturer


def test_a_lesson_through_the_page():
    lecturer = opened(text=MARKUP)
    code = lecturer.session_state[ROOM]
    room = room_store().room(code)
    question = question_of(all_questions(room_settings(room), room.quiz_seed), room.kind)
    assert LECTURER_KEYS - {"cls_next"} <= buttons(lecturer) | {"cls_reveal"}
    assert code in text_of(lecturer)
    idle = f"{limits.ROOM_IDLE_EMPTY_SECONDS // 60} minutes after it opened or your last change"
    assert idle in text_of(lecturer)
    students = [run(PAGE, {"room": code}) for _ in range(2)]  # three in the browser test
    chosen = [1, 1]
    for student, k in zip(students, chosen, strict=True):
        assert not buttons(student) & LECTURER_KEYS  # a student is never offered them
        assert len([b for b in buttons(student) if b.startswith("cls_opt_")]) == room.n_options
        click(student, f"cls_opt_{(k + 1) % room.n_options}")
        click(student, f"cls_opt_{k}")  # a new tap replaces the first
        assert f"Your answer: **{letter(k)}**, you can change it until the reveal" in "\n".join(
            s.value for s in student.success
        )
        a = decode(chart_specs(student)["cls_room_A"]["data"][0]["z"])
        np.testing.assert_allclose(a.astype(float).sum(axis=1), 1, atol=1e-6)
    lecturer.run()
    assert [m.value for m in lecturer.metric] == ["2 of 2"]  # how many, not what
    assert "cls_lect_dist" not in chart_specs(lecturer)
    click(lecturer, "cls_reveal")
    counts = np.bincount(chosen, minlength=room.n_options)
    bars = chart_specs(lecturer)["cls_lect_dist"]["data"][0]
    np.testing.assert_array_equal(decode(bars["y"]).astype(int), counts)
    assert list(bars["marker"]["color"]).count("#1b7837") == 1  # the right answer, green
    for student, k in zip(students, chosen, strict=True):
        student.run()
        assert not student.exception and not buttons(student) & LECTURER_KEYS
        np.testing.assert_array_equal(
            decode(chart_specs(student)["cls_dist"]["data"][0]["y"]).astype(int), counts
        )
        verdict = "is right" if k == question.answer_index else "the right answer is"
        assert verdict in text_of(student)
    # the typed markup reaches the phones as text: escaped in the chart, in the markdown
    ticks = chart_specs(students[0])["cls_room_A"]["layout"]["yaxis"]["ticktext"]
    assert "&lt;b&gt;x&lt;&#x2F;b&gt;" in ticks or "&lt;b&gt;x&lt;/b&gt;" in ticks
    assert "<b>" not in text_of(students[0])
    click(lecturer, "cls_close")
    students[0].run()
    assert "closed" in "\n".join(i.value for i in students[0].info)
    late = run(PAGE, {"room": code})
    assert "is closed" in "\n".join(e.value for e in late.error)


def test_the_proof_table_is_static_text_on_the_projector_and_a_grid_on_a_phone():
    """A data grid draws its cells on a canvas at its own small size (13 px), whatever the
    projector's CSS: in projector mode the reveal's table is a static one."""
    lecturer = run(PAGE, {"present": "on"})
    click(lecturer, "cls_open")
    code = lecturer.session_state[ROOM]
    room = room_store().room(code)
    questions = all_questions(room_settings(room), room.quiz_seed)
    with_table = next(k for k, q in enumerate(questions) if q.table is not None)
    lecturer.selectbox(key="cls_question").set_value(with_table)
    click(lecturer, "cls_ask")
    student = run(PAGE, {"room": code})
    click(lecturer, "cls_reveal")
    student.run()
    assert len(lecturer.table) == 1 and not lecturer.dataframe
    assert len(student.dataframe) == 1 and not student.table


def test_the_lecturers_link_and_wrong_keys():
    lecturer = opened()
    code, key = lecturer.session_state[ROOM], lecturer.session_state[KEY]
    again = run(PAGE, {"room": code, "key": key})  # another device, or after a reload
    assert "cls_reveal" in buttons(again)
    assert "key" not in again.query_params  # the key leaves the address at once
    for wrong in (key[:-1] + ("A" if key[-1] != "A" else "B"), "<b>k</b>"):
        thief = run(PAGE, {"room": code, "key": wrong})
        assert "not the lecturer's key" in "\n".join(e.value for e in thief.error)
        assert not buttons(thief) & LECTURER_KEYS
        assert "cls_join" in buttons(thief) and "room" not in thief.query_params
    spent = run(PAGE, {"room": code, "key": key})  # the link again, spent by ``again``
    assert "works once" in "\n".join(e.value for e in spent.error)
    assert room_store().tally(code).students == 0  # a refused link joined nobody


def test_a_clear_cache_from_any_browser_keeps_the_rooms():
    import streamlit as st

    lecturer = opened()
    code = lecturer.session_state[ROOM]
    st.cache_data.clear()  # what Streamlit's "Clear cache" message does, which any browser sends
    st.cache_resource.clear()
    student = run(PAGE, {"room": code})
    assert len([b for b in buttons(student) if b.startswith("cls_opt_")]) > 0
    assert room_store().room(code).code == code


def test_codes_that_find_no_room():
    bad = run(PAGE, {"room": "<script>x</script>"})
    assert "is not a room code" in "\n".join(w.value for w in bad.warning)
    assert "cls_join" in buttons(bad)  # the code box instead
    missing = run(PAGE, {"room": "ABCDEF"})
    assert "No open room has the code ABCDEF" in "\n".join(e.value for e in missing.error)
    lecturer = opened()
    code = lecturer.session_state[ROOM]
    store = room_store()
    store.clock = clock = Clock()
    busy(store, clock, code, limits.ROOM_LIFETIME_SECONDS + 1)  # four hours later, never idle
    ended = run(PAGE, {"room": code})
    assert "4 hours after it opens" in "\n".join(e.value for e in ended.error)
    lecturer.run()
    ended_words = f"Room {code} has ended: a room lasts 4 hours"  # (classroom_ended)
    assert not lecturer.exception and ended_words in "\n".join(i.value for i in lecturer.info)


def test_a_redis_that_cannot_be_reached_is_said_plainly(monkeypatch):
    from tools.browser import free_port

    monkeypatch.setenv("ATTNVIZ_REDIS_URL", f"redis://127.0.0.1:{free_port()}/0")
    forget_room_store()
    lecturer = run(PAGE)
    click(lecturer, "cls_open")
    assert "(Redis) cannot be reached" in "\n".join(w.value for w in lecturer.warning)
    student = run(PAGE, {"room": "ABCDEF"})
    assert "cannot be reached" in "\n".join(w.value for w in student.warning)
    run("app_pages/Step_by_step.py")  # the lesson pages keep working


def test_an_example_too_large_for_a_phone_is_refused():
    lecturer = run_more(run(PAGE, generated=True), n=limits.MAX_ROOM_TOKENS + 1)
    click(lecturer, "cls_open")
    errors = "\n".join(e.value for e in lecturer.error)
    assert f"a room shows 1 to {limits.MAX_ROOM_TOKENS}" in errors
    assert ROOM not in lecturer.session_state


def reload(at):
    """The same address in a new session: what a browser's reload does."""
    return run(PAGE, {k: at.query_params[k] for k in at.query_params})


def test_a_browser_is_one_student_whatever_its_tabs_and_whoever_opens_its_address(
    monkeypatch,
):
    lecturer = opened()
    code = lecturer.session_state[ROOM]
    as_browser(monkeypatch, "ada-phone-000001")
    student = run(PAGE, {"room": code})
    assert (student.query_params["room"], student.query_params["joined"]) == (code, "1")
    assert "me" not in student.query_params  # no id in the address
    click(student, "cls_opt_1")
    again = reload(student)  # a reload, or the same link in a second tab
    assert "Your answer: **B**" in "\n".join(s.value for s in again.success)  # still theirs
    click(again, "cls_opt_0")  # the new tap replaces the answer given before
    tally = room_store().tally(code)
    assert (tally.answered, tally.students) == (1, 1)
    assert tally.counts[:2] == (1, 0)
    as_browser(monkeypatch, "bob-phone-000002")
    pasted = reload(student)  # Ada's address, pasted into the class chat, opened by Bob
    assert "Your answer" not in text_of(pasted)
    click(pasted, "cls_opt_2")
    old = run(PAGE, {"room": code, "me": "ada-phone-000001"})  # an old link's id: no one's
    click(old, "cls_opt_2")
    assert room_store().my_answer(code, "ada-phone-000001") == 0  # Ada's answer is hers
    assert room_store().tally(code).students == 2


def test_a_lecturers_reload_keeps_the_controls_in_that_browser_only(monkeypatch):
    as_browser(monkeypatch, "lecturer-laptop1")
    lecturer = opened()
    code = lecturer.session_state[ROOM]
    assert "a reload, a deck's next slide or another tab brings them back" in text_of(lecturer)
    assert "key" not in lecturer.query_params and "room" not in lecturer.query_params
    reloaded = reload(lecturer)  # the address bar holds neither key nor code
    assert {"cls_ask", "cls_close"} <= buttons(reloaded)
    as_browser(monkeypatch, "someone-else0001")
    assert not buttons(reload(lecturer)) & LECTURER_KEYS  # another browser at that address
    assert "your lecturer link moves them to another browser" in text_of(reload(lecturer))
    assert room_store().tally(code).students == 0  # the lecturer did not become a student


def test_a_full_room_and_flooding_answers_are_said_on_the_phone(monkeypatch):
    lecturer = opened()
    code = lecturer.session_state[ROOM]
    store = room_store()
    for k in range(limits.MAX_ROOM_STUDENTS):  # a full room, through the store, 250 networks
        store.join(code, f"s{k:015d}", f"10.0.{k % 250}.1")  # ids as a browser's cookie holds
    late = run(PAGE, {"room": code})
    full = "\n".join(e.value for e in late.error)
    assert f"Room {code} is full: it has {limits.MAX_ROOM_STUDENTS} students" in full
    assert not any(b.startswith("cls_opt_") for b in buttons(late))
    as_browser(monkeypatch, f"s{0:015d}")
    flooder = run(PAGE, {"room": code})  # one already in, reloading
    assert "cls_opt_0" in buttons(flooder)
    minute = (time.time() // 60 + 1) * 60  # the next minute starts: every tap counts in it
    store.clock = lambda: minute
    for k in range(limits.MAX_ANSWERS_PER_MINUTE):
        flooder.button(key=f"cls_opt_{k % 2}").click().run()
    assert not flooder.warning
    click(flooder, "cls_opt_1")  # one tap too many in this minute
    warning = "\n".join(w.value for w in flooder.warning)  # the store's sentence, as text
    assert md_escape(f"at most {limits.MAX_ANSWERS_PER_MINUTE} a minute. Wait a minute") in warning
    assert store.tally(code).answered == 1 and store.my_answer(code, f"s{0:015d}") == 1


def test_a_poll_reruns_the_page_when_the_room_changed_or_it_raced_the_pages_end():
    from attnviz.ui.pages.classroom_shared import RACE_SECONDS, poll_needs_page

    assert poll_needs_page(4, 3, None, 10.0)  # the room changed: the reveal, say
    assert not poll_needs_page(3, 3, None, 10.0)  # nothing changed: nothing drawn
    assert not poll_needs_page(3, 3, 10.0 - 1.4, 10.0)  # a poll's usual 1.5 s after the run
    assert poll_needs_page(3, 3, 10.0 - RACE_SECONDS / 3, 10.0)  # on the heels of the run


def test_the_page_run_marks_its_end_for_the_poll():
    from attnviz.ui.pages.classroom_shared import IN_PAGE_RUN, PAGE_RUN_ENDED

    code = opened().session_state[ROOM]
    student = run(PAGE, {"room": code})
    assert PAGE_RUN_ENDED in student.session_state  # the poll drawn by the page's run
    assert IN_PAGE_RUN not in student.session_state


def test_the_landing_and_the_projectors_lecturer_panel_say_what_there_is():
    """I8: the landing names both ways of voting and the sketch; I4: the projector's
    lecturer-only panel sends the report to another tab of this browser, not the lecturer
    link (which would move the controls)."""
    landing = text_of(run(PAGE))
    assert "one vote or two (vote, discuss, revote), or to sketch a row of A" in landing
    lecturer = run(PAGE, {"present": "on"})
    lecturer.button(key="cls_open").click().run()
    said = text_of(lecturer)
    assert "opened in another tab of this browser without projector mode" in said
    assert "downloads from the lecturer link" not in said
