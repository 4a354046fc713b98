"""Predict, then reveal: a short quiz on the current settings, answered by the core's numbers."""

import hashlib

import streamlit as st

from attnviz.charts.lines import vector_bars
from attnviz.lessons import quiz
from attnviz.ui import page_setup
from attnviz.ui.matrix import CHART_CONFIG
from attnviz.ui.text import md_escape

SEED = "attnviz_lesson_quiz_seed"
MAX_RADIO_OPTIONS = 12  # more options than this (argmax over many tokens) go in a selectbox
ROW_KINDS = ("argmax", "row_sum", "scaling_effect")  # questions about one row of A

example = page_setup("Predict then reveal", icon="❓")
r, labels = example.result, example.labels

st.title("Predict, then reveal")
st.markdown(
    "Answer each question before you look: predicting first is how the ideas stick. The "
    "questions are built from the sidebar's settings and every answer is read from the "
    "numbers attnviz computes, so change the sentence, d_k, the mask or the scaling and the "
    "quiz changes with them."
)


def new_questions():
    st.session_state[SEED] = st.session_state.get(SEED, 0) + 1


seed = st.session_state.setdefault(SEED, 0)
c1, c2 = st.columns([1, 3], vertical_alignment="center")
c1.button("🎲 New questions", on_click=new_questions, key="attnviz_lesson_new_quiz")
c2.caption(f"Question set {seed}, for the settings in the sidebar.")

questions = quiz(r, labels, seed)
# The answers are forgotten when the questions change: new settings or a new set.
tag = hashlib.sha256(repr((example.settings, seed)).encode()).hexdigest()[:12]
right = answered = 0
for k, q in enumerate(questions, 1):
    st.subheader(f"Question {k}")
    st.markdown(md_escape(q.text))
    key = f"attnviz_quiz_{tag}_{k}"
    if len(q.options) <= MAX_RADIO_OPTIONS:
        choice = st.radio("Your answer", q.options, index=None, format_func=md_escape, key=key)
    else:
        choice = st.selectbox(
            "Your answer", q.options, index=None, placeholder="Pick a token", key=key
        )
    if choice is None:
        st.caption("Pick an answer to see the truth.")
        continue
    answered += 1
    if choice == q.answer:
        right += 1
        st.success(f"Right: **{md_escape(q.answer)}**.", icon="✅")
    else:
        st.warning(
            f"Not quite: you said {md_escape(choice)}; the answer is **{md_escape(q.answer)}**.",
            icon="🤔",
        )
    st.markdown(f"**Why:** {md_escape(q.explanation)}")
    if q.kind in ROW_KINDS and q.row is not None:
        fig = vector_bars(
            r.attention[q.row],
            labels,
            title=f"row {q.row} of A ({labels[q.row]}): weight on each key",
            value_name="A_ij",
        )
        st.plotly_chart(fig, key=f"quiz_row_{k}", config=CHART_CONFIG)

st.divider()
if answered:
    st.markdown(f"**Score: {right} of {answered} answered** ({len(questions)} questions).")
else:
    st.markdown(f"{len(questions)} questions. Your score appears here as you answer.")
