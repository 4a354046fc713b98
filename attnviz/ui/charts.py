"""Charts on a page, two ways: ``show_matrix`` draws a matrix as a heatmap (and returns the
cell clicked in it); ``draw`` puts any other chart on the page, a Plotly figure finished for
this session's display, or a chart finished already (one ``serve.finish.kept_chart`` keeps for
every visitor).

A chart goes one way: the session's display (projector mode, palette: ``charts.finish
.Display``, set once a run by the sidebar) is read here and passed down to one pure call in
``charts.finish`` (``matrix_chart`` or ``finished``), whose (figure dict, heading, name, words)
this module draws; nothing below reads the session.

No download under each chart: the step page has one export section, and Plotly's toolbar
saves any chart as a PNG.
"""

import html

import streamlit as st

from attnviz.charts import MAX_SELECTABLE, is_selectable, selected_cell
from attnviz.charts.finish import PlainFigure, finished, matrix_chart
from attnviz.charts.pipeline import pipeline_flow_html, pipeline_svg
from attnviz.ui.sidebar import DISPLAY_KEY, SCREEN_DISPLAY

CHART_CONFIG = {"displaylogo": False}


def dims(d, prefix=""):
    """Column labels for a width-d matrix: "0" .. "d-1" (or with a prefix, e.g. "c0")."""
    return [f"{prefix}{c}" for c in range(d)]


def display():
    """How this session's charts are shown (``charts.finish.Display``, a tuple: projector
    mode, palette), as the sidebar set it this run: what a finished chart is made for."""
    return st.session_state.get(DISPLAY_KEY, SCREEN_DISPLAY)


def show_matrix(M, row_labels, col_labels, *, key, selectable=False, share=1.0, **chart_args):
    """Draw ``M`` as a heatmap, in ``share`` of the page's width (a column's: cell numbers are
    printed where they fit the cells' width at this size).

    Returns the (row, col) the user just clicked (only on the rerun that the click caused),
    else None. ``chart_args`` go to ``charts.matrix.heatmap_spec`` (title, row_title, kind, ...).
    """
    if selectable and not is_selectable(M.shape):
        st.caption(
            f"Clicking a cell works up to {MAX_SELECTABLE} tokens: use the selectors below "
            "to pick any cell."
        )
        selectable = False
    shown = display()
    chart = matrix_chart(
        M, row_labels, col_labels, shown, selectable=selectable, share=share, **chart_args
    )
    config = {"displaylogo": False, "toImageButtonOptions": {"filename": f"attnviz-{key}"}}
    clicks = dict(on_select="rerun", selection_mode="points") if selectable else {}
    event = _put(chart, key, shown.present, config=config, theme=None, **clicks)
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


def draw(chart, key, *, share=1.0, title=None, alt=None, words=None, **plotly_args):
    """Put ``chart`` on the page under ``key`` and its text alternative under it; returns what
    ``st.plotly_chart`` returns (the selection state with ``on_select``).

    ``chart`` is a Plotly figure, finished here (``charts.finish.finished``) for this session's
    display: readable on a projector in ``share`` of the page's width (``share=None`` for a
    figure already sized), recoloured, named ``alt`` (the figure's title and kind unless
    given), described by ``words`` (read from its traces unless given), under the heading
    ``title``. Or ``chart`` is finished already, a (figure dict, heading, accessible name, text
    alternative) such as ``serve.finish.kept_chart`` keeps for every visitor. The dict is drawn
    as it is (``PlainFigure``: no second validation); ``plotly_args`` go to ``st.plotly_chart``."""
    present, colours = display()
    if not isinstance(chart, tuple):
        chart = finished(chart, present, colours, share=share, title=title, alt=alt, words=words)
    return _put(chart, key, present, heading=title, **plotly_args)


def _put(chart, key, present, heading=None, **plotly_args):
    """Draw a finished ``chart`` (figure dict, heading, name, words) under ``key``, and its
    words under it but in projector mode (the room reads the chart itself)."""
    spec, title, name, text = chart
    event = st.plotly_chart(PlainFigure(spec), key=key, alt=name, **plotly_args)
    if not present:
        chart_words(heading or title or key, text)
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
                text_px=PIPELINE_TEXT_PX[display().present],
                lit=lit,
            ),
            width="stretch",
            alt="The pipeline: X to Q, K, V, to S = QKᵀ, to S', to A = softmax, to the output AV",
        )
    with st.container(key="pipeline_narrow"):
        st.html(PIPELINE_CSS + pipeline_flow_html(r.n, r.d_model, r.d_k, r.d_v, **sizes))
