"""Figures on a page: a matrix as a heatmap (and the cell clicked in it), other charts.

No download under each chart: the step page has one export section, and Plotly's toolbar
saves any chart as a PNG.
"""

import hashlib
import html

import numpy as np
import streamlit as st

from attnviz.charts import MAX_SELECTABLE, is_selectable, matrix_heatmap, selected_cell
from attnviz.charts.matrix import axis_titles
from attnviz.charts.palette import recolour
from attnviz.charts.pipeline import pipeline_flow_html, pipeline_svg
from attnviz.charts.style import PRESENT_TEXT_PX, TEXT_PX
from attnviz.charts.words import figure_name, figure_text, matrix_name, matrix_text, plain
from attnviz.ui.sidebar import is_present, palette

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
    clicks = dict(on_select="rerun", selection_mode="points") if selectable else {}
    event = draw_chart(
        fig,
        key,
        title=title,
        alt=matrix_name(title, np.shape(M), row_title, col_title),
        words=words,
        config=config,
        theme=None,
        **clicks,
    )
    if not selectable:
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
    draw_chart(fig, key, config=config)


def draw_chart(fig, key, *, title=None, alt=None, words=None, **plotly_args):
    """Put any chart on the page: in the reader's palette (``sidebar.palette``), with an
    accessible name (``alt``: the figure's title and kind unless given) and its text
    alternative under it (``words``: read from the figure's traces unless given), under the
    expander ``title``. ``plotly_args`` go to ``st.plotly_chart``; returns what it returns
    (the selection state when ``on_select`` is given)."""
    title = title or plain(fig.layout.title.text) or key
    alt = alt or figure_name(fig)
    words = words or figure_text(fig)
    drawn = recolour(fig, palette())
    event = st.plotly_chart(drawn, key=key, alt=alt, **plotly_args)
    chart_words(title, words)
    return event


def chart_words(title, text):
    """A chart's text alternative, under it, closed until opened: what a screen reader reads
    and anyone can open (plain text, escaped: never Markdown or HTML of the user's). One
    element (a <details>), not an expander and its text: every element costs the server time
    on every rerun. Not in projector mode, where the room reads the chart itself."""
    if is_present():
        return
    st.html(
        f'<details class="attnviz-words"><summary>{html.escape(title)}: as text</summary>'
        f'<pre style="white-space:pre-wrap">{html.escape(text)}</pre></details>'
    )


PIPELINE_CSS = """<style>
.st-key-pipeline_narrow { display: none; }
@media (max-width: 640px) {
  .st-key-pipeline_wide { display: none; }
  .st-key-pipeline_narrow { display: block; }
}
</style>"""


def show_pipeline(n, d_model, d_k, d_v, *, scale, masked, temperature, **svg_args):
    """The pipeline with these sizes: the wide diagram (``charts.pipeline.pipeline_svg``;
    ``svg_args`` go to it) on a wide screen, the same boxes in a column on a phone (below
    640 px, where the diagram's text would shrink to about 5 px)."""
    sizes = dict(scale=scale, masked=masked, temperature=temperature)
    with st.container(key="pipeline_wide"):
        st.image(
            pipeline_svg(n, d_model, d_k, d_v, **sizes, **svg_args),
            width="stretch",
            alt="The pipeline: X to Q, K, V, to S = QKᵀ, to S', to A = softmax, to the output AV",
        )
    with st.container(key="pipeline_narrow"):
        st.html(PIPELINE_CSS + pipeline_flow_html(n, d_model, d_k, d_v, **sizes))
