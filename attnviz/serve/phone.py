"""What the light phone page (attnviz/web/phone) is sent: a room's shared part, the same for
every phone, made and serialised to JSON once per room state (``shared_bytes``, kept per Room:
a reveal asks 500 phones at once), and a phone's own part (its answers, and the sentences
about them), added per request. Plain data: the page puts every text in with ``textContent``,
so a token or a typed text is never markup; each chart is a finished Plotly figure with its
heading, accessible name and text alternative (the Streamlit page's words).

``phone_screen(room)`` decides what a phone shows from the room alone (pure: the screens
"look_up", "wait", "question", "sketch", "closed"); ``own_part`` the lines about the phone's
own answers. No Streamlit, no HTTP.
"""

import json

from attnviz.charts.palette import STANDARD
from attnviz.charts.style import TEXT_PX
from attnviz.classroom.lifecycle import ended_reason
from attnviz.classroom.peer import TWIN
from attnviz.classroom.questions import letter, question_of, room_settings
from attnviz.classroom.room import RoomNotFoundError
from attnviz.classroom.rounds import (
    CONFIDENCE,
    ROUND_NAMES,
    question_seed,
)
from attnviz.classroom.sketch import class_summary, is_sketch, read_kind
from attnviz.lessons import sketch
from attnviz.limits import SKETCH_LEVELS
from attnviz.serve.classroom import (
    ROOM_STORE,
    cached_room_questions,
    cached_sketch_question,
    finished_room_chart,
    room_summary,
)
from attnviz.serve.finish import kept_chart
from attnviz.serve.kept import kept
from attnviz.serve.room_charts import (
    answers_figure,
    proof_figure,
    reveal_plan,
    room_a_figure,
)
from attnviz.serve.store import object_bytes

# Questions whose answer can be read off the room's A (a row's sum, row 0 under the mask, a
# masked weight, a row's largest weight): a phone shows no A while they are asked
ANSWER_IN_A = frozenset({"row_sum", "causal_row", "masked_weight", "low_temperature"})
PHONE_CHART_HEIGHT = 260  # the class's answers on a phone (the Streamlit phone's)
DISCUSS = "Discuss with your neighbour"
LOOK_UP = "Look at the projector"
CLOSED = "The lecturer has closed this room. Thank you for taking part!"
_SERVED = []  # one entry once this process serves the light page (the App's lifespan)


def mark_light_page_served():
    """This process serves the light phone page (attnviz/web/phone): called by the App's
    lifespan, which runs only where the App is served (not in AppTest, nor on a host that runs
    the script without it)."""
    _SERVED[:] = [True]


def light_page_served():
    """Whether this process serves the light phone page: the join link then points at it."""
    return bool(_SERVED)


def chart(finished):
    """A finished chart (serve.finish.finished's tuple) as plain data."""
    spec, title, alt, words = finished
    return {"spec": spec, "title": title, "alt": alt, "words": words}


def option_line(k, option):
    """'B · 6 × 4': an option's letter and its text as typed (plain text)."""
    return f"{letter(k)} · {option}"


def phone_screen(room):
    """Which screen a phone shows in ``room`` (a Room): "closed", "look_up", "sketch", "wait"
    (no question yet) or "question"."""
    if room.closed:
        return "closed"
    if room.peer.blank:
        return "look_up"
    if is_sketch(room.kind):
        return "sketch"
    return "wait" if room.kind is None else "question"


def room_question(room):
    """The room's current Question (the twin's in the twin round), or None."""
    if room.kind is None or is_sketch(room.kind):
        return None
    question = question_of(
        cached_room_questions(room_settings(room), question_seed(room)), room.kind
    )
    return question if question is not None and len(question.options) == room.n_options else None


def room_sketch(room):
    """The room's SketchQuestion, or None (none asked, or not askable on its example)."""
    asked = read_kind(room.kind)
    if asked is None:
        return None
    try:
        q = cached_sketch_question(room_settings(room), *asked)
    except sketch.SketchError:
        return None
    return q if q.n == room.n_options else None


def _example(room):
    return chart(kept_chart(room_a_figure, (room_settings(room),), False, STANDARD, share=None))


def _reveal(room, question):
    """The reveal's sentences and charts, as the Streamlit phone draws them (stacked)."""
    summary = room_summary(room.code, room.version)
    if summary is None:
        return [], []
    plan = reveal_plan(room, summary, TEXT_PX)
    charts = []
    for make, args, _ in plan.charts:
        if make == "bars":
            key = (room_settings(room), question_seed(room), question.kind, tuple(args))
            made = kept_chart(
                answers_figure,
                (*key, TEXT_PX, PHONE_CHART_HEIGHT),
                False,
                STANDARD,
                share=None,
                title="The class's answers",
            )
        else:
            made = finished_room_chart(make, tuple(args), 1.0, False, STANDARD)
        charts.append(chart(made))
    return [plain for plain, _ in plan.sentences], charts


def _proof(room, question):
    """The right answer, why, its rows of A as bars and its table (cells as text)."""
    q = question
    args = (room_settings(room), question_seed(room), q.kind)
    bars = [
        chart(kept_chart(proof_figure, (*args, m), False, STANDARD)) for m in range(len(q.bars))
    ]
    table = None
    if q.table is not None:
        t = q.table
        table = {
            "index_name": str(t.index_name),
            "columns": [str(c) for c in t.columns],
            "rows": [
                [str(i), *(str(c) for c in row)] for i, row in zip(t.index, t.rows, strict=True)
            ],
        }
    return {
        "answer": "The answer: " + option_line(q.answer_index, q.answer),
        "why": "Why: " + q.explanation,
        "charts": bars,
        "table": table,
    }


def _round(room):
    """The round's title and what a phone between rounds is told."""
    peer = room.peer
    title = None
    if peer.round_no == TWIN:
        title = "The twin: the same kind of question on new numbers, answered alone"
    elif peer.rounds == 2:
        title = {1: "Round 1 of 2: vote alone", 2: "Round 2 of 2: vote again"}[peer.round_no]
    waiting = None
    if room.phase == "locked":
        waiting = f"{ROUND_NAMES[peer.round_no].capitalize()} has ended."
    return title, waiting


def _discussion(room):
    """The discussion's banner: its words and the countdown's end (epoch seconds), or None."""
    if room.phase != "discussing":
        return None
    total = room.peer.discuss_seconds
    if not room.peer.discuss_until:
        return {
            "text": DISCUSS,
            "caption": "Convince your neighbour of your answer, or be convinced.",
            "seconds": 0,
            "until": 0,
        }
    minutes = total // 60
    plural = "s" if minutes != 1 else ""
    return {
        "text": DISCUSS,
        "caption": f"About {minutes} minute{plural}: the bar shows the time left.",
        "seconds": total,
        "until": room.peer.discuss_until,
    }


def _sketch_part(room):
    q = room_sketch(room)
    if q is None:
        return {"problem": "The lecturer's question cannot be shown on this example."}
    c = q.clue
    clue = " · ".join(f"{label} {v:.2f}" for label, v in zip(c.labels, c.values, strict=True))
    part = {
        "number": room.question_no,
        "text": q.text,
        "clue": f"{c.title}: {clue}.",
        "labels": list(q.labels),
        "allowed": list(q.allowed),
        "levels": SKETCH_LEVELS,
        "masked_note": None
        if all(q.allowed)
        else "Grey keys are hidden by the causal mask: their weight is 0, fixed.",
    }
    if room.phase == "revealed":
        sketches = ROOM_STORE.get().sketches(room.code)
        part["truth"] = list(q.truth)
        part["sentence"] = sketch.sentence(class_summary(q, sketches))
    return part


def shared_part(room):
    """Everything every phone in ``room`` is shown, as plain data (see the module's doc)."""
    screen = phone_screen(room)
    part = {"screen": screen, "code": room.code, "version": room.version, "phase": room.phase}
    if screen == "closed":
        part["notice"] = CLOSED
    elif screen == "look_up":
        part["notice"] = LOOK_UP
        part["caption"] = "The lecturer is explaining: your phone shows the room again afterwards."
    elif screen == "sketch":
        part["sketch"] = _sketch_part(room)
    elif screen == "wait":
        part["notice"] = "You are in. The question appears here when the lecturer asks it."
        part["example"] = _example(room)
    else:
        question = room_question(room)
        if question is None:
            part["screen"] = "wait"
            part["notice"] = "The lecturer's question cannot be shown on this example."
            return part
        title, waiting = _round(room)
        part["question"] = {
            "number": room.question_no,
            "text": question.text,
            "options": [option_line(k, o) for k, o in enumerate(question.options)],
            "round_title": title,
            "answering": room.phase == "answering",
            "confidence": list(CONFIDENCE),
        }
        part["waiting"] = waiting
        part["discussion"] = _discussion(room)
        if room.phase == "revealed":
            part["sentences"], part["charts"] = _reveal(room, question)
            part["proof"] = _proof(room, question)
        if room.phase == "revealed" or question.kind not in ANSWER_IN_A:
            part["example"] = _example(room)
    return part


@kept(64, size=object_bytes)
def shared_bytes(room):
    """``shared_part(room)`` as JSON bytes, once per room state for every phone."""
    return json.dumps(shared_part(room), separators=(",", ":"), allow_nan=False).encode()


def own_part(store, room, sid):
    """What phone ``sid`` is shown of its own in ``room``: its answers and the lines about
    them (the Streamlit phone's words, as plain text)."""
    screen = phone_screen(room)
    if screen == "sketch":
        return _own_sketch(store, room, sid)
    if screen != "question":
        return {}
    mine = store.my_answer(room.code, sid)
    question = room_question(room)
    own = {"answer": mine, "lines": []}
    if question is None:
        return own
    lines = own["lines"]
    peer = room.peer
    peer_round = peer.rounds == 2 or peer.round_no == TWIN
    if room.phase == "answering":
        if peer.round_no == 2:
            first = store.my_answers(room.code, sid).get(1)
            said = "you did not answer" if first is None else f"you answered {letter(first)}"
            own["round_note"] = f"In round 1 {said}. Answer again: the same answer, or another."
        if mine is None:
            lines.append("Tap your answer. The class's answers are shown after the reveal.")
        else:
            until = "the lecturer ends the round" if peer_round else "the reveal"
            lines.append(f"Your answer: {letter(mine)}, you can change it until {until}.")
            own["confidence"] = store.my_confidence(room.code, sid)
    elif room.phase == "revealed":
        if mine is None:
            lines.append("You did not answer this one.")
        elif mine == question.answer_index:
            lines.append(f"Your answer {letter(mine)} is right.")
        else:
            right = letter(question.answer_index)
            lines.append(f"Your answer was {letter(mine)}; the right answer is {right}.")
        if peer_round:
            lines.append(my_rounds_line(room, store.my_answers(room.code, sid)))
    else:
        if room.phase == "locked" and mine is not None:
            own["confidence"] = store.my_confidence(room.code, sid)
        if mine is not None:
            lines.append(
                f"Your answer: {letter(mine)}. Nobody sees the class's answers until the reveal."
            )
    return own


def my_rounds_line(room, answers):
    """The student's answers of every round, each marked right or not (plain text)."""
    peer = room.peer
    parts = []
    for r, name in ROUND_NAMES.items():
        if r > peer.round_no or (r == 2 and peer.rounds != 2):
            continue
        right = peer.twin_right if r == TWIN else peer.right
        given = answers.get(r)
        mark = "—" if given is None else letter(given) + (" ✓" if given == right else " ✗")
        parts.append(f"{name}: {mark}")
    return "Your answers: " + " · ".join(parts)


def _own_sketch(store, room, sid):
    mine = store.my_sketch(room.code, sid)
    own = {"sketch": None if mine is None else list(mine), "lines": []}
    q = room_sketch(room)
    if q is None:
        return own
    if room.phase == "answering":
        if mine is not None:
            own["lines"].append("Sketch sent. It is locked: the lecturer reveals the true row.")
        return own
    if mine is None:
        own["lines"].append("You did not sketch this row.")
        return own
    row = sketch.weights(mine, q.allowed)
    own["weights"] = [float(w) for w in row]
    own["words"] = "\n".join(
        f"key {label}: you {p:.2f}, true {t:.2f}"
        for label, p, t in zip(q.labels, row, q.truth, strict=True)
    )
    own["lines"].append(sketch.own_sentence(row, q.truth, q.labels))
    return own


def ended_part(store, code):
    """What a phone in room ``code``, which the store no longer has open, is shown: the room
    its lecturer reopened from it ("next"), or why it ended ("ended")."""
    successor = store.successor(code)
    if successor:
        return {"screen": "next", "code": successor}
    record = store.record(code)
    reason = ended_reason(record, joined=True, in_process=store.in_process)
    follow = (
        "If the lecturer opens a new room from this one, this page moves to it on its own. Or "
        "join the new room with the code on the projector:"
        if record is not None
        else "Join the lecturer's new room with the code on the projector:"
    )
    return {"screen": "ended", "code": code, "notice": reason, "caption": follow}


def state_bytes(store, code, sid, now):
    """The state of room ``code`` for phone ``sid`` as JSON bytes: {"version", "now" (the
    server's clock, for the countdown), "mine", "shared"}; the shared part's bytes are
    ``shared_bytes``'s, kept once per room state. RoomError (the store's sentence) when the
    store cannot be read."""
    try:
        room = store.room(code)
    except RoomNotFoundError:
        shared = json.dumps(ended_part(store, code), separators=(",", ":")).encode()
        return b'{"version":null,"now":%.3f,"mine":{},"shared":%s}' % (now, shared)
    if room.closed:
        successor = store.successor(room.code)
        if successor:
            shared = json.dumps({"screen": "next", "code": successor}).encode()
            return b'{"version":%d,"now":%.3f,"mine":{},"shared":%s}' % (room.version, now, shared)
    mine = json.dumps(own_part(store, room, sid), separators=(",", ":")).encode()
    return b'{"version":%d,"now":%.3f,"mine":%s,"shared":%s}' % (
        room.version,
        now,
        mine,
        shared_bytes(room),
    )
