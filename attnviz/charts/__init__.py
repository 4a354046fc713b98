"""Plotly chart builders: arrays and labels in, ``go.Figure`` out. No Streamlit here.

One module per kind of chart; ``matrix`` draws every matrix heatmap of the app.
"""

from attnviz.charts.matrix import (
    MAX_CELLS_WITH_TEXT,
    MAX_DRAWN,
    MAX_LABEL_CHARS,
    MAX_SELECTABLE,
    escape_label,
    is_selectable,
    matrix_heatmap,
    selected_cell,
)

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
