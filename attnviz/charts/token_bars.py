"""One number per token as bars: the next token's probabilities, one query's attention row.

No Streamlit here. Tokens are data: HTML-escaped on the axis, and in the hover only through
``customdata``, never inside a hover template.
"""

import numpy as np
import plotly.graph_objects as go

from attnviz.charts.style import AXIS_TITLE_COLOUR, MAX_LABEL_CHARS, TEXT_PX, escape_label

BAR_COLOUR = "#a6761d"  # the colour of A (charts.matrix.FAMILIES)
PICKED_COLOUR = "#d95f02"


def axis_title(text, text_px):
    return dict(text=text, font=dict(size=text_px, color=AXIS_TITLE_COLOUR))


def probability_bars(p, labels, *, title="", picked=None, value_name="p", text_px=TEXT_PX):
    """Horizontal bars of ``p`` (m,) from 0 to 1, the first on top, one per label.

    ``picked``: the index of a bar drawn in the second colour (the token chosen), or None.
    Returns go.Figure with one bar trace, ``x`` the numbers as given.
    """
    p = np.asarray(p, dtype=float)
    if p.shape != (len(labels),):
        raise ValueError(f"one value per label: {len(labels)} labels, {p.shape} values")
    y = np.arange(len(labels))
    colours = [PICKED_COLOUR if i == picked else BAR_COLOUR for i in range(len(labels))]
    fig = go.Figure(
        go.Bar(
            x=p,
            y=y,
            orientation="h",
            marker_color=colours,
            text=[f"{v:.3f}" for v in p],
            textposition="outside",
            customdata=np.array([escape_label(label) for label in labels])[:, None],
            hovertemplate=f"%{{customdata[0]}}<br>{value_name} = %{{x:.4f}}<extra></extra>",
        )
    )
    fig.update_layout(
        title=dict(text=escape_label(title), x=0, xanchor="left"),
        height=120 + 28 * len(labels) + 4 * text_px,
        margin=dict(l=10, r=10, t=50, b=10),
        font=dict(size=text_px),
        showlegend=False,
        xaxis=dict(
            range=[0, 1.15],
            title=dict(text=value_name, font=dict(size=text_px, color=AXIS_TITLE_COLOUR)),
            tickfont=dict(size=text_px),
        ),
        yaxis=dict(
            tickmode="array",
            tickvals=y.tolist(),
            ticktext=[escape_label(label, MAX_LABEL_CHARS) for label in labels],
            autorange="reversed",  # the first on top
            tickfont=dict(size=text_px),
        ),
    )
    return fig


def row_bars(values, labels, *, title="", value_name="A", text_px=TEXT_PX, highlight=None):
    """Vertical bars of one row ``values`` (t,) over the t keys named by ``labels``, 0 to 1.

    ``highlight``: the index of the newest key (the token itself), drawn in the second colour.
    """
    values = np.asarray(values, dtype=float)
    if values.shape != (len(labels),):
        raise ValueError(f"one value per label: {len(labels)} labels, {values.shape} values")
    x = np.arange(len(labels))
    colours = [PICKED_COLOUR if i == highlight else BAR_COLOUR for i in range(len(labels))]
    fig = go.Figure(
        go.Bar(
            x=x,
            y=values,
            marker_color=colours,
            customdata=np.array([escape_label(label) for label in labels])[:, None],
            hovertemplate=f"key %{{x}}: %{{customdata[0]}}<br>{value_name} = %{{y:.4f}}"
            "<extra></extra>",
        )
    )
    fig.update_layout(
        title=dict(text=escape_label(title), x=0, xanchor="left"),
        height=300 + 10 * text_px,
        margin=dict(l=10, r=10, t=50, b=10),
        font=dict(size=text_px),
        showlegend=False,
        xaxis=dict(
            tickmode="array",
            tickvals=x.tolist(),
            ticktext=[escape_label(label, MAX_LABEL_CHARS) for label in labels],
            tickangle=-45 if len(labels) > 8 else 0,
            tickfont=dict(size=text_px),
            title=dict(
                text="key (earlier token)", font=dict(size=text_px, color=AXIS_TITLE_COLOUR)
            ),
        ),
        yaxis=dict(
            range=[0, 1],
            title=dict(text=value_name, font=dict(size=text_px, color=AXIS_TITLE_COLOUR)),
            tickfont=dict(size=text_px),
        ),
    )
    return fig
