"""What a student's phone shows in each phase of a room, decided from the room, its current
question, the numbers of the question (``rounds.summary``) and the student's own answers
(``Mine``). Pure: no store, no Streamlit, no Plotly. The one home of a phone's phases, sentences
and buttons, for both phones: the Classroom page draws the Phone (``ui/pages/classroom_*``);
the light phone page is sent the same sentences as plain text (``serve/phone.py``,
``serve/phone_state.py``: its shared part from the room, its own part from ``own_says`` and
``round_note``).

    phone(room, question, mine, summary, now, problem)  -> Phone   a student's page
    sketch_phone(room, sketch, mine, sketches)          -> Phone   a "sketch the row" room
    phone_ended(code, reason, record)                   -> Phone   a room that has ended
    own_says(room, question, mine)                      -> (Say, ...) the lines about mine
"""

from attnviz.classroom.peer import TWIN
from attnviz.classroom.questions import ANSWER_IN_A, letter
from attnviz.classroom.rounds import CONFIDENCE, ROUND_NAMES
from attnviz.classroom.screens import discussion, is_peer, options, reveal, round_ended
from attnviz.classroom.sections import (
    Asked,
    Button,
    JoinForm,
    Mine,
    Phone,
    Proof,
    RoomExample,
    Say,
    SketchAsked,
    SketchInput,
    SketchMine,
    Sure,
)
from attnviz.classroom.sketch import class_summary
from attnviz.lessons.sketch import sentence as sketch_sentence

LOOK_UP = "Look at the projector"
EXPLAINING = "The lecturer is explaining: your phone shows the room again afterwards."
CLOSED = "The lecturer has closed this room. Thank you for taking part!"
WAITING = "You are in. The question appears here when the lecturer asks it."
CANNOT = "The lecturer's question cannot be shown on this example."
SKETCH_SENT = "Sketch sent. It is locked: the lecturer reveals the true row."
NO_SKETCH = "You did not sketch this row."
LOST = Button("😵 I'm lost", "lost", "cls_lost")
LEAVE = Button("Join another room", "leave", "cls_leave")


def plain(say):
    """A Say's sentence as plain text (its parts joined, the emphasis dropped)."""
    return "".join(say.parts)


def lost_said(counted):
    """What a phone's "I'm lost" says back: ``counted`` (once a minute) or not."""
    if counted:
        return "The lecturer sees that someone is lost (not who)."
    return "Already said in the last minute: the lecturer sees it."


def phone(room, question, mine=None, summary=None, now=0.0, problem=None):
    """A student's Phone in ``room`` (not a sketch: ``sketch_phone``) with the round's
    ``question`` (None: none asked or not askable), the student's own part ``mine``, the
    question's ``summary`` (needed at a reveal), the time ``now``, and ``problem``: the store's
    Say when it could not give the class's answers at the reveal (drawn in their place)."""
    title, mine = f"Room {room.code}", mine or Mine()
    if room.closed:
        return Phone(title, (Say("info", (CLOSED,), "👋"), LEAVE))
    if room.peer.blank:
        sections = [Say("heading", (f"👀 {LOOK_UP}",)), Say("caption", (EXPLAINING,))]
    elif question is None:
        sections = [Say("info", (WAITING,), "⏳"), RoomExample()]
    else:
        sections = [Asked(room.question_no, question.text)]
        says = list(own_says(room, question, mine))
        if room.phase == "answering":
            note = round_note(room, mine)
            sections += [*([note] if note else []), options(question, mine.answer), *says]
            if mine.answer is not None:
                sections.append(Sure(CONFIDENCE, mine.confidence))
        elif room.phase == "revealed":
            sections += says
            if problem is not None or summary is not None:
                sections.append(problem if problem is not None else reveal(room, summary))
            right = letter(question.answer_index)
            sections.append(Proof(right, question.answer, question.explanation))
        else:  # between rounds: the discussion, or the round has ended
            between = Say("info", (f"{round_ended(room)}.",), "🔒")
            sections += [discussion(room, now) if room.phase == "discussing" else between, *says]
        if room.phase == "revealed" or question.kind not in ANSWER_IN_A:  # A would answer it
            sections.append(RoomExample())
    return Phone(title, (*sections, LOST))


def round_note(room, mine):
    """In round 2, the student's own round-1 answer, to them only (None in other rounds, or
    when the store could not say: ``mine.answers`` None)."""
    if room.phase != "answering" or room.peer.round_no != 2 or mine.answers is None:
        return None
    again = ". Answer again: the same answer, or another."
    first = dict(mine.answers).get(1)
    if first is None:
        return Say("caption", (f"In round 1 you did not answer{again}",))
    return Say("caption", ("In round 1 you answered ", letter(first), again))


def own_says(room, question, mine):
    """The sentences about the student's own answer ``mine`` to ``question`` in the room's
    phase: tap or change it while answering; right or wrong, and every round's, at the
    reveal; kept until the reveal between rounds."""
    if room.phase == "answering":
        if mine.answer is None:
            tap = "Tap your answer. The class's answers are shown after the reveal."
            return (Say("caption", (tap,)),)
        until = "the lecturer ends the round" if is_peer(room) else "the reveal"
        parts = ("Your answer: ", letter(mine.answer), f", you can change it until {until}.")
        return (Say("success", parts, "✅"),)
    if room.phase == "revealed":
        if mine.answer is None:
            found = [Say("info", ("You did not answer this one.",), "🙈")]
        elif mine.answer == question.answer_index:
            found = [Say("success", (f"Your answer {letter(mine.answer)} is right.",), "✅")]
        else:
            right = letter(question.answer_index)
            wrong = f"Your answer was {letter(mine.answer)}; the right answer is {right}."
            found = [Say("warning", (wrong,), "🤔")]
        if is_peer(room) and mine.answers is not None:
            found.append(Say("text", my_rounds(room, dict(mine.answers))))
        return tuple(found)
    if mine.answer is None:
        return ()
    yours = f"Your answer: {letter(mine.answer)}. Nobody sees the class's answers until the reveal."
    return (Say("caption", (yours,)),)


def my_rounds(room, answers):
    """The student's answers of every round, each marked right or not, as parts."""
    peer, parts = room.peer, ["Your answers: "]
    for r, name in ROUND_NAMES.items():
        if r > peer.round_no or (r == 2 and peer.rounds != 2):
            continue
        right = peer.twin_right if r == TWIN else peer.right
        given = answers.get(r)
        mark = "—" if given is None else letter(given) + (" ✓" if given == right else " ✗")
        parts[-1] += ("" if len(parts) == 1 else " · ") + f"{name}: "
        parts += [mark, ""]
    return tuple(parts)


def sketch_phone(room, sketch, mine=None, sketches=None):
    """A phone in a room asking to sketch a row: ``sketch`` the SketchQuestion (None: not
    askable on the room's example), ``mine.sketch`` the phone's, ``sketches`` every phone's
    (levels; at the reveal: the class's sentence, or None when the store could not say)."""
    title, mine = f"Room {room.code}", mine or Mine()
    if room.closed or room.peer.blank:
        return phone(room, None, mine)
    if sketch is None:
        return Phone(title, (Say("info", (CANNOT,), "🤷"), LOST))
    sections = [SketchAsked(room.question_no, sketch.text)]
    if room.phase == "answering":
        sections.append(SketchInput(locked=mine.sketch))
        if mine.sketch is not None:
            sections.append(Say("success", (SKETCH_SENT,), "✅"))
    else:
        if mine.sketch is None:
            sections.append(Say("info", (NO_SKETCH,), "🙈"))
        else:
            sections.append(SketchMine(mine.sketch))
        if sketches is not None:
            said = sketch_sentence(class_summary(sketch, sketches))
            sections.append(Say("text", (said,), quotes=True))
    return Phone(title, (*sections, LOST))


def phone_ended(code, reason, record):
    """A phone in room ``code``, no longer open: ``reason`` (lifecycle.ended_reason), and how
    to go on; it follows the room the lecturer reopens when the store keeps a ``record``."""
    if record is not None:
        how = (
            "If the lecturer opens a new room from this one, this page moves to it on its own. "
            "Or join the new room with the code on the projector:"
        )
    else:
        how = "Join the lecturer's new room with the code on the projector:"
    sections = (Say("error", (reason,), "🔚"), Say("caption", (how,)), JoinForm())
    return Phone(f"Room {code}", sections, follow=record is not None)
