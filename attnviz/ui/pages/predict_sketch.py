"""Predict then reveal, "Sketch a row": a student alone picks a query and what is asked,
sketches the row of A with taps, checks it, and sees their sketch over the true row with
their distance: the Classroom's question kind without a room.

Widget keys: ``attnviz_sketch_query``, ``attnviz_sketch_variant``, the sketch under
``attnviz_sketch_<tag>`` (``ui.sketch``; the tag is made from the settings and the question,
so a sketch is forgotten when either changes) and ``attnviz_sketch_again``; chart key
``attnviz_sketch_check``.
"""

import hashlib

import streamlit as st

from attnviz.classroom.sketch import VARIANTS
from attnviz.limits import MAX_ROOM_TOKENS
from attnviz.serve.classroom import cached_sketch_question
from attnviz.ui.sidebar import is_present
from attnviz.ui.sketch import (
    LEVELS,
    TAPS,
    clue_line,
    forget,
    own_result,
    sketch_input,
)
from attnviz.ui.stepper import after_chart
from attnviz.ui.text import md_escape

CHECKED = "attnviz.sketch.checked."  # + the sketch's key: the levels checked (a tuple of ints)


def _check(key, levels):
    st.session_state[CHECKED + key] = tuple(levels)


def _again(key):
    st.session_state.pop(CHECKED + key, None)
    forget(key)


def forget_others(key):
    """Keep only the sketch ``key`` in the session: another query, variant or example starts
    afresh, and the session holds one sketch whatever the reader tried."""
    state = st.session_state
    for name in [n for n in state if isinstance(n, str) and "attnviz_sketch_" in n]:
        if name.startswith((LEVELS, TAPS, CHECKED)) and not name.endswith(key):
            del state[name]


def sketch_alone(example):
    """The "Sketch a row" step on the example of the sidebar (``example``: frame's Example)."""
    if not is_present():  # a projector's bar names the step
        st.subheader("Sketch a row of A")
    n = len(example.labels)
    if not 2 <= n <= MAX_ROOM_TOKENS:
        st.info(
            f"A sketch asks about an example of 2 to {MAX_ROOM_TOKENS} tokens (this one has "
            f"{n}): shorten "
            "the sentence in the sidebar to sketch a row.",
            icon="📏",
        )
        return
    # on a projector the question and the sketch first, how to use it and the pickers after
    pick = after_chart("sketch_pick")
    pick.markdown(
        "Pick a query and what is asked, then set each key's bar with a tap: how much weight "
        "does the query put on it? Check it to see the true row over your sketch."
    )
    left, right = pick.columns(2)
    query = left.selectbox(
        "Query token", range(n), format_func=lambda i: example.labels[i], key="attnviz_sketch_query"
    )
    variant = right.selectbox(
        "What is asked",
        list(VARIANTS),
        format_func=lambda v: VARIANTS[v],
        key="attnviz_sketch_variant",
    )
    q = cached_sketch_question(example.settings, variant, query)
    tag = hashlib.sha256(repr((example.settings, variant, query)).encode()).hexdigest()[:12]
    key = f"attnviz_sketch_{tag}"
    st.markdown(f"**{md_escape(q.text)}**")
    st.markdown(clue_line(q))
    forget_others(key)
    checked = st.session_state.get(CHECKED + key)
    sketch_input(
        q,
        key,
        locked=checked,
        submit=lambda levels: _check(key, levels),
        submit_label="Check",
    )
    if checked is None:
        return
    own_result(q, checked, "attnviz_sketch_check")
    st.button("Sketch it again", key="attnviz_sketch_again", on_click=_again, args=(key,))
