"""One number per token as bars: the next token's probabilities, one query's attention row.

No Streamlit here. Tokens are data: HTML-escaped on the axis, and in the hover only through
``customdata``, never inside a hover template.
"""

import numpy as np
import plotly.graph_objects as go

from attnviz.charts.style import AXIS_TITLE_COLOUR, FAMILIES, MAX_LABEL_CHARS, TEXT_PX, escape_label

BAR_COLOUR = FAMILIES["A"][2]  # the colour of A (charts.style.FAMILIES)
PICKED_COLOUR = "#d95f02"


def axis_title(text, text_px):
    return dict(text=text, font=dict(size=text_px, color=AXIS_TITLE_COLOUR))


def _bars(values, labels, picked):
    """(``values`` as floats (m,), the bars' places 0 … m-1, their colours: ``picked`` in the
    second, the labels escaped as hover ``customdata`` (m, 1)); raises unless one value per
    label."""
    values = np.asarray(values, dtype=float)
    if values.shape != (len(labels),):
        raise ValueError(f"one value per label: {len(labels)} labels, {values.shape} values")
    places = np.arange(len(labels))
    colours = [PICKED_COLOUR if i == picked else BAR_COLOUR for i in range(len(labels))]
    return values, places, colours, np.array([escape_label(label) for label in labels])[:, None]


def _layout(fig, title, height, text_px, xaxis, yaxis):
    """The bars' title, size, text size and axes (no legend); returns ``fig``."""
    fig.update_layout(
        title=dict(text=escape_label(title), x=0, xanchor="left"),
        height=height,
        margin=dict(l=10, r=10, t=50, b=10),
        font=dict(size=text_px),
        showlegend=False,
        xaxis=xaxis,
        yaxis=yaxis,
    )
    return fig


def _ticks(places, labels, text_px):
    """An axis with one tick per bar, its label cut to MAX_LABEL_CHARS."""
    return dict(
        tickmode="array",
        tickvals=places.tolist(),
        ticktext=[escape_label(label, MAX_LABEL_CHARS) for label in labels],
        tickfont=dict(size=text_px),
    )


def probability_bars(p, labels, *, title="", picked=None, value_name="p", text_px=TEXT_PX):
    """Horizontal bars of ``p`` (m,) from 0 to 1, the first on top, one per label.

    ``picked``: the index of a bar drawn in the second colour (the token chosen), or None.
    Returns go.Figure with one bar trace, ``x`` the numbers as given.
    """
    p, y, colours, names = _bars(p, labels, picked)
    fig = go.Figure(
        go.Bar(
            x=p,
            y=y,
            orientation="h",
            marker_color=colours,
            text=[f"{v:.3f}" for v in p],
            textposition="outside",
            customdata=names,
            hovertemplate=f"%{{customdata[0]}}<br>{value_name} = %{{x:.4f}}<extra></extra>",
        )
    )
    xaxis = dict(
        range=[0, 1.15], title=axis_title(value_name, text_px), tickfont=dict(size=text_px)
    )
    yaxis = _ticks(y, labels, text_px) | dict(autorange="reversed")  # the first on top
    return _layout(fig, title, 120 + 28 * len(labels) + 4 * text_px, text_px, xaxis, yaxis)


def row_bars(values, labels, *, title="", value_name="A", text_px=TEXT_PX, highlight=None):
    """Vertical bars of one row ``values`` (t,) over the t keys named by ``labels``, 0 to 1.

    ``highlight``: the index of the newest key (the token itself), drawn in the second colour.
    """
    values, x, colours, names = _bars(values, labels, highlight)
    fig = go.Figure(
        go.Bar(
            x=x,
            y=values,
            marker_color=colours,
            customdata=names,
            hovertemplate=f"key %{{x}}: %{{customdata[0]}}<br>{value_name} = %{{y:.4f}}"
            "<extra></extra>",
        )
    )
    xaxis = _ticks(x, labels, text_px) | dict(
        tickangle=-45 if len(labels) > 8 else 0,
        title=axis_title("key (earlier token)", text_px),
    )
    yaxis = dict(range=[0, 1], title=axis_title(value_name, text_px), tickfont=dict(size=text_px))
    return _layout(fig, title, 300 + 10 * text_px, text_px, xaxis, yaxis)
