"""The layout of a matrix heatmap: its title, axes and tick labels, margins and a height
estimated from the labels so that Plotly never has to grow them, and the shapes that outline
cells. No Streamlit here.
"""

import functools
import html
import math

import numpy as np

from attnviz.charts.style import (
    AXIS_TITLE_COLOUR,
    FONT_FAMILY,
    OUTLINE_COLOUR,
    OUTLINE_PX,
    SCREEN_WIDTH_PX,
    TEXT_COLOUR,
    TEXT_PX,
    escape_labels,
    text_px,
    widest_px,
    wrap,
)

ROW_PX = 34  # height of one row of a small heatmap, in pixels
# On a projector a row is 1.75 times the text (a 20-px number in a 35-px cell): about 100 px
# shorter than growing ROW_PX with the text, so a step's heatmap fits the first screen
ROW_TEXT_HEIGHTS = 1.75
MAX_HEIGHT = 1000
TITLE_PX = 30  # room for a heatmap's title above its top axis
# Margins, in pixels, that hold the axis titles, the tick labels and the colour bar, so that
# Plotly's automargin never has to grow them: a growing margin makes Plotly draw the whole
# chart a second time (measured: about a third of the browser's drawing time on the step page).
# The estimates err on the large side; where one is short, automargin still fixes the layout.
Y_TITLE_PX = 56  # the row axis's title, its distance to the labels and the tick mark
TOP_PX = 60  # the column axis's title and its distance to the plot (labels on one row)
ROTATED_TOP_PX = 28  # the same above labels turned by 45 degrees
COLOURBAR_PX = 40  # the colour bar: its gap to the plot, its bar and tick marks


def colourbar_label_chars(bound, kind):
    """How many characters the colour bar's longest tick label has (e.g. "−0.005", "0.2")."""
    if kind in ("probability", "binary"):
        return 3
    if bound >= 1000:
        return 6  # "−500k", "−1.5M"
    if bound >= 1:
        return len(str(int(bound))) + 3  # "−6.5", "−40"
    return 3 + max(1, -math.floor(math.log10(bound)) + 1) if bound > 0 else 4  # "−0.005"


def heatmap_margins(row_ticks, col_ticks, tick_size, rotated, titled, bar_chars, title_px=TITLE_PX):
    """(l, r, t, b) pixels that hold every label of the chart (see ``text_px``)."""
    widest, tallest = widest_px(row_ticks, tick_size), widest_px(col_ticks, tick_size)
    top = TOP_PX
    if rotated:  # a label turned by 45 degrees rises by sin 45 of its width and height
        top = max(TOP_PX, ROTATED_TOP_PX + math.ceil(0.71 * (tallest + tick_size)))
    right = COLOURBAR_PX + text_px("0" * bar_chars, 12)
    top += max(0, tick_size - TEXT_PX)  # the key axis's title grows with the text
    return Y_TITLE_PX + widest, right, top + (title_px if titled else -TITLE_PX), 12


def thinned(labels, cell_px, size, rotated):
    """``labels`` with every k-th kept and the others blank, k the smallest step at which
    neighbours do not run together in cells ``cell_px`` wide at font ``size`` (a label turned
    by 45 degrees needs about 1.5 font sizes between neighbours, a level one its width)."""
    if not labels or cell_px <= 0:
        return list(labels)
    need = 1.5 * size if rotated else widest_px(labels, size) + 6
    step = max(1, math.ceil(need / cell_px))
    return [label if k % step == 0 else "" for k, label in enumerate(labels)]


def heatmap_height(n_rows, row_px=ROW_PX):
    """A figure height (px) that gives every row room for its label, at most MAX_HEIGHT."""
    return int(min(max(row_px * n_rows + 140, 260), MAX_HEIGHT))


def matrix_layout(
    shape,
    ticks,
    axis_titles,
    title,
    title_colour,
    *,
    rotate,
    bar_chars,
    text_px,
    legend,
    width_px=SCREEN_WIDTH_PX,
):
    """The layout: the title at the very top (wrapped to ``width_px``, the chart's width), the
    key axis on top with its labels (turned by 45 degrees past 6 columns unless ``rotate``
    says), the query axis read downwards, margins that hold every label, and room for a
    legend under the plot when there is one."""
    rows_drawn, cols_drawn = shape
    row_ticks, col_ticks = ticks
    row_title, col_title = axis_titles
    row_px = max(ROW_PX, ROW_TEXT_HEIGHTS * text_px)  # rows grow with the text: a number fits
    title_px = TITLE_PX + 2 * (text_px - TEXT_PX)  # room for a larger title in projector mode
    tick_font = dict(size=int(min(text_px, max(7, (MAX_HEIGHT - 140) / rows_drawn * 0.8))))
    tick = dict(tickmode="array", ticks="", showgrid=False, zeroline=False, tickfont=tick_font)
    rotated = cols_drawn > 6 if rotate is None else bool(rotate)
    margins = functools.partial(
        heatmap_margins,
        [html.unescape(t) for t in row_ticks],
        [html.unescape(t) for t in col_ticks],
        tick_font["size"],
        titled=bool(title),
        bar_chars=bar_chars,
        title_px=title_px,
    )
    left, right, top, bottom = margins(rotated=rotated)
    cell_px = (width_px - left - right) / max(cols_drawn, 1)
    if (
        rotate is None
        and not rotated
        and thinned(col_ticks, cell_px, tick_font["size"], False) != list(col_ticks)
    ):
        rotated = True  # level labels would run together: turned, they fit
        left, right, top, bottom = margins(rotated=rotated)
    col_ticks = thinned(col_ticks, cell_px, tick_font["size"], rotated)  # no smeared labels
    title_size = max(text_px + 4, 16)
    title, col_title, row_title = escape_labels([title, col_title, row_title])
    title = wrap(title, title_size, width_px - 10) if title else ""
    # a wrapped title's lines, and a gap each: Plotly's lines are taller than 1.3 em
    extra = math.ceil(title.count("<br>") * title_size * 1.7)
    title_px, top = title_px + extra, top + extra
    axis_title = dict(size=max(text_px, 14), color=AXIS_TITLE_COLOUR)
    legend_px = 2 * text_px + 12 if legend else 0  # room for the legend
    bottom += legend_px
    return dict(
        # The title sits at the very top, above the key axis's labels and title (drawn on top
        # of the plot): in the middle of the margin it would overlap a centred axis title.
        title=dict(
            text=title,
            font=dict(size=title_size, color=title_colour, weight=600),
            x=0,
            xanchor="left",
            y=1,
            yref="container",
            yanchor="top",
            pad=dict(t=8 + extra),  # Plotly raises a wrapped title by its extra lines
        ),
        height=heatmap_height(rows_drawn, row_px) + (title_px if title else 0) + legend_px,
        margin=dict(l=left, r=right, t=top, b=bottom),
        xaxis=dict(
            tick,
            title=dict(text=col_title, font=axis_title),
            tickvals=list(range(cols_drawn)),
            ticktext=col_ticks,
            side="top",
            tickangle=-45 if rotated else 0,
        ),
        yaxis=dict(
            tick,
            title=dict(text=row_title, font=axis_title),
            tickvals=list(range(rows_drawn)),
            ticktext=row_ticks,
            autorange="reversed",
        ),
        legend=dict(orientation="h", x=0, y=0, yanchor="top", font=dict(size=text_px)),
        font=dict(family=FONT_FAMILY, color=TEXT_COLOUR),  # the app's, without a template
        hovermode="closest",
        hoverdistance=-1,  # hover and click reach the nearest cell centre: the cell under the mouse
        clickmode="event+select",
        dragmode=False,
    )


def outline_path(cells):
    """An SVG path, in the heatmap's data coordinates, of a rectangle around each run of
    neighbouring True cells of each row of ``cells`` (rows, cols); "" if there are none."""
    parts = []
    for r, row in enumerate(np.asarray(cells, dtype=bool)):
        edges = np.flatnonzero(np.diff(np.concatenate(([0], row.astype(np.int8), [0]))))
        for start, stop in zip(edges[::2], edges[1::2], strict=True):
            top, bottom, left, right = r - 0.5, r + 0.5, start - 0.5, stop - 0.5
            parts.append(f"M{left},{top}H{right}V{bottom}H{left}Z")
    return "".join(parts)


def outline_shapes(cells, width=OUTLINE_PX):
    """Plotly shapes that outline ``cells``: a white line under a dark one (``width`` px), so
    the outline shows on the darkest and the palest colours alike; [] when no cell is True."""
    path = outline_path(cells)
    if not path:
        return []
    return [
        dict(type="path", path=path, xref="x", yref="y", line=dict(color=c, width=w))
        for c, w in (("white", width + 2), (OUTLINE_COLOUR, width))
    ]
