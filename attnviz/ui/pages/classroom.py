"""The Classroom page: who this session is in the room, and what it is shown.

    a lecturer's link (room=CODE&key=…)  -> the link is spent (the room gets a new key) and
                                            this browser holds the room (classroom_seat.py);
                                            the code and key leave the address (a projected
                                            address bar shows neither); the lecturer's view.
                                            While this browser holds another open room, the
                                            lecturer is asked first; a refused or spent link
                                            says why and joins nobody
    a browser holding a room             -> the lecturer's view (classroom_lecturer), after a
                                            reload, on a deck's next slide, or reconnected to
                                            another replica alike, unless the address joins
                                            another room
    a join link (room=CODE), or a code   -> the student's view (classroom_student); once joined
                                            the address is room=CODE&joined=1. The student is
                                            the browser (its id, ui/visitor.py): a reload or a
                                            second tab is the same student with the same answer
    neither                              -> join by code, or open a room

``read_link`` runs before the page's frame (which rewrites the address without ``key``).
"""

import streamlit as st

from attnviz.classroom import RoomError
from attnviz.links.classroom import PARAMS, read_joined, read_room
from attnviz.ui.pages.classroom_deck import (
    ask_slide,
    deck_slide,
    deck_trusted,
    remember,
    remembered_lecturer,
    slide_bar,
    slide_intro,
)
from attnviz.ui.pages.classroom_ended import DISMISSED, remembered_room_ended
from attnviz.ui.pages.classroom_lecturer import lecturer_view, open_room, staff_passphrase_box
from attnviz.ui.pages.classroom_seat import (
    PENDING,
    ask_first,
    held_open_room,
    hold_by_browser,
    left_now,
    seat,
)
from attnviz.ui.pages.classroom_shared import (
    KEY,
    NOTE,
    ROOM,
    TOUCH_CSS,
    room_store,
    say,
    session_id,
)
from attnviz.ui.pages.classroom_student import join, join_form, student_view
from attnviz.ui.text import md_escape
from attnviz.ui.visitor import client_address, keep_browser_cookie

LINK_NOTE = "attnviz.classroom.link_note"  # why the lecturer link was refused


def read_link():
    """(room code or None, lecturer key or None, whether the address says this browser had
    joined the room, warnings) from the page's address; the lecturer's key leaves it."""
    query = {name: st.query_params.get_all(name) for name in PARAMS if name in st.query_params}
    st.query_params.pop("key", None)  # a secret, spent once read: never kept in the address
    code, key, warnings = read_room(query)
    joined, joined_warnings = read_joined(query)
    return code, key, bool(code) and joined, warnings + joined_warnings


def take_key(code, key):
    """A lecturer's link: this browser holds the room from now on, and the link is spent; or
    the page says why not, and the link joins nobody. While this browser holds another open
    room, the lecturer is asked first (classroom_seat.ask_first)."""
    st.query_params.pop("room", None)  # a reload of this tab is no student of the room
    try:
        held = held_open_room(code)
    except RoomError:
        held = None  # the store is away: take_link says so
    if held is not None:
        st.session_state[PENDING] = (code, key)
        return
    take_link(code, key)


def take_link(code, key):
    """Spend the lecturer link (``code``, ``key``): this session holds the room (by the
    lecturer's cookie, or the browser's id where the App is not served); a refusal is said."""
    state = st.session_state
    try:
        address = client_address()
        state[KEY] = room_store().take_link(code, key, session_id(), address, hold_by_browser())
    except RoomError as exc:
        state[LINK_NOTE] = exc
        return
    state[ROOM] = code


def take_held(code):
    """This browser's held room (classroom_seat.seat) into the session, unless the address
    (``code``) joins another room or the lecturer left it; a key the session holds that the
    room no longer has (its link was used in another browser) leaves the session. Where the
    lecturer's cookie holds the room, a session that holds one already keeps it (the cookie it
    sent may be older than what it took since)."""
    state, store = st.session_state, room_store()
    try:
        held = None if state.get(KEY) and not hold_by_browser() else seat()
        record = store.record(state[ROOM]) if state.get(KEY) and state.get(ROOM) else None
    except RoomError:
        return  # the store is away: the pages say so where they use it
    if held is not None and code in (None, held[0]) and state.get(DISMISSED) != held[0]:
        state[ROOM], state[KEY] = held
    elif record is not None and not record.key_matches(state[KEY]):
        for name in (KEY, ROOM):  # the controls moved to another browser: the landing page
            state.pop(name)


def classroom(settings, link):
    """The page below its title; ``settings`` the sidebar's, ``link`` from ``read_link``."""
    st.html(TOUCH_CSS)
    keep_browser_cookie()
    code, key, joined, warnings = link
    kind, slide_warnings = deck_slide()  # kind False: not a deck's slide
    for warning in warnings + slide_warnings:
        st.warning(warning, icon="⚠️")
    state = st.session_state
    if code and key:
        take_held(None)  # the room this browser holds, if any: take_key may ask about it
        take_key(code, key)
        code = None  # a lecturer link joins nobody, taken or not
    else:
        take_held(code)
    refused = state.pop(LINK_NOTE, None)
    if refused is not None:
        say(refused)
    ask_first(take_link)
    left_now()
    if state.get(KEY) and state.get(ROOM):
        if hold_by_browser():
            remember(state[ROOM])  # told after a restart of an in-process server
        if kind is not False:
            slide_bar(follow_the_slide(settings, kind))
        lecturer_view(settings)
        return
    if kind is not False:
        slide_bar()
    if code and state.get(ROOM) != code:
        join(code, rejoin=joined)
    if state.get(ROOM):
        student_view(state[ROOM])
        return
    if remembered_room_ended(settings, remembered_lecturer()):
        return  # this browser's lecturer held a room that has ended (e.g. a restart)
    deck = None if kind is False else st.query_params.get("deck", "")
    landing(settings, kind or None, deck, student=bool(code))


def follow_the_slide(settings, kind):
    """A deck's Classroom slide, for its lecturer: the slide's example and question go to the
    room (classroom_deck.ask_slide) once the lecturer trusts the deck; what cannot be done is
    said on the page. The room as it is then, or None when the store refused or the deck is
    not trusted yet (the deck bar's → then takes no step of the room's question)."""
    store = room_store()
    try:
        room = store.room(st.session_state[ROOM])
        if room.closed:
            return room
        if not deck_trusted(room):
            return None  # → only moves on through the deck until the lecturer confirms it
        problem = ask_slide(room, settings, kind)
        room = store.room(room.code)
    except RoomError as exc:
        st.session_state[NOTE] = str(exc)
        return None
    if problem:
        st.warning(problem, icon="🎞️")
    return room


def landing(settings, kind=None, deck=None, student=False):
    """Join a room by its code; or, for a lecturer, open one with the sidebar's example (and,
    on a deck's slide, say what the slide asks; ``deck``: the slide's deck, or None).
    ``student``: the address is a student's join link (a room that could not be joined, e.g.
    closed since): the code box only, no lecturer's part on a student's phone."""
    slide_intro(settings, kind)
    st.subheader("Join a room")
    join_form()
    if student:
        return
    st.subheader("Lecturers: open a room")
    st.markdown(
        "A room shows the sidebar's example on every student's phone and asks them the "
        "Predict-then-reveal questions on it, with one vote or two (vote, discuss, revote), or "
        "to sketch a row of A; the projector shows how many have answered, then the class's "
        "answers. No names, no accounts."
    )
    passphrase = staff_passphrase_box()
    if st.button("Open a room", key="cls_open"):
        open_room(settings, deck, passphrase)
    st.caption(
        "Lecturer of a room already open? Its controls come back on this page in the browser "
        "that opened it; your lecturer link moves them to another browser."
    )
    sentence = md_escape(settings.text if not settings.generated else f"t1 … t{settings.n}")
    st.caption(f"The sidebar's example: {sentence}.")
