"""A phone's own part of what the light phone page shows (its answers, and the sentences about
them: classroom.screens_phone's, the Streamlit phone's, as plain text), the state of an ended
room, and the state a phone is sent: the shared part's kept bytes (serve/phone.py) with its own
part added. No Streamlit, no HTTP.
"""

import json

from attnviz.classroom.lifecycle import ended_reason
from attnviz.classroom.room import RoomNotFoundError
from attnviz.classroom.screens_phone import (
    NO_SKETCH,
    SKETCH_SENT,
    own_says,
    phone_ended,
    plain,
    round_note,
)
from attnviz.classroom.sections import Mine
from attnviz.lessons import sketch
from attnviz.serve.classroom import own_answers, room_question, room_sketch
from attnviz.serve.phone import light_screen, shared_bytes


def own_part(store, room, sid):
    """What phone ``sid`` is shown of its own in ``room``: its answers and the lines about
    them (the Streamlit phone's words, as plain text)."""
    screen = light_screen(room)
    if screen == "sketch":
        return _own_sketch(store, room, sid)
    if screen != "question":
        return {}
    answers = own_answers(store, room, sid)  # the closed rounds' kept: at a reveal, no read
    mine = answers.get(room.peer.round_no)
    question = room_question(room)
    own = {"answer": mine, "lines": []}
    if question is None:
        return own
    mine_part = Mine(mine, tuple(answers.items()))
    note = round_note(room, mine_part)
    if note is not None:
        own["round_note"] = plain(note)
    own["lines"] = [plain(say) for say in own_says(room, question, mine_part)]
    if mine is not None and room.phase in ("answering", "locked"):
        own["confidence"] = store.my_confidence(room.code, sid)
    return own


def _own_sketch(store, room, sid):
    mine = store.my_sketch(room.code, sid)
    own = {"sketch": None if mine is None else list(mine), "lines": []}
    q = room_sketch(room)
    if q is None:
        return own
    if room.phase == "answering":
        if mine is not None:
            own["lines"].append(SKETCH_SENT)
        return own
    if mine is None:
        own["lines"].append(NO_SKETCH)
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
    _, follow, _ = phone_ended(code, reason, record).sections  # the Streamlit phone's words
    return {"screen": "ended", "code": code, "notice": reason, "caption": plain(follow)}


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
