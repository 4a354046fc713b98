"""The Work it out page's link: ``ex_level`` (1 to 5), ``ex_seed`` (0 to 2^32 - 1) and
``ex_exp`` (``given``: a table of e^x on the sheet; ``own``: the student works e^x out, the
default). Read with the shared readers; a bad value is replaced or clamped with a warning.
No Streamlit.
"""

from dataclasses import dataclass

from attnviz.limits import EX_LEVELS, MAX_SEED
from attnviz.links.readers import read_choice, read_int

NAMES = ("ex_level", "ex_seed", "ex_exp")
EXP_CHOICES = {"own": False, "given": True}
DEFAULT_LEVEL = 1
DEFAULT_SEED = 0


@dataclass(frozen=True)
class ExerciseChoice:
    """Which exercise: small and hashable (what a session keeps, with the typed answers)."""

    level: int = DEFAULT_LEVEL
    seed: int = DEFAULT_SEED
    exp_given: bool = False

    def to_query(self):
        """{URL name: text}; ``ex_exp`` only when e^x is given."""
        query = {"ex_level": str(self.level), "ex_seed": str(self.seed)}
        if self.exp_given:
            query["ex_exp"] = "given"
        return query


def choice_from_query(query):
    """(ExerciseChoice, warnings) from a link's parameters; never raises."""
    level, warnings = read_int(query, "ex_level", low=1, high=EX_LEVELS, default=DEFAULT_LEVEL)
    seed, more = read_int(query, "ex_seed", low=0, high=MAX_SEED, default=DEFAULT_SEED)
    exp_given, most = read_choice(query, "ex_exp", EXP_CHOICES, False)
    return ExerciseChoice(level, seed, exp_given), warnings + more + most
