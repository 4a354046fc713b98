"""Every attention head of a model at once: small multiples, one per (layer, head). No Streamlit.

Like BertViz's model view: a grid with a row per layer (layer 0 on top) and a column per head,
each tile a thumbnail of that head's attention matrix (row 0 on top: rows are queries, columns
keys). Kept light for 72 heads of up to 128 word pieces: the tiles are laid side by side in ONE
heatmap (white strips hide the gaps between them), so the browser draws one image instead of 72
subplots; one colour scale, no text on the cells, word-piece labels only for short sentences.
The tiles show colour only (no hover, no text), so each weight is sent as the nearest of
GRID_LEVELS + 1 steps of a colour (uint8, a quarter of float32): at 128 word pieces the figure
is 1.9 MB instead of float32's 8.7 MB, which the server builds on every rerun of every session.
The numbers themselves are in the head's own charts below the grid.
A nearly transparent marker at the centre of each tile carries the head's hover text and
reports a click to ``st.plotly_chart(on_select="rerun")`` (heatmaps report none);
``grid_selected_head`` reads it.

Geometry: with ``step = n + gap``, cell (i, j) of head (l, h) is cell
(l * step + i, h * step + j) of the heatmap; ``layout.meta`` holds n, gap and step.
"""

import math

import numpy as np
import plotly.graph_objects as go

from attnviz.charts.style import PROBABILITY_COLORSCALE, TEXT_PX, escape_label

GRID_MAX_TICKS = 6  # tiles name their rows (the word pieces) only when the names fit
GRID_LABEL_CHARS = 8  # tick labels are cut to this many characters (the head view has them all)
GRID_HEIGHT_PX = 470  # the figure's height; the tiles stay square (the y axis is tied to x)
GRID_LEVELS = 255  # a weight a in [0, 1] is sent as round(a * 255): uint8, one byte a cell
GAP_COLOR = "white"  # the strips between tiles (the plot's background)
LABEL_ROOM = 1.2  # a layer's or a head's name needs this many font sizes of room
NAME_PX = 11  # the layers' names, on a screen
NAME_GAP_PX = 12  # between two columns' names
PLOT_WIDTH_PX = 1000  # the narrowest plot a wide grid is drawn in (a projector's, less margins)


TOKEN_TICK_PX = 9  # the queries' names beside each tile row, on a screen


def row_px(n_layers, top, bottom=10):
    """The height (px) of one layer's tiles: GRID_HEIGHT_PX less the margins ``top`` and
    ``bottom``, shared by the layers (the tiles are square, so a head's width is the same
    when the grid is as tall as it may be)."""
    return (GRID_HEIGHT_PX - top - bottom) / n_layers


def label_stride(n_layers, text_px, top):
    """Every how many layers (and heads) a name is printed, so that names ``text_px`` high
    never overlap: 1 when each layer's row has room for one."""
    return max(1, math.ceil(text_px * LABEL_ROOM / row_px(n_layers, top)))


def grid_gap(n):
    """Empty cells between two tiles: about an eighth of a tile, at least one."""
    return max(1, round(n / 8))


def tile_grid(attention):
    """(n_layers * step - gap, n_heads * step - gap) uint8: every head's matrix in GRID_LEVELS
    steps (round(a * GRID_LEVELS)), 0 in the gaps between tiles (hidden by ``gap_strips``)."""
    A = np.asarray(attention)
    n_layers, n_heads, n, _ = A.shape
    gap = grid_gap(n)
    step = n + gap
    levels = np.rint(np.clip(A, 0.0, 1.0) * GRID_LEVELS).astype(np.uint8)
    Z = np.zeros((n_layers * step - gap, n_heads * step - gap), dtype=np.uint8)
    for layer in range(n_layers):
        for head in range(n_heads):
            Z[layer * step : layer * step + n, head * step : head * step + n] = levels[layer, head]
    return Z


def gap_strips(n_layers, n_heads, n):
    """White rectangles (layout shapes) over the gaps between tiles, in the heatmap's cells."""
    gap = grid_gap(n)
    step = n + gap
    strip = dict(type="rect", xref="x", yref="y", fillcolor=GAP_COLOR, line_width=0, layer="above")
    height, width = n_layers * step - gap, n_heads * step - gap
    out = gap / 2  # past the heatmap's edges, so no sliver of it shows at a strip's ends
    rows = [
        dict(strip, x0=-0.5 - out, x1=width - 0.5 + out, y0=k * step - gap - 0.5, y1=k * step - 0.5)
        for k in range(1, n_layers)
    ]
    cols = [
        dict(
            strip, x0=k * step - gap - 0.5, x1=k * step - 0.5, y0=-0.5 - out, y1=height - 0.5 + out
        )
        for k in range(1, n_heads)
    ]
    return rows + cols


def model_grid(
    attention,
    labels,
    *,
    selected=None,
    head_hover=None,
    title="",
    text_px=TEXT_PX,
    row_name="layer",
    col_name="head",
):
    """A grid of every head's attention matrix: row l is layer l, column h is head h (or, the
    first two axes of ``attention`` swapped, row h is head h: ``row_name`` and ``col_name``).

    Args:
        attention: (n_layers, n_heads, n, n) attention matrices; each row of each sums to 1.
        labels: (n,) word-piece labels, shown as typed (HTML-escaped) on every tile row's
            queries when n <= GRID_MAX_TICKS and they fit (at ``text_px``).
        selected: (layer, head) outlined in red, or None.
        head_hover: [layer][head] a list of plain-text lines shown when hovering that head
            (escaped here), or None for just its name.
        title: the figure title.
        text_px: the size its names will be drawn at (PRESENT_TEXT_PX on a projector): layers
            and heads are named every ``label_stride`` of them, so that no two names overlap.
        row_name: what a row is called on the grid and in the hover, as the page calls it
            ("layer"; the chat model's page says "block").
        col_name: what a column is called ("head"); columns are named every k-th, so that
            names at ``text_px`` in the page's width (PLOT_WIDTH_PX) do not run together.

    Returns:
        go.Figure with two traces: the heatmap of ``tile_grid(attention)`` (uint8 steps of
        1 / GRID_LEVELS, its colour bar labelled 0 to 1) and a scatter of one marker per head
        (customdata [l, h], in the order l * n_heads + h). Layout shapes: the white strips of
        ``gap_strips``, then the selected head's outline.
    """
    A = np.asarray(attention)
    if A.ndim != 4 or A.shape[2] != A.shape[3]:
        raise ValueError(f"attention must be (n_layers, n_heads, n, n) (got shape {A.shape})")
    n_layers, n_heads, n, _ = A.shape
    if len(labels) != n:
        raise ValueError(f"{len(labels)} labels for {n} word pieces: pass one label per piece")
    gap = grid_gap(n)
    step = n + gap
    Z = tile_grid(A)
    centre = (n - 1) / 2
    heads = [(layer, head) for layer in range(n_layers) for head in range(n_heads)]
    hover = []
    for layer, head in heads:
        lines = [f"{row_name} {layer}, {col_name} {head}: click to open"]
        if head_hover is not None:
            lines += list(head_hover[layer][head])
        hover.append("<br>".join(escape_label(line) for line in lines))
    heatmap = go.Heatmap(
        z=Z,
        colorscale=PROBABILITY_COLORSCALE,
        zmin=0,
        zmax=GRID_LEVELS,
        hoverinfo="skip",
        colorbar=dict(
            thickness=10,
            title=dict(text="A_ij", side="right"),  # beside the bar: never over its "1"
            tickmode="array",
            tickvals=[GRID_LEVELS * k / 4 for k in range(5)],
            ticktext=["0", "0.25", "0.5", "0.75", "1"],
        ),
    )
    markers = go.Scatter(
        x=[head * step + centre for _, head in heads],
        y=[layer * step + centre for layer, _ in heads],
        mode="markers",
        marker=dict(size=12, opacity=0.01, color="white"),
        customdata=[[layer, head] for layer, head in heads],
        hovertext=hover,
        hovertemplate="%{hovertext}<extra></extra>",
        showlegend=False,
        name="heads",
    )
    top = 70 if title else 40
    # on a projector a name's box is about 1.25 of its size taller than the text: more room
    stride = label_stride(n_layers, NAME_PX if text_px <= TEXT_PX else 1.25 * text_px, top)
    name_width = 0.6 * len(f"{col_name} {n_heads - 1}") * max(NAME_PX, text_px) + NAME_GAP_PX
    col_stride = max(stride, math.ceil(name_width * n_heads / PLOT_WIDTH_PX))
    row_names_px = math.ceil(0.6 * len(f"{row_name} {n_layers - 1}") * max(NAME_PX, text_px)) + 16
    token_px = TOKEN_TICK_PX if text_px <= TEXT_PX else text_px  # the queries' names' size
    named = n <= GRID_MAX_TICKS and row_px(n_layers, top) / step >= token_px
    if named:  # each tile row names its queries; layer names sit further out
        ticks = [escape_label(label, GRID_LABEL_CHARS) for label in labels]
        y_ticks = dict(
            tickvals=[layer * step + i for layer in range(n_layers) for i in range(n)],
            ticktext=ticks * n_layers,
            tickfont=dict(size=TOKEN_TICK_PX),
        )
        layer_shift = -58
    else:
        y_ticks = dict(tickvals=[], ticktext=[])
        layer_shift = -6
    annotations = [
        dict(
            text=f"{row_name} {layer}",
            xref="x",  # beside the tiles, where a tall grid leaves the plot's width
            yref="y",
            x=-0.5 - gap / 2,
            xanchor="right",
            xshift=layer_shift,
            y=layer * step + centre,
            showarrow=False,
            font=dict(size=NAME_PX),
        )
        for layer in range(0, n_layers, stride)
    ]
    shapes = gap_strips(n_layers, n_heads, n)
    if selected is not None:
        shapes.append(head_outline(A.shape, selected))
    fig = go.Figure([heatmap, markers])
    fig.update_layout(
        title=dict(text=escape_label(title), x=0, xanchor="left"),
        height=GRID_HEIGHT_PX,
        margin=dict(l=115 if named else max(60, row_names_px), r=10, t=top, b=10),
        xaxis=dict(
            range=[-0.5 - gap / 2, Z.shape[1] - 0.5 + gap / 2],
            side="top",
            tickmode="array",
            tickvals=[head * step + centre for head in range(0, n_heads, col_stride)],
            ticktext=[f"{col_name} {head}" for head in range(0, n_heads, col_stride)],
            ticks="",
            showgrid=False,
            zeroline=False,
            fixedrange=True,
        ),
        yaxis=dict(
            range=[Z.shape[0] - 0.5 + gap / 2, -0.5 - gap / 2],  # reversed: row 0 on top
            scaleanchor="x",  # square tiles, whatever the page's width
            constrain="domain",
            tickmode="array",
            ticks="",
            showgrid=False,
            zeroline=False,
            fixedrange=True,
            **y_ticks,
        ),
        annotations=annotations,
        shapes=shapes,
        meta=dict(n=n, gap=gap, step=step),
        hovermode="closest",
        hoverdistance=-1,  # a click anywhere on a tile reaches the nearest marker: its centre
        clickmode="event+select",
        dragmode=False,
        plot_bgcolor=GAP_COLOR,
    )
    return fig


def head_outline(shape, selected):
    """The red outline of head ``selected`` = (layer, head) in the grid of attention of
    ``shape`` (n_layers, n_heads, n, n): a layout shape (a dict) in the heatmap's cells."""
    n_layers, n_heads, n, _ = shape
    layer, head = selected
    if not (0 <= layer < n_layers and 0 <= head < n_heads):
        raise ValueError(f"selected head {selected} is not in the {n_layers}x{n_heads} grid")
    gap = grid_gap(n)
    step, pad = n + gap, gap / 2
    return dict(
        type="rect",
        xref="x",
        yref="y",
        x0=head * step - 0.5 - pad,
        x1=head * step + n - 0.5 + pad,
        y0=layer * step - 0.5 - pad,
        y1=layer * step + n - 0.5 + pad,
        line=dict(color="#d62728", width=3),
    )


def grid_selected_head(selection):
    """(layer, head) of the tile clicked in ``model_grid``'s figure, or None.

    ``selection`` is the ``selection`` mapping of the chart's state from ``st.plotly_chart``;
    a clicked marker reports its customdata [layer, head].
    """
    for point in (selection or {}).get("points") or []:
        data = point.get("customdata")
        if isinstance(data, (list, tuple)) and len(data) == 2:
            return int(data[0]), int(data[1])
    return None
