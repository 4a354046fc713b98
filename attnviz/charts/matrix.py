"""Matrix heatmaps: arrays and labels in, ``go.Figure`` out. No Streamlit here.

Every matrix is drawn the way it is read: row 0 at the top, one row per token even when a token
repeats (numeric axes with ``tickvals``/``ticktext``), rows and columns named on the axes.
Tokens are data, not markup: every label is HTML-escaped before Plotly sees it (Plotly renders
a subset of HTML in labels) and reaches the hover text only as data (``customdata`` or the
axis' tick text), never as part of a ``hovertemplate``.

A matrix larger than a screen can show (more than ``MAX_DRAWN`` rows or columns) is drawn at
reduced resolution: each drawn cell is the mean of a block of cells, and the title says so.
Values go to the browser as float32 (Plotly sends numpy arrays as typed binary buffers). The
title, axes, margins and outlines are ``matrix_layout``; colours, families, text sizes ``style``.
"""

import math

import numpy as np
import plotly.graph_objects as go

from attnviz.charts.matrix_layout import colourbar_label_chars, matrix_layout, outline_shapes
from attnviz.charts.style import (
    FAMILIES,
    MASKED_COLOUR,
    MAX_LABEL_CHARS,
    OUTLINE_COLOUR,
    OUTLINE_PX,
    PROBABILITY_COLORSCALE,
    SCREEN_WIDTH_PX,
    SIGNED_COLORSCALE,
    TEXT_PX,
    axis_labels,
    widest_px,
)

MAX_CELLS_WITH_TEXT = 400  # print values on the cells when the matrix has at most this many
# (and when the widest of them fits a cell's width in pixels: see ``numbers_fit``)
MAX_DRAWN = 96  # rows or columns drawn; a larger matrix is averaged in blocks
MAX_SELECTABLE = 32  # click-to-inspect markers up to this many rows and columns
MAX_LABELLED_CELLS = 32 * 32  # hover with whole labels (customdata) up to this many cells

# A 0/1 matrix: the probability scale's two ends, a sharp step between them
BINARY_COLORSCALE = [[0.0, "#440154"], [0.5, "#440154"], [0.5, "#fde725"], [1.0, "#fde725"]]
OUTLINE_NAME = "changed by your edit"  # what outlined cells are, unless told otherwise


def _format(value, exact=False):
    """A cell's value as text: 2 decimals on the cell, 6 significant digits in the hover."""
    if value == -math.inf:  # (np.isneginf on one number costs as much as the formatting)
        return "−∞ (masked)" if exact else "−∞"
    if exact:
        return f"{value:.6g}"
    return f"{value:.2f}" if abs(value) < 100 else f"{value:.3g}"


def is_selectable(shape):
    """Whether a matrix of ``shape`` is drawn with click-to-inspect markers."""
    return max(shape) <= MAX_SELECTABLE


def blocks(n, max_drawn=MAX_DRAWN):
    """[(start, stop)] cutting range(n) into at most ``max_drawn`` equal consecutive blocks."""
    size = math.ceil(n / max_drawn)
    return [(start, min(start + size, n)) for start in range(0, n, size)]


def block_mean(M, row_blocks, col_blocks):
    """(len(row_blocks), len(col_blocks)) means of M's blocks; -inf (masked) cells are left out
    of a mean, and a block that is masked everywhere stays -inf."""
    finite = np.isfinite(M)
    r0 = [start for start, _ in row_blocks]
    c0 = [start for start, _ in col_blocks]
    total = np.add.reduceat(np.add.reduceat(np.where(finite, M, 0.0), r0, 0), c0, 1)
    count = np.add.reduceat(np.add.reduceat(finite.astype(np.int64), r0, 0), c0, 1)
    return np.divide(total, count, out=np.full(total.shape, -np.inf), where=count > 0)


def _ranges(spans):
    """Tick texts for rows drawn in blocks: each block's range of rows, e.g. "0–3"."""
    return [f"{start}–{stop - 1}" for start, stop in spans]


def axis_titles(family, row_title=None, col_title=None):
    """(row title, column title): those given, else the family's, else "row i", "column j"."""
    default_rows, default_cols, _ = FAMILIES.get(family, ("row i", "column j", None))
    return (
        default_rows if row_title is None else row_title,
        default_cols if col_title is None else col_title,
    )


def matrix_heatmap(M, row_labels, col_labels, **options):
    """``heatmap_spec`` as a ``go.Figure`` (validated by Plotly: what tests and exports read)."""
    return go.Figure(heatmap_spec(M, row_labels, col_labels, **options))


def heatmap_spec(
    M,
    row_labels,
    col_labels,
    *,
    title="",
    family=None,
    row_title=None,
    col_title=None,
    value_name="value",
    kind="signed",
    selectable=False,
    rotate_labels=None,
    value_range=None,
    mask=None,
    outline=None,
    outline_name=None,
    text_px=TEXT_PX,
    width_px=SCREEN_WIDTH_PX,
):
    """Heatmap of ``M`` (rows, cols), row 0 on top, one row per label.

    Args:
        M: (rows, cols) numbers; ``-inf`` (a masked logit) shows as an empty cell marked −∞.
        row_labels: (rows,) strings; col_labels: (cols,) strings. Shown exactly as typed.
        family: the matrix's family in FAMILIES ("X", "W", "Q", "K", "V", "S", "A", "O"):
            its colour (the title's) and its axis titles, unless given.
        row_title, col_title: axis titles (what a row and a column are); without them and a
            family, "row i" and "column j".
        value_name: the name of a cell's value in the hover text, e.g. "A_ij".
        kind: "signed" (diverging scale centred at 0), "probability" (sequential, 0 to 1) or
            "binary" (a 0/1 matrix such as a mask: two colours, cells printed 0 or 1).
        value_range: for "signed", the colour scale's bound (the scale runs from -bound to
            bound), so that two matrices drawn on one range compare by colour (S and S');
            None: the matrix's own largest |value|.
        mask: (rows, cols) bool, True where query i may see key j; the other cells are drawn
            grey, marked "masked" in a legend, with no number: a weight that is 0 by
            construction, not a small one.
        outline: (rows, cols) bool or None: the cells to outline (those an edit changed),
            drawn as one path of rectangles, a run of neighbours in a row as one, with a
            legend entry named ``outline_name``; on a matrix drawn in blocks, every block
            holding such a cell.
        outline_name: what the outlined cells are, in the legend (None: OUTLINE_NAME, an edit's).
        text_px: the size in pixels of the cell numbers, tick labels and axis titles
            (PRESENT_TEXT_PX in projector mode).
        width_px: the width the chart is drawn at (PRESENT_WIDTH_PX in projector mode, a
            share of it in a page column): cell numbers are printed only where the widest
            fits a cell's width in pixels at ``text_px``, else the hover gives them, and a
            title wider than the chart wraps.
        selectable: add a nearly transparent marker at every cell centre, so that a click
            reports the cell to ``st.plotly_chart(on_select="rerun")`` (heatmaps report none).
            Ignored when the matrix is larger than MAX_SELECTABLE (see ``is_selectable``).
        rotate_labels: turn the column labels by 45 degrees (True), keep them level (False),
            or decide from their number (None: turned past 6 columns). A chart in a narrow
            page column turns them even for a few, or neighbours would run together.

    Returns:
        {"data": traces, "layout": layout}, plain dicts that Plotly has not validated (a page
        draws them with ``attnviz.charts.finish.PlainFigure``, ``matrix_heatmap`` validates them
        into a go.Figure); the first trace is the heatmap: ``z`` is ``M`` as float32 (-inf as
        NaN), or its block means when M has more than MAX_DRAWN rows or columns. When selectable, a
        second trace of markers carries the hover text and the clicks.
    """
    M = np.asarray(M, dtype=float)
    n_rows, n_cols = M.shape
    row_title, col_title = axis_titles(family, row_title, col_title)
    colour_of_family = FAMILIES.get(family, (None, None, None))[2]
    hidden = None  # cells masked by ``mask`` (their values stay in the hover)
    values = M
    if mask is not None:
        hidden = ~np.asarray(mask, dtype=bool)
        M = np.where(hidden, -np.inf, M)  # drawn like a masked logit: grey, no number
    if len(row_labels) != n_rows or len(col_labels) != n_cols:
        raise ValueError(
            f"labels must match the matrix: {len(row_labels)} row labels and {len(col_labels)} "
            f"column labels for a {n_rows}x{n_cols} matrix"
        )
    row_spans, col_spans = blocks(n_rows), blocks(n_cols)
    row_blocked, col_blocked = len(row_spans) < n_rows, len(col_spans) < n_cols
    reduced = row_blocked or col_blocked
    # every label escaped in one pass: cut for the ticks, whole for a hover that names cells
    labelled = not reduced and n_rows * n_cols <= MAX_LABELLED_CELLS
    axes = [(row_labels, row_blocked), (col_labels, col_blocked)]
    forms = iter(
        axis_labels([lab for lab, blocked in axes if not blocked], MAX_LABEL_CHARS, labelled)
    )
    row_ticks, row_whole = (_ranges(row_spans), None) if row_blocked else next(forms)
    col_ticks, col_whole = (_ranges(col_spans), None) if col_blocked else next(forms)
    if reduced:
        M = block_mean(M, row_spans, col_spans)
        block = f"{row_spans[0][1]}×{col_spans[0][1]}"
        title = f"{title} (each cell: the mean of a {block} block)"
    selectable = selectable and is_selectable((n_rows, n_cols))
    names = (row_title.split(" ")[0], col_title.split(" ")[0], value_name)
    customdata, hover = _hover(M, values, hidden, (row_whole, col_whole), names, reduced)
    heatmap, bound = _cells(M, kind, value_range, hover, text_px)
    if selectable:
        heatmap["hoverinfo"] = "skip"  # the markers on top carry the hover
    elif customdata is not None:
        heatmap["customdata"] = customdata
    masked = np.isneginf(M)
    traces = [heatmap, *_masked_layer(masked, heatmap, text_px)]
    if selectable:
        traces.append(_selection_layer(M.shape, customdata, hover))
    shapes = []
    if outline is not None:
        outline_name = outline_name or OUTLINE_NAME
        width = round(OUTLINE_PX * max(text_px, TEXT_PX) / TEXT_PX)  # thicker on a projector
        shapes = _outline(outline, (n_rows, n_cols), row_spans, col_spans, reduced, width)
        if shapes:
            traces.append(
                legend_entry(
                    outline_name,
                    dict(
                        size=text_px, symbol="square-open", color=OUTLINE_COLOUR, line=dict(width=2)
                    ),
                )
            )
    layout = matrix_layout(
        M.shape,
        (row_ticks, col_ticks),
        (row_title, col_title),
        title,
        colour_of_family,
        rotate=rotate_labels,
        bar_chars=colourbar_label_chars(bound, kind),
        text_px=text_px,
        legend=masked.any() or bool(shapes),
        width_px=width_px,
    )
    margin = layout["margin"]
    cell_px = (width_px - margin["l"] - margin["r"]) / M.shape[1] - 2  # less the cells' gap
    _numbers(heatmap, M, hidden, text_px, cell_px, binary=kind == "binary")
    layout["shapes"] = shapes
    return dict(data=traces, layout=layout)


def _hover(M, values, hidden, whole, names, reduced):
    """(customdata or None, hovertemplate) of the drawn cells ``M``: whole labels (``whole``:
    the rows' and the columns', escaped) and exact values (``values`` for a cell ``hidden`` by
    a mask, said to be masked) up to MAX_LABELLED_CELLS cells, else the tick labels and the
    drawn (mean) value."""
    row_name, col_name, value_name = names
    rows_drawn, cols_drawn = M.shape
    if not reduced and M.size <= MAX_LABELLED_CELLS:  # whole labels and exact values
        customdata = np.empty((rows_drawn, cols_drawn, 3), dtype=object)
        rows = [f"{label} (row {i})" for i, label in enumerate(whole[0])]
        cols = [f"{label} (column {j})" for j, label in enumerate(whole[1])]
        customdata[:, :, 0] = np.array(rows, dtype=object)[:, None]
        customdata[:, :, 1] = np.array(cols, dtype=object)[None, :]
        customdata[:, :, 2] = [[_format(v, exact=True) for v in row] for row in M.tolist()]
        if hidden is not None:  # the value the cell holds, said to be masked
            for i, j in zip(*np.nonzero(hidden), strict=True):
                customdata[i, j, 2] = f"{_format(values[i, j], exact=True)} (masked)"
        hover = (
            f"{row_name}: %{{customdata[0]}}<br>{col_name}: %{{customdata[1]}}<br>"
            f"{value_name} = %{{customdata[2]}}<extra></extra>"
        )
        return customdata, hover
    # large: the hover reads the tick labels (Plotly shows a tick's text for %{y})
    hover = (
        f"{row_name}: %{{y}}<br>{col_name}: %{{x}}<br>"
        f"{'mean ' if reduced else ''}{value_name} = %{{z:.6g}}<extra></extra>"
    )
    return None, hover


def _cells(M, kind, value_range, hover, text_px):
    """(the heatmap trace of the drawn cells ``M``, the colour scale's bound): float32 values
    (-inf as NaN), a probability scale from 0 to 1 or a signed one from -bound to bound."""
    rows_drawn, cols_drawn = M.shape
    masked = np.isneginf(M)
    big = np.finfo(np.float32).max  # float32 on the wire: larger values are drawn at its limit
    z = np.where(masked, np.nan, np.clip(M, -big, big)).astype(np.float32)
    bound = 1.0
    if kind == "probability":
        colour = dict(colorscale=PROBABILITY_COLORSCALE, zmin=0.0, zmax=1.0)
    elif kind == "binary":  # two colours, the scale's ends, and a bar that reads 0 and 1
        colour = dict(colorscale=BINARY_COLORSCALE, zmin=0.0, zmax=1.0)
    else:
        finite = M[~masked]
        bound = float(np.max(np.abs(finite))) if finite.size else 1.0
        if value_range is not None:
            bound = float(value_range)
        bound = bound or 1.0  # an all-zero matrix: any range draws it white
        colour = dict(colorscale=SIGNED_COLORSCALE, zmid=0.0, zmin=-bound, zmax=bound)
    heatmap = dict(
        type="heatmap",
        z=z,
        x=np.arange(cols_drawn, dtype=np.int32),
        y=np.arange(rows_drawn, dtype=np.int32),
        hovertemplate=hover,
        # At the plot's right edge plus a fixed gap, so its room does not depend on the width.
        colorbar=dict(thickness=12, x=1, xpad=10, tickfont=dict(size=text_px))
        | (dict(tickvals=[0.25, 0.75], ticktext=["0", "1"]) if kind == "binary" else {}),
        xgap=1 if cols_drawn <= 48 else 0,
        ygap=1 if rows_drawn <= 48 else 0,
        **colour,
    )
    return heatmap, bound


def numbers_fit(cells, cell_px, size):
    """Whether every text of ``cells`` (rows of strings) fits a cell ``cell_px`` wide at font
    ``size`` (measured with ``text_px``, which errs on the wide side)."""
    widest = widest_px([t for row in cells for t in row if t], size)
    return widest <= cell_px


def _numbers(heatmap, M, hidden, size, cell_px, binary=False):
    """Print each cell's value on it (a masked logit shows −∞, a cell hidden by the mask
    nothing; ``binary``: 0 or 1, no decimals), when the matrix is small and the widest number
    fits a cell's ``cell_px`` pixels at font ``size``: measured, so that neighbours never run
    together."""
    if M.size <= MAX_CELLS_WITH_TEXT:
        form = (lambda v: f"{v:.0f}") if binary else _format
        cells = [[form(v) for v in row] for row in M.tolist()]  # a masked logit: −∞
        if hidden is not None:
            for i, j in zip(*np.nonzero(hidden), strict=True):
                cells[i][j] = ""  # masked by the mask given: grey, no number
        if numbers_fit(cells, cell_px, size):
            heatmap.update(text=cells, texttemplate="%{text}", textfont=dict(size=size))


def _masked_layer(masked, heatmap, text_px):
    """[] or, when a cell is ``masked`` (-inf), the traces that show it: grey cells under the
    NaN ones, and a legend entry that names them."""
    if not masked.any():
        return []
    grey = dict(
        type="heatmap",
        z=np.where(masked, 1.0, np.nan).astype(np.float32),
        x=heatmap["x"],
        y=heatmap["y"],
        colorscale=[[0, MASKED_COLOUR], [1, MASKED_COLOUR]],
        showscale=False,
        hoverinfo="skip",
        xgap=heatmap["xgap"],
        ygap=heatmap["ygap"],
    )
    entry = legend_entry(
        "masked: this query may not see this key",
        dict(size=text_px, symbol="square", color=MASKED_COLOUR),
    )
    return [grey, entry]


def _selection_layer(shape, customdata, hover):
    """A nearly transparent marker at every cell centre, carrying the hover and the clicks."""
    rows_drawn, cols_drawn = shape
    jj, ii = np.meshgrid(np.arange(cols_drawn), np.arange(rows_drawn))
    return dict(
        type="scatter",
        x=jj.ravel().astype(np.int32),
        y=ii.ravel().astype(np.int32),
        mode="markers",
        marker=dict(size=14, symbol="square", opacity=0.01),
        customdata=customdata.reshape(-1, 3),
        hovertemplate=hover,  # the markers carry the hover: they sit on top
        hoverlabel=dict(bgcolor="white", bordercolor="#555", font=dict(color="#111")),
        showlegend=False,
        name="cells",
    )


def _outline(outline, shape, row_spans, col_spans, reduced, width=OUTLINE_PX):
    """The shapes outlining the True cells of ``outline`` (the matrix's ``shape``); on a matrix
    drawn in blocks, every block holding such a cell; lines ``width`` px."""
    outline = np.asarray(outline, dtype=bool)
    n_rows, n_cols = shape
    if outline.shape != (n_rows, n_cols):
        raise ValueError(f"outline must be {n_rows}x{n_cols} like the matrix")
    if reduced:
        outline = block_mean(outline.astype(float), row_spans, col_spans) > 0
    return outline_shapes(outline, width)


def legend_entry(name, marker):
    """A legend entry with no data: a marker and what it means."""
    return dict(
        type="scatter",
        x=[None],
        y=[None],
        mode="markers",
        marker=marker,
        name=name,
        showlegend=True,
        hoverinfo="skip",
    )


def selected_cell(selection):
    """(row, col) of the first clicked point in a ``st.plotly_chart`` selection, or None.

    ``selection`` is the ``selection`` mapping of the chart's state: {"points": [{"x", "y", ...}]}.
    """
    points = (selection or {}).get("points") or []
    for point in points:
        x, y = point.get("x"), point.get("y")
        if x is not None and y is not None:
            return round(y), round(x)
    return None
