"""The Classroom page: who this session is in the room, and what it is shown.

    a lecturer's link (room=CODE&key=…)  -> the key is checked, kept in the session and taken
                                            out of the address with the code (a projected
                                            address bar shows neither; a reload of the tab
                                            needs the lecturer's link again); the lecturer's view
    a session holding a room and its key -> the lecturer's view (classroom_lecturer)
    a join link (room=CODE), or a code   -> the student's view (classroom_student); once joined
                                            the address is room=CODE&me=ID, the session's
                                            random id, so a reload is the same student
    neither                              -> join by code, or open a room

``read_link`` runs before the page's frame (which rewrites the address without ``key``).
"""

import streamlit as st

from attnviz.classroom import RoomError
from attnviz.links.classroom import PARAMS, read_me, read_room
from attnviz.ui.pages.classroom_deck import (
    ask_slide,
    deck_slide,
    remember,
    remembered_lecturer,
    slide_bar,
    slide_intro,
    take_remembered,
)
from attnviz.ui.pages.classroom_ended import remembered_room_ended
from attnviz.ui.pages.classroom_lecturer import lecturer_view, open_room
from attnviz.ui.pages.classroom_shared import KEY, NOTE, ROOM, SID, TOUCH_CSS, room_store, say
from attnviz.ui.pages.classroom_student import join, join_form, student_view
from attnviz.ui.text import md_escape


def read_link():
    """(room code or None, lecturer key or None, student id or None, warnings) from the page's
    address."""
    query = {name: st.query_params.get_all(name) for name in PARAMS if name in st.query_params}
    code, key, warnings = read_room(query)
    me, me_warnings = read_me(query) if code else (None, [])
    return code, key, me, warnings + me_warnings


def take_key(code, key):
    """A lecturer's link: keep the key in the session when it is the room's, else say so."""
    try:
        room = room_store().room(code)
    except RoomError as exc:
        say(exc)
        return
    if room.key_matches(key):
        st.session_state[ROOM], st.session_state[KEY] = room.code, key
        st.query_params.pop("room", None)  # a reload of this tab is no student of the room
    else:
        st.error(
            f"The link's key is not the lecturer's key of room {room.code}: you can join it as "
            "a student.",
            icon="🔑",
        )


def classroom(settings, link):
    """The page below its title; ``settings`` the sidebar's, ``link`` from ``read_link``."""
    st.html(TOUCH_CSS)
    code, key, me, warnings = link
    kind, slide_warnings = deck_slide()  # kind False: not a deck's slide
    for warning in warnings + slide_warnings:
        st.warning(warning, icon="⚠️")
    state = st.session_state
    if me and not key:
        state[SID] = me  # a student's reload: the same id, so the same answer
    if code and key:
        take_key(code, key)
    if kind is not False and not (state.get(KEY) and state.get(ROOM)):
        take_remembered()  # the lecturer's room, from the deck's previous slide
    if state.get(KEY) and state.get(ROOM):
        remember(state[ROOM], state[KEY])  # for the deck's next slide, in this browser
        if kind is not False:
            slide_bar(follow_the_slide(settings, kind))
        lecturer_view(settings)
        return
    if kind is not False:
        slide_bar()
    if code and state.get(ROOM) != code:
        join(code, rejoin=bool(me))
    if state.get(ROOM):
        student_view(state[ROOM])
        return
    if remembered_room_ended(settings, remembered_lecturer()):
        return  # this browser's lecturer held a room that has ended (e.g. a restart)
    landing(settings, kind or None)


def follow_the_slide(settings, kind):
    """A deck's Classroom slide, for its lecturer: the slide's example and question go to the
    room (classroom_deck.ask_slide); what cannot be done is said on the page. The room as it
    is then, or None when the store refused."""
    store = room_store()
    try:
        problem = ask_slide(store.room(st.session_state[ROOM]), settings, kind)
        room = store.room(st.session_state[ROOM])
    except RoomError as exc:
        st.session_state[NOTE] = str(exc)
        return None
    if problem:
        st.warning(problem, icon="🎞️")
    return room


def landing(settings, kind=None):
    """Join a room by its code; or, for a lecturer, open one with the sidebar's example (and,
    on a deck's slide, say what the slide asks)."""
    slide_intro(settings, kind)
    st.subheader("Join a room")
    join_form()
    st.subheader("Lecturers: open a room")
    st.markdown(
        "A room shows the sidebar's example on every student's phone and asks them the "
        "Predict-then-reveal questions on it; the projector shows how many have answered, "
        "then the class's answers. No names, no accounts."
    )
    if st.button("Open a room", key="cls_open"):
        open_room(settings)
    st.caption(
        "Lecturer of a room already open? Your lecturer link brings its controls back: a "
        "reload does not, as the address never holds the key."
    )
    sentence = md_escape(settings.text if not settings.generated else f"t1 … t{settings.n}")
    st.caption(f"The sidebar's example: {sentence}.")
