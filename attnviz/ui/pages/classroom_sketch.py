"""The Classroom's "sketch the row" question: the lecturer asks for a row of A (a query token
and what is asked), each phone sketches it with taps and submits (which locks it), the
projector shows up to MAX_SNAPSHOTS anonymous sketches before the truth, then the reveal: the
class's mean per key with its spread, the true row over it, the sentence and the histogram of
distances; each phone then sees its own sketch over the true row and its distance.

Hooks: ``sketch_board`` (first), ``sketch_status``, ``sketch_picks`` (the lecturer-only picks)
and ``sketch_menu`` in the lecturer's view; ``sketch_step`` and ``show_sketches`` for a deck's
clicker (→: the snapshots, then the reveal);
``student_sketch`` in the student's. Session state: SNAPS, the lecturer's chosen sketches
(levels: small ints) for the room's question number. Widget keys ``cls_sk_query``,
``cls_sk_variant``, ``cls_sk_ask``, ``cls_sk_pick_<how>``, ``cls_sk_grid``, ``cls_sk_clear``,
``cls_sk_reveal``; the phone's sketch under ``cls_sk_<question number>``; chart keys
``cls_sk_snaps``, ``cls_sk_grid_chart``, ``cls_sk_mean``, ``cls_sk_dist``, ``cls_sk_mine``.
"""

import streamlit as st

from attnviz.charts.sketch import sketches_figure
from attnviz.classroom import RoomError
from attnviz.classroom.questions import room_settings
from attnviz.classroom.sketch import VARIANTS, class_summary, read_kind, sketch_kind
from attnviz.lessons import sketch
from attnviz.limits import MAX_SKETCH_GRID, MAX_SNAPSHOTS
from attnviz.serve.classroom import cached_sketch_question
from attnviz.serve.example import cached_example
from attnviz.ui.charts import draw
from attnviz.ui.pages.classroom_shared import (
    KEY,
    NO_MODEBAR,
    NOTE,
    POLL_SECONDS,
    ROOM,
    room_store,
    say,
    session_id,
)
from attnviz.ui.sidebar import is_present
from attnviz.ui.sketch import (
    class_result,
    clue_line,
    own_result,
    sketch_input,
    text_px,
)
from attnviz.ui.text import md_escape

SNAPS = "attnviz.classroom.snapshots"  # (code, question_no, (levels, ...)) of the lecturer
SNAP_NOTE = "attnviz.classroom.snapshot_note"  # a refused pick, said in the snapshot board
SHOWN = "attnviz.classroom.snapshots_shown"  # (code, question_no) whose snapshots → showed
SNAPSHOT_NAMES = "ABC"


def room_sketch(room):
    """The room's SketchQuestion, or None (no sketch asked, or not askable on its example)."""
    asked = read_kind(room.kind)
    if asked is None:
        return None
    try:
        q = cached_sketch_question(room_settings(room), *asked)
    except sketch.SketchError:
        return None
    return q if q.n == room.n_options else None


def _change(action, *args):
    """A lecturer's button: the store's ``action`` with the room's key; a refusal in NOTE."""
    state = st.session_state
    try:
        getattr(room_store(), action)(state[ROOM], state[KEY], *args)
    except RoomError as exc:
        state[NOTE] = str(exc)


def _ask(quiz_seed, n):
    """Ask the row chosen in the menu (read when pressed: the choices as they are then)."""
    state = st.session_state
    kind = sketch_kind(state.get("cls_sk_variant", "plain"), state.get("cls_sk_query", 0))
    _change("push_question", quiz_seed, kind, n)


def sketch_menu(room):
    """Ask the class to sketch a row of the room's example: the query token, what is asked."""
    labels = cached_example(room_settings(room)).labels
    if len(labels) < 2:
        return
    with st.expander("Sketch the row", expanded=False):
        st.selectbox(
            "Query token", range(len(labels)), format_func=lambda i: labels[i], key="cls_sk_query"
        )
        st.selectbox(
            "What is asked", list(VARIANTS), format_func=VARIANTS.get, key="cls_sk_variant"
        )
        st.button(
            "Ask the class to sketch this row",
            key="cls_sk_ask",
            on_click=_ask,
            args=(room.quiz_seed, len(labels)),
        )


@st.fragment(run_every=POLL_SECONDS)
def sketch_count(code):
    """How many phones have sketched (not what): redrawn every POLL_SECONDS."""
    try:
        done, students = len(room_store().sketches(code)), room_store().tally(code).students
    except RoomError as exc:
        say(exc)
        return
    st.metric("Sketched", f"{done} of {students}")


def question_heading(room, q):
    """The question, numbered, and what the student is given (the clue)."""
    st.markdown(f"**Question {room.question_no}.** {md_escape(q.text)}")
    st.markdown(clue_line(q))


def sketch_status(room):
    """The lecturer's column: the question, how many sketched, and Reveal."""
    q = room_sketch(room)
    if q is None:
        st.warning("This sketch cannot be asked on the room's example: ask another.", icon="🤷")
        return
    question_heading(room, q)
    if room.phase == "answering":
        sketch_count(room.code)
        st.button("Reveal", key="cls_sk_reveal", type="primary", on_click=_change, args=("reveal",))


def _snaps(room):
    """The lecturer's snapshots of this question (a tuple of levels)."""
    kept = st.session_state.get(SNAPS)
    if kept and kept[:2] == (room.code, room.question_no):
        return kept[2]
    return ()


def _keep(room, snaps):
    st.session_state[SNAPS] = (room.code, room.question_no, tuple(snaps)[:MAX_SNAPSHOTS])


def _pick(room, how):
    """Add the sketch that ``how`` picks ("closest", "farthest", "most common shape": read from
    the sketches in the store now) to the snapshots (a button's callback), at most
    MAX_SNAPSHOTS; a pick that is a sketch already shown is said, not added."""
    try:
        sketches = room_store().sketches(room.code)
    except RoomError as exc:
        st.session_state[SNAP_NOTE] = str(exc)
        return
    q = room_sketch(room)
    chosen = sketch.snapshots(sketch.class_rows(sketches, q.allowed), q.truth) if q else {}
    if how not in chosen:
        st.session_state[SNAP_NOTE] = "No phone has sketched yet: nothing to show."
        return
    levels, snaps = sketches[chosen[how]], _snaps(room)
    if levels in snaps:
        name = SNAPSHOT_NAMES[snaps.index(levels)]
        st.session_state[SNAP_NOTE] = (
            f"{how.capitalize()} is the same sketch as Sketch {name}, already shown: nothing added."
        )
        return
    if len(snaps) >= MAX_SNAPSHOTS:
        st.session_state[SNAP_NOTE] = (
            f"The projector shows at most {MAX_SNAPSHOTS} sketches: clear them to pick others."
        )
        return
    _keep(room, (*snaps, levels))


def sketch_step(room):
    """The clicker's next step on a sketch question before the reveal: ("show", label) while
    the snapshots are not shown yet, ("reveal", label) after; None when not a sketch being
    answered."""
    if room_sketch(room) is None or room.phase != "answering":
        return None
    if st.session_state.get(SHOWN) != (room.code, room.question_no):
        return "show", "Show sketches"
    return "reveal", "Reveal"


def show_sketches(room):
    """The clicker's → on a sketch question: first the snapshots (closest, farthest, most
    common shape, each once), then the reveal."""
    state = st.session_state
    if sketch_step(room) == ("reveal", "Reveal"):
        _change("reveal")
        return
    state[SHOWN] = (room.code, room.question_no)
    for how in sketch.SNAPSHOT_KINDS:
        _pick(room, how)
        state.pop(SNAP_NOTE, None)  # a repeat is said when the lecturer picks, not here


def _from_grid(room, shown):
    picked = st.session_state.get("cls_sk_grid") or []
    _keep(room, [shown[k - 1] for k in picked[:MAX_SNAPSHOTS]])


def sketch_board(room):
    """At the top of the lecturer's page (the projector's first screen): before the truth, the
    snapshots picked (``snapshot_board``, redrawn as they are picked); after it, the class's
    result."""
    q = room_sketch(room)
    if q is None:
        return
    if room.phase != "revealed":
        snapshot_board(room.code, room.question_no)
        return
    try:
        sketches = room_store().sketches(room.code)
    except RoomError as exc:
        say(exc)
        return
    class_result(q, class_summary(q, sketches), "cls_sk")


@st.fragment(run_every=POLL_SECONDS)
def snapshot_board(code, question_no):
    """The snapshots before the truth, redrawn every POLL_SECONDS as sketches come in (and at
    once when the lecturer picks one): the picking controls, then the chosen sketches side by
    side. Draws nothing once question ``question_no`` of room ``code`` is no longer asked."""
    try:
        room = room_store().room(code)
    except RoomError as exc:
        say(exc)
        return
    q = room_sketch(room)
    if q is None or room.question_no != question_no or room.phase != "answering":
        return
    snaps = _snaps(room)
    if not snaps:
        return
    rows = sketch.class_rows(snaps, q.allowed)
    names = [f"Sketch {SNAPSHOT_NAMES[k]}" for k in range(len(snaps))]
    fig = sketches_figure(
        q.labels,
        rows,
        names,
        columns=len(snaps),
        text_px=text_px(),
        allowed=list(q.allowed),
        title="Sketches from the class, before the truth",
    )
    words = "\n".join(
        f"{name}: " + ", ".join(f"{label} {w:.2f}" for label, w in zip(q.labels, row, strict=True))
        for name, row in zip(names, rows, strict=True)
    )
    draw(fig, "cls_sk_snaps", share=None, words=words, config=NO_MODEBAR, theme=None)


def sketch_picks(room):
    """The lecturer's picks of the snapshots, while the class sketches: in projector mode
    folded away under "For the lecturer only" (the class does not see which is which), in the
    lecturer's own tab as they are."""
    if room_sketch(room) is None or room.phase != "answering":
        return
    if is_present():
        with st.expander("For the lecturer only: the sketches to show (not for the projector)"):
            picks_panel(room.code, room.question_no)
    else:
        picks_panel(room.code, room.question_no)


@st.fragment(run_every=POLL_SECONDS)
def picks_panel(code, question_no):
    """The picks, redrawn every POLL_SECONDS as sketches come in (a pick shows on the
    projector's snapshot board at its next poll); nothing once question ``question_no`` of
    room ``code`` is no longer being sketched."""
    try:
        room = room_store().room(code)
    except RoomError as exc:
        say(exc)
        return
    q = room_sketch(room)
    if q is None or room.question_no != question_no or room.phase != "answering":
        return
    snapshot_controls(room, q)


def snapshot_controls(room, q):
    """Pick up to MAX_SNAPSHOTS anonymous sketches: closest, farthest, most common shape, or
    from a grid of small multiples; a refused or repeated pick said."""
    note = st.session_state.pop(SNAP_NOTE, None)
    if note:
        st.warning(note, icon="🖼️")
    try:
        sketches = room_store().sketches(room.code)
    except RoomError as exc:
        say(exc)
        return
    if not sketches:
        st.caption("No sketch yet: the snapshots can be picked once phones have sketched.")
        return
    st.markdown(
        f"**Show sketches before the truth** (anonymous, at most {MAX_SNAPSHOTS}): closest "
        "to the true row, farthest from it, or the most common shape (the sketch nearest the "
        "others). The projector names them Sketch A, B, C in the order picked, not how. A "
        "clicker's → shows all three, then reveals."
    )
    columns = st.columns(len(sketch.SNAPSHOT_KINDS) + 1)
    for column, how in zip(columns, sketch.SNAPSHOT_KINDS, strict=False):
        column.button(
            how.capitalize(),
            key=f"cls_sk_pick_{how.replace(' ', '_')}",
            on_click=_pick,
            args=(room, how),
            width="stretch",
        )
    columns[-1].button(
        "Clear", key="cls_sk_clear", on_click=_keep, args=(room, ()), width="stretch"
    )
    if is_present():  # already in the lecturer-only panel: no grid of every sketch there
        st.caption("The grid of every sketch is in a tab of this page without projector mode.")
        return
    with st.expander(f"Pick from the sketches (the first {MAX_SKETCH_GRID})"):
        shown = sketches[:MAX_SKETCH_GRID]
        names = [f"#{k}" for k in range(1, len(shown) + 1)]
        fig = sketches_figure(
            q.labels, sketch.class_rows(shown, q.allowed), names, columns=4, text_px=text_px()
        )
        draw(fig, "cls_sk_grid_chart", share=None, config=NO_MODEBAR, theme=None)
        st.multiselect(
            "Show these",
            range(1, len(shown) + 1),
            format_func=lambda k: f"#{k}",
            max_selections=MAX_SNAPSHOTS,
            key="cls_sk_grid",
            on_change=_from_grid,
            args=(room, shown),
        )


def _submit(code, levels):
    try:
        room_store().answer_sketch(code, session_id(), levels)
    except RoomError as exc:
        st.session_state[NOTE] = str(exc)


def student_sketch(room):
    """A phone: sketch and submit (locked once in the store), then after the reveal its own
    sketch over the true row, its distance and the class's sentence."""
    q = room_sketch(room)
    if q is None:
        st.info("The lecturer's question cannot be shown on this example.", icon="🤷")
        return
    question_heading(room, q)
    store = room_store()
    try:
        mine = store.my_sketch(room.code, session_id())
    except RoomError as exc:
        say(exc)
        mine = None
    if room.phase == "answering":
        sketch_input(
            q,
            f"cls_sk_{room.question_no}",
            locked=mine,
            submit=lambda levels: _submit(room.code, levels),
        )
        if mine is not None:
            st.success("Sketch sent. It is locked: the lecturer reveals the true row.", icon="✅")
        return
    if mine is None:
        st.info("You did not sketch this row.", icon="🙈")
    else:
        own_result(q, mine, "cls_sk_mine")
    try:
        sketches = store.sketches(room.code)
    except RoomError as exc:
        say(exc)
        return
    st.markdown(md_escape(sketch.sentence(class_summary(q, sketches))))
