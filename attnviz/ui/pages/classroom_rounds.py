"""Peer instruction on the Classroom page (attnviz.classroom.rounds): the lecturer's steps (end
round 1, discuss with a countdown, round 2, reveal, twin), what the phones show in each, the
reveal of both rounds with who moved where, confidence, "Look at the projector" and "I'm lost".

The classroom_lecturer and classroom_student views call in here for everything about rounds.
Widget keys: ``cls_rounds`` (one vote or two), ``cls_step`` (the next step), ``cls_reveal``
(reveal now), ``cls_discuss_min``, ``cls_twin``, ``cls_blank``, ``cls_conf_<level>``,
``cls_lost``; chart keys ``{key}_rounds``, ``{key}_moves``, ``{key}_shares``, ``{key}_conf``.
"""

import time
from dataclasses import replace

import streamlit as st

from attnviz.charts.style import PRESENT_TEXT_PX, TEXT_PX
from attnviz.charts.transitions import (
    confidence_bars,
    rounds_bars,
    shares_bars,
    transition_chart,
    transition_words,
)
from attnviz.classroom import RoomError
from attnviz.classroom.peer import MODES, TWIN
from attnviz.classroom.questions import letter, question_of, room_settings
from attnviz.classroom.report import report_csv, report_pdf
from attnviz.classroom.rounds import (
    CONFIDENCE,
    ROUND_NAMES,
    countdown_left,
    moves_sentence,
    next_step,
    percent,
    sure_but_wrong,
    twin_of,
)
from attnviz.limits import DISCUSS_CHOICES_SECONDS, LOST_WINDOW_SECONDS
from attnviz.serve.classroom import cached_room_questions, finished_room_chart, room_summary
from attnviz.ui.charts import display, draw
from attnviz.ui.pages.classroom_shared import (
    KEY,
    NO_MODEBAR,
    NOTE,
    ROOM,
    distribution,
    room_store,
    session_id,
    with_words,
)
from attnviz.ui.sidebar import is_present
from attnviz.ui.text import md_escape

LOST_NOTE = "attnviz.classroom.lost_note"  # the acknowledgement of "I'm lost", once
ROUNDS_KEY = "cls_rounds"
DISCUSS_KEY = "cls_discuss_min"
LOOK_UP = "Look at the projector"
DISCUSS = "Discuss with your neighbour"


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


def ask_args(room, question, seed=None):
    """push_question's arguments for ``question`` (of set ``seed``, the room's by default),
    with the lecturer's choice of rounds and the right option (for the report)."""
    rounds = st.session_state.get(ROUNDS_KEY, 1)
    seed = room.quiz_seed if seed is None else seed
    n, right = len(question.options), question.answer_index
    return ("push_question", seed, question.kind, n, rounds, right)


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
    state, store = st.session_state, room_store()
    try:
        room = store.room(state[ROOM])
        store.step(room.code, state[KEY], name, *step_args(room, name))
    except RoomError as exc:
        state[NOTE] = str(exc)


def set_blank(on):
    state = st.session_state
    try:
        room_store().blank(state[ROOM], state[KEY], on)
    except RoomError as exc:
        state[NOTE] = str(exc)


def step_button(room, name, label, key=None, primary=True):
    key = key or {"reveal": "cls_reveal", "twin": "cls_twin"}.get(name, "cls_step")
    st.button(
        label,
        key=key,
        type="primary" if primary else "secondary",
        on_click=take_step,
        args=(name,),
    )


def lecturer_round(room, question, answer_count):
    """The lecturer's controls and view of the room's question in its round (``answer_count``:
    the fragment that shows how many answered). Drawn under the question's text."""
    peer, phase = room.peer, room.phase
    step = next_step(room)
    if peer.rounds == 2 or peer.round_no == TWIN:
        st.markdown(f"**{round_title(room)}**")
    if phase == "answering":
        answer_count(room.code)
    elif phase == "locked":
        st.info(f"{ROUND_NAMES[peer.round_no].capitalize()} has ended: its answers are locked.")
    elif phase == "discussing":
        discussion_banner(room)
    if step is not None and step[0] == "discuss":
        st.radio(
            "Discussion countdown (no sound)",
            [s // 60 for s in DISCUSS_CHOICES_SECONDS],
            format_func=lambda m: "none" if m == 0 else f"{m} min",
            horizontal=True,
            key=DISCUSS_KEY,
        )
    if step is not None:
        step_button(room, *step)
        if step[0] in ("end_round", "discuss", "second_round") and peer.round_no != TWIN:
            step_button(room, "reveal", "Reveal now", key="cls_reveal", primary=False)
    elif phase == "revealed" and peer.round_no != TWIN:
        step_button(room, "twin", "Twin question", key="cls_twin", primary=False)


def round_title(room):
    """ "Round 1 of 2: vote alone" and the like."""
    peer = room.peer
    if peer.round_no == TWIN:
        return "The twin: the same kind of question on new numbers (new weights), answered alone"
    if room.phase == "discussing":
        return DISCUSS
    if room.phase == "revealed":
        return "Both rounds revealed"
    return {1: "Round 1 of 2: vote alone", 2: "Round 2 of 2: vote again"}[peer.round_no]


def look_and_lost(room):
    """The lecturer's "Look at the projector" switch and the "I'm lost" count of the last two
    minutes (folded away on the projector: the class does not see it)."""
    blank = room.peer.blank
    st.button(
        "Show the phones the room again" if blank else "Phones: look at the projector",
        key="cls_blank",
        on_click=set_blank,
        args=(not blank,),
    )
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
    minutes = LOST_WINDOW_SECONDS // 60
    st.markdown(f'"I\'m lost" in the last {minutes} minutes: **{count}**')


# -- what the phones show ----------------------------------------------------------------------
def look_up():
    """The phones blanked: eyes on the projector."""
    st.markdown(f"## 👀 {LOOK_UP}")
    st.caption("The lecturer is explaining: your phone shows the room again afterwards.")


def discussion_banner(room):
    """Discuss with your neighbour, and the soft countdown as a shrinking bar (CSS, no sound,
    nothing reruns for it)."""
    st.markdown(f"### 🗣️ {DISCUSS}")
    left = countdown_left(room, time.time())
    total = room.peer.discuss_seconds
    if left is None:
        st.caption("Convince your neighbour of your answer, or be convinced.")
        return
    minutes = total // 60
    plural = "s" if minutes != 1 else ""
    st.markdown(f"About {minutes} minute{plural}: the bar shows the time left.")
    elapsed = max(0, total - left)
    st.html(
        "<div style='height:14px;background:#eee;border-radius:7px;overflow:hidden'>"
        f"<div style='height:100%;background:#4d4d4d;width:100%;transform-origin:left;"
        f"animation:attnviz-countdown {total}s linear -{elapsed}s forwards'></div></div>"
        "<style>@keyframes attnviz-countdown{from{transform:scaleX(1)}to{transform:scaleX(0)}}"
        "</style>"
    )


def student_waiting(room, mine):
    """A phone between rounds: the round has ended, or the class discusses."""
    if room.phase == "discussing":
        discussion_banner(room)
    else:
        st.info(f"{ROUND_NAMES[room.peer.round_no].capitalize()} has ended.", icon="🔒")
    if mine is not None:
        st.caption(
            f"Your answer: {letter(mine)}. Nobody sees the class's answers until the reveal."
        )


def first_answer_note(room, code, sid):
    """In round 2, the student's own first answer (shown to them only)."""
    if room.peer.round_no != 2:
        return
    try:
        first = room_store().my_answers(code, sid).get(1)
    except RoomError:
        return
    said = "you did not answer" if first is None else f"you answered **{letter(first)}**"
    st.caption(f"In round 1 {said}. Answer again: the same answer, or another.")


def _confide(code, level):
    try:
        room_store().confide(code, session_id(), level)
    except RoomError as exc:
        st.session_state[NOTE] = str(exc)


def confidence_taps(room, mine):
    """After an answer, an optional tap: guessing, fairly sure, sure."""
    if mine is None:
        return
    try:
        chosen = room_store().my_confidence(room.code, session_id())
    except RoomError:
        chosen = None
    st.caption("How sure are you? (optional)")
    columns = st.columns(len(CONFIDENCE))
    for level, (column, name) in enumerate(zip(columns, CONFIDENCE, strict=True)):
        column.button(
            name,
            key=f"cls_conf_{level}",
            type="primary" if level == chosen else "secondary",
            on_click=_confide,
            args=(room.code, level),
            width="stretch",
        )


def _lost(code):
    try:
        counted = room_store().im_lost(code, session_id())
    except RoomError as exc:
        st.session_state[NOTE] = str(exc)
        return
    st.session_state[LOST_NOTE] = (
        "The lecturer sees that someone is lost (not who)."
        if counted
        else "Already said in the last minute: the lecturer sees it."
    )


def im_lost_button(room):
    """A student's "I'm lost", at any time; the lecturer sees how many (classroom lecturer)."""
    st.button("😵 I'm lost", key="cls_lost", on_click=_lost, args=(room.code,), width="stretch")
    note = st.session_state.pop(LOST_NOTE, None)
    if note:
        st.caption(note)


def my_rounds_line(room, answers):
    """The student's answers of every round, each marked right or not."""
    peer = room.peer
    parts = []
    for r, name in ROUND_NAMES.items():
        if r > peer.round_no or (r == 2 and peer.rounds != 2):
            continue
        right = peer.twin_right if r == TWIN else peer.right
        given = answers.get(r)
        mark = "—" if given is None else letter(given) + (" ✓" if given == right else " ✗")
        parts.append(f"{name}: **{mark}**")
    return "Your answers: " + " · ".join(parts)


# -- the reveal --------------------------------------------------------------------------------
def draw_room_chart(make, args, key, share):
    draw(finished_room_chart(make, tuple(args), share, *display()), key, config=NO_MODEBAR)


def rounds_figure(settings, quiz_seed, kind, counts1, counts2, right, text_px):
    """Round 1 and round 2 of question ``kind`` side by side, with words."""
    question = question_of(cached_room_questions(settings, quiz_seed), kind)
    letters = [letter(k) for k in range(len(question.options))]
    both = [("round 1", counts1), ("round 2", counts2)]
    return with_words(rounds_bars(letters, question.options, both, right, text_px=text_px))


def moves_figure(n_options, moves, right, text_px):
    """Who moved where (``moves`` [(from, to, students)]), with its own words."""
    letters = [letter(k) for k in range(n_options)]
    fig = transition_chart(letters, list(moves), right, text_px=text_px)
    return fig, transition_words(letters, list(moves), right)


def shares_figure(labels, shares, text_px):
    return with_words(shares_bars(list(labels), list(shares), text_px=text_px))


def confidence_figure(table, round_name, text_px):
    bars = confidence_bars(CONFIDENCE, [tuple(row) for row in table], round_name, text_px=text_px)
    return with_words(bars)


def _freeze(value):
    return tuple(tuple(v) if isinstance(v, list | tuple) else v for v in value)


def reveal_rounds(room, question, key, height=300):
    """The class's answers at a reveal: one vote's bars as before; with two rounds, both
    rounds side by side and who moved where, with its sentence; the right share per round
    (and the twin's); confidence by correctness (sure but wrong first). The sentences first,
    then the charts in one row (a phone stacks them), so the projector shows it all on one
    screen. ``question``: the round's (the twin's at its reveal); ``key`` prefixes chart keys."""
    summary = room_summary(room.code, room.version)
    if summary is None:
        return
    peer = room.peer
    text_px = PRESENT_TEXT_PX if is_present() else TEXT_PX
    sentences, charts = [], []  # charts: (make, args, key), or a function that draws one

    def bars(counts, name):
        return lambda: distribution(room, question, counts, key=f"{key}_{name}", height=height)

    if peer.round_no == TWIN:
        charts.append(bars(summary["twin"]["counts"], "twin"))
    elif peer.rounds == 2 and "2" in summary:
        moves = _freeze(summary.get("moves", ()))
        counts1, counts2 = tuple(summary["1"]["counts"]), tuple(summary["2"]["counts"])
        sentences.append(md_escape(moves_sentence(moves, peer.right)))
        settings = room_settings(room)
        charts.append(
            (
                rounds_figure,
                (settings, room.quiz_seed, room.kind, counts1, counts2, peer.right, text_px),
                f"{key}_rounds",
            )
        )
        charts.append((moves_figure, (len(counts1), moves, peer.right, text_px), f"{key}_moves"))
    else:
        charts.append(bars(summary["1"]["counts"], "dist"))
    names = [n for n in ("1", "2", "twin") if n in summary]
    shares = tuple(summary[n]["right_share"] for n in names)
    last = "twin" if peer.round_no == TWIN else names[-2 if names[-1] == "twin" else -1]
    table = _freeze(summary[last]["confidence"])
    labels = tuple(ROUND_NAMES[TWIN if n == "twin" else int(n)] for n in names)
    conf_round = ROUND_NAMES[TWIN if last == "twin" else int(last)]
    if len(names) > 1:
        said = ", ".join(f"{label} {percent(s)}" for label, s in zip(labels, shares, strict=True))
        sentences.append(f"Right answers: {said}.")
        charts.append((shares_figure, (labels, shares, text_px), f"{key}_shares"))
    if any(r + w for _, r, w in table):
        wrong = sure_but_wrong(table)
        verb = "was" if wrong == 1 else "were"
        sentences.append(f"**{wrong}** {verb} sure and wrong in {conf_round}.")
        charts.append((confidence_figure, (table, conf_round, text_px), f"{key}_conf"))
    for sentence in sentences:
        st.markdown(sentence)
    if len(charts) == 1 and callable(charts[0]):
        charts[0]()  # one vote as before: the class's bars, full width
        return
    for column, chart in zip(st.columns(len(charts)), charts, strict=True):
        with column:
            if callable(chart):
                chart()
            else:
                make, args, chart_key = chart
                draw_room_chart(make, args, chart_key, 1 / len(charts))


def is_peer(room):
    """Whether the room's question is a peer-instruction one (two rounds, or its twin)."""
    return room.peer.rounds == 2 or room.peer.round_no == TWIN
