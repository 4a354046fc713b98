"""What the Classroom's projector shows in each phase of a room, and the parts a phone shares
with it (the reveal, the discussion, the round's title), decided from the room, the numbers of
its current question (``rounds.summary``) and the student's own answers. Pure: no store, no
Streamlit, no Plotly. The views (``ui/pages/classroom_*``) only draw it; what a phone shows is
``classroom.screens_phone``'s.

    projector(room, question, summary, now)             -> Projector   the lecturer's page
    reveal(room, summary)                               -> Reveal      the class's answers
    sketch_projector(room, sketch)                      -> SketchBoard
    lecturer_ended(code, reason, may_reopen)            -> Page        a room that has ended

The phases: no question; a vote (one round, or round 1 of vote, discuss, revote); round ended;
the discussion; round 2; the reveal (one vote's bars, or both rounds and who moved where, the
right share per round and confidence); the twin and its reveal; a sketch asked, sketched and
revealed; the phones blanked ("Look at the projector"); the room closed or ended.

Every screen is plain data (``classroom.sections``: frozen dataclasses of str, int, float,
bool, None and tuples), so that the same screen can be sent as JSON to a client without
Streamlit: ``sections.to_data(...)``. A page's sections are drawn in order.
"""

from attnviz.classroom.peer import TWIN
from attnviz.classroom.questions import letter
from attnviz.classroom.rounds import (
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
    MovesChart,
    Options,
    Page,
    Projector,
    Reveal,
    RoundsBars,
    Say,
    SharesChart,
    SketchAsked,
    SketchBoard,
)
from attnviz.classroom.sketch import is_sketch
from attnviz.limits import DISCUSS_CHOICES_SECONDS

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


def round_of(room):
    """ "Round 1 of 2: vote alone", "Round 2 of 2: vote again" or the twin's title: the round
    being asked in ``room`` (None: a question of one vote)."""
    peer = room.peer
    if peer.round_no == TWIN:
        return "The twin: the same kind of question on new numbers (new weights), answered alone"
    if peer.rounds != 2:
        return None
    return {1: "Round 1 of 2: vote alone", 2: "Round 2 of 2: vote again"}[peer.round_no]


def round_title(room):
    """The projector's title of a peer-instruction question: the round (``round_of``), the
    discussion, or what is revealed."""
    peer = room.peer
    if peer.round_no != TWIN and room.phase == "discussing":
        return DISCUSS
    if peer.round_no != TWIN and room.phase == "revealed":  # round 1's after "Reveal now"
        return "Both rounds revealed" if peer.round_no == 2 else "Round 1 revealed"
    return round_of(room)


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


def options(question, chosen=None):
    n = len(question.options)
    return Options(tuple(letter(k) for k in range(n)), tuple(question.options), chosen)


def round_ended(room):
    """ "Round 1 has ended" and the like (no full stop)."""
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
        status = Say("info", (f"{round_ended(room)}: its answers are locked.",))
    elif asked and phase == "discussing":
        status = discussion(room, now)
    blank = room.peer.blank
    return Projector(
        reveal=reveal(room, summary) if asked and phase == "revealed" else None,
        asked=Asked(room.question_no, question.text) if asked else None,
        options=options(question) if asked else None,
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
