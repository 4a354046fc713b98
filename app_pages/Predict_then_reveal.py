"""Predict, then reveal: questions to reason out on the current settings, checked by the numbers."""

import streamlit as st

from attnviz.serve.predict_then_reveal import cached_quiz
from attnviz.ui import lesson
from attnviz.ui.pages import predict_then_reveal as view
from attnviz.ui.pages.predict_sketch import sketch_alone
from attnviz.ui.sidebar import is_present
from attnviz.ui.stepper import first_screen, intro, stepper

example = lesson()

seed = view.question_set_ui()
questions = cached_quiz(example.settings, seed)
# In projector mode one question at a time: the class answers it, then the lecturer reveals
steps = (*(f"Question {k}" for k in range(1, len(questions) + 1)), "Sketch a row")
# → on a question not answered yet reveals it first (the clicker alone runs the quiz)
show = stepper(
    "Predict then reveal",
    steps,
    next_action=view.clicker_reveal(len(questions), example.settings, seed),
)
if first_screen(show):
    with intro():
        st.markdown(
            "Answer each question before you look: predicting first is how the ideas stick. Every "
            "question is about a rule of attention (a shape, what the softmax guarantees, what a "
            "mask, the scaling, the temperature or a shuffle does), so you can work it out from "
            "the formula without seeing a single matrix. The answers are then read from the "
            "numbers attnviz computes for the sidebar's settings: change the sentence, d_k, the "
            "mask or the scaling and the questions change with them."
        )
choices = []
for k, question in enumerate(questions, 1):
    if show(k):
        choice = view.answer_ui(k, question, example.settings, seed)  # None until answered
        view.reveal(k, question, choice, view.is_revealed(k, example.settings, seed))
        choices.append(choice)

if not is_present():
    st.divider()
    view.score(questions, choices)
if show(len(questions) + 1):
    if not is_present():  # a projector shows the sketch alone
        st.divider()
    sketch_alone(example)
