"""The lecturer's Classroom page (made for the projector, and for present=on): the room's code,
a QR code of the join link, the lecturer's link; push the sidebar's example, ask a question on
it, watch how many have answered (not what), Reveal, Next question, Close the room.

Every change goes through the store with the session's lecturer key. Widget keys: ``cls_open``
(Open a room, on the landing page), ``cls_passphrase`` (beside it, when the server asks one),
``cls_push``, ``cls_question``, ``cls_ask``, ``cls_reveal``, ``cls_next``, ``cls_other``,
``cls_close``, ``cls_leave`` (classroom_seat.py), ``cls_forget``; chart keys ``cls_lect_dist``,
``cls_lect_proof_<m>``.
"""

import io
import time

import segno
import streamlit as st

from attnviz.classroom import RoomError, RoomNotFoundError
from attnviz.classroom.questions import pushable_problem
from attnviz.classroom.screens import projector
from attnviz.classroom.sketch import is_sketch
from attnviz.limits import CACHE_QR_CODES, ROOM_IDLE_EMPTY_SECONDS, ROOM_IDLE_SECONDS
from attnviz.links.classroom import join_query, lecturer_query
from attnviz.links.loopback import loopback_warning
from attnviz.links.shared import settings_query
from attnviz.serve.classroom import (
    cached_room_questions,
    room_question,
    room_settings,
    room_sketch,
    room_summary,
)
from attnviz.serve.phone import light_page_served
from attnviz.serve.store import kept, object_bytes
from attnviz.ui.address import PUBLIC_URL_VARIABLE, app_address
from attnviz.ui.pages.classroom_ended import lecturer_ended
from attnviz.ui.pages.classroom_rounds import (
    ROUNDS_KEY,
    lecturer_round,
    look_and_lost,
    reveal_rounds,
    rounds_choice,
)
from attnviz.ui.pages.classroom_seat import hand_back, hand_over, hold_by_browser, leave_button
from attnviz.ui.pages.classroom_shared import (
    KEY,
    NOTE,
    POLL_SECONDS,
    ROOM,
    as_lecturer,
    drawn,
    option_text,
    proof,
    question_text,
    room_store,
    say,
    session_id,
    tell,
)
from attnviz.ui.pages.classroom_size import room_size
from attnviz.ui.pages.classroom_sketch import (
    sketch_board,
    sketch_menu,
    sketch_picks,
    sketch_status,
)
from attnviz.ui.sidebar import is_present
from attnviz.ui.text import md_escape
from attnviz.ui.visitor import client_address

PAGE_PATH = "Classroom"
QR_SCALE = 12  # pixels per module: a join link is a 29-33 module code, about 400 px wide
QR_WIDTH_PX = (240, 320)  # drawn width, normal and projector mode: 320 px of a 1280-px
# projector is a quarter of the screen's width, about 75 cm on a 3-m screen


def page_link(query):
    """The Classroom page's address with ``query``."""
    params = "&".join(f"{k}={v}" for k, v in query.items())  # codes and keys are URL-safe
    return f"{app_address(PAGE_PATH)}/{PAGE_PATH}?{params}"


@kept(*CACHE_QR_CODES, size=object_bytes)
def qr_png(text):
    """A QR code of ``text`` as PNG bytes (segno; error correction M, a 4-module quiet zone)."""
    buffer = io.BytesIO()
    segno.make(text, error="m").save(buffer, kind="png", scale=QR_SCALE, border=4)
    return buffer.getvalue()


def staff_passphrase_box():
    """The staff passphrase's box, when the server asks one (ATTNVIZ_STAFF_PASSPHRASE): what
    was typed; else None."""
    try:
        asked = bool(room_store().staff_passphrase)
    except RoomError:
        return None  # the store is away: "Open a room" says so
    if not asked:
        return None
    return st.text_input(
        "Staff passphrase (this server asks it to open a room)",
        type="password",
        max_chars=200,
        key="cls_passphrase",
    )


def open_room(settings, deck=None, passphrase=None):
    """Open a room showing ``settings``' example; this browser becomes its lecturer. On a
    deck's slide (``deck``: its link's deck), the deck may push its slides to the room: the
    lecturer opened it there. ``passphrase``: what the staff passphrase's box holds."""
    problem = pushable_problem(settings)
    if problem:
        st.error(md_escape(problem), icon="📏")
        return
    try:
        store = room_store()
        address, hold = client_address(), hold_by_browser()
        query = settings_query(settings)
        room, key = store.open(query, session_id(), address, passphrase, hold=hold)
        if deck is not None:
            store.trust_deck(room.code, key, deck)
    except RoomError as exc:
        say(exc)
        return
    st.session_state[ROOM], st.session_state[KEY] = room.code, key
    st.rerun()


def _close():
    as_lecturer(lambda store, code, key: store.close(code, key))


def _push_example(query):
    as_lecturer(lambda store, code, key: store.push_example(code, key, query))


def _ask(quiz_seed, kind, n_options, right):
    """Ask question ``kind`` of set ``quiz_seed`` (its option count, its right option for the
    report) with the lecturer's choice of rounds as it is when pressed."""
    rounds = st.session_state.get(ROUNDS_KEY, 1)
    as_lecturer(
        lambda store, code, key: store.push_question(
            code, key, quiz_seed, kind, n_options, rounds, right
        )
    )


def ask_args(question, quiz_seed):
    """``_ask``'s arguments for ``question`` of set ``quiz_seed``."""
    return quiz_seed, question.kind, len(question.options), question.answer_index


def _forget():
    for name in (ROOM, KEY):
        st.session_state.pop(name, None)


def join_link(code):
    """The students' link to room ``code``: the light phone page where this server serves it
    (the App's routes, attnviz/web/phone), else this page."""
    if light_page_served():
        return f"{app_address(PAGE_PATH)}/api/phone?room={code}"  # a code is URL-safe
    return page_link(join_query(code))


def phone_view_note():
    """Which phone view the join link opens, in a sentence."""
    if light_page_served():
        return (
            "Phones open the room's light page (plain HTML and a few requests each, for a "
            "lecture hall); the QR code and the link point there."
        )
    return (
        "Phones open this Classroom page (this server runs without the app's own routes, so "
        "there is no light page); each phone is a Streamlit session."
    )


def join_panel(room):
    """The code, big, and the QR code of the join link, for the back row."""
    join = join_link(room.code)
    st.markdown("### Room code")
    st.container(key="cls_code").markdown(f"# {room.code}")  # 6 letters and digits: no markup
    st.image(qr_png(join), width=QR_WIDTH_PX[is_present()])
    st.markdown("Scan the code, or open this link:")
    # a code block is plain text: the link copies and opens as it is (Markdown would need
    # md_escape, whose invisible word joiners after ":" break a copied link)
    st.container(key="cls_join_link").code(join, language=None, wrap_lines=True)
    st.caption(phone_view_note())
    st.caption(
        f"A room ends when idle: {ROOM_IDLE_EMPTY_SECONDS // 60} minutes after it opened or your "
        f"last change while nobody has joined, {ROOM_IDLE_SECONDS // 60} minutes without a "
        "join, an answer or a change once someone has."
    )
    warning = loopback_warning(join, PUBLIC_URL_VARIABLE)  # no phone can open localhost
    if warning:
        st.warning(md_escape(warning), icon="📵")


def lecturer_link(room):
    """The lecturer's link, folded away (it holds the key), and what a reload does."""
    st.caption(
        "This browser keeps the room's controls: a reload, a deck's next slide or another tab "
        "brings them back. The address bar never shows the key, so the projector does not."
    )
    with st.expander("Lecturer link (keep it off the projector)"):
        st.caption(
            "It moves this room's controls to another browser, once: opening it there gives the "
            "room a new key, so this link then opens nothing and this browser loses the "
            "controls (the new link is on that browser's page)."
        )
        st.code(page_link(lecturer_query(room.code, st.session_state[KEY])), language=None)


@st.fragment(run_every=POLL_SECONDS)
def answer_count(code):
    """How many students have joined and answered (not what): redrawn every POLL_SECONDS."""
    try:
        tally = room_store().tally(code)
    except RoomError as exc:
        say(exc)
        return
    st.metric("Answered", f"{tally.answered} of {tally.students}")


def lecturer_view(settings):
    """The lecturer's page for the room in session state (what it shows of the room's question
    decided by classroom.screens.projector); ``settings``: the sidebar's."""
    state, store = st.session_state, room_store()
    try:
        room = store.room(state[ROOM])
    except RoomNotFoundError:
        lecturer_ended(state[ROOM], state[KEY], settings)  # in words; reopen in one click
        return
    except RoomError as exc:
        say(exc)
        st.button("Open another room", key="cls_forget", on_click=_forget)
        return
    drawn(room.version)
    note = state.pop(NOTE, None)
    if note:
        st.error(md_escape(note), icon="🚫")
    if room.closed:
        hand_back(room.code)  # the lecturer's cookie ends with the room
        lecturer_ended(room.code, state[KEY], settings)
        return
    hand_over(room.code, state[KEY])  # the lecturer's own cookie, where the App serves it
    question = room_question(room)
    sketch = room_sketch(room) if is_sketch(room.kind) else None
    summary = revealed_summary(room, question)
    screen = projector(room, question, summary, time.time(), sketch)
    if screen.reveal is not None:  # first: one projector screen
        reveal_rounds(room, question, screen.reveal, key="cls_lect")  # every round
    board = screen.sketch
    if board is not None:  # first too: the snapshots, then the class's result
        sketch_board(room, sketch, board)
    left, right = st.columns([2, 3])
    with left:
        join_panel(room)
    with right:
        if board is not None:
            sketch_status(room, sketch, board)
        elif screen.prompt is not None:
            tell(screen.prompt)
        else:
            question_text(screen.asked)
            options = screen.options
            st.markdown("  \n".join(option_text(k, o) for k, o in enumerate(options.options)))
        if question is not None:
            lecturer_round(screen, answer_count, room.code)  # rounds.py: a question's steps
        rounds_choice()
        next_button(room, question, screen.next_primary)
        question_menu(room, question, screen.choose_open)
        sketch_menu(room)
        sketch_picks(room)
        look_and_lost(room, screen.blank)
    if screen.proof:
        proof(room, question, key="cls_lect_proof")
    room_size(room.code)  # who is joining, Lock; the health panel: their own slow poll
    st.divider()
    example_controls(room, settings)
    lecturer_link(room)
    left, right = st.columns(2)
    with left:
        st.button("Close the room", key="cls_close", on_click=_close)
    with right:
        leave_button(room)


def revealed_summary(room, question):
    """The question's numbers at its reveal (serve.classroom.room_summary), else None; the
    store's refusal is said."""
    if question is None or room.phase != "revealed":
        return None
    try:
        return room_summary(room.code, room.version)
    except RoomError as exc:
        say(exc)
        return None


def example_controls(room, settings):
    """Push the sidebar's example to the phones, and whether they show it now."""
    shown = room_settings(room)
    if shown == settings:
        st.caption("The phones show the sidebar's example.")
    else:
        st.caption("The sidebar's example differs from the phones': push it to show it there.")
    problem = pushable_problem(settings)
    if problem:
        st.caption(md_escape(problem))
    st.button(
        "Push the sidebar's example to the phones",
        key="cls_push",
        disabled=problem is not None or shown == settings,
        on_click=_push_example,
        args=(settings_query(settings),),
    )


def next_button(room, current, primary):
    """Next question: the room's next kind of question on its example (after the last, the
    first again); ``primary`` at a reveal."""
    questions = cached_room_questions(room_settings(room), room.quiz_seed)
    kinds = [q.kind for q in questions]
    if current is None or current.kind not in kinds:
        return
    following = questions[(kinds.index(current.kind) + 1) % len(kinds)]
    st.button(
        "Next question",
        key="cls_next",
        type="primary" if primary else "secondary",
        on_click=_ask,
        args=ask_args(following, room.quiz_seed),
    )


def question_menu(room, current, choose_open):
    """Choose any question computed on the room's example and ask it, or the next set's
    (``choose_open``: no question asked yet, the menu open and Ask the thing to do)."""
    questions = cached_room_questions(room_settings(room), room.quiz_seed)
    if not questions:
        st.warning("This example asks no question: push another example.", icon="🤷")
        return
    with st.expander("Choose a question", expanded=choose_open):
        k = st.selectbox(
            "Question",
            range(len(questions)),
            format_func=lambda k: questions[k].text,  # a select box shows text as typed
            key="cls_question",
        )
        st.button(
            "Ask this question",
            key="cls_ask",
            type="primary" if choose_open else "secondary",
            on_click=_ask,
            args=ask_args(questions[k], room.quiz_seed),
        )
        others = cached_room_questions(room_settings(room), room.quiz_seed + 1)
        if others:
            first = others[0]
            st.button(
                "Other questions (the next set)",
                key="cls_other",
                on_click=_ask,
                args=ask_args(first, room.quiz_seed + 1),
            )
