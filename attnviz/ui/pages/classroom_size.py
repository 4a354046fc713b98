"""The lecturer's hold on who is in the room (attnviz.classroom.joins): the joins of the last
minute and from how many networks, a burst from one network flagged, Lock in one click (or the
keyboard's L), a class size, and "Keep only those who answered". Redrawn by its own slow poll
(``room_watch``, every WATCH_SECONDS, in every phase), with the health panel (not on the
projector: classroom_ended.health_panel), so neither says what is no longer so.

Widget keys: ``cls_lock``, ``cls_class_size_<code>`` (one a room: a new room starts at its
own size), ``cls_keep_answered``.
"""

import streamlit as st

from attnviz.classroom import RoomError
from attnviz.limits import JOIN_WINDOW_SECONDS, MAX_ROOM_STUDENTS
from attnviz.ui.pages.classroom_ended import health_panel
from attnviz.ui.pages.classroom_shared import KEY, NOTE, ROOM, room_store
from attnviz.ui.sidebar import is_present
from attnviz.ui.text import md_escape

WATCH_SECONDS = 5.0  # the panel's own poll: slower than the count's (POLL_SECONDS), so the two
# fragments never run in step
SIZE = "cls_class_size_"  # + the room's code
# L locks or unlocks the room (a key a presenter's remote can be set to send), unless typed
# into a box or sent with a modifier
LOCK_KEY_JS = """<script>
(() => {
  if (window.__attnvizLockKey) return;
  window.__attnvizLockKey = true;
  document.addEventListener("keydown", e => {
    if (e.key !== "l" && e.key !== "L") return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const t = e.target;
    if (t && t.closest && t.closest("input, textarea, select, [contenteditable=true]")) return;
    const button = document.querySelector(".st-key-cls_lock button");
    if (!button || button.disabled) return;
    e.preventDefault();
    button.click();
  });
})();
</script>"""


def _act(action, *args):
    """A button's callback: the store's ``action`` on the room with the lecturer's key; a
    refusal is kept in NOTE for the page to say."""
    state = st.session_state
    try:
        getattr(room_store(), action)(state[ROOM], state[KEY], *args)
    except RoomError as exc:
        state[NOTE] = str(exc)


def _set_size(widget):
    _act("set_class_size", int(st.session_state[widget]))


def counted(n, thing):
    """ "1 network", "3 networks"."""
    return f"{n} {thing}" if n == 1 else f"{n} {thing}s"


def room_size(code):
    """The panel and its keyboard shortcut, under the lecturer's controls."""
    st.html(LOCK_KEY_JS, unsafe_allow_javascript=True)
    room_watch(code)


@st.fragment(run_every=WATCH_SECONDS)
def room_watch(code):
    """Who is joining and the room's hold on it; then the health panel (present=off)."""
    note = st.session_state.pop(NOTE, None)  # a refusal of this panel's buttons
    if note:
        st.error(md_escape(note), icon="🚫")
    store, key = room_store(), st.session_state.get(KEY)
    try:
        room = store.room(code)
        arrivals = store.recent_joins(code, key)
        students = store.tally(code).students
        answered = len(store.answered(room))
    except RoomError:
        room = None  # the health panel says why
    if room is not None and not room.closed:
        with st.container(key="cls_joins"):
            joins_panel(room, arrivals, students, answered)
    if not is_present():
        health_panel(code)


def joins_panel(room, arrivals, students, answered):
    """The joins of the last JOIN_WINDOW_SECONDS, Lock, the class size, keep who answered."""
    size = f" (class size {room.class_size})" if room.class_size else ""
    st.markdown(
        f"**Joining:** {counted(arrivals.students, 'new student')} in the last "
        f"{JOIN_WINDOW_SECONDS} s, from {counted(arrivals.networks, 'network')}; "
        f"{students} in the room{size}."
    )
    if arrivals.burst:
        then = (
            "The room is locked: ask the next question, then keep only those who answered it."
            if room.locked
            else "If they are not your students, lock the room, ask the next question, then "
            "keep only those who answered it."
        )
        st.warning(
            f"{arrivals.most} of them came from one network, the most the room takes from one "
            f"network in {JOIN_WINDOW_SECONDS} s: more than a class brings at once, so its "
            f"further joins wait. {then}",
            icon="🚨",
        )
    label = "Unlock: let new students join" if room.locked else "Lock the room to new students"
    st.button(label, key="cls_lock", on_click=_act, args=("lock", not room.locked))
    if room.locked:
        st.caption("Locked: nobody new joins; a student already in the room comes back in (L).")
    else:
        st.caption("Anyone with the code joins (the L key locks the room).")
    widget = SIZE + room.code
    if widget not in st.session_state:
        st.session_state[widget] = room.class_size
    st.number_input(
        "Class size: the most students the room takes (0: no cap of yours)",
        min_value=0,
        max_value=MAX_ROOM_STUDENTS,
        step=1,
        key=widget,
        on_change=_set_size,
        args=(widget,),
    )
    if room.kind is None:
        return
    others = students - answered
    st.button(
        f"Keep only the {answered} who answered question {room.question_no}",
        key="cls_keep_answered",
        disabled=others <= 0,
        on_click=_act,
        args=("keep_answered",),
    )
    st.caption(
        f"The {others} others in the room leave it; they can join again unless it is locked."
    )
