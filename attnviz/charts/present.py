"""Text that a room can read: one pure pass over any Plotly figure. No Streamlit here.

Every chart builder draws its text at a size it chooses (``TEXT_PX``, 12 px, on a screen);
``readable(fig, style)`` then makes every text the figure draws (cell numbers, ticks, legends,
axis and colour-bar titles, annotations, slider labels) at least ``style.text_px`` and dark
enough to read on white, wraps titles that are wider than the chart, and removes the numbers
printed on heatmap cells that are narrower than those numbers at that size (the hover still
gives them). ``charts.finish`` calls it in projector mode (``style.PRESENT``, for the width
the chart is drawn at); the builders stay pure.

The widths are measured, not counted: ``style.text_px`` estimates the width of a text at a
size, and a cell's width is the plot's width over its number of columns.
"""

import math
import re

import numpy as np

from attnviz.charts.style import (
    AXIS_TITLE_COLOUR,
    MIN_CONTRAST,
    PRESENT,
    TEXT_PX,
    legend_px,
    shown_text,
    text_px,
    wrap,
)

LINE_HEIGHT = 1.3  # a wrapped title's lines, in font sizes


def _luminance(hex_colour):
    r, g, b = (int(hex_colour[k : k + 2], 16) / 255 for k in (1, 3, 5))
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast_on_white(colour):
    """The WCAG contrast ratio of ``colour`` ("#rrggbb", "#rgb" or "rgb(r, g, b)") on white;
    None for a colour it cannot read (a named colour)."""
    colour = str(colour).strip()
    found = re.fullmatch(r"rgba?\((\d+),\s*(\d+),\s*(\d+)(?:,\s*[\d.]+)?\)", colour)
    if found:
        colour = "#" + "".join(f"{int(v):02x}" for v in found.groups())
    if re.fullmatch(r"#[0-9a-fA-F]{3}", colour):
        colour = "#" + "".join(c * 2 for c in colour[1:])
    if not re.fullmatch(r"#[0-9a-fA-F]{6}", colour):
        return None
    return 1.05 / (_luminance(colour) + 0.05)


def _font(font, size, colour=True):
    """``font`` (a dict) at least ``size`` px and, when ``colour``, dark enough on white."""
    font = dict(font or {})
    font["size"] = max(font.get("size") or 0, size)
    if colour:
        ratio = contrast_on_white(font["color"]) if font.get("color") else None
        if font.get("color") is None or (ratio is not None and ratio < MIN_CONTRAST):
            font["color"] = AXIS_TITLE_COLOUR
    return font


def _plot_width(layout, style):
    width = layout.get("width") or style.width_px
    margin = layout.get("margin") or {}
    return max(width - margin.get("l", 80) - margin.get("r", 80), 1)


def _plot_height(layout):
    height = layout.get("height") or 450
    margin = layout.get("margin") or {}
    return max(height - margin.get("t", 100) - margin.get("b", 80), 1)


def _axis_span(layout, name):
    domain = (layout.get(name) or {}).get("domain") or [0, 1]
    return domain[1] - domain[0]


def _cell_texts(trace):
    """The texts a heatmap prints on its cells, or [] when it prints none."""
    template = trace.get("texttemplate")
    if not template:
        return []
    if "%{text}" in template:
        return [str(t) for t in np.asarray(trace.get("text"), dtype=object).ravel()]
    digits = re.search(r"%\{z:\.(\d+)f\}", template)
    z = np.asarray(trace.get("z"), dtype=float)
    if digits and np.isfinite(z).any():
        low, high = np.nanmin(z), np.nanmax(z)
        return [f"{v:.{digits.group(1)}f}" for v in (low, high)]
    return ["0.00"]


def _fit_cells(trace, layout, style, size):
    """Changes that drop a heatmap's cell numbers when the widest of them is wider than a
    cell (or the text taller than a row), else set their size."""
    texts = _cell_texts(trace)
    if not texts:
        return {}
    n_rows, n_cols = np.shape(trace.get("z"))[:2]
    xaxis = "xaxis" + str(trace.get("xaxis", "x"))[1:]
    yaxis = "yaxis" + str(trace.get("yaxis", "y"))[1:]
    cell_w = _plot_width(layout, style) * _axis_span(layout, xaxis) / max(n_cols, 1)
    cell_h = _plot_height(layout) * _axis_span(layout, yaxis) / max(n_rows, 1)
    widest = max(text_px(shown_text(t), size) for t in texts)
    if widest > cell_w or size * 1.1 > cell_h:
        return {"texttemplate": "", "text": None}
    return {"textfont": _font(trace.get("textfont"), size, colour=False)}


def _title(title, size, max_px, colour=False):
    """A layout, axis or colour-bar title (dict or str) at least ``size`` px, wrapped to
    ``max_px``; None when it has no text."""
    if isinstance(title, str):
        title = {"text": title}
    if not title or not title.get("text"):
        return None
    title = dict(title)
    title["font"] = _font(title.get("font"), size, colour=colour)
    title["text"] = wrap(title["text"], title["font"]["size"], max_px)
    return title


def readable_layout(layout, style, top=True):
    """Changes (a dict for ``update_layout``) that make every text of ``layout`` (a plain dict)
    at least ``style.text_px`` and dark, with titles wrapped; ``top``: the figure's own layout
    (not an animation frame's), whose default font and legend are set too.

    Returns (changes, extra px): the height the wrapped title needs above the plot."""
    size = style.text_px
    width = layout.get("width") or style.width_px
    changes, extra = {}, 0
    if top:
        changes["font"] = _font(layout.get("font"), size)
        changes["legend"] = {"font": _font((layout.get("legend") or {}).get("font"), size)}
    title = _title(layout.get("title"), size + 2, width - 20)
    if title:
        before = str(layout["title"].get("text", "")).count("<br>")
        extra = math.ceil(
            (title["text"].count("<br>") - before) * title["font"]["size"] * LINE_HEIGHT
        )
        changes["title"] = title
    for name in layout:
        if re.fullmatch(r"[xy]axis\d*", name):
            axis = layout[name] or {}
            change = {"tickfont": _font(axis.get("tickfont"), size)}
            span = (
                _axis_span(layout, name) * _plot_width(layout, style) if name[0] == "x" else 10**6
            )
            axis_title = _title(axis.get("title"), size, span, colour=True)
            if axis_title:
                change["title"] = axis_title
            changes[name] = change
    if layout.get("annotations"):
        changes["annotations"] = [
            dict(note, font=_font(note.get("font"), size)) for note in layout["annotations"]
        ]
    for kind in ("sliders", "updatemenus"):
        items = []
        for item in layout.get(kind) or []:
            item = dict(item, font=_font(item.get("font"), size))
            if kind == "sliders":
                value = item.get("currentvalue") or {}
                item["currentvalue"] = dict(value, font=_font(value.get("font"), size))
            items.append(item)
        if items:
            changes[kind] = items
    coloraxis = layout.get("coloraxis") or {}
    if coloraxis.get("colorbar") is not None:
        changes["coloraxis"] = {"colorbar": _colourbar(coloraxis["colorbar"], size)}
    return changes, extra


def _colourbar(bar, size):
    change = {"tickfont": _font((bar or {}).get("tickfont"), size)}
    title = _title((bar or {}).get("title"), size, 10**6, colour=True)
    if title:
        change["title"] = title
    return change


def readable_trace(trace, layout, style):
    """Changes (a dict for ``trace.update``) that make one trace's texts (``trace`` a plain
    dict) at least ``style.text_px``, a heatmap's cell numbers kept only where they fit."""
    size = style.text_px
    changes = {}
    if trace.get("type") == "heatmap":
        changes |= _fit_cells(trace, layout, style, size)
        if trace.get("showscale", True) is not False:
            changes["colorbar"] = _colourbar(trace.get("colorbar"), size)
    elif trace.get("text") is not None or trace.get("texttemplate"):
        changes["textfont"] = _font(trace.get("textfont"), size, colour=False)
    marker = trace.get("marker")
    if isinstance(marker, dict) and marker.get("colorbar") is not None:
        changes["marker"] = {"colorbar": _colourbar(marker["colorbar"], size)}
    return changes


def readable(fig, style=PRESENT):
    """Make ``fig`` (a go.Figure, changed in place and returned) readable at ``style``: every
    text at least ``style.text_px`` and dark enough on white, titles wrapped to the chart's
    width, heatmap cell numbers only where they fit their cells; its animation frames too.

    Only the changed properties are set (validating the whole figure again would cost tens of
    milliseconds a chart)."""
    layout = fig.layout.to_plotly_json()
    changes, extra = readable_layout(layout, style)
    legend = layout.get("legend") or {}
    if legend.get("yref") == "container" and legend.get("y") == 0:  # at the bottom: it grows
        extra_legend = legend_px(fig, style.text_px) - legend_px(fig, TEXT_PX)
        changes["height"] = (layout.get("height") or 450) + extra + extra_legend
    if extra:
        margin = layout.get("margin") or {}
        changes["margin"] = {"t": margin.get("t", 100) + extra}
        changes.setdefault("height", (layout.get("height") or 450) + extra)
    fig.update_layout(changes)
    layout = fig.layout.to_plotly_json()
    traces = list(fig.data)
    for frame in fig.frames or ():
        if frame.layout is not None:
            frame.layout.update(readable_layout(frame.layout.to_plotly_json(), style, top=False)[0])
        traces += list(frame.data or ())
    for trace in traces:
        spec = trace.to_plotly_json()
        if spec.get("type") == "heatmap":  # its arrays as arrays, not as their wire form
            spec |= {"z": trace.z, "text": trace.text}
        trace.update(readable_trace(spec, layout, style))
    return fig
