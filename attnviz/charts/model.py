"""Every attention head of a model at once: small multiples, one per (layer, head). No Streamlit.

Like BertViz's model view: a grid with a row per layer (layer 0 on top) and a column per head,
each cell a thumbnail of that head's attention matrix (row 0 on top: rows are queries, columns
keys). Kept light for up to 72 heads of 128 word pieces: float32 values, one shared colour
scale, no text on the cells, tick labels only for short sentences. A nearly transparent marker
at the centre of each thumbnail carries the head's hover text and reports a click to
``st.plotly_chart(on_select="rerun")`` (heatmaps report none); ``grid_selected_head`` reads it.
"""

import numpy as np
import plotly.graph_objects as go

from attnviz.charts.matrix import PROBABILITY_COLORSCALE, escape_label

GRID_MAX_TICKS = 12  # thumbnails name their rows only for sequences this short
GRID_LABEL_CHARS = 8  # tick labels are cut to this many characters (the head view has them all)
GRID_ROW_PX = 66  # height of one layer's row: near-square thumbnails on a 1400-pixel page
_GAP = 0.012  # space between thumbnails, as a share of the plotting area


def _axis_name(k, letter):
    """Plotly's name of subplot k's axis (0-based): "xaxis", "xaxis2", ... and "x", "x2"."""
    suffix = "" if k == 0 else str(k + 1)
    return f"{letter}axis{suffix}", f"{letter}{suffix}"


def head_grid(attention, labels, *, selected=None, head_hover=None, title=""):
    """A grid of every head's attention matrix: row l is layer l, column h is head h.

    Args:
        attention: (n_layers, n_heads, n, n) attention matrices; each row of each sums to 1.
        labels: (n,) word-piece labels, shown as typed (HTML-escaped) on the first column's
            rows when n <= GRID_MAX_TICKS.
        selected: (layer, head) outlined in red, or None.
        head_hover: [layer][head] a list of plain-text lines shown when hovering that head
            (escaped here), or None for just its name.
        title: the figure title.

    Returns:
        go.Figure whose traces are n_layers * n_heads heatmaps (trace l * n_heads + h holds
        attention[l, h] as float32), then as many one-point scatter traces (the click targets,
        customdata [l, h]), in the same order.
    """
    A = np.asarray(attention)
    if A.ndim != 4 or A.shape[2] != A.shape[3]:
        raise ValueError(f"attention must be (n_layers, n_heads, n, n) (got shape {A.shape})")
    n_layers, n_heads, n, _ = A.shape
    if len(labels) != n:
        raise ValueError(f"{len(labels)} labels for {n} word pieces: pass one label per piece")
    A = A.astype(np.float32, copy=False)
    ticks = n <= GRID_MAX_TICKS
    width = (1 - _GAP * (n_heads - 1)) / n_heads
    height = (1 - 2 * _GAP * (n_layers - 1)) / n_layers
    heatmaps, markers, axes, annotations = [], [], {}, []
    centre = (n - 1) / 2
    tick_labels = dict(
        showticklabels=True,
        tickmode="array",
        tickvals=list(range(n)),
        ticktext=[escape_label(label, GRID_LABEL_CHARS) for label in labels],
        tickfont=dict(size=9),
    )
    for layer in range(n_layers):
        top = 1 - layer * (height + 2 * _GAP)
        for head in range(n_heads):
            k = layer * n_heads + head
            (x_name, x_ref), (y_name, y_ref) = _axis_name(k, "x"), _axis_name(k, "y")
            left = head * (width + _GAP)
            axes[x_name] = dict(
                domain=[left, left + width],
                anchor=y_ref,
                range=[-0.5, n - 0.5],
                showticklabels=False,
                ticks="",
                showgrid=False,
                zeroline=False,
                fixedrange=True,
            )
            axes[y_name] = dict(
                domain=[top - height, top],
                anchor=x_ref,
                range=[n - 0.5, -0.5],  # reversed: row 0 (the first query) on top
                showticklabels=False,
                ticks="",
                showgrid=False,
                zeroline=False,
                fixedrange=True,
            )
            if ticks and head == 0:  # the first column names the rows: the word pieces
                axes[y_name].update(tick_labels)
            heatmaps.append(
                dict(
                    type="heatmap",
                    z=A[layer, head],
                    coloraxis="coloraxis",
                    hoverinfo="skip",
                    xaxis=x_ref,
                    yaxis=y_ref,
                )
            )
            lines = [f"layer {layer}, head {head}: click to open"]
            if head_hover is not None:
                lines += list(head_hover[layer][head])
            markers.append(
                dict(
                    type="scatter",
                    x=[centre],
                    y=[centre],
                    xaxis=x_ref,
                    yaxis=y_ref,
                    mode="markers",
                    marker=dict(size=12, opacity=0.01, color="white"),
                    customdata=[[layer, head]],
                    hovertext=["<br>".join(escape_label(line) for line in lines)],
                    hovertemplate="%{hovertext}<extra></extra>",
                    showlegend=False,
                    name=f"layer {layer} head {head}",
                )
            )
            if layer == 0:
                annotations.append(
                    dict(
                        text=f"head {head}",
                        xref="paper",
                        yref="paper",
                        x=left + width / 2,
                        xanchor="center",
                        y=1,
                        yanchor="bottom",
                        showarrow=False,
                        font=dict(size=11),
                    )
                )
        annotations.append(
            dict(
                text=f"layer {layer}",
                xref="paper",
                yref="paper",
                x=0,
                xanchor="right",
                xshift=-50 if ticks else -4,
                y=top - height / 2,
                showarrow=False,
                font=dict(size=11),
            )
        )
    shapes = []
    if selected is not None:
        layer, head = selected
        if not (0 <= layer < n_layers and 0 <= head < n_heads):
            raise ValueError(f"selected head {selected} is not in the {n_layers}x{n_heads} grid")
        k = layer * n_heads + head
        shapes.append(
            dict(
                type="rect",
                xref=f"{_axis_name(k, 'x')[1]} domain",
                yref=f"{_axis_name(k, 'y')[1]} domain",
                x0=-0.06,
                x1=1.06,
                y0=-0.06,
                y1=1.06,
                line=dict(color="#d62728", width=3),
            )
        )
    layout = dict(
        title=dict(text=escape_label(title), x=0, xanchor="left"),
        height=int(GRID_ROW_PX * n_layers + (110 if title else 80)),
        margin=dict(l=110 if ticks else 60, r=10, t=70 if title else 40, b=10),
        coloraxis=dict(
            colorscale=PROBABILITY_COLORSCALE,
            cmin=0.0,
            cmax=1.0,
            colorbar=dict(thickness=10, title=dict(text="A_ij")),
        ),
        annotations=annotations,
        shapes=shapes,
        hovermode="closest",
        hoverdistance=-1,  # a click anywhere on a thumbnail reaches its centre marker
        clickmode="event+select",
        dragmode=False,
        plot_bgcolor="white",
        **axes,
    )
    # Plotly's validation of 144 traces and 144 axes takes seconds on a small machine: this
    # figure is built unvalidated (tests/test_charts_model.py validates it).
    fig = go.Figure(data=heatmaps + markers, layout=layout, _validate=False)
    return fig


def grid_selected_head(selection):
    """(layer, head) of the thumbnail clicked in ``head_grid``'s figure, or None.

    ``selection`` is the ``selection`` mapping of the chart's state from ``st.plotly_chart``;
    a clicked marker reports its customdata [layer, head].
    """
    for point in (selection or {}).get("points") or []:
        data = point.get("customdata")
        if isinstance(data, (list, tuple)) and len(data) == 2:
            return int(data[0]), int(data[1])
    return None
