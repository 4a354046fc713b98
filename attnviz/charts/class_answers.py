"""How a class answered one question: one bar per option, the right one in green.

Pure Plotly: the option letters on the x axis (A, B, C ...), the count on each bar, the option's
text in the hover (escaped: an option may quote a token typed as markup).
"""

import numpy as np
import plotly.graph_objects as go

from attnviz.charts.style import FONT_FAMILY, TEXT_COLOUR, TEXT_PX, escape_label

RIGHT_COLOUR = "#1b7837"  # green: the right answer
OTHER_COLOUR = "#8c8c8c"  # grey: the other options
HEIGHT_PX = 300


def answer_bars(letters, options, counts, right=None, *, text_px=TEXT_PX, height=HEIGHT_PX):
    """Bars of ``counts`` (m,) students per option, over ``letters`` (m,) with each option's
    text ``options`` (m,) in the hover; option ``right`` (an index, or None to show no answer)
    in green, its letter ticked. The title gives how many answered."""
    counts = np.asarray(counts, dtype=int)
    m = len(counts)
    if not len(letters) == len(options) == m:
        raise ValueError(f"{len(letters)} letters and {len(options)} options for {m} counts")
    colours = [RIGHT_COLOUR if k == right else OTHER_COLOUR for k in range(m)]
    total = int(counts.sum())
    fig = go.Figure(
        go.Bar(
            x=np.arange(m),
            y=counts,
            text=[str(c) for c in counts],
            textposition="outside",
            cliponaxis=False,
            customdata=[escape_label(option) for option in options],
            hovertemplate="%{customdata}<br>%{y} students<extra></extra>",
            marker_color=colours,
        )
    )
    answered = f"{total} answer" + ("" if total == 1 else "s")
    title = f"The class: {answered}"  # short enough for a phone and the projector's 20 px
    if right is not None:
        title += f"; {escape_label(letters[right])} is right"
    fig.update_layout(
        title=dict(text=title, x=0, xanchor="left"),
        height=height,
        margin=dict(l=text_px * 2 + 10, r=10, t=text_px * 4, b=text_px * 2 + 10),
        font=dict(family=FONT_FAMILY, size=text_px, color=TEXT_COLOUR),
        xaxis=dict(
            tickmode="array",
            tickvals=list(range(m)),
            ticktext=[
                escape_label(letter) + (" ✓" if k == right else "")
                for k, letter in enumerate(letters)
            ],
            fixedrange=True,
        ),
        yaxis=dict(
            rangemode="tozero",
            range=[0, max(1, int(counts.max(initial=0))) * 1.25],
            fixedrange=True,
            dtick=max(1, int(np.ceil(max(1, counts.max(initial=0)) / 5))),
        ),
        showlegend=False,
        plot_bgcolor="white",
    )
    return fig
