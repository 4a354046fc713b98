"""Compute attention by hand, one number at a time, and have each checked as you type; print
the exercise as a worksheet with its answer key, or one for every student."""

import streamlit as st

from attnviz.serve.work_it_out import cached_exercise
from attnviz.ui import page_frame
from attnviz.ui.pages import work_it_out as ex
from attnviz.ui.stepper import after_chart, stepper
from attnviz.ui.text import learning_goal

page_frame(
    "Work it out",
    icon="✏️",
    page_params=ex.PAGE_PARAMS,
    uses=(),
    note="This page uses none of the sidebar's settings: each exercise comes from its own "
    "level and seed.",
)
stepper("Work it out", ("The exercise, its key and the worksheets",))  # a deck's bar
with after_chart("ex_intro"):  # on a projector the exercise first, all this after it
    st.title("Work it out")
    learning_goal(
        "to compute a score, a row of softmax weights and a row of the output by hand, and to "
        "know each number is right before you go on."
    )
    ex.intro()
    choice = ex.start()
    choice = ex.controls(choice)
exercise = cached_exercise(choice)
ex.show_exercise(exercise)
ex.show_blanks(exercise)
ex.show_key(exercise)
ex.inspect_link(exercise)

st.header("On paper")
st.markdown(
    "The worksheet has the same numbers as the screen, with boxes and room to write, and the "
    "key on its second page; its level and seed are printed, so a paper sheet can be checked "
    "here later."
)
ex.downloads(choice)
ex.sync_url(choice)
