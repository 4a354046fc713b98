"""Work it out's numbers, kept for every visitor: an exercise, once per choice (level, seed,
exponentials given). No Streamlit.
"""

from attnviz.exercises import make_exercise
from attnviz.serve.store import kept


@kept(entries=64)
def cached_exercise(choice):
    """The exercise of ``choice``, once per choice per server (a few KB of arrays)."""
    return make_exercise(choice.level, choice.seed, choice.exp_given)
