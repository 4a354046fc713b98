"""The Classroom's "sketch the row" question: the lecturer asks for a row of A (a query token
and what is asked), each phone sketches it with taps and submits (which locks it), the
projector shows up to MAX_SNAPSHOTS anonymous sketches before the truth, then the reveal: the
class's mean per key with its spread, the true row over it, the sentence and the histogram of
distances; each phone then sees its own sketch over the true row and its distance.

Hooks: ``sketch_board`` (first: the projector's top), ``sketch_status``, ``sketch_picks`` (the
lecturer-only picks) and ``sketch_menu`` in the lecturer's view; ``sketch_step`` and
``show_sketches`` for a deck's clicker (→: the snapshots, then the reveal); ``sketch_section``
in the student's. Session state: SNAPS, the lecturer's chosen sketches
(levels: small ints) for the room's question number. Widget keys ``cls_sk_query``,
``cls_sk_variant``, ``cls_sk_ask``, ``cls_sk_pick_<how>``, ``cls_sk_grid``, ``cls_sk_clear``,
``cls_sk_reveal``; the phone's sketch under ``cls_sk_<question number>``; chart keys
``cls_sk_snaps``, ``cls_sk_grid_chart``, ``cls_sk_mean``, ``cls_sk_dist``, ``cls_sk_mine``.
"""

import streamlit as st

from attnviz.charts.sketch import sketches_figure
from attnviz.classroom import RoomError
from attnviz.classroom.sections import SketchAsked, SketchInput, SketchMine
from attnviz.classroom.sketch import VARIANTS, class_summary, sketch_kind
from attnviz.lessons import sketch
from attnviz.limits import MAX_SKETCH_GRID, MAX_SNAPSHOTS
from attnviz.serve.classroom import room_settings, room_sketch
from attnviz.serve.example import cached_example
from attnviz.ui.charts import draw
from attnviz.ui.pages.classroom_rounds import step_buttons
from attnviz.ui.pages.classroom_shared import (
    NO_MODEBAR,
    NOTE,
    POLL_SECONDS,
    as_lecturer,
    room_store,
    say,
    session_id,
    tell,
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


def _ask(quiz_seed, n):
    """Ask the row chosen in the menu (read when pressed: the choices as they are then)."""
    state = st.session_state
    kind = sketch_kind(state.get("cls_sk_variant", "plain"), state.get("cls_sk_query", 0))
    as_lecturer(lambda store, code, key: store.push_question(code, key, quiz_seed, kind, n))


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


def question_heading(asked, q):
    """The question (classroom.sections.SketchAsked), numbered, and what the student is given
    (the clue)."""
    st.markdown(f"**Question {asked.number}.** {md_escape(asked.text)}")
    st.markdown(clue_line(q))


def sketch_status(room, q, board):
    """The lecturer's column (``board``: classroom.screens.sketch_projector's): the question,
    how many sketched, and Reveal."""
    if board.problem is not None:
        tell(board.problem)
        return
    question_heading(board.asked, q)
    if board.count is not None:
        sketch_count(room.code)
    step_buttons(board.steps)


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
    """The clicker's next step on a sketch question being answered: ("show", label) while the
    snapshots are not shown yet, ("reveal", label) after; None otherwise."""
    if room_sketch(room) is None or room.phase != "answering":
        return None
    if st.session_state.get(SHOWN) != (room.code, room.question_no):
        return "show", "Show sketches"
    return "reveal", "Reveal"


def show_sketches(room):
    """The clicker's → on a sketch question: first the snapshots (closest, farthest, most
    common shape, each sketch once), then the reveal."""
    state = st.session_state
    if sketch_step(room) == ("reveal", "Reveal"):
        as_lecturer(lambda store, code, key: store.reveal(code, key))
        return
    state[SHOWN] = (room.code, room.question_no)
    for how in sketch.SNAPSHOT_KINDS:
        _pick(room, how)
        state.pop(SNAP_NOTE, None)  # a repeat is said when the lecturer picks, not here


def _from_grid(room, shown):
    picked = st.session_state.get("cls_sk_grid") or []
    _keep(room, [shown[k - 1] for k in picked[:MAX_SNAPSHOTS]])


def sketch_board(room, q, board):
    """At the top of the lecturer's page (the projector's first screen): before the truth, the
    snapshots picked (``snapshot_board``, redrawn as they are picked); after it, the class's
    result (``board``: classroom.screens.sketch_projector's)."""
    if not board.board:
        return
    if board.board == "snapshots":
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
    """The snapshots before the truth, redrawn every POLL_SECONDS (a pick in the lecturer's
    panel shows at the next): the chosen sketches side by side. Draws nothing once question
    ``question_no`` of room ``code`` is no longer asked."""
    room, q = _being_sketched(code, question_no)
    if q is None:
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
    room, q = _being_sketched(code, question_no)
    if q is not None:
        snapshot_controls(room, q)


def _being_sketched(code, question_no):
    """(the Room ``code``, its SketchQuestion) while question ``question_no`` is being
    sketched; (None, None) otherwise (a store that cannot answer is said)."""
    try:
        room = room_store().room(code)
    except RoomError as exc:
        say(exc)
        return None, None
    q = room_sketch(room)
    if q is None or room.question_no != question_no or room.phase != "answering":
        return None, None
    return room, q


def snapshot_controls(room, q):
    """Pick up to MAX_SNAPSHOTS anonymous sketches: closest, farthest, most common shape, or
    from a grid of small multiples (in a tab without projector mode); a refused or repeated
    pick said."""
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


def sketch_section(room, q, section):
    """Draw one of a phone's sketch sections (classroom.sections) for the SketchQuestion ``q``."""
    if isinstance(section, SketchAsked):
        question_heading(section, q)
    elif isinstance(section, SketchInput):
        key, code = f"cls_sk_{room.question_no}", room.code
        sketch_input(q, key, locked=section.locked, submit=lambda levels: _submit(code, levels))
    elif isinstance(section, SketchMine):
        own_result(q, section.levels, "cls_sk_mine")
