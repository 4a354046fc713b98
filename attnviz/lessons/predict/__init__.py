"""Predict, then reveal: the quiz. ``make.quiz`` makes the questions; ``question`` says what a
question is (text, options, answer, what its reveal draws); the builders are grouped by the
rule they ask about: ``shape_questions``, ``softmax_questions``, ``scaling_questions``,
``shuffle_question``."""

from attnviz.lessons.predict.make import KINDS, MAX_QUESTIONS, quiz
from attnviz.lessons.predict.question import Bars, Question, Table

__all__ = ["KINDS", "MAX_QUESTIONS", "Bars", "Question", "Table", "quiz"]
