"""A phone's own part of what the light phone page shows (its answers, and the sentences about
them, as the Streamlit phone says them), the state of an ended room, and the state a phone is
sent: the shared part's kept bytes (serve/phone.py) with its own part added. No Streamlit, no
HTTP.
"""

import json

from attnviz.classroom.lifecycle import ended_reason
from attnviz.classroom.peer import TWIN
from attnviz.classroom.questions import letter
from attnviz.classroom.room import RoomNotFoundError
from attnviz.classroom.rounds import ROUND_NAMES
from attnviz.lessons import sketch
from attnviz.serve.classroom import room_question, room_sketch
from attnviz.serve.phone import light_screen, shared_bytes


def own_part(store, room, sid):
    """What phone ``sid`` is shown of its own in ``room``: its answers and the lines about
    them (the Streamlit phone's words, as plain text)."""
    screen = light_screen(room)
    if screen == "sketch":
        return _own_sketch(store, room, sid)
    if screen != "question":
        return {}
    answers = store.my_answers(room.code, sid)  # every round's: one read, the round's among them
    mine = answers.get(room.peer.round_no)
    question = room_question(room)
    own = {"answer": mine, "lines": []}
    if question is None:
        return own
    lines = own["lines"]
    peer = room.peer
    peer_round = peer.rounds == 2 or peer.round_no == TWIN
    if room.phase == "answering":
        if peer.round_no == 2:
            first = answers.get(1)
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
            lines.append(my_rounds_line(room, answers))
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
