"""Text on a page: markdown that shows tokens as typed, a step's header, a highlighted notice."""

import contextlib
import re
import string

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from attnviz.text import visible
from attnviz.ui.sidebar import DISPLAY_KEY, SCREEN_DISPLAY

_MD_SPECIALS = str.maketrans({c: "\\" + c for c in string.punctuation})
WORD_JOINER = "\u2060"  # invisible, zero width: splits what Streamlit would turn into a link
# Streamlit's Markdown finds bare URLs (http://, www.), e-mail addresses, emoji and icon
# shortcodes (:smile:, :material/home:) in the text after backslash escapes are read, so an
# escape alone leaves them live. A word joiner after a ":" that something follows (http://,
# mailto:x, :smile:) or an "@", or before the dot of "www.", breaks each pattern without
# changing what the reader sees; a ":" before a space or the end ("row 2: …") needs none, so
# our own sentences stay as they are when searched or copied.
_AUTOLINKS = re.compile(r"(?<=:)(?=\S)|(?<=@)|(?<=www)(?=\.)", re.IGNORECASE)


def md_escape(text):
    """``text`` for any element that renders Markdown (st.markdown, st.caption, st.info and the
    other alerts, st.table cells, widget labels and help texts, radio options, progress texts),
    shown exactly as typed: no link, image, bold, formula ($), colour, HTML, emoji or heading
    made of it.

    Invisible and bidi control characters are written out (``attnviz.text.visible``), every
    ASCII punctuation mark is backslash-escaped, and a word joiner (U+2060, invisible) goes
    after every "@" and every ":" that something follows, and before the "." of "www.", which
    an escape cannot protect: the Markdown finds bare URLs, e-mail addresses and emoji codes in
    the text it has unescaped."""
    return _AUTOLINKS.sub(WORD_JOINER, visible(text)).translate(_MD_SPECIALS)


def step_header(title, formula, shape, meaning):
    """A step's title, its formula and live shape (one KaTeX block: each block costs the
    browser a render of its own), and what it means: in projector mode after the step's chart
    (the frame's CSS moves a ``step_meaning`` container to the end), so the chart comes first
    on the screen."""
    st.header(title)
    if st.session_state.get(DISPLAY_KEY, SCREEN_DISPLAY).present:  # meaning after the chart
        slug = "".join(c if c.isalnum() else "_" for c in title)
        with st.container(key=f"step_meaning_{slug}"):
            st.latex(rf"{formula} \qquad\qquad {shape}")
            st.markdown(meaning)
    else:
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
    with contextlib.suppress(StreamlitPageNotFoundError):  # a page run alone has no menu
        st.page_link("app_pages/Real_model.py", label="Trained heads: the Real model →")
