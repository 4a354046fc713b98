"""The Streamlit glue: the only part of attnviz that imports streamlit.

A few shared pieces, named by what they are:

    frame        the shell's parts: st.navigation, the frame, lesson()/page_settings()
    sidebar      the shared settings' widgets, projector mode, the URL they are mirrored in
    heavy        the "waiting: k ahead of you" notice of the heavy gate (attnviz.serve.gate)
    charts       the two ways to draw: show_matrix (a heatmap and the clicked cell), draw
    attention_view  show_attention: A as a heatmap or as token lines, a switch between them
    inspectors   the cell inspectors: the arithmetic behind one cell
    steps        every step's matrices (the step page and Your own numbers draw them)
    spread       change one number of X: the picker, the outlines, the sentences
    text         md_escape, step_header, notice

and one module per page in ``attnviz.ui.pages``, named after its page script: the script
``app_pages/Masks_and_temperature.py`` calls ``attnviz.ui.pages.masks_and_temperature``. What the
server computes once and keeps for every visitor is ``attnviz.serve`` (no Streamlit).
"""

from attnviz.ui import heavy, inspectors, spread, steps  # heavy: the gate's notice, installed
from attnviz.ui.attention_view import show_attention
from attnviz.ui.charts import dims, show_matrix
from attnviz.ui.frame import lesson, page_settings
from attnviz.ui.sidebar import link_query

__all__ = [
    "dims",
    "heavy",
    "inspectors",
    "lesson",
    "link_query",
    "page_settings",
    "show_attention",
    "show_matrix",
    "spread",
    "steps",
]
