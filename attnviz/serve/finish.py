"""Chart finishing as a pure function of (figure, projector mode, palette): what a page sends.

``finished(fig, present, palette)`` makes a figure readable on a projector, recolours it to the
palette and writes its accessible name and text alternative, reading nothing from a session;
``kept_finished`` keeps that for every visitor. ``plain_spec``, typed arrays and ``digest`` let a
page's heatmaps skip Plotly's validation and its second draw. No Streamlit: ``attnviz.ui.charts``
puts the result on the page (``draw``).
"""

import base64
import functools
import hashlib

import numpy as np
import plotly.graph_objects as go
from _plotly_utils.utils import plotlyjsShortTypes, to_typed_array_spec

from attnviz.charts.palette import recolour
from attnviz.charts.present import PRESENT, SCREEN, readable
from attnviz.charts.style import PRESENT_TEXT_PX, TEXT_COLOUR, TEXT_PX
from attnviz.charts.words import figure_name, figure_text, plain
from attnviz.limits import CACHE_FINISHED_CHARTS
from attnviz.serve.kept import kept
from attnviz.serve.store import object_bytes


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


def text_style(present, share=1.0):
    """The text size and width of a chart drawn in ``share`` of the page's width (0.5 in one
    of two columns): ``charts.present.PRESENT`` in projector mode (``present``), else
    ``SCREEN``."""
    return (PRESENT if present else SCREEN).column(share)


def text_px(present):
    """The size (px) a chart's text is drawn at: PRESENT_TEXT_PX on a projector."""
    return PRESENT_TEXT_PX if present else TEXT_PX


def dark_text(fig):
    """Tick labels and axis titles in the body's text colour, not the grey Streamlit's chart
    theme gives them (#808495: 3.7:1 on white, under WCAG's 4.5:1). Idempotent: a figure kept
    in a cache for every session may pass here again."""
    fig.update_xaxes(tickfont_color=TEXT_COLOUR, title_font_color=TEXT_COLOUR)
    fig.update_yaxes(tickfont_color=TEXT_COLOUR, title_font_color=TEXT_COLOUR)
    fig.update_layout(legend_font_color=TEXT_COLOUR)


def finished(fig, present, palette, *, share=1.0, title=None, alt=None, words=None, key=None):
    """What a page sends for ``fig``, as (figure dict, heading, accessible name, text
    alternative): readable in projector mode when ``present`` (in ``share`` of the page's
    width; None: sized already), recoloured to ``palette``, named ``alt`` (the figure's title
    and kind unless given), described by ``words`` (read from its traces unless given), under
    the heading ``title`` (the figure's title, else ``key``). Reads nothing but its arguments:
    plain data that every visitor with this projector mode and palette may share."""
    if share is not None:
        if present:
            fig = readable(fig, PRESENT.column(share))
        dark_text(fig)
    title = title or plain(fig.layout.title.text)
    alt = alt or figure_name(fig)
    words = words or figure_text(fig)
    drawn = recolour(fig, palette)  # the figure itself, or its recoloured dict
    spec = drawn if isinstance(drawn, dict) else drawn.to_dict()
    _with_typed_arrays(spec)  # e.g. a bar's hover labels: Plotly keeps them as an object array
    return spec, title or key or "", alt, words


def with_shape(chart, shape, palette):
    """``finished``'s ``chart`` with one more layout shape (a dict, e.g. the head picked
    outlined), recoloured to ``palette``; the kept chart itself is not changed."""
    spec, title, alt, words = chart
    added = recolour(PlainFigure({"data": [], "layout": {"shapes": [shape]}}), palette)
    added = added if isinstance(added, dict) else added.to_dict()  # a dict when recoloured
    layout = dict(spec["layout"])
    layout["shapes"] = [*layout.get("shapes", []), *added["layout"]["shapes"]]
    return dict(spec, layout=layout), title, alt, words


@kept(*CACHE_FINISHED_CHARTS, size=object_bytes)
def kept_finished(make, args, inputs_digest, share, present, palette, title, *, inputs=()):
    """``finished(make(*args, *inputs), present, palette, share=share, title=title)``, once per
    figure, style and palette for every visitor: ``make`` a module-level function of the small
    keys ``args`` (Settings, numbers) and of ``inputs`` (arrays, known to the key by their
    ``digest`` alone, ``inputs_digest``; None without), whose figure depends on them alone."""
    return finished(make(*args, *inputs), present, palette, share=share, title=title)


def kept_chart(make, args, present, palette, *, share=1.0, title=None, inputs=()):
    """``make(*args, *inputs)`` finished for projector mode ``present`` and ``palette``, kept
    for every visitor (``kept_finished``): ``make`` a module-level function of the small keys
    ``args`` (Settings, numbers) and of ``inputs`` (arrays, known to the key by their digest
    alone), whose figure depends on them alone."""
    inputs = tuple(inputs)
    key_digest = digest(*inputs) if inputs else None
    return kept_finished(
        make, tuple(args), key_digest, share, present, palette, title, inputs=inputs
    )
