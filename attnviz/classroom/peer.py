"""A question's round state, one field of the Room (``room.peer``): see rounds.py for the
rules. Apart so that room.py can hold it without importing the rules."""

from dataclasses import asdict, dataclass

from attnviz.limits import MAX_ROUNDS_PER_QUESTION

TWIN = 3  # the twin's round number (round 1 and round 2 are the question's own)
MODES = {1: "One vote", 2: "Vote, discuss, revote"}  # rounds per question, as the lecturer reads


@dataclass(frozen=True)
class Peer:
    """The current question's rounds (module docstring). ``right``: the question's right option
    (-1 when the lecturer's page did not say); ``n_options``: the question's own (the twin's
    may differ: the room's n_options is the round's); ``discuss_until``: when the soft
    countdown ends (0: no countdown); ``twin_seed`` (-1 before the twin: the twin's question
    set) and ``twin_right``; ``twin_example_seed``: the weights' seed of the twin's example (the
    room's sentence on fresh numbers; -1: the room's own example);
    ``blank``: the phones show "look at the projector"."""

    rounds: int = 1
    round_no: int = 1
    right: int = -1
    n_options: int = 0
    discuss_seconds: int = 0
    discuss_until: float = 0.0
    twin_seed: int = -1
    twin_right: int = -1
    twin_example_seed: int = -1
    blank: bool = False

    def to_data(self):
        return asdict(self)

    @classmethod
    def from_data(cls, data):
        """A Peer from ``to_data``'s dict; the default one for anything else (an old room)."""
        if not isinstance(data, dict):
            return cls()
        try:
            peer = cls(
                rounds=int(data.get("rounds", 1)),
                round_no=int(data.get("round_no", 1)),
                right=int(data.get("right", -1)),
                n_options=int(data.get("n_options", 0)),
                discuss_seconds=int(data.get("discuss_seconds", 0)),
                discuss_until=float(data.get("discuss_until", 0.0)),
                twin_seed=int(data.get("twin_seed", -1)),
                twin_right=int(data.get("twin_right", -1)),
                twin_example_seed=int(data.get("twin_example_seed", -1)),
                blank=bool(data.get("blank", False)),
            )
        except (TypeError, ValueError):
            return cls()
        if peer.rounds not in MODES or not 1 <= peer.round_no <= MAX_ROUNDS_PER_QUESTION:
            return cls()
        return peer
