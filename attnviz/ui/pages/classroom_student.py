"""A student's Classroom page, made for a phone (390 × 844, one column): join a room, see its
example drawn small and the current question, tap an answer (a new tap replaces it until the
reveal), then see whether it was right and how the class answered.

Nothing here changes a room except the student's own join and answer; no lecturer control is
ever drawn. Widget keys: ``cls_join_code``, ``cls_join`` (the join form), ``cls_opt_<k>``
(option k), ``cls_leave``; chart keys ``cls_room_A``, ``cls_dist``, ``cls_proof_<m>``.
"""

import streamlit as st

from attnviz.classroom import RoomError, RoomNotFoundError, StoreUnavailableError
from attnviz.classroom.lifecycle import ENDED, ended_reason
from attnviz.classroom.questions import letter
from attnviz.classroom.rounds import question_settings
from attnviz.classroom.sketch import is_sketch
from attnviz.links.classroom import student_query
from attnviz.serve.finish import kept_chart
from attnviz.ui.charts import display, draw
from attnviz.ui.pages.classroom_rounds import (
    confidence_taps,
    first_answer_note,
    im_lost_button,
    is_peer,
    look_up,
    my_rounds_line,
    reveal_rounds,
    student_waiting,
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
    room_a_figure,
    room_question,
    room_store,
    say,
    session_id,
)
from attnviz.ui.pages.classroom_sketch import student_sketch
from attnviz.ui.text import md_escape
from attnviz.ui.visitor import client_address


def join(code, rejoin=False):
    """Join room ``code`` (typed or from the link) as this session; True when in. A refusal
    (no such room, full, closed, too many tries) is said on the page; ``rejoin`` (the address
    says this browser was in the room): a room no longer found has ended (student_ended)."""
    try:
        room = room_store().join(code, session_id(), client_address())
    except RoomNotFoundError as exc:
        if not rejoin:
            say(exc)
            return False
        st.session_state[ROOM] = code  # student_view says that it ended
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
    """Everything a student sees in room ``code``, then the poll that follows it."""
    store, sid = room_store(), session_id()
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
    st.subheader(f"Room {room.code}")
    if room.closed:
        st.info("The lecturer has closed this room. Thank you for taking part!", icon="👋")
        st.button("Join another room", key="cls_leave", on_click=_leave)
        followed(room.code)  # the lecturer reopened it: go there
        follow(room.code)
        return
    note = st.session_state.pop(NOTE, None)
    if note:
        st.warning(md_escape(note), icon="⏳")
    question = room_question(room)
    if room.peer.blank:  # the lecturer explains: eyes on the projector (classroom_rounds)
        look_up()
    elif is_sketch(room.kind):
        student_sketch(room)  # no A drawn: it would show the row asked
    elif question is None:
        st.info("You are in. The question appears here when the lecturer asks it.", icon="⏳")
        room_example_view(room)
    else:
        try:
            mine = store.my_answer(room.code, sid)
        except StoreUnavailableError as exc:
            say(exc)
            mine = None
        question_text(question, room.question_no)
        if room.phase == "answering":
            first_answer_note(room, room.code, sid)  # round 2: the student's own first answer
            options(room, question, mine)
            confidence_taps(room, mine)
        elif room.phase == "revealed":
            revealed(room, question, mine)
        else:
            student_waiting(room, mine)  # the round has ended, or the class discusses
        room_example_view(room)
    im_lost_button(room)
    follow(room.code)


def options(room, question, mine):
    """One full-width button per option; the chosen one highlighted and acknowledged."""
    for k, option in enumerate(question.options):
        st.button(
            option_text(k, option),
            key=f"cls_opt_{k}",
            on_click=_answer,
            args=(room.code, k),
            type="primary" if k == mine else "secondary",
            width="stretch",
        )
    if mine is None:
        st.caption("Tap your answer. The class's answers are shown after the reveal.")
    else:
        until = "the lecturer ends the round" if is_peer(room) else "the reveal"
        st.success(f"Your answer: **{letter(mine)}**, you can change it until {until}.", icon="✅")


def revealed(room, question, mine):
    """After the reveal: right or not, the class's distribution, the numbers that prove it."""
    if mine is None:
        st.info("You did not answer this one.", icon="🙈")
    elif mine == question.answer_index:
        st.success(f"Your answer {letter(mine)} is right.", icon="✅")
    else:
        right = letter(question.answer_index)
        st.warning(f"Your answer was {letter(mine)}; the right answer is {right}.", icon="🤔")
    try:  # the class's answers: every round, who moved where, confidence (classroom_rounds)
        if is_peer(room):
            st.markdown(my_rounds_line(room, room_store().my_answers(room.code, session_id())))
        reveal_rounds(room, question, key="cls", height=260)
    except StoreUnavailableError as exc:
        say(exc)
    proof(room, question, key="cls_proof")


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
    st.subheader(f"Room {code}")
    st.error(ended_reason(record, joined=True, in_process=store.in_process), icon="🔚")
    if record is not None:
        st.caption(
            "If the lecturer opens a new room from this one, this page moves to it on its own. "
            "Or join the new room with the code on the projector:"
        )
        drawn(ENDED)
        follow(code)
    else:
        st.caption("Join the lecturer's new room with the code on the projector:")
    join_form()
