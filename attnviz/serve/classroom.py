"""The Classroom's server side: the server's one RoomStore (Redis when ATTNVIZ_REDIS_URL is
set, else in process), a pinned ``Slot`` made on first use, and what every phone of a room
shares, computed once: the room's example read from its link text, the questions on it, a
sketch question, the numbers of a reveal, the reveal's finished charts, the answers of the
rounds that take no more (``closed_answers``: a phone's own are then a lookup); and a phone's screen
(``phone_screen``: classroom.screens_phone.phone with what this student gave, read from the store),
the same for the Classroom page and for a client that takes it as JSON. No Streamlit."""

import sys
from dataclasses import replace

from attnviz.charts.finish import finished
from attnviz.classroom import RoomError, StoreUnavailableError, make_store
from attnviz.classroom.peer import TWIN
from attnviz.classroom.questions import all_questions, pushable_problem, question_of
from attnviz.classroom.room import check_sid
from attnviz.classroom.rounds import question_seed
from attnviz.classroom.screens import is_peer
from attnviz.classroom.screens_phone import phone, sketch_phone
from attnviz.classroom.sections import Mine, Say
from attnviz.classroom.sketch import is_sketch, read_kind, sketch_question
from attnviz.lessons.sketch import SketchError
from attnviz.limits import CACHE_ROOM_ANSWERS, CACHE_ROOM_FIGURES
from attnviz.links.shared import from_query
from attnviz.serve.slots import Slot
from attnviz.serve.store import kept, object_bytes
from attnviz.settings import Settings


def _made_store():
    """The server's RoomStore, reading a room's example back as this module does (its report
    computes each question's text and a sketch's numbers on it)."""
    store = make_store()
    store.read_example = example_settings
    return store


# size 0: the store is not counted against the cache budget (as when it was a named cache)
ROOM_STORE = Slot("attnviz.classroom.store", _made_store, size=lambda _: 0)


@kept(64, size=object_bytes)
def example_settings(settings_text):
    """The Settings of a room's example from its stored link text (``Room.settings``: sorted
    (name, text) pairs), read once per server for every phone and view; what cannot be used is
    left at the default, as for any link, and an example a room cannot show (or none yet) is
    the default one."""
    if not settings_text:
        return Settings()
    settings, _ = from_query(dict(settings_text))
    return settings if pushable_problem(settings) is None else Settings()


def room_settings(room):
    """The Settings ``room`` shows (``example_settings`` of its stored text)."""
    return example_settings(room.settings)


def question_settings(room):
    """The Settings the room's round asks on: in the twin, the room's sentence on the twin's
    fresh numbers (its weights' seed, rounds.twin_of), else the room's example."""
    settings = room_settings(room)
    if room.peer.round_no == TWIN and room.peer.twin_example_seed >= 0:
        return replace(settings, seed=room.peer.twin_example_seed)
    return settings


def room_question(room):
    """The room's current Question (the twin's in the twin round), or None (none pushed, a
    sketch, or its kind not askable here)."""
    if room.kind is None:
        return None
    questions = cached_room_questions(question_settings(room), question_seed(room))
    question = question_of(questions, room.kind)
    if question is None or len(question.options) != room.n_options:
        return None
    return question


def room_sketch(room):
    """The room's SketchQuestion, or None (no sketch asked, or not askable on its example)."""
    asked = read_kind(room.kind)
    if asked is None:
        return None
    try:
        q = cached_sketch_question(room_settings(room), *asked)
    except SketchError:
        return None
    return q if q.n == room.n_options else None


@kept(64, size=object_bytes)
def cached_sketch_question(settings, variant, query):
    """The SketchQuestion on ``settings``' example (small, frozen), once for every session."""
    return sketch_question(settings, variant, query)


@kept(entries=64)
def cached_room_questions(settings, quiz_seed):
    """Every question of set ``quiz_seed`` on the example of ``settings`` (small, frozen)."""
    return all_questions(settings, quiz_seed)


@kept(64)
def room_summary(code, version):
    """The room's current question's numbers at ``version`` (rounds.summary): read once per
    version for every phone (a reveal asks 60 at once)."""
    return ROOM_STORE.get().rounds_summary(code)


class MovedOnError(RoomError):
    """The room changed while its closed rounds were read: what was read may be a later
    state's (a new question's empty rounds), so it is not kept."""


def answers_bytes(closed):
    """Bytes of ``closed`` ({round: {sid: answer}}): its maps and their keys (object_bytes
    does not reach a map's text keys; the answers are small ints, shared)."""
    return sum(sys.getsizeof(a) + sum(map(sys.getsizeof, a)) for a in closed.values())


@kept(*CACHE_ROOM_ANSWERS, size=answers_bytes)
def closed_answers(room):
    """``store.closed_answers`` of ``room`` (a Room as read, its version in it): {round_no:
    {sid: answer}} of the rounds that take no more answers, read once per room state for every
    phone (at a reveal 1,000 phones ask at once; each phone's own part is then a lookup, not
    a read of every answer of every round). MovedOnError when the room's version changed
    while they were read."""
    store = ROOM_STORE.get()
    answers = store.closed_answers(room.code, room)
    if store.version(room.code) != room.version:  # versions only grow: unchanged throughout
        raise MovedOnError(f"Room {room.code} changed while it was read.")
    return answers


def own_answers(store, room, sid):
    """``store.my_answers(room.code, sid)`` for ``room`` as read: the closed rounds' from
    ``closed_answers`` (kept per room state), the round taking answers (if one is) read from
    ``store``, as the student may have just changed it."""
    sid = check_sid(sid)
    try:
        closed = closed_answers(room)
    except MovedOnError:
        return store.my_answers(room.code, sid)
    found = {r: answers[sid] for r, answers in closed.items() if sid in answers}
    if room.kind is not None and room.phase == "answering" and not is_sketch(room.kind):
        mine = store.my_answer(room.code, sid)
        if mine is not None:
            found[room.peer.round_no] = mine
    return found


# The reveal's charts are the same on every phone: each is made and finished (made readable,
# recoloured, described) once per projector mode and palette for all of them, from small keys
@kept(*CACHE_ROOM_FIGURES, size=object_bytes)
def finished_room_chart(make, args, share, present, colours):
    """``make(*args)``'s (fig, words) finished (``charts.finish.finished``) for projector mode
    ``present`` and palette ``colours``."""
    fig, words = make(*args)
    return finished(fig, present, colours, share=share, words=words)


# -- a phone's screen --------------------------------------------------------------------------
def phone_screen(room, sid, now):
    """(classroom.screens' Phone for student ``sid`` in ``room`` (read from the server's store)
    at ``now``, the question it shows (lessons' Question, a SketchQuestion, or None), the
    store's refusals met while reading the student's part, for the page to say first)."""
    store = ROOM_STORE.get()
    if is_sketch(room.kind) and not room.closed and not room.peer.blank:
        sketch = room_sketch(room)  # no A drawn on a phone: it would show the row asked
        mine, sketches, refusals = sketch_part(store, room, sketch, sid)
        return sketch_phone(room, sketch, mine, sketches), sketch, refusals
    question = None if room.closed or room.peer.blank else room_question(room)
    mine, summary, problem, refusals = phone_part(store, room, question, sid)
    return phone(room, question, mine, summary, now, problem), question, refusals


def phone_part(store, room, question, sid):
    """(Mine, the question's summary at a reveal (``room_summary``), a Say for the store's
    refusal to give the class's answers there, other refusals): what student ``sid`` gave, as
    the phase needs it."""
    if question is None:
        return Mine(), None, None, ()
    code, phase, refusals = room.code, room.phase, []
    try:
        mine = store.my_answer(code, sid)
    except StoreUnavailableError as exc:
        refusals.append(exc)
        mine = None
    answers, confidence, summary, problem = (), None, None, None
    if phase == "answering" and room.peer.round_no == 2:  # the student's own first answer
        try:
            answers = tuple(own_answers(store, room, sid).items())
        except RoomError:
            answers = None  # the note is left out
    if phase == "answering" and mine is not None:
        try:
            confidence = store.my_confidence(code, sid)
        except RoomError:
            confidence = None
    if phase == "revealed":  # the class's answers, every round
        try:
            answers = None
            if is_peer(room):
                answers = tuple(own_answers(store, room, sid).items())
            summary = room_summary(code, room.version)
        except StoreUnavailableError as exc:
            problem = Say("warning", (str(exc),), "📡")
    return Mine(mine, answers, confidence), summary, problem, tuple(refusals)


def sketch_part(store, room, sketch, sid):
    """(Mine with student ``sid``'s sketch, every phone's sketches after the reveal or None,
    the store's refusals)."""
    if sketch is None:
        return Mine(), None, ()
    refusals, mine, sketches = [], None, None
    try:
        mine = store.my_sketch(room.code, sid)
    except RoomError as exc:
        refusals.append(exc)
    if room.phase != "answering":
        try:
            sketches = store.sketches(room.code)
        except RoomError as exc:
            refusals.append(exc)
    return Mine(sketch=mine), sketches, tuple(refusals)
