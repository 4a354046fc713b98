"""Plotly chart builders: arrays and labels in, ``go.Figure`` out. No Streamlit here.

Every matrix is drawn the way it is read: row 0 at the top, one row per token even when a token
repeats (numeric axes with ``tickvals``/``ticktext``), rows and columns named on the axes.
Tokens are data, not markup: every label is HTML-escaped before Plotly sees it (Plotly renders
a subset of HTML in labels) and reaches the hover text only through ``customdata``.
"""

import html

import numpy as np
import plotly.graph_objects as go

# Colour-blind-safe scales: a diverging scale centred at 0 for signed matrices, a sequential one
# from 0 to 1 for probabilities.
SIGNED_COLORSCALE = "RdBu_r"
PROBABILITY_COLORSCALE = "Viridis"
MAX_CELLS_WITH_TEXT = 400  # print values on the cells when the matrix has at most this many
MAX_LABEL_CHARS = 16  # tick labels longer than this are cut (the hover shows them whole)
ROW_PX = 34  # height of one row of a heatmap, in pixels
TITLE_PX = 30  # room for a heatmap's title above its top axis


def escape_label(label, max_chars=None):
    """``label`` as Plotly text that shows exactly as typed; cut to ``max_chars`` with "…"."""
    label = str(label)
    if max_chars is not None and len(label) > max_chars:
        label = label[: max_chars - 1] + "…"
    return html.escape(label, quote=True)


def _format(value, exact=False):
    """A cell's value as text: 2 decimals on the cell, 6 significant digits in the hover."""
    if np.isneginf(value):
        return "−∞ (masked)" if exact else "−∞"
    if exact:
        return f"{value:.6g}"
    return f"{value:.2f}" if abs(value) < 100 else f"{value:.3g}"


def heatmap_height(n_rows):
    """A figure height (px) that gives every row room for its label."""
    return int(min(max(ROW_PX * n_rows + 140, 260), 1000))


def matrix_heatmap(
    M,
    row_labels,
    col_labels,
    *,
    title="",
    row_title="query (row i)",
    col_title="key (column j)",
    value_name="value",
    kind="signed",
    selectable=False,
):
    """Heatmap of ``M`` (rows, cols), row 0 on top, one row per label.

    Args:
        M: (rows, cols) numbers; ``-inf`` (a masked logit) shows as an empty cell marked −∞.
        row_labels: (rows,) strings; col_labels: (cols,) strings. Shown exactly as typed.
        row_title, col_title: axis titles (what a row and a column are).
        value_name: the name of a cell's value in the hover text, e.g. "A_ij".
        kind: "signed" (diverging scale centred at 0) or "probability" (sequential, 0 to 1).
        selectable: add a nearly transparent marker at every cell centre, so that a click
            reports the cell to ``st.plotly_chart(on_select="rerun")`` (heatmaps report none).

    Returns:
        go.Figure whose first trace is the heatmap with ``z`` equal to ``M`` (-inf as None).
        When selectable, a second trace of markers carries the hover text and the clicks.
    """
    M = np.asarray(M, dtype=float)
    n_rows, n_cols = M.shape
    if len(row_labels) != n_rows or len(col_labels) != n_cols:
        raise ValueError(
            f"labels must match the matrix: {len(row_labels)} row labels and {len(col_labels)} "
            f"column labels for a {n_rows}x{n_cols} matrix"
        )
    rows = [escape_label(label) for label in row_labels]
    cols = [escape_label(label) for label in col_labels]
    customdata = np.empty((n_rows, n_cols, 3), dtype=object)  # (row label, col label, value)
    customdata[:, :, 0] = np.array([f"{r} (row {i})" for i, r in enumerate(rows)], object)[:, None]
    customdata[:, :, 1] = np.array([f"{c} (column {j})" for j, c in enumerate(cols)], object)
    masked = np.isneginf(M)
    z = np.where(masked, np.nan, M)
    hover = (
        f"{row_title.split(' ')[0]}: %{{customdata[0]}}<br>"
        f"{col_title.split(' ')[0]}: %{{customdata[1]}}<br>"
        f"{value_name} = %{{customdata[2]}}<extra></extra>"
    )
    customdata[:, :, 2] = [[_format(v, exact=True) for v in row] for row in M]
    if kind == "probability":
        colour = dict(colorscale=PROBABILITY_COLORSCALE, zmin=0.0, zmax=1.0)
    else:
        finite = z[~masked]
        bound = float(np.max(np.abs(finite))) if finite.size else 1.0
        colour = dict(colorscale=SIGNED_COLORSCALE, zmid=0.0, zmin=-bound, zmax=bound)
    trace = go.Heatmap(
        z=z,
        x=np.arange(n_cols),
        y=np.arange(n_rows),
        customdata=customdata,
        hovertemplate=hover,
        hoverinfo="skip" if selectable else None,
        colorbar=dict(thickness=12),
        xgap=1,
        ygap=1,
        **colour,
    )
    if M.size <= MAX_CELLS_WITH_TEXT:
        trace.text = [[_format(v) for v in row] for row in M]
        trace.texttemplate = "%{text}"
    fig = go.Figure(trace)
    if selectable:
        jj, ii = np.meshgrid(np.arange(n_cols), np.arange(n_rows))
        fig.add_trace(
            go.Scatter(
                x=jj.ravel(),
                y=ii.ravel(),
                mode="markers",
                marker=dict(size=14, symbol="square", opacity=0.01),
                customdata=customdata.reshape(-1, 3),
                hovertemplate=hover,  # the markers carry the hover: they sit on top
                hoverlabel=dict(bgcolor="white", bordercolor="#555", font_color="#111"),
                showlegend=False,
                name="cells",
            )
        )
    tick = dict(tickmode="array", showgrid=False, zeroline=False)
    fig.update_layout(
        # The title sits at the very top, above the key axis's labels and title (drawn on top
        # of the plot): in the middle of the margin it would overlap a centred axis title.
        title=dict(
            text=escape_label(title),
            x=0,
            xanchor="left",
            y=1,
            yref="container",
            yanchor="top",
            pad=dict(t=8),
        ),
        height=heatmap_height(n_rows) + (TITLE_PX if title else 0),
        margin=dict(l=10, r=10, t=60 + TITLE_PX if title else 30, b=10),
        xaxis=dict(
            tick,
            title=escape_label(col_title),
            tickvals=list(range(n_cols)),
            ticktext=[escape_label(c, MAX_LABEL_CHARS) for c in col_labels],
            side="top",
            tickangle=-45 if n_cols > 6 else 0,
        ),
        yaxis=dict(
            tick,
            title=escape_label(row_title),
            tickvals=list(range(n_rows)),
            ticktext=[escape_label(r, MAX_LABEL_CHARS) for r in row_labels],
            autorange="reversed",
        ),
        hovermode="closest",
        hoverdistance=-1,  # hover and click reach the nearest cell centre: the cell under the mouse
        clickmode="event+select",
        dragmode=False,
    )
    return fig


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


def vector_bars(values, labels, *, title="", value_name="value"):
    """Bar chart of one vector (length m) with a label per bar (e.g. q_i . k_j's terms)."""
    values = np.asarray(values, dtype=float)
    fig = go.Figure(
        go.Bar(
            x=np.arange(len(values)),
            y=values,
            customdata=[escape_label(label) for label in labels],
            hovertemplate=f"%{{customdata}}<br>{value_name} = %{{y:.6g}}<extra></extra>",
            marker_color=np.where(values >= 0, "#2166ac", "#b2182b"),
        )
    )
    fig.update_layout(
        title=dict(text=escape_label(title), x=0, xanchor="left"),
        height=260,
        margin=dict(l=10, r=10, t=50, b=10),
        xaxis=dict(
            tickmode="array",
            tickvals=list(range(len(values))),
            ticktext=[escape_label(label, MAX_LABEL_CHARS) for label in labels],
        ),
    )
    return fig
