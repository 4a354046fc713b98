"""The Classroom as a slide of a lecture deck (``attnviz.links.deck``): a slide
``Classroom?question=row_sum&tokens=...`` asks the room that question on its example.

    arriving on the slide, the lecturer's room  -> the slide's example is pushed (if the room
                                                  shows another) and its question asked (if
                                                  the room is not asking it already: a reload
                                                  or Previous back onto the slide keeps the
                                                  answers), once per arrival
    Next (→, a clicker's button)                -> Reveal while the room answers the
                                                  slide's question, then the deck's next slide
    Previous (←)                                -> the deck's previous slide
    no room yet                                 -> the landing page says what the slide asks

The deck moves from slide to slide by links, each a new session, so the lecturer's room goes
with the lecturer's tab in a browser cookie (``LECTURER_COOKIE``: the code and key, for this
browser session only, never in the address), read back only on a deck's Classroom slide. A
Classroom page outside a deck still needs the lecturer's link after a reload.
"""

import json
import re

import streamlit as st

from attnviz import lessons
from attnviz.classroom import RoomError
from attnviz.classroom.questions import pushable_problem, question_of, room_settings
from attnviz.classroom.room import normal_code
from attnviz.links.deck import read_deck
from attnviz.links.readers import quoted, raw_value
from attnviz.links.shared import settings_query
from attnviz.ui.frame import page_paths
from attnviz.ui.pages.classroom_lecturer import change_room
from attnviz.ui.pages.classroom_shared import KEY, ROOM, cached_room_questions, room_store
from attnviz.ui.sidebar import is_present
from attnviz.ui.stepper import stepper
from attnviz.ui.text import md_escape

PAGE_PATH = "Classroom"
LECTURER_COOKIE = "attnviz_lecturer"  # "CODE.KEY" of the room this browser's lecturer holds
COOKIE_VALUE = re.compile(r"([0-9A-Z]{6})\.([A-Za-z0-9_-]{1,96})")
ARRIVED = "attnviz.classroom.deck_arrived"  # the slide whose question this session has asked
SLIDE_TITLE = ("The class's question",)  # the deck bar's one step on this page
REVEAL_TITLE = ("The class answers: Next (→) reveals",)


def deck_slide():
    """(the slide's question kind or None, warnings) when the address is a deck's Classroom
    slide in projector mode; (False, []) otherwise."""
    query = {name: st.query_params.get_all(name) for name in st.query_params}
    slides, position, _ = read_deck(query, page_paths())
    if not slides or not is_present() or slides[position].page != PAGE_PATH:
        return False, []
    kind, warnings = raw_value(query, "question")
    if kind is not None and kind not in lessons.KINDS:
        warnings.append(
            f"`question={quoted(kind)}` in the slide is not a question of attnviz: one of "
            f"{', '.join(lessons.KINDS)}. The slide asks none."
        )
        kind = None
    return kind, warnings


def parse_remembered(value):
    """(code, key) from a LECTURER_COOKIE value "CODE.KEY" when well formed, else None."""
    match = COOKIE_VALUE.fullmatch(str(value or ""))
    return (match[1], match[2]) if match and normal_code(match[1]) == match[1] else None


def remembered_lecturer():
    """(code, key) from this browser's LECTURER_COOKIE, or None."""
    return parse_remembered(st.context.cookies.get(LECTURER_COOKIE))


def take_remembered():
    """Make this session the lecturer of the remembered room when its key is still the room's."""
    found = remembered_lecturer()
    if found is None:
        return
    code, key = found
    try:
        room = room_store().room(code)
    except RoomError:
        return  # ended, or the store is away: the landing page, as for anyone
    if room.key_matches(key) and not room.closed:
        st.session_state[ROOM], st.session_state[KEY] = room.code, key


def remember(code, key):
    """Keep the lecturer's room in this browser session (a cookie for this site, read by the
    next slide's new session); ``code`` None forgets it."""
    value = f"{code}.{key}" if code else ""
    expiry = "" if code else "; max-age=0"
    cookie = json.dumps(f"{LECTURER_COOKIE}={value}; path=/; SameSite=Strict{expiry}")
    st.html(f"<script>document.cookie = {cookie};</script>", unsafe_allow_javascript=True)


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
    if kind is None or room.kind == kind:
        return None
    question = question_of(cached_room_questions(settings, room.quiz_seed), kind)
    if question is None:
        return (
            f"This slide's question ({md_escape(kind)}) cannot be asked on its example: "
            "choose another below."
        )
    store.push_question(room.code, key, room.quiz_seed, kind, len(question.options))
    return None


def slide_bar(room=None):
    """The deck's bar (Previous, where in the deck, Next): the clicker's keys move on. For the
    lecturer of ``room`` while it answers a question, Next reveals first (a lecturer with a
    clicker in hand then needs no mouse)."""
    if room is not None and not room.closed and room.kind and room.phase == "answering":
        stepper("Classroom", REVEAL_TITLE, next_action=("Reveal ▶", change_room, ("reveal",)))
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
