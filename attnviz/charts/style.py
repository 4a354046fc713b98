"""The charts' style sheet: colour scales, the colour and axis titles of each matrix family,
text sizes, fonts, and how a label is written as Plotly text. No Streamlit here.

Every chart builder takes its look from here, so that a matrix looks the same on every page,
in the pipeline diagram and in the step headers.
"""

import html
import math
import unicodedata

from attnviz.text import visible

# Colour-blind-safe scales: a diverging scale centred at 0 for signed matrices, a sequential one
# from 0 to 1 for probabilities.
SIGNED_COLORSCALE = "RdBu_r"
PROBABILITY_COLORSCALE = "Viridis"
MAX_LABEL_CHARS = 16  # tick labels longer than this are cut (the hover shows them whole)
TEXT_PX = 12  # cell numbers, tick labels and axis titles, in pixels
PRESENT_TEXT_PX = 20  # the same in projector mode: readable from the back of a room
AXIS_TITLE_COLOUR = "#262730"  # dark on white: axis titles are read, not decoration
FONT_FAMILY = '"Source Sans", sans-serif'  # Streamlit's body font
TEXT_COLOUR = "#31333F"  # Streamlit's body text
MASKED_COLOUR = "#c8c8c8"  # a masked cell: no weight by construction, not a small weight
OUTLINE_COLOUR = "#111111"  # the outline of a cell an edit changed (over a white one)
OUTLINE_PX = 2

# One colour per matrix family, the same on every page, in the pipeline diagram and the step
# headers (the titles' colour; the cells keep their value scale): (row title, column title,
# colour). Rows of X are tokens, of Q queries, of K keys, of V values.
FAMILIES = {
    "X": ("token (row i)", "embedding dimension", "#4d4d4d"),
    "W": ("input dimension d", "output dimension c", "#8c510a"),
    "Q": ("query of token i (row i)", "d_k dimension c", "#7b3294"),
    "K": ("key of token j (row j)", "d_k dimension c", "#d95f02"),
    "V": ("value of token j (row j)", "d_v dimension c", "#1f78b4"),
    "S": ("query (row i)", "key (column j)", "#1b7837"),
    "A": ("query (row i)", "key (column j)", "#a6761d"),
    "O": ("output of token i (row i)", "d_v dimension c", "#e7298a"),
}


def escape_label(label, max_chars=None):
    """``label`` as Plotly text that shows exactly as typed (markup escaped, invisible and bidi
    control characters written out); cut to ``max_chars`` with "…"."""
    label = visible(label)
    if max_chars is not None and len(label) > max_chars:
        label = label[: max_chars - 1] + "…"
    return html.escape(label, quote=True)


def text_px(text, size):
    """A generous estimate of the width in pixels of ``text`` drawn at font ``size``."""
    em = 0.0
    for c in str(text):
        if unicodedata.east_asian_width(c) in "WF":
            em += 1.05
        elif c.isupper() or c in "mwMW@%&—…–":
            em += 0.9
        elif c.isdigit() or c in "−+":
            em += 0.62
        else:  # lowercase letters, spaces, brackets (measured: "the (1)" is 3 em wide)
            em += 0.5
    return math.ceil(em * size) + 4
