"""Figures on a page: a matrix as a heatmap (and the cell clicked in it), other charts.

No download under each chart: the step page has one export section, and Plotly's toolbar
saves any chart as a PNG.
"""

import html

import numpy as np
import streamlit as st

from attnviz.charts import MAX_SELECTABLE, is_selectable, selected_cell
from attnviz.charts.matrix import axis_titles, heatmap_spec
from attnviz.charts.pipeline import pipeline_flow_html, pipeline_svg
from attnviz.charts.present import readable
from attnviz.charts.words import matrix_name, matrix_text, plain
from attnviz.serve.finish import (
    PlainFigure,
    digest,
    drawn_once,
    finished,
    kept_finished,
    plain_spec,
    text_style,
)
from attnviz.ui.sidebar import is_present, palette

CHART_CONFIG = {"displaylogo": False}


def dims(d, prefix=""):
    """Column labels for a width-d matrix: "0" .. "d-1" (or with a prefix, e.g. "c0")."""
    return [f"{prefix}{c}" for c in range(d)]


def chart_style(share=1.0):
    """The text size and width of a chart drawn in ``share`` of the page's width (0.5 in one
    of two columns) in this session's projector mode (``serve.finish.text_style``)."""
    return text_style(is_present(), share)


def projected(fig, share=1.0):
    """``fig`` as a room reads it in projector mode (every text at least PRESENT_TEXT_PX and
    dark, titles wrapped, cell numbers only where they fit: ``charts.present.readable``), drawn
    in ``share`` of the page's width; unchanged otherwise."""
    return readable(fig, chart_style(share)) if is_present() else fig


def show_matrix(M, row_labels, col_labels, *, key, selectable=False, share=1.0, **chart_args):
    """Draw ``M`` as a heatmap, in ``share`` of the page's width (a column's: cell numbers are
    printed where they fit the cells' width at this size).

    Returns the (row, col) the user just clicked (only on the rerun that the click caused),
    else None. ``chart_args`` go to ``charts.matrix_heatmap`` (title, row_title, kind, ...).
    """
    if selectable and not is_selectable(M.shape):
        st.caption(
            f"Clicking a cell works up to {MAX_SELECTABLE} tokens: use the selectors below "
            "to pick any cell."
        )
        selectable = False
    style = chart_style(share)
    chart_args.setdefault("text_px", style.text_px)
    chart_args.setdefault("width_px", style.width_px)
    spec = heatmap_spec(M, row_labels, col_labels, selectable=selectable, **chart_args)
    drawn_once(spec, np.asarray(M), list(row_labels), list(col_labels), selectable, chart_args)
    fig = PlainFigure(plain_spec(spec))
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
        share=None,  # sized by heatmap_spec for its share of the page
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


def show_chart(fig, key, share=1.0):
    """Draw any Plotly figure (a line or bar chart) under ``key``, with the app's toolbar, in
    ``share`` of the page's width (readable on a projector: ``projected``)."""
    draw_chart(fig, key, share=share, config=_toolbar(key))


def _toolbar(key):
    return dict(CHART_CONFIG, toImageButtonOptions={"filename": f"attnviz-{key}"})


def draw_chart(fig, key, *, share=1.0, title=None, alt=None, words=None, **plotly_args):
    """Put any chart on the page: readable on a projector (``projected`` in ``share`` of the
    page's width; ``share=None`` for a figure already sized, as ``heatmap_spec``'s are), in
    the reader's palette (``sidebar.palette``), with an accessible name (``alt``: the
    figure's title and kind unless given) and its text alternative under it (``words``: read
    from the figure's traces unless given), under the heading ``title``. ``plotly_args`` go
    to ``st.plotly_chart``; returns what it returns (the selection state with ``on_select``)."""
    return draw_finished(
        finished_chart(fig, key, share=share, title=title, alt=alt, words=words), key, **plotly_args
    )


def finished_chart(fig, key, *, share=1.0, title=None, alt=None, words=None):
    """``serve.finish.finished`` for ``fig`` in this session's projector mode and palette, as
    (figure dict, title, alt, words), to draw with ``draw_finished``."""
    return finished(
        fig, is_present(), palette(), share=share, title=title, alt=alt, words=words, key=key
    )


def draw_finished(chart, key, **plotly_args):
    """Draw ``finished_chart``'s (figure dict, title, alt, words) under ``key``, the dict as it
    is (``PlainFigure``: no second validation); ``plotly_args`` go to ``st.plotly_chart``;
    returns what it returns (the selection state with ``on_select``)."""
    spec, title, alt, words = chart
    event = st.plotly_chart(PlainFigure(spec), key=key, alt=alt, **plotly_args)
    chart_words(title, words)
    return event


def show_kept_chart(make, args, key, share=1.0):
    """``show_chart(make(*args), key, share)``, made once for every session
    (``draw_kept_chart``)."""
    draw_kept_chart(make, args, key, share=share, config=_toolbar(key))


def draw_kept_chart(make, args, key, *, share=1.0, title=None, inputs=(), **plotly_args):
    """``draw_chart(make(*args, *inputs), key, ...)``, the figure made and finished (validated,
    made readable, recoloured, its text alternative written) once for every session: ``make`` a
    module-level function of small keys ``args`` (Settings, numbers) and of ``inputs`` (arrays,
    known to the cache by their digest alone), whose figure depends on them alone. What is sent
    is the very dict ``draw_chart`` sends."""
    inputs = tuple(inputs)
    spec, title, alt, words = kept_finished(
        make,
        tuple(args),
        digest(*inputs) if inputs else None,
        share,
        is_present(),
        palette(),
        title,
        inputs=inputs,
    )
    return draw_finished((spec, title or key, alt, words), key, **plotly_args)


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
