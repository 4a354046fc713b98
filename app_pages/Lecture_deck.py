"""A lecture deck: pages and steps in order, one link, and a clicker's Next follows it across
pages."""

import streamlit as st

from attnviz.links.deck import LECTURE
from attnviz.links.deck_outline import outline
from attnviz.ui import page_settings
from attnviz.ui.lecture_prepare import prepare_panel
from attnviz.ui.pages.lecture_deck import deck_editor, deck_link, starting_slides
from attnviz.ui.stepper import lesson_steps
from attnviz.ui.text import learning_goal, md_escape

page_settings()  # none of them used: each slide carries its own
lesson_steps()  # in a deck, the bar with Next and Previous
st.title("Lecture deck")
learning_goal("how to give a lecture with attnviz: the slides in order, one link, one clicker.")
st.markdown(
    "A deck is an ordered list of slides: a page, the step it opens on and its own settings. "
    "Its link opens the first slide in projector mode. **Next** (→ or Page Down, what a "
    "presenter's clicker sends) goes to the deck's next slide; on a slide without a step it "
    "first goes through every step of that page. **Previous** (← or Page Up) goes back the "
    "same way, through every screen Next showed (a whole page from its last step). The link "
    "holds the whole deck and where you are in it, so a student who opens it follows the "
    "same lecture at home."
)
st.markdown(
    f"The table starts from the deck in this page's link, or from a 50-minute lecture of "
    f"{len(LECTURE)} slides: {md_escape(outline(LECTURE))}."
)
slides, warnings = starting_slides()
for warning in warnings:
    st.warning(warning, icon="⚠️")
st.header("The slides")
text = deck_editor(slides)
st.header("The link")
slides = deck_link(text)
st.header("Prepare the lecture")
prepare_panel(slides)
