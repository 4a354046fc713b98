"""The lecturer's Classroom page when a room has ended (its 4 hours are over, it was idle,
the lecturer closed it, or an in-process server restarted), and the lecturer's health panel
(attnviz.classroom.health). A phone's ended room is classroom_student.student_ended.

    the lecturer's ended room   -> why it ended; "Open a new room with the same example and
                                   question" (one click: its phones follow), or, when the store
                                   keeps no record of it, one with the sidebar's example
    the lecturer, present=off   -> phones connected now, answers in, where the rooms live
                                   (redrawn every few seconds: classroom_size.room_watch)

Widget keys: ``cls_reopen``, ``cls_reopen_sidebar``, ``cls_forget``.
"""

import streamlit as st

from attnviz.classroom import RoomError, screens
from attnviz.classroom.health import health
from attnviz.classroom.lifecycle import ended_reason
from attnviz.classroom.sections import Button
from attnviz.links.shared import settings_query
from attnviz.ui.pages.classroom_seat import hold_by_browser
from attnviz.ui.pages.classroom_shared import (
    KEY,
    NOTE,
    ROOM,
    room_store,
    say,
    session_id,
    tell,
)
from attnviz.ui.text import md_escape
from attnviz.ui.visitor import client_address

DISMISSED = "attnviz.classroom.dismissed"  # the ended room this session's lecturer left


def _reopen(code, key):
    state = st.session_state
    try:
        address, hold = client_address(), hold_by_browser()
        room, new_key = room_store().reopen(code, key, session_id(), address, hold=hold)
    except RoomError as exc:
        state[NOTE] = str(exc)
        return
    state[ROOM], state[KEY] = room.code, new_key


def _open_with(settings_query):
    state = st.session_state
    try:
        store, address = room_store(), client_address()
        room, key = store.open(settings_query, session_id(), address, hold=hold_by_browser())
    except RoomError as exc:
        state[NOTE] = str(exc)
        return
    state[ROOM], state[KEY] = room.code, key


def _forget(code):
    st.session_state[DISMISSED] = code
    for name in (ROOM, KEY):
        st.session_state.pop(name, None)


def lecturer_ended(code, key, settings):
    """The lecturer of room ``code`` (with its ``key``), which has ended or is closed: why,
    and a new room in one click. ``settings``: the sidebar's."""
    store = room_store()
    try:
        record = store.record(code)
    except RoomError as exc:
        say(exc)
        return
    note = st.session_state.pop(NOTE, None)
    if note:
        st.error(md_escape(note), icon="🚫")
    reason = ended_reason(record, joined=True, in_process=store.in_process)
    may_reopen = record is not None and record.key_matches(key)
    page = screens.lecturer_ended(code, reason, may_reopen)
    st.subheader(page.title)
    callbacks = {  # what each of the page's buttons does, with its arguments
        "reopen": (_reopen, (code, key)),
        "open": (_open_with, (settings_query(settings),)),
        "forget": (_forget, (code,)),
    }
    for section in page.sections:
        if isinstance(section, Button):
            on_click, args = callbacks[section.action]
            kind = "primary" if section.primary else "secondary"
            st.button(section.label, key=section.key, type=kind, on_click=on_click, args=args)
        else:
            tell(section)


def remembered_room_ended(settings, code):
    """On the landing page: when this browser's lecturer held room ``code`` (from its cookie,
    or None), which the store no longer knows (an in-process server restarted), say so with
    the one-click new room; True when drawn."""
    if code is None or st.session_state.get(DISMISSED) == code:
        return False
    try:
        room_store().room(code)
        return False  # open, but held by another browser now: no business of this one
    except RoomError:
        pass
    lecturer_ended(code, None, settings)
    return True


def health_panel(code):
    """Phones connected now, answers in, where the rooms live: redrawn by the lecturer's panel's
    own slow poll (classroom_size.room_watch), in every phase. Two fragments polling at the
    same interval raced each other's runs, and the count stalled: that poll is slower."""
    try:
        lines = health(room_store(), code).lines()
    except RoomError as exc:
        say(exc)
        return
    with st.container(key="cls_health"):
        st.markdown("**The room's health** (not on the projector)")
        st.markdown("  \n".join(lines))  # our own sentences and counts: no markup
