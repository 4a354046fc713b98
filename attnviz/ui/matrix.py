"""Figures on a page: a matrix as a heatmap (and the cell clicked in it), other charts.

No download under each chart: the step page has one export section, and Plotly's toolbar
saves any chart as a PNG.
"""

import hashlib

import numpy as np
import streamlit as st

from attnviz.charts import MAX_SELECTABLE, is_selectable, matrix_heatmap, selected_cell
from attnviz.charts.matrix import axis_titles
from attnviz.charts.style import PRESENT_TEXT_PX, TEXT_PX
from attnviz.charts.words import figure_name, figure_text, matrix_name, matrix_text, plain
from attnviz.ui.sidebar import is_present

CHART_CONFIG = {"displaylogo": False}


def dims(d, prefix=""):
    """Column labels for a width-d matrix: "0" .. "d-1" (or with a prefix, e.g. "c0")."""
    return [f"{prefix}{c}" for c in range(d)]


def drawn_once(fig, *inputs):
    """Let Plotly draw ``fig`` once, not twice: Streamlit hands Plotly a copy of every new
    figure right after mounting it, and Plotly redraws whatever it sees as new. With no
    template (the heatmaps set every style they use; the page draws them with ``theme=None``)
    and a ``datarevision`` that changes exactly when the figure does (a digest of everything
    the figure is made from, ``inputs``), the copy is seen as what is already drawn (measured
    in notes/browser-performance.md: the second draw of a chart from 12-21 ms to 2-4 ms)."""
    digest = hashlib.blake2b(digest_size=8)

    def feed(value):  # arrays by their bytes, dicts in key order, the rest by repr
        if isinstance(value, np.ndarray):
            digest.update(f"{value.dtype}{value.shape}".encode())
            digest.update(np.ascontiguousarray(value).tobytes())
        elif isinstance(value, dict):
            for name in sorted(value):
                digest.update(name.encode())
                feed(value[name])
        else:
            digest.update(repr(value).encode())

    for value in inputs:
        feed(value)
    fig.layout.template = None
    fig.layout.datarevision = digest.hexdigest()


def show_matrix(M, row_labels, col_labels, *, key, selectable=False, **chart_args):
    """Draw ``M`` as a heatmap.

    Returns the (row, col) the user just clicked (only on the rerun that the click caused),
    else None. ``chart_args`` go to ``charts.matrix_heatmap`` (title, row_title, kind, ...).
    """
    if selectable and not is_selectable(M.shape):
        st.caption(
            f"Clicking a cell works up to {MAX_SELECTABLE} tokens: use the selectors below "
            "to pick any cell."
        )
        selectable = False
    chart_args.setdefault("text_px", PRESENT_TEXT_PX if is_present() else TEXT_PX)
    fig = matrix_heatmap(M, row_labels, col_labels, selectable=selectable, **chart_args)
    drawn_once(fig, np.asarray(M), list(row_labels), list(col_labels), selectable, chart_args)
    config = {"displaylogo": False, "toImageButtonOptions": {"filename": f"attnviz-{key}"}}
    row_title, col_title = axis_titles(
        chart_args.get("family"), chart_args.get("row_title"), chart_args.get("col_title")
    )
    title = plain(chart_args.get("title", ""))
    alt = matrix_name(title, np.shape(M), row_title, col_title)
    if selectable:
        event = st.plotly_chart(
            fig,
            key=key,
            on_select="rerun",
            selection_mode="points",
            config=config,
            theme=None,
            alt=alt,
        )
    else:
        st.plotly_chart(fig, key=key, config=config, theme=None, alt=alt)
        event = None
    words = matrix_text(
        M,
        row_labels,
        col_labels,
        title=title,
        row_title=row_title,
        col_title=col_title,
        mask=chart_args.get("mask"),
        kind=chart_args.get("kind", "signed"),
    )
    chart_words(title, words)
    if event is None:
        return None
    cell = selected_cell(event.selection)
    memory = f"attnviz.click.{key}"
    new = cell is not None and cell != st.session_state.get(memory)
    st.session_state[memory] = cell
    return cell if new else None


def show_chart(fig, key):
    """Draw any Plotly figure (a line or bar chart) under ``key``, with the app's toolbar."""
    config = dict(CHART_CONFIG, toImageButtonOptions={"filename": f"attnviz-{key}"})
    if is_present():  # every label of the chart readable from the back of a room
        fig.update_layout(font=dict(size=PRESENT_TEXT_PX), title_font_size=PRESENT_TEXT_PX + 4)
    st.plotly_chart(fig, key=key, config=config, alt=figure_name(fig))
    chart_words(plain(fig.layout.title.text or key), figure_text(fig))


def chart_words(title, text):
    """A chart's text alternative, under it, closed until opened: what a screen reader reads
    and anyone can open (shown as plain text, never Markdown). Not in projector mode, where
    the room reads the chart itself."""
    if is_present():
        return
    with st.expander(f"{title}: as text"):
        st.text(text)
