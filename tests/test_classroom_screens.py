"""What the projector and a phone show in every phase of a room (classroom.screens), without
Streamlit: real rooms in the in-process store, real questions on the default example; the
numbers on each screen against the answers given (numpy's bincount, rounds' own sentences)."""

import json

import numpy as np
import pytest

from attnviz.classroom import MemoryStore
from attnviz.classroom.questions import all_questions, letter, question_of
from attnviz.classroom.rounds import (
    CONFIDENCE,
    ROUND_NAMES,
    moves_sentence,
    percent,
    transitions,
    twin_of,
)
from attnviz.classroom.screens import (
    DISCUSS,
    lecturer_ended,
    lost_line,
    projector,
    sketch_projector,
)
from attnviz.classroom.screens_phone import (
    lost_said,
    my_rounds,
    phone,
    phone_ended,
    sketch_phone,
)
from attnviz.classroom.sections import (
    AnswerBars,
    Asked,
    Button,
    ConfidenceChart,
    Count,
    Discussion,
    JoinForm,
    Mine,
    MovesChart,
    Options,
    Proof,
    Reveal,
    RoomExample,
    RoundsBars,
    Say,
    SharesChart,
    SketchAsked,
    SketchInput,
    SketchMine,
    Sure,
    to_data,
)
from attnviz.classroom.sketch import class_summary, sketch_kind, sketch_question
from attnviz.lessons.sketch import sentence as sketch_sentence
from attnviz.limits import DISCUSS_CHOICES_SECONDS
from attnviz.links.shared import settings_query
from attnviz.serve.classroom import ROOM_STORE, closed_answers, own_answers, phone_screen
from attnviz.settings import Settings

QUESTION = all_questions(Settings(), 0)[0]  # what "Ask this question" asks first
RIGHT, M = QUESTION.answer_index, len(QUESTION.options)
SIDS = ("s1", "s2", "s3")
FIRST = ((RIGHT + 1) % M, RIGHT, (RIGHT + 1) % M)  # round 1: one right
SECOND = (RIGHT, RIGHT, (RIGHT + 2) % M)  # round 2: one moved onto the right answer
TWIN_EXAMPLE, TWIN_SEED, TWIN = twin_of(  # the twin: fresh numbers on the same sentence
    0, 0, lambda w, s: question_of(all_questions(Settings(seed=w), s), QUESTION.kind)
)
NOW = 1000.0


def kinds(screen):
    return [type(s).__name__ for s in screen.sections]


def said(screen, style):
    """The text of the screen's Say sections of ``style``, parts joined."""
    return ["".join(s.parts) for s in screen.sections if isinstance(s, Say) and s.style == style]


def only(screen, kind):
    (found,) = [s for s in screen.sections if isinstance(s, kind)]
    return found


def mine_of(store, room, sid):
    """The student's own part, as the phone's view reads it from the store."""
    return Mine(
        store.my_answer(room.code, sid),
        tuple(store.my_answers(room.code, sid).items()),
        store.my_confidence(room.code, sid),
    )


def phone_of(store, code, sid, question=QUESTION, now=NOW):
    room = store.room(code)
    return phone(room, question, mine_of(store, room, sid), store.rounds_summary(code), now)


def projector_of(store, code, question=QUESTION, now=NOW):
    return projector(store.room(code), question, store.rounds_summary(code), now)


@pytest.fixture
def room():
    """(store, code, key): a room with the default example and three students in it."""
    store = MemoryStore()
    opened, key = store.open(settings_query(Settings()), "lecturer")
    for sid in SIDS:
        store.join(opened.code, sid)
    return store, opened.code, key


def ask(store, code, key, rounds):
    store.push_question(code, key, 0, QUESTION.kind, M, rounds=rounds, right=RIGHT)


def answer(store, code, taps):
    for sid, k in zip(SIDS, taps, strict=True):
        if k is not None:
            store.answer(code, sid, k)


def test_no_question_yet(room):
    store, code, _ = room
    screen = projector_of(store, code, question=None)
    assert screen.prompt.parts[0].startswith("Choose a question below")
    assert (screen.asked, screen.steps, screen.reveal, screen.status) == (None, (), None, None)
    assert screen.choose_open and not screen.next_primary and not screen.proof
    assert screen.sketch is None
    shown = phone_of(store, code, "s1", question=None)
    assert shown.title == f"Room {code}"
    assert kinds(shown) == ["Say", "RoomExample", "Button"]
    assert said(shown, "info") == [
        "You are in. The question appears here when the lecturer asks it."
    ]
    assert shown.sections[-1].action == "lost"


def test_one_vote_while_the_class_answers(room):
    store, code, key = room
    ask(store, code, key, rounds=1)
    screen = projector_of(store, code)
    assert screen.asked == Asked(1, QUESTION.text) and screen.options.options == QUESTION.options
    assert screen.options.letters == tuple("ABCDEFGH"[:M])
    assert screen.title is None and screen.status == Count("Answered") and screen.countdown == ()
    assert screen.steps == (Button("Reveal", "reveal", "cls_reveal", primary=True),)
    before = phone_of(store, code, "s1")
    assert kinds(before) == ["Asked", "Options", "Say", "RoomExample", "Button"]
    assert said(before, "caption") == [
        "Tap your answer. The class's answers are shown after the reveal."
    ]
    store.answer(code, "s1", 2)
    store.confide(code, "s1", 1)
    after = phone_of(store, code, "s1")
    assert kinds(after) == ["Asked", "Options", "Say", "Sure", "RoomExample", "Button"]
    assert only(after, Options).chosen == 2
    assert said(after, "success") == ["Your answer: C, you can change it until the reveal."]
    assert only(after, Sure) == Sure(CONFIDENCE, 1)


def test_one_vote_revealed(room):
    store, code, key = room
    ask(store, code, key, rounds=1)
    answer(store, code, (RIGHT, (RIGHT + 1) % M, None))
    store.reveal(code, key)
    screen = projector_of(store, code)
    counts = tuple(np.bincount([RIGHT, (RIGHT + 1) % M], minlength=M))
    assert screen.reveal == Reveal(None, None, None, (AnswerBars("dist", counts),))
    assert screen.reveal.wide and screen.proof and screen.next_primary
    assert screen.steps == (Button("Twin question", "twin", "cls_twin"),)  # after one vote
    right, wrong, silent = (phone_of(store, code, sid) for sid in SIDS)
    assert said(right, "success") == [f"Your answer {letter(RIGHT)} is right."]
    wrong_text = f"Your answer was {letter((RIGHT + 1) % M)}; the right answer is {letter(RIGHT)}."
    assert said(wrong, "warning") == [wrong_text]
    assert said(silent, "info") == ["You did not answer this one."]
    assert kinds(silent) == [
        "Asked",
        "Say",
        "Reveal",
        "Proof",
        "RoomExample",
        "Button",
    ]  # no rounds
    assert only(silent, Proof) == Proof(letter(RIGHT), QUESTION.answer, QUESTION.explanation)


def test_round_one_then_its_end(room):
    store, code, key = room
    ask(store, code, key, rounds=2)
    screen = projector_of(store, code)
    assert screen.title == "Round 1 of 2: vote alone" and screen.status == Count("Answered")
    assert [(b.label, b.key, b.primary) for b in screen.steps] == [
        ("End round 1", "cls_step", True),
        ("Reveal now", "cls_reveal", False),
    ]
    answer(store, code, (FIRST[0], None, None))
    assert "the lecturer ends the round" in said(phone_of(store, code, "s1"), "success")[0]
    store.end_round(code, key)
    screen = projector_of(store, code)
    assert screen.status == Say("info", ("Round 1 has ended: its answers are locked.",))
    assert screen.steps[0].action == "discuss" and screen.steps[1].label == "Reveal now"
    assert screen.countdown == tuple(s // 60 for s in DISCUSS_CHOICES_SECONDS)
    locked = phone_of(store, code, "s1")
    assert kinds(locked) == ["Asked", "Say", "Say", "RoomExample", "Button"]  # no options
    assert locked.sections[1] == Say("info", ("Round 1 has ended.",), "🔒")
    assert said(locked, "caption") == [
        f"Your answer: {letter(FIRST[0])}. Nobody sees the class's answers until the reveal."
    ]
    assert said(phone_of(store, code, "s2"), "caption") == []  # answered nothing


@pytest.mark.parametrize("seconds", DISCUSS_CHOICES_SECONDS)
def test_the_discussion(room, seconds):
    store, code, key = room
    ask(store, code, key, rounds=2)
    store.clock = lambda: NOW
    store.end_round(code, key)
    store.discuss(code, key, seconds)
    screen = projector_of(store, code, now=NOW + 30)
    shown = only(phone_of(store, code, "s1", now=NOW + 30), Discussion)
    assert screen.status == shown and screen.title == DISCUSS == shown.title
    assert screen.steps[0].label == "Round 2" and screen.countdown == ()
    if seconds:
        minutes = seconds // 60
        assert shown == Discussion(
            DISCUSS,
            f"About {minutes} minute{'s' if minutes != 1 else ''}: the bar shows the time left.",
            seconds,
            seconds - 30,
        )
    else:
        assert shown.left is None and shown.sentence.startswith("Convince your neighbour")


def test_round_two_shows_each_their_own_first_answer(room):
    store, code, key = room
    ask(store, code, key, rounds=2)
    answer(store, code, (FIRST[0], FIRST[1], None))
    store.end_round(code, key)
    store.second_round(code, key)
    screen = projector_of(store, code)
    assert screen.title == "Round 2 of 2: vote again"
    assert [b.label for b in screen.steps] == ["End round 2", "Reveal now"]
    first = phone_of(store, code, "s1")
    assert first.sections[1] == Say(
        "caption",
        (
            "In round 1 you answered ",
            letter(FIRST[0]),
            ". Answer again: the same answer, or another.",
        ),
    )
    assert only(first, Options).chosen is None  # round 2 starts with no answer
    silent = phone_of(store, code, "s3")
    assert silent.sections[1].parts == (
        "In round 1 you did not answer. Answer again: the same answer, or another.",
    )
    unknown = phone(store.room(code), QUESTION, Mine(answers=None))  # the store could not say
    assert kinds(unknown)[:2] == ["Asked", "Options"]


def two_rounds_revealed(store, code, key):
    ask(store, code, key, rounds=2)
    answer(store, code, FIRST)
    store.confide(code, "s1", 2)  # sure (and wrong) in round 1
    store.end_round(code, key)
    store.discuss(code, key, 0)
    store.second_round(code, key)
    answer(store, code, SECOND)
    store.confide(code, "s3", 2)  # sure and wrong in round 2
    store.confide(code, "s2", 0)  # guessing and right
    store.end_round(code, key)
    store.reveal(code, key)


def test_both_rounds_revealed(room):
    store, code, key = room
    two_rounds_revealed(store, code, key)
    screen = projector_of(store, code)
    assert screen.title == "Both rounds revealed"
    assert screen.steps == (Button("Twin question", "twin", "cls_twin", primary=True),)
    moves = tuple(transitions(dict(enumerate(FIRST)), dict(enumerate(SECOND))))
    counts1, counts2 = (tuple(np.bincount(taps, minlength=M)) for taps in (FIRST, SECOND))
    shares = (sum(k == RIGHT for k in FIRST) / 3, sum(k == RIGHT for k in SECOND) / 3)
    assert screen.reveal == Reveal(
        moves_sentence(moves, RIGHT),
        f"Right answers: round 1 {percent(shares[0])}, round 2 {percent(shares[1])}.",
        ("", "1", " was sure and wrong in round 2."),
        (
            RoundsBars("rounds", counts1, counts2, RIGHT),
            MovesChart("moves", M, moves, RIGHT),
            SharesChart("shares", ("round 1", "round 2"), shares),
            ConfidenceChart("conf", ((0, 1, 0), (1, 0, 0), (2, 0, 1)), "round 2"),
        ),
    )
    assert not screen.reveal.wide
    shown = phone_of(store, code, "s1")
    assert kinds(shown) == ["Asked", "Say", "Say", "Reveal", "Proof", "RoomExample", "Button"]
    assert only(shown, Reveal) == screen.reveal  # the phones see what the projector shows
    mark = lambda k: letter(k) + (" ✓" if k == RIGHT else " ✗")  # noqa: E731
    assert said(shown, "text") == [
        f"Your answers: round 1: {mark(FIRST[0])} · round 2: {mark(SECOND[0])}"
    ]


def test_a_store_that_cannot_give_the_class_answers_says_so_in_their_place(room):
    store, code, key = room
    two_rounds_revealed(store, code, key)
    problem = Say("warning", ("The shared store cannot be reached.",), "📡")
    shown = phone(store.room(code), QUESTION, Mine(RIGHT, None), None, NOW, problem)
    assert kinds(shown) == ["Asked", "Say", "Say", "Proof", "RoomExample", "Button"]
    assert shown.sections[2] == problem


def test_reveal_now_in_round_one(room):
    store, code, key = room
    ask(store, code, key, rounds=2)
    answer(store, code, FIRST)
    store.reveal(code, key)
    screen = projector_of(store, code)
    assert screen.title == "Round 1 revealed"  # not "both": round 2 was never taken
    assert screen.reveal.charts == (AnswerBars("dist", tuple(np.bincount(FIRST, minlength=M))),)
    assert [b.action for b in screen.steps] == ["twin"]
    line = my_rounds(store.room(code), {1: FIRST[0]})
    assert line == ("Your answers: round 1: ", f"{letter(FIRST[0])} ✗", "")


def test_the_twin_and_its_reveal(room):
    store, code, key = room
    two_rounds_revealed(store, code, key)
    store.twin(code, key, TWIN_SEED, len(TWIN.options), TWIN.answer_index, TWIN_EXAMPLE)
    screen = projector_of(store, code, question=TWIN)
    assert screen.title.startswith("The twin") and screen.asked == Asked(1, TWIN.text)
    assert screen.steps == (Button("Reveal the twin", "reveal", "cls_reveal", primary=True),)
    taps = (TWIN.answer_index, TWIN.answer_index, None)
    answer(store, code, taps)
    asked = phone_of(store, code, "s3", question=TWIN)
    assert only(asked, Options).options == TWIN.options and only(asked, Options).chosen is None
    store.reveal(code, key)
    screen = projector_of(store, code, question=TWIN)
    counts = tuple(np.bincount(taps[:2], minlength=len(TWIN.options)))
    assert screen.reveal.charts[0] == AnswerBars("twin", counts)
    labels = tuple(ROUND_NAMES.values())
    assert screen.reveal.charts[1] == SharesChart("shares", labels, (1 / 3, 2 / 3, 1.0))
    assert screen.reveal.shares == "Right answers: round 1 33 %, round 2 67 %, the twin 100 %."
    assert screen.reveal.sure_wrong is None  # nobody tapped how sure in the twin
    assert screen.steps == ()  # the question is done
    shown = phone_of(store, code, "s1", question=TWIN)
    assert said(shown, "text")[0].endswith(f"the twin: {letter(TWIN.answer_index)} ✓")


def test_look_at_the_projector_and_im_lost(room):
    store, code, key = room
    ask(store, code, key, rounds=1)
    assert projector_of(store, code).blank == Button(
        "Phones: look at the projector", "blank", "cls_blank", value=1
    )
    store.blank(code, key, True)
    assert projector_of(store, code).blank.label == "Show the phones the room again"
    assert projector_of(store, code).blank.value == 0
    shown = phone_of(store, code, "s1")
    assert kinds(shown) == ["Say", "Say", "Button"]  # no question, no options
    assert shown.sections[0] == Say("heading", ("👀 Look at the projector",))
    assert lost_line(3, 2) == ('"I\'m lost" in the last 2 minutes: ', "3", "")
    assert lost_said(True) != lost_said(False) and "(not who)" in lost_said(True)


def test_a_closed_room_and_an_ended_one(room):
    store, code, key = room
    ask(store, code, key, rounds=1)
    store.close(code, key)
    record = store.record(code)
    shown = phone(record, QUESTION)
    assert kinds(shown) == ["Say", "Button"] and shown.sections[1].action == "leave"
    ended = phone_ended(code, "Room X has ended.", record)
    assert kinds(ended) == ["Say", "Say", "JoinForm"] and ended.follow
    assert said(ended, "caption")[0].startswith("If the lecturer opens a new room from this one")
    lost = phone_ended(code, "This room has ended.", None)
    assert not lost.follow and lost.sections[-1] == JoinForm()
    assert said(lost, "caption") == ["Join the lecturer's new room with the code on the projector:"]


@pytest.mark.parametrize("may_reopen", [True, False])
def test_the_lecturers_ended_room(may_reopen):
    page = lecturer_ended("K7QX4M", "Room K7QX4M has ended: the lecturer closed it.", may_reopen)
    assert page.title == "Room K7QX4M" and kinds(page) == ["Say", "Button", "Say", "Button"]
    again, back = page.sections[1], page.sections[3]
    assert again.action == ("reopen" if may_reopen else "open") and again.primary
    assert ("same example and question" in again.label) == may_reopen
    assert (back.action, back.key, back.primary) == ("forget", "cls_forget", False)


SKETCH = sketch_question(Settings(), "causal", 3)
LEVELS = ((0, 5, 1, 2, 0, 0), (1, 1, 1, 1, 0, 0))


def test_a_sketch_asked_sent_and_revealed(room):
    store, code, key = room
    store.push_question(code, key, 0, sketch_kind("causal", 3), SKETCH.n)
    opened = store.room(code)
    board = sketch_projector(opened, SKETCH)
    assert board.asked == SketchAsked(1, SKETCH.text) and board.count == Count("Sketched")
    assert board.steps == (Button("Reveal", "reveal", "cls_sk_reveal", primary=True),)
    assert board.board == "snapshots" and board.problem is None
    screen = projector(opened, None, sketch=SKETCH)
    assert screen.prompt is None and screen.sketch == board  # the sketch's own column
    assert kinds(sketch_phone(opened, SKETCH)) == ["SketchAsked", "SketchInput", "Button"]
    store.answer_sketch(code, "s1", LEVELS[0])
    store.answer_sketch(code, "s2", LEVELS[1])
    sent = sketch_phone(opened, SKETCH, Mine(sketch=LEVELS[0]))
    assert only(sent, SketchInput).locked == LEVELS[0]
    assert said(sent, "success")[0].startswith("Sketch sent. It is locked")
    store.reveal(code, key)
    revealed = store.room(code)
    assert sketch_projector(revealed, SKETCH).board == "result"
    sketches = store.sketches(code)
    mine = sketch_phone(revealed, SKETCH, Mine(sketch=LEVELS[0]), sketches)
    assert only(mine, SketchMine) == SketchMine(LEVELS[0])
    sentence = sketch_sentence(class_summary(SKETCH, sketches))
    assert mine.sections[-2] == Say("text", (sentence,), quotes=True)  # it quotes tokens
    none = sketch_phone(revealed, SKETCH, Mine(), sketches)
    assert said(none, "info") == ["You did not sketch this row."]


def test_a_sketch_that_cannot_be_asked(room):
    store, code, key = room
    store.push_question(code, key, 0, sketch_kind("causal", 3), SKETCH.n)
    opened = store.room(code)
    assert sketch_projector(opened, None).problem.style == "warning"
    assert said(sketch_phone(opened, None), "info") == [
        "The lecturer's question cannot be shown on this example."
    ]
    store.blank(code, key, True)
    assert kinds(sketch_phone(store.room(code), SKETCH)) == ["Say", "Say", "Button"]


def test_every_phone_screen_is_plain_json(room):
    store, code, key = room
    two_rounds_revealed(store, code, key)
    screens = [phone_of(store, code, sid) for sid in SIDS]
    screens.append(sketch_phone(store.room(code), SKETCH, Mine(sketch=LEVELS[0])))
    screens.append(phone_ended(code, "Room X has ended.", None))
    for screen in screens:
        data = json.loads(json.dumps(to_data(screen)))
        assert data["type"] == "Phone" and data["title"] == f"Room {code}"
        assert [s["type"] for s in data["sections"]] == kinds(screen)
    reveal = to_data(only(screens[0], Reveal))
    assert [c["type"] for c in reveal["charts"]] == [
        "RoundsBars",
        "MovesChart",
        "SharesChart",
        "ConfidenceChart",
    ]
    assert reveal["charts"][1]["moves"] == [
        list(m) for m in only(screens[0], Reveal).charts[1].moves
    ]


def test_options_and_examples_sections_are_what_the_phone_draws():
    assert to_data(RoomExample()) == {"type": "RoomExample"}
    assert to_data(Options(("A",), ("x",), None)) == {
        "type": "Options",
        "letters": ["A"],
        "options": ["x"],
        "chosen": None,
    }


@pytest.mark.usefixtures("empty_rooms")
def test_phone_screen_reads_each_students_part_from_the_servers_store():
    store = ROOM_STORE.get()
    opened, key = store.open(settings_query(Settings()), "lecturer")
    code = opened.code
    for sid in SIDS:
        store.join(code, sid)
    two_rounds_revealed(store, code, key)
    for sid in SIDS:
        screen, question, refusals = phone_screen(store.room(code), sid, NOW)
        assert question == QUESTION and refusals == ()
        assert screen == phone_of(store, code, sid)
    store.push_question(code, key, 0, sketch_kind("causal", 3), SKETCH.n)
    store.answer_sketch(code, "s1", LEVELS[0])
    screen, question, _ = phone_screen(store.room(code), "s1", NOW)
    assert question == SKETCH and screen == sketch_phone(
        store.room(code), SKETCH, Mine(sketch=LEVELS[0])
    )
    store.blank(code, key, True)
    screen, question, _ = phone_screen(store.room(code), "s1", NOW)
    assert question is None and screen.sections[0].parts == ("👀 Look at the projector",)


@pytest.mark.usefixtures("empty_rooms")
def test_answers_read_while_the_room_moves_on_are_not_kept(monkeypatch):
    store = ROOM_STORE.get()
    opened, key = store.open(settings_query(Settings()), "lecturer")
    for sid in SIDS:
        store.join(opened.code, sid)
    two_rounds_revealed(store, opened.code, key)
    revealed = store.room(opened.code)
    assert own_answers(store, revealed, "s1") == store.my_answers(opened.code, "s1") != {}
    real = type(store).closed_answers

    def then_a_new_question(self, code, room=None):
        read = real(self, code, room)
        store.push_question(code, key, 0, QUESTION.kind, len(QUESTION.options))
        return read

    monkeypatch.setattr(type(store), "closed_answers", then_a_new_question)
    closed_answers.forget()
    # the phone's read of the room is the reveal's; the store's answers now the new question's
    assert own_answers(store, revealed, "s1") == store.my_answers(opened.code, "s1") == {}
    assert closed_answers.peek(revealed) is None


@pytest.mark.usefixtures("empty_rooms")
def test_a_rooms_example_is_read_from_its_text_once(monkeypatch):
    from attnviz.serve import classroom as served

    reads = []
    real = served.from_query
    monkeypatch.setattr(served, "from_query", lambda q: reads.append(q) or real(q))
    served.example_settings.forget()
    store = ROOM_STORE.get()
    wide = Settings(d_k=7, text="a b c")
    opened, key = store.open(settings_query(wide), "lecturer")
    for _ in range(3):
        assert served.room_settings(store.room(opened.code)) == wide
    assert len(reads) == 1  # kept on the room's text for every view and phone
    store.push_example(opened.code, key, settings_query(Settings(d_model=100)))  # over 64
    assert served.room_settings(store.room(opened.code)) == Settings()  # what a room can show
    assert len(reads) == 2
