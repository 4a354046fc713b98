"""Random q . k in d_k dimensions, with and without the division by sqrt(d_k): a histogram.
No Streamlit."""

import numpy as np
import plotly.graph_objects as go

from attnviz.charts.line_charts import SCALED_COLOUR, UNSCALED_COLOUR
from attnviz.charts.style import TEXT_PX


def dot_product_histogram(pairs, *, text_px=TEXT_PX):
    """Histograms of q·k and q·k / √d_k for ``pairs`` (``lessons.dot_products.RandomPairs``),
    with dotted lines at ±√d_k: how far a typical unscaled score is from 0."""
    d_k = pairs.d_k
    reach = float(max(np.abs(pairs.scores).max(), np.abs(pairs.scaled_scores).max(), 3.0))
    bins = dict(start=-reach, end=reach, size=2 * reach / 80)
    fig = go.Figure(
        [
            go.Histogram(x=np.asarray(pairs.scores, np.float32), xbins=bins, name="q·k",
                         marker_color=UNSCALED_COLOUR, opacity=0.6),
            go.Histogram(x=np.asarray(pairs.scaled_scores, np.float32), xbins=bins,
                         name="q·k / √d_k", marker_color=SCALED_COLOUR, opacity=0.6),
        ]
    )  # fmt: skip
    for x in (-np.sqrt(d_k), np.sqrt(d_k)):
        fig.add_vline(x=x, line=dict(color=UNSCALED_COLOUR, dash="dot", width=1.5))
    fig.update_layout(
        barmode="overlay",
        height=int(14 * text_px + 200),
        margin=dict(l=10, r=10, t=40 + text_px, b=10),
        font=dict(size=text_px),
        title=dict(text=f"{pairs.scores.size} random q·k at d_k = {d_k} (dotted: ±√d_k)", x=0),
        # the tick labels half a line lower: the leftmost x tick ("-30") is centred on the
        # y axis, under the y axis's "0"
        xaxis=dict(title="score", range=[-reach, reach], ticklabelstandoff=text_px // 2),
        yaxis=dict(title="pairs"),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=1, xanchor="right"),
    )
    return fig
