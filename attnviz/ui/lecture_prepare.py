"""Prepare the lecture: one button (on the Lecture deck page and on a deck's first slide) that
makes everything a deck needs ready before the class arrives, so the deck then runs on the
clicker alone.

    the deck's Watch a head learn runs   -> trained now (each with scaling, as the page's Train
                                            button), and pinned in the server's store for
                                            LECTURE_PIN_SECONDS: no other page evicts them
    its Real model / chat model          -> loaded now (the chat model kept as long)
    its Classroom slides                 -> the lecturer's room (the one this browser holds, or
                                            a new one), trusting this deck: each Classroom
                                            slide asks its question on arrival
    End the lecture                      -> the runs and the chat model may go again

A progress bar says what it does. Nothing here is kept in the session: what is ready is read
from the server (``needs_left``). The pins are this server process's: a replica behind a load
balancer keeps its own.
"""

import time

import streamlit as st

from attnviz.classroom import RoomError
from attnviz.limits import (
    LECTURE_PIN_SECONDS,
    MAX_GPT_TRAIN_SECONDS,
    MAX_LECTURE_RUNS,
    MAX_PINNED_ENTRIES,
)
from attnviz.links.deck import deck_text
from attnviz.links.deck_needs import deck_needs
from attnviz.links.shared import settings_query
from attnviz.model.pretrained import MODEL_ID, ModelLoadError
from attnviz.serve.classroom import ROOM_STORE
from attnviz.serve.gate import gated
from attnviz.serve.inside_a_chat_model import CHAT_MODEL, keep_for, note_use
from attnviz.serve.real_model import MODEL
from attnviz.serve.watch_a_head_learn import gpt_run, training_refusal
from attnviz.settings import Settings
from attnviz.tiny_gpt import train
from attnviz.tiny_gpt.training import TrainingTooSlowError
from attnviz.ui.pages.classroom_seat import hand_over, hold_by_browser, seat
from attnviz.ui.pages.classroom_shared import KEY, ROOM, session_id
from attnviz.ui.progress import progress_tqdm
from attnviz.ui.text import md_escape
from attnviz.ui.visitor import client_address

PREPARE_KEY = "deck_prepare"
END_KEY = "deck_end"
SAID = "attnviz.lecture.prepared"  # what the last Prepare did: sentences, shown after its rerun
BACKSTOP = 3  # as the Watch page: a run measured past 3 x MAX_GPT_TRAIN_SECONDS of CPU stops
MODEL_NAMES = {
    "real": f"the real model ({MODEL_ID})",
    "chat": "the chat model (SmolLM2-135M-Instruct)",
}
EVERY = 0.25  # seconds between two updates of the progress bar while a run trains


def _first_up(text):
    """``text`` with its first letter a capital (the rest as written: model names keep theirs)."""
    return text[:1].upper() + text[1:]


def _hours(seconds):
    hours = seconds / 3600
    return f"{hours:g} hour{'s' if hours != 1 else ''}"


def _runs(needs):
    return needs.runs[:MAX_LECTURE_RUNS]


def _held(store):
    """(the open Room this browser's lecturer holds, its key), or None: the room of this
    session's controls, else the one its lecturer cookie (or, without the App, its browser id)
    names (``classroom_seat.seat``). Raises the store's RoomError."""
    state = st.session_state
    found = (state[ROOM], state[KEY]) if state.get(ROOM) and state.get(KEY) else seat()
    if found is None:
        return None
    room = store.room(found[0])
    return None if room.closed or not room.key_matches(found[1]) else (room, found[1])


def _room_ready(store, deck):
    """The room this browser's lecturer holds, open and trusting ``deck``; else None."""
    if store is None:
        return None
    try:
        held = _held(store)
    except RoomError:  # none, or the store unreachable: said when Prepare opens one
        return None
    if held is None:
        return None
    room, key = held
    return room if store.trusts_deck(room.code, key, deck) else None


def needs_left(slides):
    """What the deck ``slides`` still needs, as short phrases (empty: all ready)."""
    needs, deck = deck_needs(slides), deck_text(slides)
    left = [
        f"train the {choice.task} run"
        for choice in _runs(needs)
        if gpt_run.peek(choice, True) is None or gpt_run.pinned_for(choice, True) is None
    ]
    slots = {"real": MODEL, "chat": CHAT_MODEL}
    left += [f"load {MODEL_NAMES[m]}" for m in needs.models if slots[m].peek() is None]
    if needs.classroom and _room_ready(_store(), deck) is None:
        left.append("open your room and let this deck ask its questions")
    return left


def _train(choice, bar, done, total):
    """Train ``choice`` (with scaling) unless the server has it, in the heavy queue's turn,
    the bar moving from ``done`` to ``done`` + 1 of ``total``; a sentence when refused."""
    refusal, seconds = training_refusal(choice)
    if refusal is not None and gpt_run.peek(choice, True) is None:
        return f"The {choice.task} run is refused: {refusal}"
    shown = {"at": 0.0}

    def on_step(step, losses):
        now = time.perf_counter()
        if now - shown["at"] >= EVERY or step == choice.steps:
            shown["at"] = now
            bar.progress(
                (done + step / choice.steps) / total,
                text=f"Training the {choice.task} run: step {step} of {choice.steps}",
            )

    def run():
        config, task = choice.config(True), choice.make_task()
        limit = BACKSTOP * MAX_GPT_TRAIN_SECONDS
        return train(config, task, choice.steps, callback=on_step, time_limit=limit)

    if not gpt_run.pin(choice, True, seconds=LECTURE_PIN_SECONDS):  # kept once it is made
        return (
            f"The {choice.task} run is not kept for the lecture: this server keeps "
            f"{MAX_PINNED_ENTRIES} lecture runs at most, all taken by other lectures now."
        )
    try:
        gpt_run(choice, True, train=lambda: gated(run, "a tiny GPT's training", cost=seconds))
    except TrainingTooSlowError as exc:
        gpt_run.unpin(choice, True)
        return f"The {choice.task} run is refused: {exc}"
    return None


def _load(name, box):
    """Load model ``name`` ("real" or "chat") unless loaded (the chat model then kept for
    LECTURE_PIN_SECONDS); a sentence when it cannot be."""
    try:
        if name == "real":
            try:
                MODEL.get(tqdm_class=progress_tqdm(box.container()))
            except ModelLoadError as exc:
                return f"The real model could not be loaded: {exc}"
            return None
        from attnviz.causal_lm import CausalLMLoadError  # imported on use, as the chat page

        try:
            CHAT_MODEL.get(tqdm_class=progress_tqdm(box.container()))
        except CausalLMLoadError as exc:
            return f"The chat model could not be loaded: {exc}"
        note_use()
        keep_for(LECTURE_PIN_SECONDS)
        return None
    finally:
        box.empty()


def _store():
    """The server's RoomStore, or None when it cannot be made (a Redis URL that is wrong)."""
    try:
        return ROOM_STORE.get()
    except RoomError:
        return None


def _room(deck):
    """The lecturer's room (held by this browser, else a new one on the default example),
    trusting ``deck``: (its code, None) or (None, why not). A new room's controls are this
    session's, as after "Open a room" (the Classroom page hands its cookie over)."""
    try:
        store = ROOM_STORE.get()
        held = _held(store)
        if held is None:
            query, hold = settings_query(Settings()), hold_by_browser()
            room, key = store.open(query, session_id(), client_address(), hold=hold)
            st.session_state[ROOM], st.session_state[KEY] = room.code, key
        else:
            room, key = held
        store.trust_deck(room.code, key, deck)
    except RoomError as exc:
        return None, str(exc)
    return room.code, None


def prepare(slides):
    """Make everything ``slides`` needs ready, with a progress bar; returns the sentences that
    say what was done and what could not be."""
    needs, deck = deck_needs(slides), deck_text(slides)
    runs = _runs(needs)
    total = len(runs) + len(needs.models) + int(needs.classroom)
    said = []
    if len(needs.runs) > len(runs):
        said.append(
            f"The deck has {len(needs.runs)} Watch runs; a lecture keeps at most "
            f"{MAX_LECTURE_RUNS}: the first {MAX_LECTURE_RUNS} are prepared."
        )
    bar = st.progress(0.0, text="Preparing the lecture…")
    done = 0
    for choice in runs:
        problem = _train(choice, bar, done, total)
        said.append(problem or f"The {choice.task} run is trained and kept for the lecture.")
        done += 1
    for name in needs.models:
        bar.progress(done / total, text=f"Loading {MODEL_NAMES[name]}…")
        problem = _load(name, st.empty())
        said.append(problem or f"{_first_up(MODEL_NAMES[name])} is loaded.")
        done += 1
    if needs.classroom:
        bar.progress(done / total, text="Opening your room…")
        code, problem = _room(deck)
        said.append(
            problem
            or f"Room {code} is yours and this deck asks its Classroom slides' questions there "
            "on arrival."
        )
        done += 1
    bar.empty()
    return said


def _end(slides):
    for choice in deck_needs(slides).runs:
        gpt_run.unpin(choice, True)
    keep_for(0)


def prepare_panel(slides, compact=False):
    """The Prepare button for the deck ``slides``, what it did, and End the lecture.
    ``compact`` (a deck's first slide, in projector mode): only while something is not ready,
    in one line."""
    if not slides:
        return
    left = needs_left(slides)
    needs = deck_needs(slides)
    if compact and not left:
        return
    hours = _hours(LECTURE_PIN_SECONDS)
    if not compact:
        st.markdown(
            "**Prepare the lecture** trains every Watch a head learn run the deck shows, keeps "
            f"those runs for the lecture ({hours}, or until you press End the lecture: no "
            "other page pushes them out), loads the models its slides use, and opens your room "
            "(or takes the one this browser holds) and lets this deck ask its Classroom "
            "questions there. Then the clicker alone runs the deck."
        )
    if left:
        st.caption("Still to do: " + "; ".join(md_escape(x) for x in left) + ".")
    elif not compact:
        st.caption(f"Ready: everything this deck needs is kept for the lecture ({hours}).")
    pressed = st.button(
        "🎓 Prepare the lecture" if not compact else "🎓 Lecturer: prepare the lecture",
        key=PREPARE_KEY,
        type="primary" if left else "secondary",
        disabled=not left,
    )
    if pressed:
        st.session_state[SAID] = prepare(slides)
        st.rerun()  # drawn again from the server's state: what is ready now
    for sentence in st.session_state.get(SAID, ()):
        st.markdown(md_escape(sentence))
    state = st.session_state
    if state.get(ROOM) and state.get(KEY):  # under the App: the lecturer's cookie for the room
        hand_over(state[ROOM], state[KEY])  # Prepare opened, so every slide's page knows it
    if not compact and (needs.runs or "chat" in needs.models):
        st.button(
            "End the lecture: let its runs go",
            key=END_KEY,
            on_click=_end,
            args=(slides,),
            help="The runs kept for this deck may be evicted again, as any other page's.",
        )
