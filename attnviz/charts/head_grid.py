"""Small multiples: every head's attention matrix in one figure (pure Plotly, no Streamlit).

Each head is drawn as ``matrix_heatmap`` draws one matrix: row 0 at the top, one row per token
even when a token repeats (numeric axes with ``tickvals``/``ticktext``), labels HTML-escaped and
passed to the hover text only through ``customdata``. All heads share one colour scale, 0 to 1,
so their weights compare at a glance.
"""

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from attnviz.charts.matrix import block_mean, blocks
from attnviz.charts.style import MAX_LABEL_CHARS, PROBABILITY_COLORSCALE, escape_label

MAX_GRID_COLUMNS = 4  # heads side by side in one row of the grid (for short sentences)
MAX_TICKS = 24  # token labels per panel axis: longer sentences label every k-th token
TICK_GAP_PX = 26  # with a panel's height given: its token labels at least this far apart
KEY_LABELS_PX = 90  # under each row of panels: the key labels and the axis title
MAX_TOKENS_WITH_TEXT = 8  # print the weights on the cells when n is at most this
MAX_CELLS_WITH_LABELS = 4096  # per head: larger matrices hover with indices, not token labels


def grid_columns(n, h):
    """Panels per grid row: 4 for short sentences, fewer as n grows, so cells stay readable."""
    return max(1, min(h, MAX_GRID_COLUMNS if n <= 8 else 3 if n <= 14 else 2))


def panel_height(n, columns):
    """Height (px) of one row of panels: as tall as a panel is wide (less for a few tokens, 40 px
    a row), within 200 to 520, plus room for the key labels."""
    return int(min(max(min(40 * n, 1000 // columns), 200), 520)) + KEY_LABELS_PX


def _ticks(labels, most=MAX_TICKS):
    """(tickvals, ticktext): every label, or every k-th when there are more than ``most``."""
    step = -(-len(labels) // most)
    vals = list(range(0, len(labels), step))
    return vals, [escape_label(labels[i], MAX_LABEL_CHARS) for i in vals]


def head_grid(attentions, row_labels, col_labels, *, titles=None, columns=None, panel_px=None):
    """Every head's (n, m) attention matrix in a grid, head 0 top left, read row by row.

    Args:
        attentions: (h, n, m) one attention matrix per head (weights from 0 to 1).
        row_labels: (n,) the query tokens; col_labels: (m,) the key tokens. Shown as typed.
        titles: (h,) a title per panel (default "head 0" .. "head h-1"); shown as typed.
        columns: panels per row of the grid (at most h; default ``grid_columns(n, h)``).
        panel_px: each panel's height (default ``panel_height``'s, less its key labels' room);
            its token labels then every k-th, at least TICK_GAP_PX apart (a projector's text).

    Returns:
        go.Figure with one heatmap trace per head, in head order: trace k's ``z`` is head k's
        matrix, on axes ``xaxis{k+1}``/``yaxis{k+1}`` (``xaxis``/``yaxis`` for k = 0) whose y
        runs downwards (row 0 on top). Token labels are on every panel's key axis and on the
        first panel of each grid row's query axis (every k-th past MAX_TICKS); the hover names
        the query and key tokens up to MAX_CELLS_WITH_LABELS cells per head, their indices
        beyond.
    """
    A = np.asarray(attentions, dtype=float)
    if A.ndim != 3 or A.shape[0] == 0:
        raise ValueError(f"attentions must be (heads, n, m) with at least one head (got {A.shape})")
    h, n, m = A.shape
    if len(row_labels) != n or len(col_labels) != m:
        raise ValueError(
            f"labels must match the matrices: {len(row_labels)} row labels and {len(col_labels)} "
            f"column labels for {h} matrices of {n}x{m}"
        )
    row_spans, col_spans = blocks(n), blocks(m)
    if len(row_spans) < n or len(col_spans) < m:  # a long sentence: each cell a block's mean
        A = np.stack([block_mean(a, row_spans, col_spans) for a in A])
        row_labels = [f"{start}–{stop - 1}" for start, stop in row_spans]
        col_labels = [f"{start}–{stop - 1}" for start, stop in col_spans]
        h, n, m = A.shape
    A = A.astype(np.float32)  # half the bytes of float64 on the wire
    titles = [f"head {k}" for k in range(h)] if titles is None else list(titles)
    if len(titles) != h:
        raise ValueError(f"give one title per head: {len(titles)} titles for {h} heads")
    columns = grid_columns(n, h) if columns is None else max(1, min(int(columns), h))
    grid_rows = math.ceil(h / columns)
    row_px = panel_height(n, columns) if panel_px is None else int(panel_px) + KEY_LABELS_PX
    most = MAX_TICKS if panel_px is None else max(2, int(panel_px) // TICK_GAP_PX)
    height = grid_rows * row_px + 40
    fig = make_subplots(
        rows=grid_rows,
        cols=columns,
        subplot_titles=[escape_label(t) for t in titles],
        horizontal_spacing=0.06 if columns > 1 else 0.0,
        vertical_spacing=110 / height if grid_rows > 1 else 0.0,  # 110 px: key labels, title
    )
    labelled = n * m <= MAX_CELLS_WITH_LABELS
    if labelled:  # (query label, key label) of every cell, for the hover text
        customdata = np.empty((n, m, 2), dtype=object)
        rows = [f"{escape_label(r)} (row {i})" for i, r in enumerate(row_labels)]
        cols = [f"{escape_label(c)} (column {j})" for j, c in enumerate(col_labels)]
        customdata[:, :, 0] = np.array(rows, object)[:, None]
        customdata[:, :, 1] = np.array(cols, object)
        where = "query: %{customdata[0]}<br>key: %{customdata[1]}"
    else:  # labels for every cell of a large matrix cost seconds: the hover names the indices
        customdata = None
        where = "query row %{y}<br>key column %{x}"
    tick = dict(tickmode="array", showgrid=False, zeroline=False)
    for k in range(h):
        trace = go.Heatmap(
            z=A[k],
            x=np.arange(m),
            y=np.arange(n),
            coloraxis="coloraxis",
            customdata=customdata,
            hovertemplate=f"head {k}<br>{where}<br>A_ij = %{{z:.6g}}<extra></extra>",
            xgap=1 if n <= 64 else 0,
            ygap=1 if n <= 64 else 0,
            name=f"head {k}",
        )
        if n <= MAX_TOKENS_WITH_TEXT and m <= MAX_TOKENS_WITH_TEXT:
            trace.text = [[f"{v:.2f}" for v in row] for row in A[k]]
            trace.texttemplate = "%{text}"
            trace.textfont = dict(size=10)
        row, col = divmod(k, columns)
        fig.add_trace(trace, row=row + 1, col=col + 1)
        x_vals, x_text = _ticks(col_labels, most)
        y_vals, y_text = _ticks(row_labels, most)
        fig.update_xaxes(
            tick,
            tickvals=x_vals,
            ticktext=x_text,
            tickangle=-45 if m > 4 else 0,
            title=dict(text="key (column j)", font=dict(size=11)),
            row=row + 1,
            col=col + 1,
        )
        fig.update_yaxes(
            tick,
            tickvals=y_vals,
            ticktext=y_text,
            showticklabels=col == 0,
            title=dict(text="query (row i)" if col == 0 else "", font=dict(size=11)),
            autorange="reversed",
            row=row + 1,
            col=col + 1,
        )
    fig.update_layout(
        coloraxis=dict(
            colorscale=PROBABILITY_COLORSCALE,
            cmin=0.0,
            cmax=1.0,
            colorbar=dict(title=dict(text="A_ij"), thickness=12),
        ),
        height=height,
        margin=dict(l=10, r=10, t=40, b=10),
        hovermode="closest",
        dragmode=False,
    )
    return fig
