"""What the Classroom's projector and a phone show in each phase of a room, decided from the room,
the numbers of its current question (``rounds.summary``) and the student's own answers. Pure:
no store, no Streamlit, no Plotly. The views (``ui/pages/classroom_*``) only draw it.

    projector(room, question, summary, now)             -> Projector   the lecturer's page
    phone(room, question, mine, summary, now, problem)  -> Phone       a student's page
    reveal(room, summary)                               -> Reveal      the class's answers
    sketch_phone(room, sketch, mine, sketches)          -> Phone       a "sketch the row" room
    sketch_projector(room, sketch)                      -> SketchBoard
    phone_ended(code, reason, record)                   -> Phone       a room that has ended
    lecturer_ended(code, reason, may_reopen)            -> Page        ... for its lecturer

The phases: no question; a vote (one round, or round 1 of vote, discuss, revote); round ended;
the discussion; round 2; the reveal (one vote's bars, or both rounds and who moved where, the
right share per round and confidence); the twin and its reveal; a sketch asked, sketched and
revealed; the phones blanked ("Look at the projector"); the room closed or ended.

Every screen is plain data (``classroom.sections``: frozen dataclasses of str, int, float,
bool, None and tuples), so that the same phone screen can be sent as JSON to a phone client
without Streamlit: ``sections.to_data(phone(...))``. A page's sections are drawn in order.
``serve.classroom.phone_screen(room, sid, now)`` reads a student's part from the store and
makes their phone's screen, for the Classroom page and for any other client alike.
"""

from attnviz.classroom.peer import TWIN
from attnviz.classroom.questions import ANSWER_IN_A, letter
from attnviz.classroom.rounds import (
    CONFIDENCE,
    ROUND_NAMES,
    countdown_left,
    moves_sentence,
    next_step,
    percent,
    round_key,
    sure_but_wrong,
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
    Page,
    Phone,
    Projector,
    Proof,
    Reveal,
    RoomExample,
    RoundsBars,
    Say,
    SharesChart,
    SketchAsked,
    SketchBoard,
    SketchInput,
    SketchMine,
    Sure,
)
from attnviz.classroom.sketch import class_summary, is_sketch
from attnviz.lessons.sketch import sentence as sketch_sentence
from attnviz.limits import DISCUSS_CHOICES_SECONDS

LOOK_UP = "Look at the projector"
DISCUSS = "Discuss with your neighbour"
STEP_KEYS = {"reveal": "cls_reveal", "twin": "cls_twin"}  # the other steps: cls_step


def is_peer(room):
    """Whether the room's question is a peer-instruction one (two rounds, or its twin)."""
    return room.peer.rounds == 2 or room.peer.round_no == TWIN


def _freeze(value):
    return tuple(tuple(v) if isinstance(v, list | tuple) else v for v in value)


def _taken(summary):
    """((round_no, the round's numbers), ...) of the rounds taken, in order (rounds.summary)."""
    return tuple((r, summary[round_key(r)]) for r in ROUND_NAMES if round_key(r) in summary)


def reveal(room, summary):
    """The Reveal of the room's question from its ``summary`` (None before a question): one
    vote's bars; with two rounds, both side by side and who moved where with its sentence; the
    twin's bars in the twin; the right share per round when more than one was taken; how sure
    the last round's answers were (the twin's in the twin), sure but wrong first."""
    if summary is None:
        return None
    peer, taken = room.peer, _taken(summary)
    rounds = dict(taken)
    moves_text, charts = None, []
    if peer.round_no == TWIN:
        charts.append(AnswerBars("twin", tuple(rounds[TWIN]["counts"])))
    elif peer.rounds == 2 and 2 in rounds:
        moves = _freeze(summary.get("moves", ()))
        counts1, counts2 = tuple(rounds[1]["counts"]), tuple(rounds[2]["counts"])
        moves_text = moves_sentence(moves, peer.right)
        charts.append(RoundsBars("rounds", counts1, counts2, peer.right))
        charts.append(MovesChart("moves", len(counts1), moves, peer.right))
    else:
        charts.append(AnswerBars("dist", tuple(rounds[1]["counts"])))
    shares_text = sure_wrong = None
    if len(taken) > 1:
        labels = tuple(ROUND_NAMES[r] for r, _ in taken)
        shares = tuple(numbers["right_share"] for _, numbers in taken)
        said = ", ".join(f"{label} {percent(s)}" for label, s in zip(labels, shares, strict=True))
        shares_text = f"Right answers: {said}."
        charts.append(SharesChart("shares", labels, shares))
    last = TWIN if peer.round_no == TWIN else max(r for r in rounds if r != TWIN)
    table = _freeze(rounds[last]["confidence"])
    if any(r + w for _, r, w in table):
        wrong = sure_but_wrong(table)
        verb = "was" if wrong == 1 else "were"
        sure_wrong = ("", str(wrong), f" {verb} sure and wrong in {ROUND_NAMES[last]}.")
        charts.append(ConfidenceChart("conf", table, ROUND_NAMES[last]))
    return Reveal(moves_text, shares_text, sure_wrong, tuple(charts))


def round_title(room):
    """ "Round 1 of 2: vote alone" and the like."""
    peer = room.peer
    if peer.round_no == TWIN:
        return "The twin: the same kind of question on new numbers (new weights), answered alone"
    if room.phase == "discussing":
        return DISCUSS
    if room.phase == "revealed":  # round 1's after "Reveal now"
        return "Both rounds revealed" if peer.round_no == 2 else "Round 1 revealed"
    return {1: "Round 1 of 2: vote alone", 2: "Round 2 of 2: vote again"}[peer.round_no]


def discussion(room, now):
    """The Discussion section at ``now`` (seconds since the epoch)."""
    left = countdown_left(room, now)
    total = room.peer.discuss_seconds
    if left is None:
        return Discussion(
            DISCUSS, "Convince your neighbour of your answer, or be convinced.", 0, None
        )
    minutes = total // 60
    plural = "s" if minutes != 1 else ""
    return Discussion(
        DISCUSS, f"About {minutes} minute{plural}: the bar shows the time left.", total, left
    )


def _options(question, chosen=None):
    n = len(question.options)
    return Options(tuple(letter(k) for k in range(n)), tuple(question.options), chosen)


def _ended(room):
    return f"{ROUND_NAMES[room.peer.round_no].capitalize()} has ended"


def steps(room):
    """The lecturer's buttons for the question's rounds: the next step (primary), and "Reveal
    now" beside a step before the reveal, or "Twin question" after one vote's reveal."""
    step, peer = next_step(room), room.peer
    found = []
    if step is not None:
        name, label = step
        found.append(Button(label, name, STEP_KEYS.get(name, "cls_step"), primary=True))
        if name in ("end_round", "discuss", "second_round") and peer.round_no != TWIN:
            found.append(Button("Reveal now", "reveal", "cls_reveal"))
    elif room.phase == "revealed" and peer.round_no != TWIN:
        found.append(Button("Twin question", "twin", "cls_twin"))
    return tuple(found)


def projector(room, question, summary=None, now=0.0, sketch=None):
    """The lecturer's Projector for ``room`` with its current ``question`` (lessons' Question,
    the twin's in the twin; None: none asked, a sketch, or not askable), ``summary`` (needed at
    a reveal), the time ``now`` (the discussion's countdown) and in a sketch room its
    ``sketch`` (the SketchQuestion, None when it cannot be asked)."""
    phase, asked = room.phase, question is not None
    step = next_step(room) if asked else None
    status = None
    if asked and phase == "answering":
        status = Count("Answered")
    elif asked and phase == "locked":
        status = Say("info", (f"{_ended(room)}: its answers are locked.",))
    elif asked and phase == "discussing":
        status = discussion(room, now)
    blank = room.peer.blank
    return Projector(
        reveal=reveal(room, summary) if asked and phase == "revealed" else None,
        asked=Asked(room.question_no, question.text) if asked else None,
        options=_options(question) if asked else None,
        prompt=None
        if asked or is_sketch(room.kind)
        else Say("info", ("Choose a question below: the phones show it as soon as it is asked.",)),
        title=round_title(room) if asked and is_peer(room) else None,
        status=status,
        countdown=tuple(s // 60 for s in DISCUSS_CHOICES_SECONDS)
        if step is not None and step[0] == "discuss"
        else (),
        steps=steps(room) if asked else (),
        sketch=sketch_projector(room, sketch) if is_sketch(room.kind) else None,
        proof=asked and phase == "revealed",
        next_primary=phase == "revealed",
        choose_open=not asked,
        blank=Button(
            "Show the phones the room again" if blank else "Phones: look at the projector",
            "blank",
            "cls_blank",
            value=int(not blank),
        ),
    )


def lost_line(count, minutes):
    """The lecturer's "I'm lost" count of the last ``minutes``, as parts."""
    return (f'"I\'m lost" in the last {minutes} minutes: ', str(count), "")


def lost_said(counted):
    """What a phone's "I'm lost" says back: ``counted`` (once a minute) or not."""
    if counted:
        return "The lecturer sees that someone is lost (not who)."
    return "Already said in the last minute: the lecturer sees it."


LOST = Button("😵 I'm lost", "lost", "cls_lost")
LEAVE = Button("Join another room", "leave", "cls_leave")


def phone(room, question, mine=None, summary=None, now=0.0, problem=None):
    """A student's Phone in ``room`` (not a sketch: ``sketch_phone``) with the round's
    ``question`` (None: none asked or not askable), the student's own part ``mine``, the
    question's ``summary`` (needed at a reveal), the time ``now``, and ``problem``: the store's
    Say when it could not give the class's answers at the reveal (drawn in their place)."""
    title, mine = f"Room {room.code}", mine or Mine()
    if room.closed:
        closed = "The lecturer has closed this room. Thank you for taking part!"
        return Phone(title, (Say("info", (closed,), "👋"), LEAVE))
    if room.peer.blank:
        explaining = "The lecturer is explaining: your phone shows the room again afterwards."
        sections = [Say("heading", (f"👀 {LOOK_UP}",)), Say("caption", (explaining,))]
    elif question is None:
        waiting = "You are in. The question appears here when the lecturer asks it."
        sections = [Say("info", (waiting,), "⏳"), RoomExample()]
    else:
        sections = [Asked(room.question_no, question.text)]
        if room.phase == "answering":
            sections += _answering(room, question, mine)
        elif room.phase == "revealed":
            sections += _revealed(room, question, mine, summary, problem)
        else:
            sections += _waiting(room, mine, now)
        if room.phase == "revealed" or question.kind not in ANSWER_IN_A:  # A would answer it
            sections.append(RoomExample())
    return Phone(title, (*sections, LOST))


def _answering(room, question, mine):
    found = []
    answers = None if mine.answers is None else dict(mine.answers)
    if room.peer.round_no == 2 and answers is not None:  # the student's own, to them only
        again = ". Answer again: the same answer, or another."
        first = answers.get(1)
        parts = (
            (f"In round 1 you did not answer{again}",)
            if first is None
            else ("In round 1 you answered ", letter(first), again)
        )
        found.append(Say("caption", parts))
    found.append(_options(question, mine.answer))
    if mine.answer is None:
        tap = "Tap your answer. The class's answers are shown after the reveal."
        found.append(Say("caption", (tap,)))
        return found
    until = "the lecturer ends the round" if is_peer(room) else "the reveal"
    parts = ("Your answer: ", letter(mine.answer), f", you can change it until {until}.")
    found.append(Say("success", parts, "✅"))
    found.append(Sure(CONFIDENCE, mine.confidence))
    return found


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


def _revealed(room, question, mine, summary, problem):
    right = letter(question.answer_index)
    if mine.answer is None:
        found = [Say("info", ("You did not answer this one.",), "🙈")]
    elif mine.answer == question.answer_index:
        found = [Say("success", (f"Your answer {letter(mine.answer)} is right.",), "✅")]
    else:
        wrong = f"Your answer was {letter(mine.answer)}; the right answer is {right}."
        found = [Say("warning", (wrong,), "🤔")]
    if is_peer(room) and mine.answers is not None:
        found.append(Say("text", my_rounds(room, dict(mine.answers))))
    if problem is not None:
        found.append(problem)
    elif summary is not None:
        found.append(reveal(room, summary))
    found.append(Proof(right, question.answer, question.explanation))
    return found


def _waiting(room, mine, now):
    """Between rounds: the discussion, or the round has ended; the student's own answer."""
    if room.phase == "discussing":
        found = [discussion(room, now)]
    else:
        found = [Say("info", (f"{_ended(room)}.",), "🔒")]
    if mine.answer is not None:
        yours = (
            f"Your answer: {letter(mine.answer)}. Nobody sees the class's answers until the reveal."
        )
        found.append(Say("caption", (yours,)))
    return found


def sketch_phone(room, sketch, mine=None, sketches=None):
    """A phone in a room asking to sketch a row: ``sketch`` the SketchQuestion (None: not
    askable on the room's example), ``mine.sketch`` the phone's, ``sketches`` every phone's
    (levels; at the reveal: the class's sentence, or None when the store could not say)."""
    title, mine = f"Room {room.code}", mine or Mine()
    if room.closed or room.peer.blank:
        return phone(room, None, mine)
    if sketch is None:
        cannot = "The lecturer's question cannot be shown on this example."
        return Phone(title, (Say("info", (cannot,), "🤷"), LOST))
    sections = [SketchAsked(room.question_no, sketch.text)]
    if room.phase == "answering":
        sections.append(SketchInput(locked=mine.sketch))
        if mine.sketch is not None:
            sent = "Sketch sent. It is locked: the lecturer reveals the true row."
            sections.append(Say("success", (sent,), "✅"))
    else:
        if mine.sketch is None:
            sections.append(Say("info", ("You did not sketch this row.",), "🙈"))
        else:
            sections.append(SketchMine(mine.sketch))
        if sketches is not None:
            said = sketch_sentence(class_summary(sketch, sketches))
            sections.append(Say("text", (said,), quotes=True))
    return Phone(title, (*sections, LOST))


def sketch_projector(room, sketch):
    """The lecturer's SketchBoard for ``sketch`` (None: not askable on the room's example)."""
    if sketch is None:
        cannot = "This sketch cannot be asked on the room's example: ask another."
        return SketchBoard(Say("warning", (cannot,), "🤷"), None, None, (), "")
    asked = SketchAsked(room.question_no, sketch.text)
    if room.phase == "answering":
        reveal_button = Button("Reveal", "reveal", "cls_sk_reveal", primary=True)
        return SketchBoard(None, asked, Count("Sketched"), (reveal_button,), "snapshots")
    board = "result" if room.phase == "revealed" else "snapshots"
    return SketchBoard(None, asked, None, (), board)


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


def lecturer_ended(code, reason, may_reopen):
    """The lecturer's Page of room ``code``, ended or closed: ``reason`` (lifecycle.ended_reason)
    and a new room in one click: the same example and question when the store keeps its record
    and the lecturer's key matches it (``may_reopen``: the phones follow), else the sidebar's."""
    if may_reopen:
        again = Button(
            "Open a new room with the same example and question", "reopen", "cls_reopen", True
        )
        how = "The phones still in this room move to the new one on their own."
    else:
        again = Button(
            "Open a new room with the sidebar's example", "open", "cls_reopen_sidebar", True
        )
        how = "The phones join it with its code, shown on the projector."
    back = Button("Back to the Classroom page", "forget", "cls_forget")
    return Page(f"Room {code}", (Say("info", (reason,), "🔚"), again, Say("caption", (how,)), back))
