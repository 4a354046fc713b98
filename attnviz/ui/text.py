"""Text on a page: markdown that shows tokens as typed, a step's header, a highlighted notice."""

import contextlib
import string

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from attnviz.text import visible

_MD_SPECIALS = str.maketrans({c: "\\" + c for c in string.punctuation})


def md_escape(text):
    """``text`` for st.markdown, shown as typed: every ASCII punctuation mark backslash-escaped,
    invisible and bidi control characters written out (``attnviz.text.visible``)."""
    return visible(text).translate(_MD_SPECIALS)


def step_header(title, formula, shape, meaning):
    """A step's title, its formula and live shape (one KaTeX block: each block costs the
    browser a render of its own), and what it means."""
    st.header(title)
    st.latex(rf"{formula} \qquad\qquad {shape}")
    st.markdown(meaning)


def notice(text):
    """What the student should notice, computed from the numbers: a highlighted paragraph.

    ``text`` is markdown; any token label in it must already be escaped with ``md_escape``.
    """
    st.info(text, icon="👀")


def learning_goal(text):
    """The page's learning goal, one sentence, under its title."""
    st.markdown(f"**What you will learn:** {text}")


def random_weights_note(what="The embeddings and the weights W_Q, W_K, W_V"):
    """Say, visibly, that the numbers come from random, untrained weights: the pattern in A
    means nothing yet. Links to the page with a trained model's heads."""
    st.info(
        f"{what} on this page are **random and untrained** (drawn from the seed), so the "
        "pattern of attention means nothing yet: it shows how the numbers flow, not what a "
        "model has learned. Heads that learned from text are on the Real model page.",
        icon="🎲",
    )
    with contextlib.suppress(StreamlitPageNotFoundError):  # AppTest runs one page alone
        st.page_link("pages/7_Real_model.py", label="Trained heads: the Real model →")
