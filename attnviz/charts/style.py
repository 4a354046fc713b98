"""The charts' style sheet: colour scales, the colour and axis titles of each matrix family,
text sizes, fonts, and how a label is written as Plotly text. No Streamlit here.

Every chart builder takes its look from here, so that a matrix looks the same on every page,
in the pipeline diagram and in the step headers.
"""

import html
import math
import re
import unicodedata
from dataclasses import dataclass, replace

from attnviz.text import visible, visible_all

# Colour-blind-safe scales: a diverging scale centred at 0 for signed matrices, a sequential one
# from 0 to 1 for probabilities.
SIGNED_COLORSCALE = "RdBu_r"
PROBABILITY_COLORSCALE = "Viridis"
MAX_LABEL_CHARS = 16  # tick labels longer than this are cut (the hover shows them whole)
TEXT_PX = 12  # cell numbers, tick labels and axis titles, in pixels
PRESENT_TEXT_PX = 20  # the same in projector mode: readable from the back of a room
# The width (px) the main column gives a chart: on a projector at 1280 x 720, 1280 less
# Streamlit's padding (80 px each side) with the sidebar collapsed; on a screen, a window 1460 px
# wide with the sidebar open (300 px); a wider window only widens the cells. A chart in a page
# column gets its share of it (``TextStyle.column``).
SCREEN_WIDTH_PX = 1000
PRESENT_WIDTH_PX = 1120
# The height (px) a step's first chart may take on a projector at 1280 x 720: 720 less the
# stepper's bar above it (about 150 px with Streamlit's top padding) and a small gap below
PRESENT_CHART_HEIGHT_PX = 550


@dataclass(frozen=True)
class TextStyle:
    """How large a chart's text is drawn and how wide the chart is.

    text_px: the smallest size (px) of any text the chart draws.
    width_px: the width (px) the chart is drawn at (a column's, for a chart in a column).
    """

    text_px: int = TEXT_PX
    width_px: int = SCREEN_WIDTH_PX

    def column(self, fraction):
        """The same style for a chart drawn in ``fraction`` of the width (a page column)."""
        return replace(self, width_px=int(self.width_px * fraction))


SCREEN = TextStyle()
PRESENT = TextStyle(PRESENT_TEXT_PX, PRESENT_WIDTH_PX)


MIN_CONTRAST = 4.5  # WCAG AA for text: a chart's text paler than this on white is drawn dark
AXIS_TITLE_COLOUR = "#262730"  # dark on white: axis titles are read, not decoration
FONT_FAMILY = '"Source Sans", sans-serif'  # Streamlit's body font
TEXT_COLOUR = "#31333F"  # Streamlit's body text
MASKED_COLOUR = "#c8c8c8"  # a masked cell: no weight by construction, not a small weight
OUTLINE_COLOUR = "#111111"  # the outline of a cell an edit changed (over a white one)
OUTLINE_PX = 2

# One colour per matrix family, the same on every page, in the pipeline diagram and the step
# headers (the titles' colour; the cells keep their value scale): (row title, column title,
# colour). Rows of X are tokens, of Q queries, of K keys, of V values. Each colour is at
# least 4.5:1 on white (WCAG AA for the titles' text).
FAMILIES = {
    "X": ("token (row i)", "embedding dimension", "#4d4d4d"),
    "W": ("input dimension d", "output dimension c", "#8c510a"),
    "Q": ("query of token i (row i)", "d_k dimension c", "#7b3294"),
    "K": ("key of token j (row j)", "d_k dimension c", "#b34a00"),
    "V": ("value of token j (row j)", "d_v dimension c", "#1f78b4"),
    "S": ("query (row i)", "key (column j)", "#1b7837"),
    "A": ("query (row i)", "key (column j)", "#8a6118"),
    "O": ("output of token i (row i)", "d_v dimension c", "#c2185b"),
}


def escape_label(label, max_chars=None):
    """``label`` as Plotly text that shows exactly as typed (markup escaped, invisible and bidi
    control characters written out); cut to ``max_chars`` with "…"."""
    return _escaped(visible(label), max_chars)


def escape_labels(labels, max_chars=None):
    """[``escape_label(label, max_chars)``] for every label of ``labels``."""
    return [_escaped(label, max_chars) for label in visible_all(labels)]


def axis_labels(axes, max_chars, whole=True):
    """For each axis of ``axes`` (lists of labels), (its labels cut to ``max_chars`` for the
    ticks, its whole labels for the hover or None when not ``whole``), escaped as
    ``escape_label``: every label of a chart in one pass."""
    counts = [len(labels) for labels in axes]
    shown = visible_all([label for labels in axes for label in labels])
    out, start = [], 0
    for count in counts:
        part = shown[start : start + count]
        start += count
        cut = [_escaped(label, max_chars) for label in part]
        out.append((cut, [_escaped(label, None) for label in part] if whole else None))
    return out


def _escaped(label, max_chars):
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


def widest_px(texts, size):
    """The largest ``text_px`` of ``texts`` at font ``size`` (0 for none)."""
    return max((text_px(text, size) for text in texts), default=0)


def shown_text(text):
    """What Plotly text shows: its tags dropped, its entities read."""
    return html.unescape(re.sub(r"<[^>]+>", "", str(text)))


def wrap(text, size, max_px):
    """``text`` with ``<br>`` between words so that no line is wider than ``max_px`` at
    ``size`` (see ``text_px``; a single word wider than that keeps a line of its own); the
    breaks it has are kept. ``text`` is Plotly text: its tags and entities are not counted."""
    lines = []
    for line in str(text).split("<br>"):
        current = ""
        for word in line.split(" "):
            candidate = f"{current} {word}" if current else word
            if current and text_px(shown_text(candidate), size) > max_px:
                lines.append(current)
                current = word
            else:
                current = candidate
        lines.append(current)
    return "<br>".join(lines)


# A legend under the plot, at the figure's bottom (not at a fraction of the plot's height, where
# larger ticks and axis title reach it): Plotly makes room for it; two entries a row.
BOTTOM_LEGEND = dict(
    orientation="h", yref="container", yanchor="bottom", y=0, xref="container", x=0,
    traceorder="normal", entrywidthmode="fraction", entrywidth=0.5,
)  # fmt: skip  # from the figure's left edge: a half-width chart's entries are not cut
LEGEND_ROW = 1.7  # a legend row's height, in font sizes (the entry and the gap to the next)


def legend_rows(fig):
    """How many rows a horizontal legend of ``fig`` takes: its entries (the traces shown in
    it), ``1 / entrywidth`` a row when the entries' width is a fraction, else one a row."""
    legend = fig.layout.legend
    entries = sum(1 for t in fig.data if t.showlegend is not False and t.name)
    fraction = legend.entrywidth if legend.entrywidthmode == "fraction" else None
    per_row = max(round(1 / fraction), 1) if fraction else 1
    return -(-entries // per_row)


def legend_px(fig, size):
    """The height (px) of ``fig``'s legend drawn at ``size`` px: ``legend_rows`` rows."""
    return math.ceil(legend_rows(fig) * size * LEGEND_ROW)
