"""The Predict-then-reveal page: the question set, each question with its answer widget, the
reveal once answered (right or not, why, and the rows or table the question carries) and the
score.

Widget keys: ``attnviz_lesson_new_quiz`` (the "New questions" button) and
``attnviz_quiz_<tag>_<k>`` (the answer to question k). The tag is made from the settings and the
question set, so the answers are forgotten when either changes. Chart keys: ``quiz_row_<k>_<m>``
(the m-th row of A that question k's reveal draws).
"""

import hashlib

import pandas as pd
import streamlit as st

from attnviz.charts.line_charts import vector_bars
from attnviz.ui.charts import draw, toolbar
from attnviz.ui.projector import data_table
from attnviz.ui.text import md_escape

SEED = "attnviz_lesson_quiz_seed"  # the session's question set: 0, 1, 2 ...
MAX_RADIO_OPTIONS = 12  # more options than this go in a selectbox


def _new_questions():
    st.session_state[SEED] = st.session_state.get(SEED, 0) + 1


def question_set_ui():
    """The "New questions" button and which set is shown; returns the set's seed (int)."""
    seed = st.session_state.setdefault(SEED, 0)
    c1, c2 = st.columns([1, 3], vertical_alignment="center")
    c1.button("🎲 New questions", on_click=_new_questions, key="attnviz_lesson_new_quiz")
    c2.caption(f"Question set {seed}, for the settings in the sidebar.")
    return seed


def answer_ui(k, question, settings, seed):
    """Question ``k`` and its answer widget: a radio, or a selectbox when there are more than
    MAX_RADIO_OPTIONS options. Returns the option chosen, or None before an answer."""
    st.subheader(f"Question {k}")
    st.markdown(md_escape(question.text))
    tag = hashlib.sha256(repr((settings, seed)).encode()).hexdigest()[:12]
    key = f"attnviz_quiz_{tag}_{k}"
    if len(question.options) <= MAX_RADIO_OPTIONS:
        return st.radio("Your answer", question.options, index=None, format_func=md_escape, key=key)
    return st.selectbox(
        "Your answer",
        question.options,
        index=None,
        format_func=md_escape,
        placeholder="Pick an answer",
        key=key,
    )


def reveal(k, question, choice):
    """Once ``choice`` is made: right or not, why, then what the question computed: its rows of
    A side by side as bars (chart keys ``quiz_row_<k>_<m>``) and its table."""
    q = question
    if choice is None:
        st.caption("Pick an answer to see the truth.")
        return
    if choice == q.answer:
        st.success(f"Right: **{md_escape(q.answer)}**.", icon="✅")
    else:
        st.warning(
            f"Not quite: you said {md_escape(choice)}; the answer is **{md_escape(q.answer)}**.",
            icon="🤔",
        )
    st.markdown(f"**Why:** {md_escape(q.explanation)}")
    if q.bars:
        for m, (column, bars) in enumerate(zip(st.columns(len(q.bars)), q.bars, strict=True)):
            with column:
                fig = vector_bars(
                    bars.values, bars.labels, title=bars.title, value_name=bars.value_name
                )
                draw(fig, f"quiz_row_{k}_{m}", config=toolbar(f"quiz_row_{k}_{m}"))
    if q.table is not None:
        t = q.table
        index = pd.Index(t.index, name=t.index_name)
        data_table(pd.DataFrame(list(t.rows), index=index, columns=list(t.columns)))


def score(questions, choices):
    """How many of the answered questions are right, or how the score will appear."""
    answered = [(q, c) for q, c in zip(questions, choices, strict=True) if c is not None]
    if answered:
        right = sum(c == q.answer for q, c in answered)
        st.markdown(
            f"**Score: {right} right out of {len(answered)} answered** ({len(questions)} "
            "questions)."
        )
    else:
        st.markdown(f"{len(questions)} questions. Your score appears here as you answer.")
