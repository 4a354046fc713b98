"""A chart finished for a display: one pure function from a figure (or a matrix) and the
display it is drawn on to what a page sends. No Streamlit, no cache, no session.

``Display`` is how a visitor's pages are shown (projector mode, palette): the page reads it once
per run and passes it down. ``finished(fig, present, palette)`` makes any figure readable on a
projector (``charts.present``), recolours it to the palette and writes its accessible name and
text alternative (``charts.words``); ``matrix_chart`` does the same for a matrix heatmap from
its numbers and labels, without Plotly's validation (``plain_spec``, ``PlainFigure``) and with a
``datarevision`` that spares the browser a second draw (``drawn_once``). Both return
(figure dict, heading, accessible name, text alternative): plain data that every visitor with
this display may share (``serve.finish.kept_chart`` keeps some), drawn by ``ui.charts``.

The palettes. Every chart builder draws with the standard colours (``charts.style`` and each
chart's own); ``recolour`` turns a finished figure into another palette by swapping the colours
that carry a meaning in pairs. In the standard palette "scaled" is green and "unscaled" red, a
pair that about one man in twelve cannot tell apart; the colour-blind-safe palette takes them
from Okabe and Ito's set (blue and vermillion, apart for every kind of colour vision) and draws
the masked cells darker, away from the light centre of the signed colour scale. The colour
scales themselves (RdBu and Viridis) are already safe and stay. Every meaning is also carried by
a name in the legend or a line style, whatever the palette.
"""

import base64
import functools
import hashlib
import re
from typing import NamedTuple

import numpy as np
import plotly.graph_objects as go
from _plotly_utils.utils import plotlyjsShortTypes, to_typed_array_spec

from attnviz.charts.line_charts import SCALED_COLOUR, UNSCALED_COLOUR
from attnviz.charts.matrix import axis_titles, heatmap_spec
from attnviz.charts.present import readable
from attnviz.charts.style import (
    MASKED_COLOUR,
    PRESENT,
    PRESENT_TEXT_PX,
    SCREEN,
    TEXT_COLOUR,
    TEXT_PX,
)
from attnviz.charts.words import figure_name, figure_text, matrix_words, plain

STANDARD, COLOUR_BLIND = "standard", "colour-blind safe"
# palette -> {a standard colour (lower-case hex): the colour it becomes}
PALETTES = {
    STANDARD: {},
    COLOUR_BLIND: {
        SCALED_COLOUR: "#0072b2",  # Okabe-Ito blue
        UNSCALED_COLOUR: "#d55e00",  # Okabe-Ito vermillion
        MASKED_COLOUR: "#6e6e6e",  # masked cells: darker than any light cell of a scale
    },
}
_RGB = re.compile(r"rgba?\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*(,\s*[\d.]+\s*)?\)")


class Display(NamedTuple):
    """How a visitor's pages are shown: ``present`` (projector mode) and ``palette`` (a name in
    PALETTES). A tuple: ``present, palette = display`` reads it."""

    present: bool = False
    palette: str = STANDARD

    def style(self, share=1.0):
        """The text size and width of a chart drawn in ``share`` of the page's width (0.5 in
        one of two columns): ``charts.style.PRESENT`` in projector mode, else ``SCREEN``."""
        return (PRESENT if self.present else SCREEN).column(share)


def text_px(present):
    """The size (px) a chart's text is drawn at: PRESENT_TEXT_PX on a projector."""
    return PRESENT_TEXT_PX if present else TEXT_PX


# -- the palettes ---------------------------------------------------------------------------


def _rgb(hex_colour):
    return tuple(int(hex_colour[k : k + 2], 16) for k in (1, 3, 5))


def _swap(text, swaps):
    """``text`` with every colour in ``swaps`` replaced, written as #rrggbb or rgb(a)."""
    lower = text.lower()
    if lower in swaps:
        return swaps[lower]
    match = _RGB.fullmatch(lower)
    if match:
        rgb = tuple(int(v) for v in match.groups()[:3])
        for old, new in swaps.items():
            if _rgb(old) == rgb:
                r, g, b = _rgb(new)
                alpha = match.group(4)
                return f"rgba({r},{g},{b}{alpha})" if alpha else f"rgb({r},{g},{b})"
    return text


def _walk(value, swaps):
    if isinstance(value, str):
        return _swap(value, swaps)
    if isinstance(value, dict):
        return {k: _walk(v, swaps) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, swaps) for v in value]
    return value  # numbers and arrays: no colours


def _recoloured(spec, palette):
    """``spec`` (a figure's dict) with the meaning-carrying colours of ``palette`` swapped: a
    new dict, drawn anew (its ``datarevision`` changed) when it has one; ``spec`` itself for
    the standard palette."""
    swaps = PALETTES[palette]
    if not swaps:
        return spec
    drawn = _walk(spec, swaps)
    layout = drawn.setdefault("layout", {})
    if "datarevision" in layout:  # drawn anew when the palette changes
        layout["datarevision"] = f"{layout['datarevision']}-{palette}"
    return drawn


def recolour(fig, palette):
    """``fig`` drawn in ``palette`` (a name in PALETTES): the figure itself for the standard
    one, else its dict form (what ``st.plotly_chart`` draws, without a second validation) with
    the meaning-carrying colours swapped (traces, frames, shapes, annotations, colour scales'
    stops)."""
    return fig if not PALETTES[palette] else _recoloured(fig.to_dict(), palette)


# -- the figure as plotly.js reads it, without Plotly's validation ----------------------------


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


# -- finishing --------------------------------------------------------------------------------


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


def matrix_chart(M, row_labels, col_labels, display, *, selectable=False, share=1.0, **options):
    """What a page sends for a heatmap of ``M`` (rows, cols) on ``display``, drawn in ``share``
    of the page's width (cell numbers printed where they fit a cell at that size): (figure
    dict, heading, accessible name, text alternative), as ``finished`` gives them.

    ``options`` go to ``charts.matrix.heatmap_spec`` (title, family, row_title, kind, mask,
    ...); ``row_labels`` (rows,) and ``col_labels`` (cols,) are shown as typed. The figure is
    Plotly's validated dict without the validation (``plain_spec``; a page draws it with
    ``PlainFigure`` and ``theme=None``), with a ``datarevision`` digest of its inputs."""
    style = display.style(share)
    options.setdefault("text_px", style.text_px)
    options.setdefault("width_px", style.width_px)
    row_labels, col_labels = list(row_labels), list(col_labels)
    spec = heatmap_spec(M, row_labels, col_labels, selectable=selectable, **options)
    drawn_once(spec, np.asarray(M), row_labels, col_labels, selectable, options)
    row_title, col_title = axis_titles(
        options.get("family"), options.get("row_title"), options.get("col_title")
    )
    title = plain(options.get("title", ""))
    name, words = matrix_words(
        M,
        row_labels,
        col_labels,
        title=title,
        row_title=row_title,
        col_title=col_title,
        mask=options.get("mask"),
        kind=options.get("kind", "signed"),
    )
    spec = _recoloured(plain_spec(spec), display.palette)
    return spec, title, name, words


def with_shape(chart, shape, palette):
    """``finished``'s ``chart`` with one more layout shape (a dict, e.g. the head picked
    outlined), recoloured to ``palette``; the kept chart itself is not changed."""
    spec, title, alt, words = chart
    added = _recoloured({"data": [], "layout": {"shapes": [shape]}}, palette)
    layout = dict(spec["layout"])
    layout["shapes"] = [*layout.get("shapes", []), *added["layout"]["shapes"]]
    return dict(spec, layout=layout), title, alt, words
