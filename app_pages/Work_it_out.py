"""Compute attention by hand, one number at a time, and have each checked as you type; print
the exercise as a worksheet with its answer key, or one for every student."""

import streamlit as st

from attnviz.serve.work_it_out import cached_exercise
from attnviz.ui import page_settings
from attnviz.ui.pages import work_it_out as ex
from attnviz.ui.stepper import after_chart, lesson_steps
from attnviz.ui.text import learning_goal

page_settings()  # none of them used: each exercise comes from its own level and seed
lesson_steps()  # a deck's bar
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
