"""Plotly chart builders: arrays and labels in, ``go.Figure`` out. No Streamlit here.

One module per kind of chart; ``matrix`` draws every matrix heatmap of the app, and ``style``
is their style sheet (colours, families, text sizes, how a label is escaped). ``finish`` turns
any chart into what a page sends for a display (projector mode, palette): the figure, its
accessible name and its words.
"""

from attnviz.charts.matrix import (
    MAX_CELLS_WITH_TEXT,
    MAX_DRAWN,
    MAX_SELECTABLE,
    is_selectable,
    matrix_heatmap,
    selected_cell,
)
from attnviz.charts.style import MAX_LABEL_CHARS, escape_label

__all__ = [
    "MAX_CELLS_WITH_TEXT",
    "MAX_DRAWN",
    "MAX_LABEL_CHARS",
    "MAX_SELECTABLE",
    "escape_label",
    "is_selectable",
    "matrix_heatmap",
    "selected_cell",
]
