"""Classroom: a live class quiz, answered on phones, the class's answers on the projector.

A live quiz for a lecture (peer instruction: predict, vote, reveal, discuss). The lecturer's
view shows the room's code and a QR code, pushes the sidebar's example and a question to every
phone, counts the answers without showing them, then reveals the class's distribution, the
right answer and the numbers that prove it.
"""

import streamlit as st

from attnviz.ui import page_frame
from attnviz.ui.pages.classroom import classroom, read_link

link = read_link()  # before the frame rewrites the address (the lecturer's key leaves it)
settings = page_frame(
    "Classroom",
    icon="🙋",
    page_params=("room", "me", "question", "rounds"),
    note="A lecturer's room shows these settings' example on every phone (Push).",
)
st.title("Classroom")
classroom(settings, link)
