"""Where a room's controls are kept in this browser: the lecturer's own cookie, set by the
server (classroom/credential.py, attnviz/web/lecturer.py), or, where the App's routes are not
served (AppTest, a host that runs app.py as a plain script), the store's record of what the
browser's id holds (classroom/lecturers.py), as before the App.

    seat()                 -> (code, key) of the room this browser's lecturer holds, or None
    hold_by_browser()      -> whether the store keeps the controls under the browser's id
    hand_over(code, key)   the page's script asks /api/lecturer for the cookie (once a session)
    hand_back(code)        the cookie cleared when it names room ``code`` (closed, or left)
    leave_button(room)     "Leave this computer": the room goes on, this browser lets go
    ask_first(...)         a lecturer link while this browser holds another open room: asked

A session's cookies are those its browser sent when the session began: a cookie set or cleared
during it is seen by the next session (a reload, a deck's next slide). So the cookie the
session was sent counts only until the session changes it (STALE), and from then on the
session's own state says what it holds.

Session state: HANDED the (code, key) handed over, STALE set once the session changed the
cookie, PENDING the lecturer link waiting for a yes, LEAVING the room "Leave this computer"
let go. Widget keys ``cls_leave``, ``cls_take_link``, ``cls_keep_room``.
"""

import json

import streamlit as st

from attnviz.classroom import RoomError
from attnviz.classroom.credential import LECTURER_COOKIE, ROUTES_SERVED, read_credential
from attnviz.ui.pages.classroom_shared import KEY, NOTE, ROOM, room_store, session_id
from attnviz.ui.text import md_escape

HANDED = "attnviz.classroom.handed"
STALE = "attnviz.classroom.cookie_stale"
PENDING = "attnviz.classroom.pending_link"
LEAVING = "attnviz.classroom.leaving"
TAKE_PATH, LEAVE_PATH = "api/lecturer", "api/lecturer/leave"  # relative to the page's address


def hold_by_browser():
    """Whether the store keeps the lecturer's controls under the browser's id: only where the
    App's routes are not served (the module's docstring)."""
    return not ROUTES_SERVED.is_set()


def sent_cookie():
    """The lecturer cookie's value as this session's browser sent it, or None."""
    return st.context.cookies.get(LECTURER_COOKIE)


def cookie_seat():
    """(code, key) in the lecturer cookie this session's browser sent, while this session has
    not changed it; or None."""
    if st.session_state.get(STALE):
        return None
    return read_credential(sent_cookie())


def seat():
    """(code, key) of the room this browser's lecturer holds (open, closed or ended while its
    record is kept, the key still the room's), or None. Raises the store's RoomError."""
    if hold_by_browser():
        return room_store().held(session_id())
    found = cookie_seat()
    if found is None:
        return None
    record = room_store().record(found[0])
    return found if record is not None and record.key_matches(found[1]) else None


# What the page says while its script waits for the route, and when the route refuses: {why} is
# the server's sentence (shown as text), or that it did not answer
SAID = {
    TAKE_PATH: (
        "Keeping this room's controls in this browser: {why} Trying again.",
        "This browser could not keep the room's controls: {why} This tab keeps them: before "
        "you reload or close it, copy the Lecturer link on this page, which brings them back.",
    ),
    LEAVE_PATH: (
        "Letting go of this room's controls in this browser: {why} Trying again.",
        "This browser could not let go of the room's controls: {why} Reload the page to try again.",
    ),
}
TRIES = 6  # a route that does not answer, or says the store is away (503), is asked again after
# 1, 2, 4, 8 and 16 s: a store restarted during that time is waited for


# The page's script for _post, called with {path, body, tries, trying, failed, silent}
POST_SCRIPT = """async (c) => {
  const say = (text, why) => {
    const note = document.getElementById("attnviz-seat-note");
    if (note) note.textContent = text.replace("{why}", () => why);  // text, never markup
  };
  for (let attempt = 1; ; attempt++) {
    let answer = null;
    try {
      answer = await fetch(c.path, {method: "POST", credentials: "same-origin",
                                    headers: {"Content-Type": "application/json"}, body: c.body});
    } catch (e) {}  // no answer: asked again
    if (answer && answer.ok) return say("", "");
    let why = c.silent;
    if (answer) try { why = (await answer.json()).error || why; } catch (e) {}
    if ((answer && answer.status !== 503) || attempt >= c.tries) return say(c.failed, why);
    say(c.trying, why);
    await new Promise(done => setTimeout(done, 1000 * 2 ** (attempt - 1)));
  }
}"""


def _post(path, body):
    """A script on the page that POSTs ``body`` (JSON) to the App's route ``path``: its answer
    sets or clears the cookie (a fetch's Set-Cookie is kept like a page's). While the server
    does not answer or its store is away, it asks again (TRIES), saying so on the page; a
    refusal is said in the server's words."""
    trying, failed = SAID[path]
    call = {
        "path": path,
        "body": json.dumps(body),  # codes and keys are URL-safe
        "tries": TRIES,
        "trying": trying,
        "failed": failed,
        "silent": "the server did not answer.",
    }
    st.html(
        "<style>#attnviz-seat-note {background: rgba(255, 189, 69, 0.2); border-radius: 0.5rem;"
        " padding: 0.75rem 1rem; margin: 0} #attnviz-seat-note:empty {display: none}</style>"
        '<p id="attnviz-seat-note" role="status"></p>'
        f"<script>({POST_SCRIPT})({json.dumps(call)});</script>",
        unsafe_allow_javascript=True,
    )


def hand_over(code, key):
    """Where the App's routes are served: the cookie for room ``code`` with ``key``, asked for
    once a session, unless the browser sent it already. Draws one element on every run (the
    script, or an empty placeholder), so that the page's elements below keep their places: an
    element that comes and goes shifts them, and an expander below it closes."""
    slot = st.empty()
    if hold_by_browser() or cookie_seat() == (code, key):
        return
    state = st.session_state
    if state.get(HANDED) != (code, key):
        state[HANDED], state[STALE] = (code, key), True
        with slot:
            _post(TAKE_PATH, {"room": code, "key": key})


def hand_back(code):
    """The cookie cleared when this session's browser holds room ``code`` by it (sent, or
    handed over in this session): the room was closed. Once a session."""
    state = st.session_state
    held = [c for c in (cookie_seat(), state.get(HANDED)) if c is not None and c[0] == code]
    if hold_by_browser() or not held:
        return
    state[STALE] = True
    state.pop(HANDED, None)
    _post(LEAVE_PATH, {})


def _leave():
    state = st.session_state
    state[LEAVING] = state.pop(ROOM, None)
    state.pop(KEY, None)
    if hold_by_browser():
        try:
            room_store().let_go(session_id())
        except RoomError as exc:
            state[NOTE] = str(exc)
    else:
        state[STALE] = True  # the cookie this session was sent is not taken again
        state.pop(HANDED, None)


def left_now():
    """After "Leave this computer": the cookie cleared (where served) and a sentence; True
    when this run is the one after the click."""
    state = st.session_state
    if LEAVING not in state:
        return False
    code = state.pop(LEAVING)
    if not hold_by_browser():
        _post(LEAVE_PATH, {})
    note = state.pop(NOTE, None)
    if note:
        st.error(md_escape(note), icon="🚫")
    st.info(
        f"This browser no longer holds room {code}'s controls; the room goes on. Your "
        "lecturer link takes them on another computer.",
        icon="🚪",
    )
    return True


def leave_button(room):
    """ "Leave this computer": the room goes on, this browser holds its controls no more."""
    st.button(
        "Leave this computer",
        key="cls_leave",
        on_click=_leave,
        help=f"Room {room.code} goes on, and this browser no longer holds its controls (on a "
        "shared lecture-hall computer, the next user does not get them). Copy your lecturer "
        "link first: it takes the controls on another computer.",
    )


def _keep():
    st.session_state.pop(PENDING, None)


def held_open_room(code):
    """The code of the open room this session's lecturer holds, when it is not ``code``; else
    None (no room, the same room, a closed or ended one)."""
    state = st.session_state
    held = (state[ROOM], state[KEY]) if state.get(KEY) and state.get(ROOM) else seat()
    if held is None or held[0] == code:
        return None
    try:
        room = room_store().room(held[0])
    except RoomError:
        return None
    return room.code if not room.closed and room.key_matches(held[1]) else None


def ask_first(take):
    """A lecturer link that waits (PENDING) while this browser holds another open room: the
    lecturer says which room this browser keeps; ``take(code, key)`` takes the link's."""
    pending = st.session_state.get(PENDING)
    if pending is None:
        return
    held = held_open_room(pending[0])
    if held is None:  # the other room closed meanwhile: nothing to ask
        st.session_state.pop(PENDING)
        take(*pending)
        return
    with st.container(key="cls_ask_first"):
        st.warning(
            f"This browser holds the controls of room {held}, which is open. The link you "
            f"opened is the lecturer link of room {md_escape(pending[0])}: taking it moves "
            f"this browser's controls to room {md_escape(pending[0])}, and room {held} goes "
            "on with nobody at its controls here (its lecturer link takes them back). Did "
            "you mean to join a room as a student? Use its join link or code instead.",
            icon="🔀",
        )
        left, right = st.columns(2)
        left.button(f"Keep room {held}", key="cls_keep_room", type="primary", on_click=_keep)
        right.button(
            f"Take room {md_escape(pending[0])}'s controls",
            key="cls_take_link",
            on_click=_take_pending,
            args=(take,),
        )


def _take_pending(take):
    pending = st.session_state.pop(PENDING, None)
    if pending is not None:
        take(*pending)
