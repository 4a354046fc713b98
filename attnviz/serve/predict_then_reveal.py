"""Predict then reveal's numbers, kept for every visitor: the quiz of the settings' example,
once per (settings, question set). No Streamlit.
"""

from attnviz import lessons
from attnviz.serve.example import cached_example
from attnviz.serve.store import kept


@kept(entries=64)
def cached_quiz(settings, seed):
    """lessons.quiz of the settings' example, once per (settings, question set): a few Questions
    (small, frozen), shared by every session."""
    example = cached_example(settings)
    return tuple(lessons.quiz(example.result, example.labels, seed, P=example.P))
