"""The parts of the Classroom's screens (``classroom.screens`` decides them): the sections a
page draws in order, the charts of a reveal, and the screens themselves. Plain data, frozen:
str, int, float, bool, None, tuples and these dataclasses, so ``to_data`` turns any of them into
JSON for a phone client without Streamlit (each dataclass with its "type").

Text is plain, never Markdown or HTML: a sentence with emphasis is a tuple of parts whose odd
ones are emphasised (``Say.parts``); what quotes typed text (a question, its options, tokens)
is a field of its own or marked ``quotes``, for the page or the client to escape. A button names
its ``action``: one of the question's steps (``rounds.next_step``: end_round, discuss,
second_round, reveal, twin), "blank", or for an ended room "reopen", "open", "forget" for the
lecturer; "lost", "leave" for a phone.
"""

from dataclasses import dataclass, fields, is_dataclass


# -- the sections ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Say:
    """A sentence in a ``style``: "text", "caption", "heading", or an alert ("info", "success",
    "warning", "error") with its ``icon``. ``parts``: the odd ones emphasised; ``quotes``:
    the text quotes typed tokens (escape it)."""

    style: str
    parts: tuple
    icon: str = ""
    quotes: bool = False


@dataclass(frozen=True)
class Button:
    """A button: ``action`` (module docstring) with ``value`` (an option, a level, or -1)."""

    label: str
    action: str
    key: str
    primary: bool = False
    value: int = -1


@dataclass(frozen=True)
class Asked:
    """The question, numbered; ``text`` as the question bank wrote it (it may quote tokens)."""

    number: int
    text: str


@dataclass(frozen=True)
class Options:
    """The question's options (as written: they may quote tokens), each with its letter;
    ``chosen`` the student's answer (an index) or None."""

    letters: tuple
    options: tuple
    chosen: int | None = None


@dataclass(frozen=True)
class Sure:
    """How sure the student is (optional taps): ``levels`` rounds.CONFIDENCE, ``chosen``."""

    levels: tuple
    chosen: int | None = None


@dataclass(frozen=True)
class Discussion:
    """ "Discuss with your neighbour" and, with a countdown of ``seconds``, the ``left`` of it
    (None: no countdown) as a shrinking bar; ``sentence`` under the title."""

    title: str
    sentence: str
    seconds: int
    left: int | None


@dataclass(frozen=True)
class Count:
    """How many have answered (``what``: "Answered", "Sketched"), polled by the view."""

    what: str


@dataclass(frozen=True)
class Proof:
    """The right answer, why, and the question's numbers that prove it."""

    letter: str
    answer: str
    explanation: str


@dataclass(frozen=True)
class RoomExample:
    """The room's example, its attention matrix A, small enough for a phone."""


@dataclass(frozen=True)
class JoinForm:
    """The code box and Join."""


@dataclass(frozen=True)
class SketchAsked:
    """The sketch question, numbered, and the clue the student is given (tokens: escape)."""

    number: int
    text: str


@dataclass(frozen=True)
class SketchInput:
    """The phone's sketch of the row (taps); ``locked`` the levels it sent (lessons.sketch),
    or None while it may still sketch."""

    locked: tuple | None


@dataclass(frozen=True)
class SketchMine:
    """The phone's own sketch (``levels``) over the true row, and its distance."""

    levels: tuple


# -- the charts of a reveal --------------------------------------------------------------------
@dataclass(frozen=True)
class AnswerBars:
    """The class's answers to one round, a bar per option (the right one marked)."""

    key: str
    counts: tuple


@dataclass(frozen=True)
class RoundsBars:
    """Round 1 and round 2 side by side; ``right`` the right option."""

    key: str
    counts1: tuple
    counts2: tuple
    right: int


@dataclass(frozen=True)
class MovesChart:
    """Who moved where between the rounds: ``moves`` ((from, to, students), ...)."""

    key: str
    n_options: int
    moves: tuple
    right: int


@dataclass(frozen=True)
class SharesChart:
    """The right answers' share (0 to 1, or None) of each round named in ``labels``."""

    key: str
    labels: tuple
    shares: tuple


@dataclass(frozen=True)
class ConfidenceChart:
    """How sure the right and the wrong answers were in ``round_name``: ``table`` ((level,
    right, wrong), ...) per rounds.CONFIDENCE level."""

    key: str
    table: tuple
    round_name: str


@dataclass(frozen=True)
class Reveal:
    """The class's answers at a reveal: the sentences (``moves``: who changed their answer,
    ``shares``: the right share per round, ``sure_wrong``: parts), then the charts in one row;
    ``wide`` when it is one vote's bars alone (drawn across the page)."""

    moves: str | None
    shares: str | None
    sure_wrong: tuple | None
    charts: tuple

    @property
    def wide(self):
        return len(self.charts) == 1 and isinstance(self.charts[0], AnswerBars)


# -- the screens -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Mine:
    """A student's own part of the room: this round's ``answer``, every round's ``answers``
    ((round_no, answer), ...; None when the store could not say), the ``confidence`` tapped
    this round, the ``sketch`` sent (levels)."""

    answer: int | None = None
    answers: tuple | None = ()
    confidence: int | None = None
    sketch: tuple | None = None


@dataclass(frozen=True)
class Phone:
    """A phone's page: ``title``, then ``sections`` in order; ``follow``: poll the room."""

    title: str
    sections: tuple
    follow: bool = True


@dataclass(frozen=True)
class Page:
    """The lecturer's page of a room that has ended: ``title``, then ``sections`` in order."""

    title: str
    sections: tuple


@dataclass(frozen=True)
class SketchBoard:
    """The lecturer's "sketch the row": ``problem`` (it cannot be asked), or the question
    (``asked``) with ``count`` and ``steps`` while phones sketch; ``board``: "snapshots" before
    the truth, "result" after it, "" for none."""

    problem: Say | None
    asked: SketchAsked | None
    count: Count | None
    steps: tuple
    board: str


@dataclass(frozen=True)
class Projector:
    """The lecturer's page in the room's phase: the ``reveal`` first (one projector screen),
    then beside the join panel the question (``asked``, ``options``) or a ``prompt``, the
    round's ``title`` (peer instruction), its ``status`` (Count, Say or Discussion), the
    discussion's ``countdown`` choices in minutes (when the next step is the discussion), the
    ``steps``; in a sketch room its ``sketch`` board instead; ``proof`` after the columns;
    ``next_primary``: Next question is the thing to do; ``choose_open``: the question menu
    open; ``blank``: the phones' switch."""

    reveal: Reveal | None
    asked: Asked | None
    options: Options | None
    prompt: Say | None
    title: str | None
    status: object
    countdown: tuple
    steps: tuple
    sketch: SketchBoard | None
    proof: bool
    next_primary: bool
    choose_open: bool
    blank: Button


def to_data(value):
    """``value`` (a screen, a section, or plain data) as JSON-ready data: a dataclass as a dict
    with its "type", tuples as lists."""
    if is_dataclass(value):
        data = {f.name: to_data(getattr(value, f.name)) for f in fields(value)}
        return {"type": type(value).__name__, **data}
    if isinstance(value, tuple | list):
        return [to_data(v) for v in value]
    return value
