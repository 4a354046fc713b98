"""A student's Classroom page, made for a phone (390 × 844, one column): join a room, see its
example drawn small and the current question, tap an answer (a new tap replaces it until the
reveal), then see whether it was right and how the class answered.

Nothing here changes a room except the student's own join and answer; no lecturer control is
ever drawn. Widget keys: ``cls_join_code``, ``cls_join`` (the join form), ``cls_opt_<k>``
(option k), ``cls_leave``; chart keys ``cls_room_A``, ``cls_dist``, ``cls_proof_<m>``.
"""

import time

import streamlit as st

from attnviz.classroom import RoomClosedError, RoomError, RoomNotFoundError
from attnviz.classroom.lifecycle import ENDED, ended_reason
from attnviz.classroom.screens import phone_ended
from attnviz.classroom.sections import (
    Asked,
    Button,
    Discussion,
    JoinForm,
    Options,
    Proof,
    Reveal,
    RoomExample,
    Say,
    Sure,
)
from attnviz.links.classroom import student_query
from attnviz.serve.classroom import phone_screen, question_settings
from attnviz.serve.finish import kept_chart
from attnviz.serve.room_charts import room_a_figure
from attnviz.ui.charts import display, draw
from attnviz.ui.pages.classroom_rounds import (
    confidence_taps,
    discussion_banner,
    im_lost_button,
    reveal_rounds,
)
from attnviz.ui.pages.classroom_shared import (
    NO_MODEBAR,
    NOTE,
    ROOM,
    drawn,
    follow,
    option_text,
    proof,
    question_text,
    room_store,
    say,
    session_id,
    tell,
)
from attnviz.ui.pages.classroom_sketch import sketch_section
from attnviz.ui.text import md_escape
from attnviz.ui.visitor import client_address


def join(code, rejoin=False):
    """Join room ``code`` (typed or from the link) as this session; True when in. A refusal
    (no such room, full, closed, too many tries) is said on the page; ``rejoin`` (the address
    says this browser was in the room): a room no longer found has ended (student_ended)."""
    try:
        room = room_store().join(code, session_id(), client_address())
    except (RoomNotFoundError, RoomClosedError) as exc:
        if not rejoin:
            say(exc)
            return False
        st.session_state[ROOM] = code  # student_view says that it ended, or was closed
        return True
    except RoomError as exc:
        say(exc)
        return False
    st.session_state[ROOM] = room.code
    st.query_params.update(student_query(room.code))  # a room gone since is told apart
    return True


def join_form():
    """The code box and Join button; joins when pressed."""
    with st.form("cls_join_form", border=False):
        typed = st.text_input(
            "Room code (on the projector)", max_chars=12, key="cls_join_code", placeholder="K7QX4M"
        )
        pressed = st.form_submit_button("Join", type="primary", key="cls_join", width="stretch")
    if pressed and join(typed) is True:
        st.rerun()


def _answer(code, k):
    """The callback of option ``k``'s button: the answer goes to the store at once."""
    try:
        room_store().answer(code, session_id(), k)
    except RoomError as exc:
        st.session_state[NOTE] = str(exc)


def _leave():
    st.session_state.pop(ROOM, None)
    for name in student_query(""):
        st.query_params.pop(name, None)


def room_example_view(room):
    """The room's attention matrix A, small enough for a phone (no toolbar)."""
    chart = kept_chart(room_a_figure, (question_settings(room),), *display(), share=None)
    draw(chart, "cls_room_A", config=NO_MODEBAR, theme=None)  # finished once for every phone


def student_view(code):
    """Everything a student sees in room ``code`` (classroom.screens.phone), then the poll that
    follows it."""
    store = room_store()
    try:
        room = store.room(code)
    except RoomNotFoundError:
        student_ended(code)  # in words; follows the room the lecturer reopens from it
        return
    except RoomError as exc:
        say(exc)
        st.button("Join another room", key="cls_leave", on_click=_leave)
        drawn(None)
        follow(code)  # the store may come back
        return
    drawn(room.version)
    screen, question, refusals = phone_screen(room, session_id(), time.time())
    st.subheader(screen.title)
    note = None if room.closed else st.session_state.pop(NOTE, None)
    if note:
        st.warning(md_escape(note), icon="⏳")
    for exc in refusals:
        say(exc)
    draw_phone(screen, room, question)
    if room.closed:
        followed(room.code)  # the lecturer reopened it: go there
    follow(room.code)


def draw_phone(screen, room, question):
    """Draw a classroom.sections.Phone's sections in order (its title is the caller's)."""
    for section in screen.sections:
        match section:
            case Say():
                tell(section)
            case Asked():
                question_text(section)
            case Options():
                options(room, section)
            case Sure():
                confidence_taps(room.code, section)
            case Discussion():
                discussion_banner(section)
            case Reveal():
                reveal_rounds(room, question, section, key="cls", height=260)
            case Proof():
                proof(room, question, key="cls_proof")
            case RoomExample():
                room_example_view(room)
            case JoinForm():
                join_form()
            case Button(action="lost"):
                im_lost_button(room.code, section)
            case Button(action="leave"):
                st.button(section.label, key=section.key, on_click=_leave)
            case _:
                sketch_section(room, question, section)  # question: the SketchQuestion


def options(room, shown):
    """One full-width button per option (classroom.sections.Options), the chosen one
    highlighted."""
    for k, option in enumerate(shown.options):
        st.button(
            option_text(k, option),
            key=f"cls_opt_{k}",
            on_click=_answer,
            args=(room.code, k),
            type="primary" if k == shown.chosen else "secondary",
            width="stretch",
        )


def followed(code):
    """When the lecturer reopened room ``code`` as another: join that one and rerun (the
    student's page then shows it); False otherwise."""
    try:
        successor = room_store().successor(code)
    except RoomError:
        return False
    if successor and join(successor):
        st.rerun()
    return False


def student_ended(code):
    """A phone in room ``code``, which the store no longer has open: why, in words, the code
    box, and the poll that follows the lecturer's reopened room (when one can be named)."""
    followed(code)
    store = room_store()
    try:
        record = store.record(code)
    except RoomError as exc:
        say(exc)
        record = None
    reason = ended_reason(record, joined=True, in_process=store.in_process)
    screen = phone_ended(code, reason, record)
    st.subheader(screen.title)
    draw_phone(screen, None, None)
    if screen.follow:
        drawn(ENDED)
        follow(code)
