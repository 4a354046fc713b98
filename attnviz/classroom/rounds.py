"""Peer instruction on one question (Mazur): vote alone, discuss with a neighbour, vote again,
reveal both rounds and who moved where, then a twin question answered alone: the same kind,
asked on fresh numbers (the room's sentence with new random weights, and a new question set),
whose right option differs from the question's wherever the kind allows (``twin_of``).
Pure rules on a Room, no store and no Streamlit.

A question's round state is ``Peer``, one field of the Room (``room.peer``); the room's
``phase`` says what the round does now:

    rounds=1 (one vote):              answering -> [locked] -> revealed
    rounds=2 (vote, discuss, revote): answering(1) -> locked(1) -> discussing(1)
                                      -> answering(2) -> locked(2) -> revealed(2)
    after any reveal, the twin:       answering(TWIN) -> revealed(TWIN)

``round_no`` is 1, 2 or TWIN (3): the round whose answers are being taken (or were last).
Answers are kept per (question_no, round_no) and are whatever the question's kind takes (an
option index for the bank's questions): nothing here reads them, so a new kind of answer can
use the same rounds. ``summary`` turns the rounds' answers into the numbers of the reveal and
of the lecturer's report, without any student id.
"""

from collections import Counter
from dataclasses import replace

from attnviz.classroom.peer import MODES, TWIN, Peer
from attnviz.classroom.room import RoomError
from attnviz.limits import DISCUSS_CHOICES_SECONDS, MAX_QUESTIONS_PER_ROOM, MAX_SEED

TWIN_TRIES = 20  # fresh examples tried for a twin (each a new weights' seed and question set)
# The kinds whose right option is a rule of attention, the same text on every example: their
# twin asks the rule again on fresh numbers (another example, often another row), but its right
# option cannot differ from the question's. Each with the reason, as docs/peer_instruction.md
# says it.
SAME_ANSWER_KINDS = {
    "row_sum": "a row of A sums to 1 on every example",
    "shift": "adding c to a row of scores leaves its row of A unchanged on every example",
    "causal_row": "under the causal mask, row 0 of A is [1, 0, …, 0] on every example",
    "masked_weight": "a masked weight is exactly 0 and its row rescaled on every example",
    "scaling_spread": "std(S') = std(S) / √d_k on every example",
    "scaling_effect": "turning scaling off raises the largest weight of every row that can "
    "change; only a row that cannot (d_k = 1, one allowed key) stays the same",
    "low_temperature": "as T → 0 every row becomes one-hot at its largest logit",
    "shuffle": "shuffled tokens without positions give the same rows, moved, on every example",
}
ROUND_NAMES = {1: "round 1", 2: "round 2", TWIN: "the twin"}
CONFIDENCE = ("guessing", "fairly sure", "sure")  # a student's optional tap after an answer


class RoundError(RoomError):
    """A step the room cannot take from where it is (the message says where it is)."""


def question_seed(room):
    """The question set of the room's round: the twin's in the twin, else the room's."""
    return room.peer.twin_seed if room.peer.round_no == TWIN else room.quiz_seed


def answer_slot(room):
    """The (question number, round) whose answers the room takes now, as text ("4.2")."""
    return f"{room.question_no}.{room.peer.round_no}"


# -- the lecturer's steps: each a Room -> Room (the version bumped), or RoundError ------------
def asked(room, quiz_seed, kind, n_options, rounds=1, right=-1):
    """A new question: round 1 takes answers."""
    if room.question_no >= MAX_QUESTIONS_PER_ROOM:
        raise RoundError(
            f"This room has asked {room.question_no} questions, the most one room keeps for "
            "its report: download the report, then open a new room."
        )
    if rounds not in MODES:
        raise RoundError("A question has one vote, or two votes with a discussion between.")
    peer = Peer(rounds=int(rounds), right=int(right), n_options=int(n_options))
    return room.changed(
        quiz_seed=int(quiz_seed),
        kind=str(kind),
        n_options=int(n_options),
        question_no=room.question_no + 1,
        phase="answering",
        peer=replace(peer, blank=room.peer.blank),
    )


def _where(room):
    """Where the room is, as a sentence's end (for RoundError's messages)."""
    if room.kind is None:
        return "no question has been asked yet"
    name = ROUND_NAMES[room.peer.round_no]
    return {
        "answering": f"{name} is taking answers",
        "locked": f"{name} has ended",
        "discussing": "the class is discussing",
        "revealed": f"{name} has been revealed",
        "closed": "the room is closed",
    }[room.phase]


def not_answering(room):
    """Why the room takes no answer now (a sentence for a phone whose tap came too late)."""
    if room.kind is not None and room.phase in ("locked", "discussing"):
        return f"{ROUND_NAMES[room.peer.round_no].capitalize()} has ended: wait for the next one."
    return "There is no question to answer right now."


def ended_round(room):
    """The answers of the round are locked: no new answer, nothing shown yet."""
    if room.phase != "answering" or room.kind is None:
        raise RoundError(f"No round to end: {_where(room)}.")
    return room.changed(phase="locked")


def discussing(room, seconds, now):
    """Discuss with your neighbour, with a soft countdown of ``seconds`` (0: none)."""
    if int(seconds) not in DISCUSS_CHOICES_SECONDS:
        choices = ", ".join(str(s // 60) for s in DISCUSS_CHOICES_SECONDS)
        raise RoundError(f"A discussion's countdown is {choices} minutes.")
    peer = room.peer
    if peer.rounds != 2 or peer.round_no != 1 or room.phase not in ("answering", "locked"):
        raise RoundError(
            f"A discussion comes after round 1 of a two-round question: {_where(room)}."
        )
    until = now + int(seconds) if seconds else 0.0
    return room.changed(
        phase="discussing", peer=replace(peer, discuss_seconds=int(seconds), discuss_until=until)
    )


def second_round(room):
    """Round 2: the same question, every phone answers again."""
    peer = room.peer
    if peer.rounds != 2 or peer.round_no != 1 or room.phase not in ("locked", "discussing"):
        raise RoundError(f"Round 2 comes after round 1 and the discussion: {_where(room)}.")
    return room.changed(phase="answering", peer=replace(peer, round_no=2, discuss_until=0.0))


def revealed(room):
    """Show everyone the class's answers (both rounds) and the right one."""
    if room.kind is None or room.phase not in ("answering", "locked"):
        raise RoundError(f"Nothing to reveal: {_where(room)}.")
    return room.changed(phase="revealed")


def twin(room, twin_seed, n_options, right, example_seed=-1):
    """The twin question: the same kind on question set ``twin_seed``, on the room's sentence
    with weights' seed ``example_seed`` (-1: the room's own example), answered alone."""
    peer = room.peer
    if room.phase != "revealed" or peer.round_no == TWIN:
        raise RoundError(f"A twin question comes after a question's reveal: {_where(room)}.")
    if not -1 <= int(example_seed) <= MAX_SEED:
        raise RoundError(f"A twin's example seed is 0 to {MAX_SEED}.")
    new = replace(
        peer,
        round_no=TWIN,
        twin_seed=int(twin_seed),
        twin_right=int(right),
        twin_example_seed=int(example_seed),
    )
    if not peer.n_options:
        new = replace(new, n_options=room.n_options)
    return room.changed(phase="answering", n_options=int(n_options), peer=new)


def twin_of(example_seed, quiz_seed, question_in, tries=TWIN_TRIES):
    """(the twin's weights' seed, its question set, its question) for the question of set
    ``quiz_seed`` on the example of weights' seed ``example_seed``, or None.

    ``question_in(example_seed, quiz_seed)`` gives the question of the room's kind on the room's
    sentence with that weights' seed, in that set, or None. The twin is on fresh numbers: try k
    (1 to ``tries``) asks on weights' seed ``example_seed + k`` and set ``quiz_seed + k``. The
    first whose right option (its text) differs from the question's is the twin; when none does
    (the kinds of SAME_ANSWER_KINDS never can), the first that asks on them at all."""
    first = question_in(example_seed, quiz_seed)
    fallback = None
    for k in range(1, tries + 1):
        seeds = ((example_seed + k) % (MAX_SEED + 1), quiz_seed + k)
        found = question_in(*seeds)
        if found is None:
            continue
        if first is None or found.answer != first.answer:
            return (*seeds, found)
        fallback = fallback or (*seeds, found)
    return fallback


def blanked(room, on):
    """The phones show "Look at the projector" (``on``) or the room again."""
    return room.changed(peer=replace(room.peer, blank=bool(on)))


def next_step(room):
    """The lecturer's next step (a clicker's →): (step name, button label), or None when the
    question is done (the deck moves to its next slide). Step names are RoomStore methods."""
    if room.kind is None or room.closed:
        return None
    peer, phase = room.peer, room.phase
    if peer.round_no == TWIN:
        return ("reveal", "Reveal the twin") if phase in ("answering", "locked") else None
    if peer.rounds == 2 and peer.round_no == 1 and phase != "revealed":  # "Reveal now": twin
        return {
            "answering": ("end_round", "End round 1"),
            "locked": ("discuss", "Discuss with your neighbour"),
            "discussing": ("second_round", "Round 2"),
        }[phase]
    if phase == "answering" and peer.rounds == 2:
        return "end_round", "End round 2"
    if phase in ("answering", "locked"):
        return "reveal", "Reveal"
    if phase == "revealed" and peer.rounds == 2:
        return "twin", "Twin question"
    return None


def countdown_left(room, now):
    """Whole seconds left of the discussion's soft countdown, or None without one."""
    if room.phase != "discussing" or not room.peer.discuss_until:
        return None
    return max(0, int(room.peer.discuss_until - now + 0.999))


# -- the numbers of the reveal and the report --------------------------------------------------
def counts_of(answers, n_options):
    """(n_options,) how many chose each option, from {sid: option}."""
    counted = Counter(answers.values())
    return [counted.get(k, 0) for k in range(n_options)]


def transitions(first, second):
    """[(from, to, students)] of those who answered both rounds (``first``, ``second``:
    {sid: option}), sorted, only the moves someone made."""
    moves = Counter((first[sid], second[sid]) for sid in first.keys() & second.keys())
    return sorted((a, b, n) for (a, b), n in moves.items())


def confidence_table(answers, confidence, right):
    """[(level, right, wrong)] for each CONFIDENCE level, from {sid: option} and {sid: level}
    (the taps of students who answered this round)."""
    table = []
    for level in range(len(CONFIDENCE)):
        chose = [answers[s] for s, c in confidence.items() if c == level and s in answers]
        hits = sum(1 for option in chose if option == right)
        table.append((level, hits, len(chose) - hits))
    return table


def summary(room, rounds):
    """The current question's numbers, without any student id: a dict with kind, seed, right,
    rounds (the mode), and per round taken ("1", "2", "twin") its counts, right share and
    confidence table; "moves" the transitions from round 1 to round 2; the twin's seed and right
    option. ``rounds`` {round_no: ({sid: option}, {sid: confidence})}."""
    peer = room.peer
    n1 = peer.n_options or room.n_options
    out = {
        "question": room.question_no,
        "kind": room.kind,
        "seed": room.quiz_seed,
        "rounds": peer.rounds,
        "right": peer.right,
        "n_options": n1,
    }
    for r, (answers, confidence) in sorted(rounds.items()):
        if r == TWIN and peer.twin_seed < 0:
            continue
        right = peer.twin_right if r == TWIN else peer.right
        n = room.n_options if r == TWIN else n1
        counts = counts_of(answers, n)
        out[round_key(r)] = {
            "counts": counts,
            "answered": sum(counts),
            "right_share": share(counts, right),
            "confidence": confidence_table(answers, confidence, right),
        }
    if 1 in rounds and 2 in rounds and peer.rounds == 2:
        out["moves"] = transitions(rounds[1][0], rounds[2][0])
    if peer.twin_seed >= 0:
        out["twin_seed"], out["twin_right"] = peer.twin_seed, peer.twin_right
        out["twin_example_seed"] = peer.twin_example_seed
    return out


def round_key(r):
    return "twin" if r == TWIN else str(r)


def share(counts, right):
    """The right answers' share of ``counts`` (0 to 1), or None when nobody answered."""
    total = sum(counts)
    return None if not total or not 0 <= right < len(counts) else counts[right] / total


def percent(x):
    return "–" if x is None else f"{round(100 * x)} %"


def moves_sentence(moves, right):
    """The reveal's one sentence: "14 of 41 changed their answer; 11 moved to the right one;
    right answers went from 37 % to 68 %" (from the transitions, among those who answered both
    rounds)."""
    both = sum(n for _, _, n in moves)
    if not both:
        return "Nobody answered both rounds."
    changed = sum(n for a, b, n in moves if a != b)
    onto = sum(n for a, b, n in moves if a != b and b == right)
    before = sum(n for a, _, n in moves if a == right) / both
    after = sum(n for _, b, n in moves if b == right) / both
    return (
        f"{changed} of {both} changed their answer; {onto} moved to the right one; right "
        f"answers went from {percent(before)} to {percent(after)}."
    )


def sure_but_wrong(table):
    """How many tapped "sure" and were wrong (the errors feedback fixes best)."""
    return next((wrong for level, _, wrong in table if level == len(CONFIDENCE) - 1), 0)
