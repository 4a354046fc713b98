"""The Classroom as a slide of a lecture deck (``attnviz.links.deck``): a slide
``Classroom?question=row_sum&tokens=...`` asks the room that question on its example.

    arriving on the slide, the lecturer's room  -> the slide's example is pushed (if the room
                                                  shows another) and its question asked (if
                                                  the room is not asking it already: a reload
                                                  or Previous back onto the slide keeps the
                                                  answers), once per arrival
    Next (→, a clicker's button)                -> the question's next step (rounds.next_step:
                                                  Reveal; with ``rounds=2`` end round 1, discuss,
                                                  round 2, end it, reveal, twin, reveal the twin),
                                                  then the deck's next slide
    Previous (←)                                -> the deck's previous slide
    no room yet                                 -> the landing page says what the slide asks

The deck moves from slide to slide by links, each a new session: the lecturer's room is the
one the browser holds (classroom_seat.py: the lecturer's cookie, or the browser's id). A slide
pushes to the room only once its lecturer has confirmed the deck (``trust_deck``, one click on
its first Classroom slide): a deck link made elsewhere and opened in the lecturer's browser
pushes nothing unasked.
"""

import json

import streamlit as st

from attnviz import lessons
from attnviz.classroom import RoomError
from attnviz.classroom.credential import LECTURER_COOKIE
from attnviz.classroom.questions import pushable_problem, question_of
from attnviz.classroom.room import normal_code
from attnviz.classroom.rounds import next_step
from attnviz.classroom.sketch import sketch_kind
from attnviz.links.course import PATHS
from attnviz.links.deck import read_deck
from attnviz.links.readers import quoted, raw_value, read_int
from attnviz.links.shared import settings_query
from attnviz.links.sketch_slide import SLIDE_KIND, slide_query_index, slide_variant
from attnviz.serve.classroom import cached_room_questions, room_settings
from attnviz.serve.example import cached_example
from attnviz.ui.pages.classroom_rounds import take_step
from attnviz.ui.pages.classroom_shared import (
    KEY,
    NOTE,
    ROOM,
    room_store,
)
from attnviz.ui.pages.classroom_sketch import show_sketches, sketch_step
from attnviz.ui.sidebar import is_present
from attnviz.ui.stepper import stepper
from attnviz.ui.text import md_escape

PAGE_PATH = "Classroom"
ARRIVED = "attnviz.classroom.deck_arrived"  # the slide whose question this session has asked
SLIDE_TITLE = ("The class's question",)  # the deck bar's one step on this page


def slide_rounds():
    """(1 or 2, warnings): the slide's ``rounds=`` (one vote, or vote, discuss, revote)."""
    query = {name: st.query_params.get_all(name) for name in st.query_params}
    return read_int(query, "rounds", low=1, high=2, default=1)


def deck_slide():
    """(the slide's question kind or None, warnings) when the address is a deck's Classroom
    slide in projector mode; (False, []) otherwise."""
    query = {name: st.query_params.get_all(name) for name in st.query_params}
    slides, position, _ = read_deck(query, PATHS)
    if not slides or not is_present() or slides[position].page != PAGE_PATH:
        return False, []
    kind, warnings = raw_value(query, "question")
    warnings += slide_rounds()[1]
    if kind is not None and kind not in (*lessons.KINDS, SLIDE_KIND):
        warnings.append(
            f"`question={quoted(kind)}` in the slide is not a question of attnviz: one of "
            f"{', '.join((*lessons.KINDS, SLIDE_KIND))}. The slide asks none."
        )
        kind = None
    return kind, warnings


def remembered_lecturer():
    """The code in this browser's LECTURER_COOKIE (the code alone, or the lecturer's
    credential: classroom/credential.py), or None."""
    code = str(st.context.cookies.get(LECTURER_COOKIE) or "").split(".", 1)[0]
    return code if normal_code(code) == code else None


def remember(code):
    """Where the App's routes are not served: keep the code of the lecturer's room in this
    browser session (a cookie, no secret in it), so that a restarted in-process server, which
    lost the room, can say so. (Where they are, the lecturer's own cookie names it.)"""
    if remembered_lecturer() == code:
        return
    cookie = json.dumps(f"{LECTURER_COOKIE}={code}; path=/; SameSite=Strict")
    st.html(f"<script>document.cookie = {cookie};</script>", unsafe_allow_javascript=True)


def _trust(deck):
    state = st.session_state
    try:
        room_store().trust_deck(state[ROOM], state[KEY], deck)
    except RoomError as exc:
        st.session_state[NOTE] = str(exc)


def deck_trusted(room):
    """Whether this browser's lecturer confirmed that this deck may push its slides to
    ``room``; if not, the button that confirms it, and what confirming does."""
    deck = st.query_params.get("deck", "")
    if room_store().trusts_deck(room.code, st.session_state[KEY], deck):
        return True
    st.warning(
        f"This lecture deck has not pushed to room {room.code} yet. Its Classroom slides put "
        "their example and question on every phone in the room: send them only if you started "
        "this deck yourself, on the Lecture deck page.",
        icon="🎞️",
    )
    st.button(
        f"Send this deck's slides to room {room.code}",
        key="cls_trust_deck",
        type="primary",
        on_click=_trust,
        args=(deck,),
    )
    return False


def ask_slide(room, settings, kind):
    """On arriving on the slide: push its example (``settings``, the sidebar's, from the
    slide's link) and ask its question ``kind``, unless the room shows them already. Returns a
    sentence for the lecturer when the question cannot be asked on this example, else None."""
    arrival = (st.query_params.get("deck", ""), st.query_params.get("slide", ""))
    state = st.session_state
    if state.get(ARRIVED) == arrival:
        return None  # once per arrival: the lecturer's own changes on the slide stay
    state[ARRIVED] = arrival
    store, key = room_store(), state[KEY]
    problem = pushable_problem(settings)
    if problem:
        return f"This slide's example cannot go to the phones: {md_escape(problem)}"
    if room_settings(room) != settings:
        room = store.push_example(room.code, key, settings_query(settings))
    if kind == SLIDE_KIND:
        return ask_sketch(room, settings)
    if kind is None or room.kind == kind:
        return None
    question = question_of(cached_room_questions(settings, room.quiz_seed), kind)
    if question is None:
        return (
            f"This slide's question ({md_escape(kind)}) cannot be asked on its example: "
            "choose another below."
        )
    n, right = len(question.options), question.answer_index
    store.push_question(room.code, key, room.quiz_seed, kind, n, slide_rounds()[0], right)
    return None


def ask_sketch(room, settings):
    """A slide's ``question=sketch&query=<token>``: the room's sketch of that query's row, under
    the variant the slide's settings ask (classroom.sketch.slide_variant). Returns what the
    lecturer should know (a sentence), or None."""
    variant, warnings = slide_variant(settings)
    labels = cached_example(settings).labels
    query, said = slide_query_index(labels, st.query_params.get("query", ""))
    warnings += said
    if query is not None and room.kind != (kind := sketch_kind(variant, query)):
        room_store().push_question(
            room.code, st.session_state[KEY], room.quiz_seed, kind, len(labels)
        )
    return " ".join(warnings) or None


def slide_bar(room=None):
    """The deck's bar (Previous, where in the deck, Next): the clicker's keys move on. For the
    lecturer of ``room`` while its question has a step left, Next takes that step first
    (rounds.next_step: a lecturer with a clicker in hand then needs no mouse)."""
    step = None if room is None else next_step(room)
    if room is not None and sketch_step(room) is not None:
        step = sketch_step(room)
        name, label = step
        title = (f"The class's question: Next (→) is {label}",)
        stepper("Classroom", title, next_action=(f"{label} ▶", show_sketches, (room,)))
    elif step is not None:
        name, label = step
        title = (f"The class's question: Next (→) is {label}",)
        stepper("Classroom", title, next_action=(f"{label} ▶", take_step, (name,)))
    else:
        stepper("Classroom", SLIDE_TITLE)


def slide_intro(settings, kind):
    """What the slide asks, for a visitor without a room (a student at home, or the lecturer
    before opening one)."""
    if kind is None:
        return
    question = question_of(cached_room_questions(settings, 0), kind)
    if question is not None:
        st.info(
            f"This slide asks the class: {md_escape(question.text)} Open a room (or your "
            "lecturer link) and every phone in it gets the question.",
            icon="🎞️",
        )
