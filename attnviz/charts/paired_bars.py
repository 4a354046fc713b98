"""Two rows of weights over the same labelled keys, as bars side by side. No Streamlit here.

Drawn for one word's attention in two sentences (the real-model page): bar k of each colour is
that sentence's weight on key k. Labels and names are data: HTML-escaped, and in the hover only
through ``customdata``, never inside a hover template.
"""

import numpy as np
import plotly.graph_objects as go

from attnviz.charts.style import AXIS_TITLE_COLOUR, MAX_LABEL_CHARS, TEXT_PX, escape_label

PAIR_COLOURS = ("#1b9e77", "#d95f02")  # teal and orange: apart for every kind of colour vision


def paired_bars(first, second, labels, *, names, title="", value_name="weight", text_px=TEXT_PX):
    """Grouped bars: ``first`` and ``second`` (m,) over the m keys named by ``labels``.

    Args:
        first, second: (m,) numbers from 0 to 1 (weights); the y axis runs from 0 to 1 so that
            two charts compare by height.
        labels: (m,) key names, shown as typed (escaped; cut on the axis, whole in the hover).
        names: (name of first, name of second), the legend's entries.
        text_px: tick and legend text in pixels (charts.style.PRESENT_TEXT_PX for a projector).

    Returns go.Figure with two bar traces named ``names``, ``y`` the numbers as given.
    """
    first, second = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    if first.shape != second.shape or first.shape != (len(labels),):
        raise ValueError(
            f"one value per label in each row: {len(labels)} labels, rows of shape "
            f"{first.shape} and {second.shape}"
        )
    x = np.arange(len(labels))
    hover_labels = [escape_label(label) for label in labels]
    fig = go.Figure()
    for values, name, colour in zip((first, second), names, PAIR_COLOURS, strict=True):
        fig.add_bar(
            x=x,
            y=values,
            name=escape_label(name),
            marker_color=colour,
            customdata=np.array([[label, escape_label(name)] for label in hover_labels]),
            hovertemplate=(
                f"%{{customdata[1]}}<br>key: %{{customdata[0]}}<br>{value_name} = %{{y:.3f}}"
                "<extra></extra>"
            ),
        )
    fig.update_layout(
        title=dict(text=escape_label(title), x=0, xanchor="left"),
        barmode="group",
        height=300 + 10 * text_px,  # room for the turned labels, larger on a projector
        margin=dict(l=10, r=10, t=60, b=10),
        font=dict(size=text_px),
        xaxis=dict(
            tickmode="array",
            tickvals=x.tolist(),
            ticktext=[escape_label(label, MAX_LABEL_CHARS) for label in labels],
            tickangle=-45 if len(labels) > 8 else 0,
            tickfont=dict(size=text_px),  # each font set here: Streamlit's theme sets its own
            title=dict(text="key (column j)", font=dict(size=text_px, color=AXIS_TITLE_COLOUR)),
        ),
        yaxis=dict(
            range=[0, 1],
            tickfont=dict(size=text_px),
            title=dict(
                text=escape_label(value_name), font=dict(size=text_px, color=AXIS_TITLE_COLOUR)
            ),
        ),
        legend=dict(
            orientation="h", yanchor="bottom", y=1.0, x=1, xanchor="right", font=dict(size=text_px)
        ),
    )
    return fig
