"""Classroom: a live class quiz, answered on phones, the class's answers on the projector.

A live quiz for a lecture (peer instruction: predict, vote, reveal, discuss). The lecturer's
view shows the room's code and a QR code, pushes the sidebar's example and a question to every
phone, counts the answers without showing them, then reveals the class's distribution, the
right answer and the numbers that prove it.
"""

import streamlit as st

from attnviz.ui import page_settings
from attnviz.ui.pages.classroom import classroom, read_link

link = read_link()  # the lecturer's key leaves the address here
settings = page_settings()  # a phone's draws no settings widgets (links.course.classroom_sidebar)
st.title("Classroom")
classroom(settings, link)
