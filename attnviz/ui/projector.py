"""A table readable on a projector (``data_table``): a scrolling grid on a screen, a static
table in the page's larger text in projector mode.

Projector mode itself (its switch, the session's Display, the page's CSS and look) is
``attnviz.ui.sidebar``'s; the charts' own text is sized by ``charts.finish``.
"""

import pandas as pd
import streamlit as st

from attnviz.ui.sidebar import is_present
from attnviz.ui.text import md_escape


def _escaped(values):
    """A column or an index of text as a static table shows it: Markdown, escaped."""
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
        return values
    return values.map(lambda v: md_escape(str(v)))


def data_table(data, *, hide_index=None, height=None, **dataframe_args):
    """A table of ``data`` (a DataFrame, or what makes one: a dict of columns, a list of rows).

    On a screen a scrolling grid (``st.dataframe``, ``height`` px or its own). In projector mode
    a static table in the page's larger text instead (a grid draws its cells on a canvas, at
    its own small size whatever the page's CSS), its text escaped (a static table's cells are
    Markdown), ``height`` px tall at most, then scrolling."""
    if not is_present():
        return st.dataframe(data, hide_index=hide_index, height=height or "auto", **dataframe_args)
    frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(data)
    frame = frame.apply(_escaped)
    frame.index = _escaped(frame.index.to_series()).rename(frame.index.name)
    return st.table(frame, hide_index=hide_index, height=height or "content")
