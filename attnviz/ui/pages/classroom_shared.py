"""What the Classroom page's lecturer and student views share: the store, the session's id, the
room's example and question, the reveal, and the poll that follows the room.

Session state (small values only): ROOM the code it is in, KEY the lecturer's key (only in the
lecturer's session, from the store's record of what its browser holds), SEEN the room version
last drawn, NOTE a message from a button's callback, IN_PAGE_RUN and PAGE_RUN_ENDED when the
page's run drew the poll (``follow``). Widget keys start with ``cls_``.
"""

import time

import streamlit as st
from streamlit import dataframe_util
from streamlit.runtime.scriptrunner import get_script_run_ctx

from attnviz.charts.style import PRESENT_TEXT_PX, TEXT_PX
from attnviz.classroom import RoomError, StoreUnavailableError
from attnviz.classroom.questions import letter
from attnviz.classroom.rounds import question_seed
from attnviz.serve.classroom import ROOM_STORE, question_settings
from attnviz.serve.finish import kept_chart
from attnviz.serve.room_charts import answers_figure, proof_figure, proof_frame
from attnviz.serve.store import kept
from attnviz.ui.charts import display, draw
from attnviz.ui.projector import data_table
from attnviz.ui.sidebar import is_present
from attnviz.ui.text import md_escape
from attnviz.ui.visitor import browser_id

ROOM = "attnviz.classroom.room"
KEY = "attnviz.classroom.key"
SEEN = "attnviz.classroom.seen"
NOTE = "attnviz.classroom.note"
IN_PAGE_RUN = "attnviz.classroom.in_page_run"  # set by the page's run until ``follow`` is drawn
PAGE_RUN_ENDED = "attnviz.classroom.page_run_ended"  # when it was (time.monotonic())
RACE_SECONDS = 0.3  # a poll this soon after the page's run may have raced its end
POLL_SECONDS = 1.5  # how often a phone (and the lecturer's count) asks for the room's version
NO_MODEBAR = {"displayModeBar": False}  # on a phone the toolbar covers the chart's title
# Tap targets of at least 44 px (buttons, the code box), one column on a phone; the confidence
# taps in one row under the options (Streamlit stacks columns under 640 px)
TOUCH_CSS = """<style>
[data-testid="stMainBlockContainer"] button { min-height: 48px; }
[data-testid="stMainBlockContainer"] input { min-height: 44px; }
.st-key-cls_conf [data-testid="stHorizontalBlock"] { flex-wrap: nowrap; }
.st-key-cls_conf [data-testid="stColumn"] { min-width: 0 !important; flex: 1 1 0 !important; }
</style>"""


def room_store():
    """The server's RoomStore (Redis when ATTNVIZ_REDIS_URL is set), made once per process
    (``serve.classroom.ROOM_STORE``, pinned)."""
    return ROOM_STORE.get()


def forget_room_store():
    """Drop the server's RoomStore and, in process, its rooms (tests: as if the server had just
    started)."""
    ROOM_STORE.forget()


def session_id():
    """Who this session is in a room: its browser's random id (ui/visitor.py), so every tab
    of a browser, a reload and a reconnect are one student, and no address carries it."""
    return browser_id()


def say(exc):
    """A RoomError's message (the store's own sentences, which quote nothing typed), as a
    warning when the store is unreachable or refuses to save (StoreRefusedError is a
    StoreUnavailableError), else an error."""
    if isinstance(exc, StoreUnavailableError):
        st.warning(str(exc), icon="📡")
    else:
        st.error(str(exc), icon="🚫")


def as_lecturer(change):
    """A lecturer's button callback: ``change(store, code, key)`` on the session's room with
    its key; a refusal is kept in NOTE for the page to say."""
    state = st.session_state
    try:
        change(room_store(), state[ROOM], state[KEY])
    except RoomError as exc:
        state[NOTE] = str(exc)


def strong(parts):
    """A sentence's parts (classroom.sections.Say: the odd ones emphasised) as Markdown."""
    return "".join(f"**{part}**" if k % 2 else part for k, part in enumerate(parts))


def tell(said):
    """Draw a ``Say`` of classroom.sections: text, caption, heading or alert."""
    text = strong(md_escape(p) for p in said.parts) if said.quotes else strong(said.parts)
    if said.style == "text":
        st.markdown(text)
    elif said.style == "caption":
        st.caption(text)
    elif said.style == "heading":
        st.markdown(f"## {text}")
    else:
        alert = {"info": st.info, "success": st.success, "warning": st.warning, "error": st.error}
        alert[said.style](text, icon=said.icon or None)


def option_text(k, option):
    """'B · 6 × 4' as markdown: the option's letter and its text shown as typed."""
    return f"**{letter(k)}** · {md_escape(option)}"


def question_text(asked):
    """The question (classroom.sections.Asked), numbered, as text."""
    st.markdown(f"**Question {asked.number}.** {md_escape(asked.text)}")


# A room's charts are the same on every phone: each is made, finished and turned into the dict
# that is sent once per room state for all of them (serve.finish.kept_chart: a reveal asks 120
# phones at once), keyed by the room's settings, question set and kind (serve.room_charts, the
# figure makers of this page and of the light phone page). Made again for each phone, finishing
# and Plotly's to_dict were about half of a phone's reveal run.


def distribution(room, question, counts, key, height=300):
    """The class's answers to ``question`` (the room's) as bars (chart key ``key``)."""
    text_px = PRESENT_TEXT_PX if is_present() else TEXT_PX
    args = (
        question_settings(room),
        question_seed(room),
        question.kind,
        tuple(counts),
        text_px,
        height,
    )
    draw(
        kept_chart(answers_figure, args, *display(), share=None, title="The class's answers"),
        key,
        config=NO_MODEBAR,
        theme=None,
    )


def proof(room, question, key):
    """The right answer and the numbers that prove it: the explanation, the question's rows of
    A as bars (chart keys ``{key}_<m>``) and its table."""
    q = question
    st.markdown(f"The answer: {option_text(q.answer_index, q.answer)}")
    st.markdown(f"**Why:** {md_escape(q.explanation)}")
    for m in range(len(q.bars)):
        args = (question_settings(room), question_seed(room), q.kind, m)
        draw(kept_chart(proof_figure, args, *display()), f"{key}_{m}", config=NO_MODEBAR)
    if q.table is None:
        return
    args = (question_settings(room), question_seed(room), q.kind)
    if is_present():  # the projector: a static table in the page's larger text
        data_table(proof_frame(*args))
    else:  # a data grid shows its cells as plain text
        st.dataframe(proof_table(*args))


@kept(entries=64)
def proof_table(settings, quiz_seed, kind):
    """Question ``kind``'s table as the Arrow table st.dataframe sends (Streamlit's own
    conversion of the DataFrame, the same bytes), made once for every phone: converting it
    again for each was about a fifth of a phone's reveal run."""
    frame = proof_frame(settings, quiz_seed, kind)
    return dataframe_util.convert_pandas_df_to_arrow_table(frame)


@st.fragment(run_every=POLL_SECONDS)
def follow(code):
    """Poll the room's version every POLL_SECONDS and rerun the page only when it changed (a
    new question, the reveal, the room closed), or when the poll came right at the end of the
    page's run (``poll_needs_page``). Draws nothing while nothing changes."""
    state = st.session_state
    if state.pop(IN_PAGE_RUN, False):
        if not fragment_run():  # drawn by the page's own run, the last thing it draws
            state[PAGE_RUN_ENDED] = time.monotonic()
            return
        st.rerun()  # a poll, and the page's last run never reached its end: run it again
    try:  # the version, or lifecycle.ENDED / NEXT + the reopened room's code
        version = room_store().poll(code, session_id())
    except RoomError:
        version = None  # unreachable: the page says so and keeps asking
    ended = state.pop(PAGE_RUN_ENDED, None)
    if poll_needs_page(version, state.get(SEEN), ended, time.monotonic()):
        st.rerun()


def fragment_run():
    """Whether this run is a fragment's own (a poll), not the page's full run."""
    ctx = get_script_run_ctx()
    return bool(ctx is not None and ctx.fragment_ids_this_run)


def poll_needs_page(version, seen, ended, now):
    """Whether a poll reruns the whole page: the room's ``version`` is not the one drawn
    (``seen``), or the poll came within RACE_SECONDS of the end of the page's run (``ended``,
    ``now``: time.monotonic(); None: already checked). Streamlit 1.67 drops the last messages
    of a run that a fragment's poll races at its end (its AppSession starts a new script runner;
    streamlit/streamlit#9921): the phone would show the page in part, without the reveal, until
    the room changed again. Measured: one phone of 60 (benchmarks/classroom_room.py)."""
    return version != seen or (ended is not None and now - ended < RACE_SECONDS)


def drawn(version):
    """Remember that the page now shows ``version`` of the room (``follow`` compares)."""
    st.session_state[SEEN] = version
    st.session_state[IN_PAGE_RUN] = True
