"""A lecture deck: pages and steps in order, one link, and a clicker's Next follows it across
pages."""

import streamlit as st

from attnviz.ui import page_frame
from attnviz.ui.pages.lecture_deck import deck_editor, deck_link, starting_slides
from attnviz.ui.text import learning_goal

page_frame(
    "Lecture deck",
    icon="🎞️",
    page_params=("deck", "slide"),
    uses=(),
    note="This page uses none of the sidebar's settings: each slide carries its own.",
)
st.title("Lecture deck")
learning_goal("how to give a lecture with attnviz: the slides in order, one link, one clicker.")
st.markdown(
    "A deck is an ordered list of slides: a page, the step it opens on and its own settings. "
    "Its link opens the first slide in projector mode; **Next** (→ or Page Down, what a "
    "presenter's clicker sends) goes through the page's steps and on to the next slide, "
    "**Previous** (← or Page Up) back. The link holds the whole deck and where you are in it, "
    "so a student who opens it follows the same lecture at home. The table starts from the "
    "50-minute lecture of the third teaching review: Home, Attention as geometry, Step by step "
    "0 to 8, one number of X changed (steps 1, 5 and 7), Why scale, the causal mask, the real "
    "model's two sentences, a tiny GPT learning induction, and the quiz."
)
slides, warnings = starting_slides()
for warning in warnings:
    st.warning(warning, icon="⚠️")
st.header("The slides")
text = deck_editor(slides)
st.header("The link")
deck_link(text)
