"""What the light phone page (attnviz/web/phone) is sent: a room's shared part, the same for
every phone, made and serialised to JSON once per room state (``shared_bytes``, kept per Room:
a reveal asks 500 phones at once); a phone's own part (its answers, and the sentences about
them) is added per request (serve/phone_state.py). Plain data: the page puts every text in
with ``textContent``, so a token or a typed text is never markup; each chart is a finished
Plotly figure with its heading, accessible name and text alternative (the Streamlit page's
words).

``light_screen(room)`` decides what a phone shows from the room alone (pure: the screens
"look_up", "wait", "question", "sketch", "closed"). No Streamlit, no HTTP.
"""

import json

from attnviz.charts.finish import STANDARD
from attnviz.charts.style import TEXT_PX
from attnviz.classroom.peer import TWIN
from attnviz.classroom.questions import ANSWER_IN_A, letter
from attnviz.classroom.rounds import (
    CONFIDENCE,
    ROUND_NAMES,
    question_seed,
)
from attnviz.classroom.sketch import class_summary, is_sketch
from attnviz.lessons import sketch
from attnviz.limits import SKETCH_LEVELS
from attnviz.serve.classroom import (
    ROOM_STORE,
    finished_room_chart,
    room_question,
    room_settings,
    room_sketch,
    room_summary,
)
from attnviz.serve.finish import kept_chart
from attnviz.serve.room_charts import (
    answers_figure,
    proof_figure,
    reveal_plan,
    room_a_figure,
)
from attnviz.serve.store import kept, object_bytes

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
    """A finished chart (charts.finish.finished's tuple) as plain data."""
    spec, title, alt, words = finished
    return {"spec": spec, "title": title, "alt": alt, "words": words}


def option_line(k, option):
    """'B · 6 × 4': an option's letter and its text as typed (plain text)."""
    return f"{letter(k)} · {option}"


def light_screen(room):
    """Which screen a phone shows in ``room`` (a Room): "closed", "look_up", "sketch", "wait"
    (no question yet) or "question"."""
    if room.closed:
        return "closed"
    if room.peer.blank:
        return "look_up"
    if is_sketch(room.kind):
        return "sketch"
    return "wait" if room.kind is None else "question"


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
    screen = light_screen(room)
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


def hoisted(part):
    """``part`` with the Plotly template its charts share sent once, as ``part["template"]``:
    each chart's layout without it, and ``"template": true`` where the page puts it back (the
    template is about 7 KB, four fifths of a chart's bytes). The kept figures are not changed."""
    charts = [
        part.get("example"),
        *part.get("charts", ()),
        *part.get("proof", {}).get("charts", ()),
    ]
    for made in (c for c in charts if c is not None):
        layout = made["spec"].get("layout", {})
        template = layout.get("template")
        if template is None or part.setdefault("template", template) != template:
            continue
        made["spec"] = dict(
            made["spec"], layout={k: v for k, v in layout.items() if k != "template"}
        )
        made["template"] = True
    return part


@kept(64, size=object_bytes)
def shared_bytes(room):
    """``shared_part(room)`` as JSON bytes, once per room state for every phone."""
    part = hoisted(shared_part(room))
    return json.dumps(part, separators=(",", ":"), allow_nan=False).encode()
