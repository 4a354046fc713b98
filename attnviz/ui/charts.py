"""Charts on a page, two ways: ``show_matrix`` draws a matrix as a heatmap (and returns the
cell clicked in it); ``draw`` puts any other chart on the page, a Plotly figure finished here for
this session's projector mode and palette, or a chart finished already (``serve.finish``: one
kept for every visitor, e.g. ``kept_chart``'s).

No download under each chart: the step page has one export section, and Plotly's toolbar
saves any chart as a PNG.
"""

import html

import numpy as np
import streamlit as st

from attnviz.charts import MAX_SELECTABLE, is_selectable, selected_cell
from attnviz.charts.matrix import axis_titles, heatmap_spec
from attnviz.charts.pipeline import pipeline_flow_html, pipeline_svg
from attnviz.charts.words import matrix_name, matrix_text, plain
from attnviz.serve.finish import PlainFigure, drawn_once, finished, plain_spec, text_style
from attnviz.ui.sidebar import is_present, palette

CHART_CONFIG = {"displaylogo": False}


def dims(d, prefix=""):
    """Column labels for a width-d matrix: "0" .. "d-1" (or with a prefix, e.g. "c0")."""
    return [f"{prefix}{c}" for c in range(d)]


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
    style = text_style(is_present(), share)  # in share of the page's width
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
    event = draw(
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


def toolbar(key):
    """The chart toolbar's config: no Plotly logo, and a PNG saved as ``attnviz-{key}``."""
    return dict(CHART_CONFIG, toImageButtonOptions={"filename": f"attnviz-{key}"})


def display():
    """(projector mode, palette) of this session: what a finished chart is made for."""
    return is_present(), palette()


def draw(chart, key, *, share=1.0, title=None, alt=None, words=None, **plotly_args):
    """Put ``chart`` on the page under ``key`` and its text alternative under it; returns what
    ``st.plotly_chart`` returns (the selection state with ``on_select``).

    ``chart`` is a Plotly figure, finished here (``serve.finish.finished``) for this session's
    projector mode and palette: readable on a projector in ``share`` of the page's width
    (``share=None`` for a figure already sized, as ``heatmap_spec``'s are), recoloured, named
    ``alt`` (the figure's title and kind unless given), described by ``words`` (read from its
    traces unless given), under the heading ``title``. Or ``chart`` is finished already, a
    (figure dict, heading, accessible name, text alternative) such as ``serve.finish
    .kept_chart`` keeps for every visitor. The dict is drawn as it is (``PlainFigure``: no
    second validation); ``plotly_args`` go to ``st.plotly_chart``."""
    present, colours = display()
    if not isinstance(chart, tuple):
        chart = finished(chart, present, colours, share=share, title=title, alt=alt, words=words)
    spec, heading, name, text = chart
    event = st.plotly_chart(PlainFigure(spec), key=key, alt=name, **plotly_args)
    if not present:  # in projector mode the room reads the chart itself
        chart_words(title or heading or key, text)
    return event


def chart_words(title, text):
    """A chart's text alternative, under it, closed until opened: what a screen reader reads
    and anyone can open (plain text, escaped: never Markdown or HTML of the user's). One
    element (a <details>), not an expander and its text: every element costs the server time
    on every rerun. ``draw`` leaves it out in projector mode, where the room reads the chart."""
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


PIPELINE_TEXT_PX = (15, 19)  # the diagram's labels: on a screen, on a projector (from the back)


def show_pipeline(result, settings, lit=None):
    """The pipeline with ``result``'s sizes and ``settings``' scaling and temperature: the wide
    diagram (``charts.pipeline.pipeline_svg``, its box ``lit`` drawn filled) on a wide screen,
    the same boxes in a column on a phone (below 640 px, where the diagram's text would shrink
    to about 5 px)."""
    r = result
    sizes = dict(scale=settings.scale, masked=r.mask is not None, temperature=settings.temperature)
    with st.container(key="pipeline_wide"):
        st.image(
            pipeline_svg(
                r.n,
                r.d_model,
                r.d_k,
                r.d_v,
                **sizes,
                text_px=PIPELINE_TEXT_PX[is_present()],
                lit=lit,
            ),
            width="stretch",
            alt="The pipeline: X to Q, K, V, to S = QKᵀ, to S', to A = softmax, to the output AV",
        )
    with st.container(key="pipeline_narrow"):
        st.html(PIPELINE_CSS + pipeline_flow_html(r.n, r.d_model, r.d_k, r.d_v, **sizes))
