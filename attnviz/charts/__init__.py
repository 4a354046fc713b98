"""Plotly chart builders: arrays and labels in, ``go.Figure`` out. No Streamlit here.

One module per kind of chart; ``matrix`` draws every matrix heatmap of the app.
"""

from attnviz.charts.matrix import (
    MAX_CELLS_WITH_TEXT,
    MAX_LABEL_CHARS,
    escape_label,
    matrix_heatmap,
    selected_cell,
    vector_bars,
)

__all__ = [
    "MAX_CELLS_WITH_TEXT",
    "MAX_LABEL_CHARS",
    "escape_label",
    "matrix_heatmap",
    "selected_cell",
    "vector_bars",
]
