"""Peer instruction on the Classroom page (attnviz.classroom.rounds): the lecturer's steps (end
round 1, discuss with a countdown, round 2, reveal, twin), what the phones show in each, the
reveal of both rounds with who moved where, confidence, "Look at the projector" and "I'm lost".

What each shows in each phase is decided in classroom.screens; this module draws it. The
classroom_lecturer and classroom_student views call in here for everything about rounds.
Widget keys: ``cls_rounds`` (one vote or two), ``cls_step`` (the next step), ``cls_reveal``
(reveal now), ``cls_discuss_min``, ``cls_twin``, ``cls_blank``, ``cls_conf_<level>``,
``cls_lost``; chart keys ``{key}_rounds``, ``{key}_moves``, ``{key}_shares``, ``{key}_conf``.
"""

from dataclasses import replace

import streamlit as st

from attnviz.charts.style import PRESENT_TEXT_PX, TEXT_PX
from attnviz.classroom import RoomError
from attnviz.classroom.peer import MODES
from attnviz.classroom.questions import question_of
from attnviz.classroom.report import report_csv, report_pdf
from attnviz.classroom.rounds import twin_of
from attnviz.classroom.screens import lost_line, lost_said
from attnviz.classroom.sections import (
    AnswerBars,
    Count,
    Discussion,
    MovesChart,
    RoundsBars,
    SharesChart,
)
from attnviz.limits import LOST_WINDOW_SECONDS
from attnviz.serve.classroom import cached_room_questions, finished_room_chart, room_settings
from attnviz.serve.room_charts import (
    confidence_figure,
    moves_figure,
    rounds_figure,
    shares_figure,
)
from attnviz.ui.charts import display, draw
from attnviz.ui.pages.classroom_shared import (
    KEY,
    NO_MODEBAR,
    NOTE,
    as_lecturer,
    distribution,
    room_store,
    session_id,
    strong,
    tell,
)
from attnviz.ui.sidebar import is_present
from attnviz.ui.text import md_escape

LOST_NOTE = "attnviz.classroom.lost_note"  # the acknowledgement of "I'm lost", once
ROUNDS_KEY = "cls_rounds"
DISCUSS_KEY = "cls_discuss_min"


# -- the lecturer ------------------------------------------------------------------------------
def rounds_choice(default=1):
    """One vote or vote, discuss, revote, for the next question asked (1 or 2)."""
    if ROUNDS_KEY not in st.session_state:
        st.session_state[ROUNDS_KEY] = default
    return st.radio(
        "The next question",
        list(MODES),
        format_func=MODES.get,
        horizontal=True,
        key=ROUNDS_KEY,
    )


def twin_args(room):
    """store.twin's arguments: the question set of the twin of the room's question, its
    option count, its right option and its example's weights' seed (rounds.twin_of: fresh
    numbers on the room's sentence); RoomError when no fresh example asks this kind."""
    settings = room_settings(room)

    def question_in(example_seed, quiz_seed):
        fresh = replace(settings, seed=example_seed)
        return question_of(cached_room_questions(fresh, quiz_seed), room.kind)

    found = twin_of(settings.seed, room.quiz_seed, question_in)
    if found is None:
        raise RoomError("No twin question of this kind could be made on this sentence.")
    example_seed, seed, question = found
    return seed, len(question.options), question.answer_index, example_seed


def step_args(room, name):
    """The arguments of the step ``name`` from where the room is (session choices)."""
    if name == "discuss":
        return (int(st.session_state.get(DISCUSS_KEY, 0)) * 60,)
    if name == "twin":
        return twin_args(room)
    return ()


def take_step(name):
    """A lecturer's button callback: the room's step ``name``; a refusal goes to NOTE."""
    as_lecturer(
        lambda store, code, key: store.step(code, key, name, *step_args(store.room(code), name))
    )


def set_blank(on):
    as_lecturer(lambda store, code, key: store.blank(code, key, on))


def step_buttons(buttons):
    """The lecturer's buttons (classroom.sections.Button) that take the question's steps."""
    for b in buttons:
        kind = "primary" if b.primary else "secondary"
        st.button(b.label, key=b.key, type=kind, on_click=take_step, args=(b.action,))


def lecturer_round(screen, answer_count, code):
    """The lecturer's view of the room's question in its round (``screen``: screens.projector's;
    ``answer_count``: the fragment that shows how many answered). Drawn under the question."""
    said = isinstance(screen.status, Discussion) and screen.status.title == screen.title
    if screen.title and not said:  # the discussion's banner says its title once (review 5)
        st.markdown(f"**{screen.title}**")
    if isinstance(screen.status, Count):
        answer_count(code)
    elif isinstance(screen.status, Discussion):
        discussion_banner(screen.status)
    elif screen.status is not None:
        tell(screen.status)
    if screen.countdown:
        st.radio(
            "Discussion countdown (no sound)",
            list(screen.countdown),
            format_func=lambda m: "none" if m == 0 else f"{m} min",
            horizontal=True,
            key=DISCUSS_KEY,
        )
    step_buttons(screen.steps)


def look_and_lost(room, blank):
    """The lecturer's "Look at the projector" switch (``blank``, a Button whose value is what
    it sets) and the "I'm lost" count of the last two minutes (folded away on the projector:
    the class does not see it)."""
    st.button(blank.label, key=blank.key, on_click=set_blank, args=(bool(blank.value),))
    if not is_present():
        lost_panel(room.code)
        report_downloads(room)
        return
    with st.expander("For the lecturer only (not for the projector)"):
        lost_panel(room.code)
        st.markdown(
            "The room's report (CSV and PDF) downloads from this page opened in another tab of "
            "this browser without projector mode (the projector shows no downloads; the lecturer "
            "link would move the controls to the browser that opens it)."
        )


def report_downloads(room):
    """The lecturer's report of the room, made when a button is pressed: CSV (one row per
    question and round) and a one-page PDF summary (classroom.report). No student id."""
    code, key = room.code, st.session_state.get(KEY)

    def records():
        return room_store().report(code, key)

    def csv_text():
        return report_csv(*records())

    def pdf_bytes():
        return report_pdf(*records(), f"Classroom report, room {code}")

    st.caption("The room's report: every question's answers per round, no names or ids.")
    left, right = st.columns(2)
    left.download_button(
        "Report (CSV)",
        csv_text,
        file_name=f"classroom-{code}.csv",
        mime="text/csv",
        key="cls_report_csv",
        on_click="ignore",
    )
    right.download_button(
        "Summary (PDF)",
        pdf_bytes,
        file_name=f"classroom-{code}.pdf",
        mime="application/pdf",
        key="cls_report_pdf",
        on_click="ignore",
    )


@st.fragment(run_every=5)
def lost_panel(code):
    """How many students tapped "I'm lost" in the last two minutes, redrawn every 5 s."""
    try:
        count = room_store().lost_count(code, st.session_state.get(KEY))
    except RoomError:
        return
    st.markdown(strong(lost_line(count, LOST_WINDOW_SECONDS // 60)))


# -- what the phones show ----------------------------------------------------------------------
def discussion_banner(discussion):
    """Discuss with your neighbour (classroom.sections.Discussion), and the soft countdown as a
    shrinking bar (CSS, no sound, nothing reruns for it)."""
    st.markdown(f"### 🗣️ {discussion.title}")
    if discussion.left is None:
        st.caption(discussion.sentence)
        return
    st.markdown(discussion.sentence)
    total = discussion.seconds
    elapsed = max(0, total - discussion.left)
    st.html(
        "<div style='height:14px;background:#eee;border-radius:7px;overflow:hidden'>"
        f"<div style='height:100%;background:#4d4d4d;width:100%;transform-origin:left;"
        f"animation:attnviz-countdown {total}s linear -{elapsed}s forwards'></div></div>"
        "<style>@keyframes attnviz-countdown{from{transform:scaleX(1)}to{transform:scaleX(0)}}"
        "</style>"
    )


def _confide(code, level):
    try:
        room_store().confide(code, session_id(), level)
    except RoomError as exc:
        st.session_state[NOTE] = str(exc)


def confidence_taps(code, sure):
    """After an answer, an optional tap (classroom.sections.Sure): guessing, fairly sure, sure."""
    st.caption("How sure are you? (optional)")
    columns = st.container(key="cls_conf").columns(len(sure.levels))  # one row (TOUCH_CSS)
    for level, (column, name) in enumerate(zip(columns, sure.levels, strict=True)):
        column.button(
            name,
            key=f"cls_conf_{level}",
            type="primary" if level == sure.chosen else "secondary",
            on_click=_confide,
            args=(code, level),
            width="stretch",
        )


def _lost(code):
    try:
        counted = room_store().im_lost(code, session_id())
    except RoomError as exc:
        st.session_state[NOTE] = str(exc)
        return
    st.session_state[LOST_NOTE] = lost_said(counted)


def im_lost_button(code, button):
    """A student's "I'm lost", at any time; the lecturer sees how many (classroom lecturer)."""
    st.button(button.label, key=button.key, on_click=_lost, args=(code,), width="stretch")
    note = st.session_state.pop(LOST_NOTE, None)
    if note:
        st.caption(note)


# -- the reveal --------------------------------------------------------------------------------
def draw_room_chart(make, args, key, share):
    draw(finished_room_chart(make, tuple(args), share, *display()), key, config=NO_MODEBAR)


def reveal_rounds(room, question, reveal, key, height=300):
    """The class's answers at a reveal (classroom.sections.Reveal): the sentences first, then
    the charts in one row (a phone stacks them), so the projector shows it all on one screen;
    one vote's bars alone across the page. ``question``: the round's (the twin's at its
    reveal); ``key`` prefixes chart keys."""
    text_px = PRESENT_TEXT_PX if is_present() else TEXT_PX
    if reveal.moves:
        st.markdown(md_escape(reveal.moves))
    if reveal.shares:
        st.markdown(reveal.shares)
    if reveal.sure_wrong:
        st.markdown(strong(reveal.sure_wrong))
    if reveal.wide:  # one vote as before: the class's bars, full width
        (bars,) = reveal.charts
        distribution(room, question, bars.counts, f"{key}_{bars.key}", height=height)
        return
    share = 1 / len(reveal.charts)
    for column, chart in zip(st.columns(len(reveal.charts)), reveal.charts, strict=True):
        with column:
            if isinstance(chart, AnswerBars):
                distribution(room, question, chart.counts, f"{key}_{chart.key}", height=height)
            else:
                make, args = room_chart(room, chart, text_px)
                draw_room_chart(make, args, f"{key}_{chart.key}", share)


def room_chart(room, chart, text_px):
    """(the function that makes ``chart``'s figure and words, its small arguments)."""
    if isinstance(chart, RoundsBars):
        counts = (chart.counts1, chart.counts2, chart.right)
        return rounds_figure, (room_settings(room), room.quiz_seed, room.kind, *counts, text_px)
    if isinstance(chart, MovesChart):
        return moves_figure, (chart.n_options, chart.moves, chart.right, text_px)
    if isinstance(chart, SharesChart):
        return shares_figure, (chart.labels, chart.shares, text_px)
    return confidence_figure, (chart.table, chart.round_name, text_px)
