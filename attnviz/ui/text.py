"""Text on a page: markdown that shows tokens as typed, a step's header, a highlighted notice."""

import string

import streamlit as st

from attnviz.inputs import visible

_MD_SPECIALS = str.maketrans({c: "\\" + c for c in string.punctuation})


def md_escape(text):
    """``text`` for st.markdown, shown as typed: every ASCII punctuation mark backslash-escaped,
    invisible and bidi control characters written out (``attnviz.inputs.visible``)."""
    return visible(text).translate(_MD_SPECIALS)


def step_header(title, formula, shape, meaning):
    """A step's title, its formula (left) and live shape (right), and what it means."""
    st.header(title)
    left, right = st.columns([3, 2])
    left.latex(formula)
    right.latex(shape)
    st.markdown(meaning)


def notice(text):
    """What the student should notice, computed from the numbers: a highlighted paragraph.

    ``text`` is markdown; any token label in it must already be escaped with ``md_escape``.
    """
    st.info(text, icon="👀")
