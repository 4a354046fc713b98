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
from attnviz.ui.sidebar import is_present
from attnviz.ui.stepper import after_chart
from attnviz.ui.text import md_escape

SEED = "attnviz_lesson_quiz_seed"  # the session's question set: 0, 1, 2 ...
REVEALED = "attnviz_lesson_revealed"  # (tag, question numbers) the clicker's → revealed
MAX_RADIO_OPTIONS = 12  # more options than this go in a selectbox


def _new_questions():
    st.session_state[SEED] = st.session_state.get(SEED, 0) + 1


def question_set_ui():
    """The "New questions" button and which set is shown (in projector mode after the step's
    chart: the question and its proof come first); returns the set's seed (int)."""
    seed = st.session_state.setdefault(SEED, 0)
    with after_chart("question_set"):
        c1, c2 = st.columns([1, 3], vertical_alignment="center")
        c1.button("🎲 New questions", on_click=_new_questions, key="attnviz_lesson_new_quiz")
        c2.caption(f"Question set {seed}, for the settings in the sidebar.")
    return seed


def _tag(settings, seed):
    return hashlib.sha256(repr((settings, seed)).encode()).hexdigest()[:12]


def _answer_key(k, settings, seed):
    return f"attnviz_quiz_{_tag(settings, seed)}_{k}"


def is_revealed(k, settings, seed):
    """Whether question ``k`` shows its answer: answered, or revealed by the clicker's →."""
    kept = st.session_state.get(REVEALED)
    by_clicker = kept is not None and kept[0] == _tag(settings, seed) and k in kept[1]
    return by_clicker or st.session_state.get(_answer_key(k, settings, seed)) is not None


def _reveal(k, settings, seed):
    tag, kept = _tag(settings, seed), st.session_state.get(REVEALED)
    shown = kept[1] if kept is not None and kept[0] == tag else ()
    st.session_state[REVEALED] = (tag, (*shown, k))


def clicker_reveal(n_questions, settings, seed):
    """The stepper's ``next_action`` for the page in projector mode: on question k (1 to
    ``n_questions``) not revealed yet, → reveals it (the class answered aloud or on paper);
    on a revealed one, or the sketch, → moves on."""

    def action(k):
        if k > n_questions or is_revealed(k, settings, seed):
            return None
        return ("Reveal ▶", _reveal, (k, settings, seed))

    return action


def answer_ui(k, question, settings, seed):
    """Question ``k`` and its answer widget: a radio, or a selectbox when there are more than
    MAX_RADIO_OPTIONS options. Returns the option chosen, or None before an answer. In
    projector mode the bar names the question (no heading), and a question revealed by the
    clicker gives its options on one line, so that its proof fits the first screen."""
    if not is_present():
        st.subheader(f"Question {k}")
    st.markdown(md_escape(question.text))
    key = _answer_key(k, settings, seed)
    if is_present() and is_revealed(k, settings, seed) and st.session_state.get(key) is None:
        st.markdown("The options: " + " · ".join(md_escape(o) for o in question.options) + ".")
        return None
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


def reveal(k, question, choice, revealed=False):
    """Once ``choice`` is made (or the clicker ``revealed`` it): right or not (the answer),
    then what the question computed: its rows of A side by side as bars (chart keys
    ``quiz_row_<k>_<m>``) and its table, and why (after the chart in projector mode)."""
    q = question
    if choice is None and not revealed:
        st.caption(
            "Pick an answer to see the truth"
            + (" (or press → to reveal it)." if is_present() else ".")
        )
        return
    if choice is None:
        st.success(f"The answer: **{md_escape(q.answer)}**.", icon="💡")
    elif choice == q.answer:
        st.success(f"Right: **{md_escape(q.answer)}**.", icon="✅")
    else:
        st.warning(
            f"Not quite: you said {md_escape(choice)}; the answer is **{md_escape(q.answer)}**.",
            icon="🤔",
        )
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
    with after_chart(f"quiz_why_{k}"):
        st.markdown(f"**Why:** {md_escape(q.explanation)}")


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
