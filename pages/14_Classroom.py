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
phone = link[0] is not None and link[1] is None  # a student's link: the room's example
settings = page_frame(
    "Classroom",
    icon="🙋",
    page_params=("room", "joined", "question", "rounds", "query"),
    note="A phone in a room shows the room's example, not these settings."
    if phone
    else "A lecturer's room shows these settings' example on every phone (Push).",
    uses=() if phone else None,  # a phone's rerun at the reveal draws no settings widgets
)
st.title("Classroom")
classroom(settings, link)
