"""Figures on a page: a matrix as a heatmap (and the cell clicked in it), other charts.

No download under each chart: the step page has one export section, and Plotly's toolbar
saves any chart as a PNG.
"""

import base64
import functools
import hashlib
import html

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from _plotly_utils.utils import plotlyjsShortTypes, to_typed_array_spec

from attnviz.charts import MAX_SELECTABLE, is_selectable, selected_cell
from attnviz.charts.matrix import axis_titles, heatmap_spec
from attnviz.charts.palette import recolour
from attnviz.charts.pipeline import pipeline_flow_html, pipeline_svg
from attnviz.charts.present import PRESENT, SCREEN, readable
from attnviz.charts.style import TEXT_COLOUR
from attnviz.charts.words import figure_name, figure_text, matrix_name, matrix_text, plain
from attnviz.limits import CACHE_FINISHED_CHARTS
from attnviz.ui.cache import cached_call, object_bytes, register
from attnviz.ui.sidebar import is_present, palette

CHART_CONFIG = {"displaylogo": False}


def dims(d, prefix=""):
    """Column labels for a width-d matrix: "0" .. "d-1" (or with a prefix, e.g. "c0")."""
    return [f"{prefix}{c}" for c in range(d)]


class PlainFigure(go.Figure):
    """A finished figure (``plain_spec``'s dict) that ``st.plotly_chart`` draws as it is.

    Streamlit reads a go.Figure through ``to_dict()`` alone, and validates a dict it is given
    by building a go.Figure of it: Plotly's validators were about half of the step page's
    server time (measured in docs/performance.md). This figure is never validated and hands
    over its dict; only a page's own heatmaps (``heatmap_spec``) are drawn this way, and
    tests/test_plain_figure.py checks that what it sends is what Plotly's validated figure
    sends. The dict is read, never changed."""

    def __init__(self, spec):  # no go.Figure.__init__: nothing is validated
        self._plain = spec

    def to_dict(self):
        return self._plain


@functools.cache
def _colorscale(name):
    """Plotly's own reading of a named colour scale (e.g. "RdBu_r" reversed), as JSON lists."""
    return [list(stop) for stop in go.Heatmap()._get_validator("colorscale").validate_coerce(name)]


def _without_none(value):
    """``value`` with every None of its dicts left out, as Plotly's validated dict has them."""
    if isinstance(value, dict):
        return {k: _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return [_without_none(v) for v in value]
    return value


def _typed_array(v):
    """A numeric array as plotly.js's typed array spec ({"dtype", "bdata", "shape"}), as
    Plotly's own ``to_typed_array_spec`` makes it (which it still makes for other dtypes); an
    array of strings (the hover's customdata) as nested lists, as Plotly's JSON encoder would
    make it: orjson cannot encode such an array, and one of them anywhere sends Plotly's whole
    figure through its slow cleaning walk (``clean_to_json_compatible``) before the encoding."""
    if v.dtype.kind in "UO":
        return v.tolist()
    short = plotlyjsShortTypes.get(str(v.dtype))
    if short is None or v.size == 0:
        return to_typed_array_spec(v)
    typed = {"dtype": short, "bdata": base64.b64encode(np.ascontiguousarray(v)).decode("ascii")}
    if v.ndim > 1:
        typed["shape"] = str(v.shape)[1:-1]
    return typed


def _with_typed_arrays(value):
    """Replace, in place, every numpy array in ``value``'s dicts and lists by ``_typed_array``
    (Plotly's ``convert_to_base64``, without its generic array checks on every string)."""
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        if isinstance(item, np.ndarray) and key not in ("geojson", "layer", "layers", "range"):
            value[key] = _typed_array(item)
        elif isinstance(item, (dict, list)):
            _with_typed_arrays(item)


def plain_spec(spec):
    """``spec`` ({"data", "layout"} of plain dicts, e.g. ``heatmap_spec``'s) as Plotly's
    validated ``go.Figure(spec).to_dict()`` would be, with no template (the heatmaps set every
    style they use): named colour scales spelt out, Nones and empty shapes left out, numeric
    arrays as base64 typed arrays."""
    spec = _without_none(spec)
    for trace in spec["data"]:
        if isinstance(trace.get("colorscale"), str):
            trace["colorscale"] = _colorscale(trace["colorscale"])
    if not spec["layout"].get("shapes", True):
        del spec["layout"]["shapes"]
    _with_typed_arrays(spec)
    return spec


def digest(*inputs):
    """A short hex digest of ``inputs`` (arrays by dtype, shape and bytes, dicts in key order,
    the rest by repr): equal exactly when they are."""
    parts = []

    def feed(value):  # arrays by their bytes, dicts in key order, the rest by repr
        if isinstance(value, np.ndarray):
            parts.append(f"{value.dtype}{value.shape}".encode())
            parts.append(np.ascontiguousarray(value).tobytes())
        elif isinstance(value, dict):
            for name in sorted(value):
                parts.append(name.encode())
                feed(value[name])
        else:
            parts.append(repr(value).encode())

    for value in inputs:
        feed(value)
    return hashlib.blake2b(b"".join(parts), digest_size=8).hexdigest()


def drawn_once(spec, *inputs):
    """Let Plotly draw ``fig`` once, not twice: Streamlit hands Plotly a copy of every new
    figure right after mounting it, and Plotly redraws whatever it sees as new. With no
    template (the heatmaps set every style they use; the page draws them with ``theme=None``)
    and a ``datarevision`` that changes exactly when the figure does (a digest of everything
    the figure is made from, ``inputs``), the copy is seen as what is already drawn (measured
    in notes/browser-performance.md: the second draw of a chart from 12-21 ms to 2-4 ms).
    ``spec`` is a figure's dict ({"data", "layout"}), given no template."""
    spec["layout"].pop("template", None)
    spec["layout"]["datarevision"] = digest(*inputs)


def chart_style(share=1.0):
    """The text size and width of a chart drawn in ``share`` of the page's width (0.5 in one
    of two columns): ``charts.present.PRESENT`` in projector mode, else ``SCREEN``."""
    return (PRESENT if is_present() else SCREEN).column(share)


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


def dark_text(fig):
    """Tick labels and axis titles in the body's text colour, not the grey Streamlit's chart
    theme gives them (#808495: 3.7:1 on white, under WCAG's 4.5:1). Idempotent: a figure kept
    in a cache for every session may pass here again."""
    fig.update_xaxes(tickfont_color=TEXT_COLOUR, title_font_color=TEXT_COLOUR)
    fig.update_yaxes(tickfont_color=TEXT_COLOUR, title_font_color=TEXT_COLOUR)
    fig.update_layout(legend_font_color=TEXT_COLOUR)


def _finished(fig, share, present, colours, title=None, alt=None, words=None):
    """What ``draw_chart`` sends for ``fig``: (the figure to draw, its heading, accessible name
    and text alternative), readable in projector mode when ``present`` (in ``share`` of the
    page's width; None: sized already), recoloured to the palette ``colours``."""
    if share is not None:
        if present:
            fig = readable(fig, PRESENT.column(share))
        dark_text(fig)
    title = title or plain(fig.layout.title.text)
    alt = alt or figure_name(fig)
    words = words or figure_text(fig)
    drawn = recolour(fig, colours)  # the figure itself, or its recoloured dict
    if drawn is not fig:
        drawn = PlainFigure(drawn)  # a validated figure's dict, recoloured: no second check
    return drawn, title, alt, words


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
    """What ``draw_chart`` puts on the page for ``fig`` in this session's projector mode and
    palette, as (figure dict, title, alt, words): plain data that a page may keep in the
    shared cache per (settings, projector mode, palette) and draw with ``draw_finished``, so
    that a big figure (the 72-head grid) is built, validated and described once for all."""
    drawn, title, alt, words = _finished(fig, share, is_present(), palette(), title, alt, words)
    return drawn.to_dict(), title or key, alt, words


def with_shape(finished, shape):
    """``finished_chart``'s chart with one more layout shape (a dict, e.g. the head picked
    outlined), in the session's palette; the kept chart itself is not changed."""
    spec, title, alt, words = finished
    added = recolour(PlainFigure({"data": [], "layout": {"shapes": [shape]}}), palette())
    added = added if isinstance(added, dict) else added.to_dict()  # a dict when recoloured
    layout = dict(spec["layout"])
    layout["shapes"] = [*layout.get("shapes", []), *added["layout"]["shapes"]]
    return dict(spec, layout=layout), title, alt, words


def draw_finished(finished, key, **plotly_args):
    """Draw ``finished_chart``'s (figure dict, title, alt, words) under ``key``, the dict as it
    is (``PlainFigure``: no second validation); ``plotly_args`` go to ``st.plotly_chart``;
    returns what it returns (the selection state with ``on_select``)."""
    spec, title, alt, words = finished
    event = st.plotly_chart(PlainFigure(spec), key=key, alt=alt, **plotly_args)
    chart_words(title, words)
    return event


def show_kept_chart(make, args, key, share=1.0):
    """``show_chart(make(*args), key, share)``, made once for every session
    (``draw_kept_chart``)."""
    draw_kept_chart(make, args, key, share=share, config=_toolbar(key))


KEPT_CHARTS = "attnviz.ui.matrix.kept_charts"
register(KEPT_CHARTS, *CACHE_FINISHED_CHARTS)


def _finished_chart(make, args, share, present, colours, title, inputs=()):
    """``_finished(make(*args, *inputs), ...)`` with the figure as a plain dict, once per
    figure, style and palette, for every session (``inputs``, e.g. arrays, are kept by their
    digest only)."""

    def finish():
        drawn, heading, alt, words = _finished(make(*args, *inputs), share, present, colours, title)
        return drawn.to_dict(), heading, alt, words

    kept = (make, args, digest(*inputs) if inputs else None, share, present, colours, title)
    return cached_call(KEPT_CHARTS, kept, finish, size=object_bytes)


def draw_kept_chart(make, args, key, *, share=1.0, title=None, inputs=(), **plotly_args):
    """``draw_chart(make(*args, *inputs), key, ...)``, the figure made and finished (validated,
    made readable, recoloured, its text alternative written) once for every session: ``make`` a
    module-level function of small keys ``args`` (Settings, numbers) and of ``inputs`` (arrays,
    known to the cache by their digest alone), whose figure depends on them alone. What is sent
    is the very dict ``draw_chart`` sends."""
    spec, title, alt, words = _finished_chart(
        make, tuple(args), share, is_present(), palette(), title, tuple(inputs)
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
