"""The Streamlit glue: the only part of attnviz that imports streamlit.

A few shared pieces, named by what they are:

    frame        the sidebar, the menu of pages, page_setup and the cached example
    matrix       show_matrix (a heatmap with its CSV and the clicked cell), show_chart
    attention_view  show_attention: A as a heatmap or as token lines, a switch between them
    inspectors   the cell inspectors: the arithmetic behind one cell
    steps        every step's matrices (the step page and Your own numbers draw them)
    spread       change one number of X: the picker, the outlines, the sentences
    text         md_escape, step_header, notice

and one module per page in ``attnviz.ui.pages``, named after its page script: the script
``pages/4_Masks_and_temperature.py`` calls ``attnviz.ui.pages.masks_and_temperature``.
"""

from attnviz.ui import inspectors, spread, steps
from attnviz.ui.attention_view import show_attention
from attnviz.ui.frame import link_query, page_frame, page_setup, shared_settings
from attnviz.ui.matrix import dims, show_matrix

__all__ = [
    "dims",
    "inspectors",
    "link_query",
    "page_frame",
    "page_setup",
    "shared_settings",
    "show_attention",
    "show_matrix",
    "spread",
    "steps",
]
