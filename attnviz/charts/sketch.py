"""The charts of "sketch the row": the sketch a phone sets with taps, the class's prediction
over the true row, the distances, and sketches side by side. Pure Plotly, no Streamlit.

Every chart has the keys as rows, top to bottom in the sentence's order, so the sketch, the
reveal and the snapshots read alike on a phone and on the projector. Tokens are data: escaped
tick text, never formatted into a hover template.
"""

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from attnviz.charts.style import FONT_FAMILY, MASKED_COLOUR, TEXT_COLOUR, TEXT_PX, escape_label
from attnviz.limits import SKETCH_LEVELS

SKETCH_COLOUR = "#0072b2"  # Okabe-Ito blue: what the class (or you) predicted
TRUE_COLOUR = "#111111"  # the true row: black diamonds
ROW_PX = 48  # one key's row in the sketch: a tap target of 44 px or more
BESIDE_ROW_PX = 40  # a row whose weight is beside its label (one line): a projector's mouse
TAP_MARKER_PX = 40  # the tap markers' size; a tap counts up to TAP_SLACK_PX outside one
TAP_SLACK_PX = 4
LABEL_CHARS = 10  # a key's label on a phone (the text alternative has it whole)


def _keys_axis(labels, text_px, allowed=None):
    """A y axis with one row per key, key 0 on top; masked keys' labels grey."""
    ticks = []
    for label, ok in zip(labels, allowed or [True] * len(labels), strict=True):
        text = escape_label(label, LABEL_CHARS)
        ticks.append(text if ok else f'<span style="color:#8c8c8c">{text}</span>')
    return dict(
        tickmode="array",
        tickvals=list(range(len(labels))),
        ticktext=ticks,
        autorange="reversed",
        fixedrange=True,
        tickfont=dict(size=text_px),
    )


def _layout(fig, *, title, height, text_px, left):
    fig.update_layout(
        title=dict(text=title, x=0, xanchor="left", font=dict(size=text_px + 2)),
        height=height,
        margin=dict(l=left, r=text_px * 3, t=text_px * 5, b=text_px * 3),
        font=dict(family=FONT_FAMILY, size=text_px, color=TEXT_COLOUR),
        plot_bgcolor="white",
        dragmode=False,
        legend=dict(orientation="h", x=0, y=1, yanchor="bottom", font=dict(size=text_px)),
    )


def _left_margin(labels, text_px):
    longest = max((min(len(str(label)), LABEL_CHARS) for label in labels), default=1)
    return int(text_px * 0.6 * longest) + 14


def sketch_figure(
    labels,
    levels,
    weights,
    allowed,
    *,
    text_px=TEXT_PX,
    title="Your sketch",
    taps=True,
    beside=False,
):
    """The sketch a phone sets: one row per key (``labels`` (n,)), a bar of ``levels`` (n,)
    ints 0..SKETCH_LEVELS, the key's renormalised weight ``weights`` (n,) under its label (with
    ``beside``, after it on the same line, in rows of BESIDE_ROW_PX: a projector's, where two
    lines of its larger text do not fit a row and a mouse needs no 48-px target).
    With ``taps``, a nearly transparent marker at every (level, key) of an ``allowed`` (n,)
    key takes the taps: TAP_MARKER_PX + 2 * TAP_SLACK_PX = 48 px square each; a masked key is
    grey, fixed at 0, with no marker."""
    n = len(labels)
    allowed = [bool(a) for a in allowed]
    levels = np.asarray(levels, dtype=int)
    colours = [SKETCH_COLOUR if ok else MASKED_COLOUR for ok in allowed]
    fig = go.Figure()
    fig.add_bar(
        x=levels,
        y=np.arange(n),
        orientation="h",
        marker_color=colours,
        hoverinfo="skip",  # the taps go to the markers
        name="your bars",
        showlegend=False,
    )
    if taps:
        kk, ll = np.meshgrid(np.flatnonzero(allowed), np.arange(SKETCH_LEVELS + 1))
        fig.add_scatter(
            x=ll.ravel(),
            y=kk.ravel(),
            mode="markers",
            marker=dict(
                size=TAP_MARKER_PX, symbol="square", opacity=0.01, color="white", line_width=0
            ),
            hoverinfo="none",
            showlegend=False,
            name="taps",
        )
    _layout(
        fig,
        title=title,
        height=(BESIDE_ROW_PX if beside else ROW_PX) * n + text_px * 8,
        text_px=text_px,
        left=_left_margin(labels, text_px) + (int(text_px * 0.6 * 5) if beside else 0),
    )
    # A tap reaches a marker within TAP_SLACK_PX of its edge: a 44-px target a level and a row,
    # and a tap on a masked key's row (no markers) reaches nothing
    fig.update_layout(
        hovermode="closest", hoverdistance=TAP_SLACK_PX, clickmode="event+select", bargap=0.3
    )
    fig.update_layout(margin_r=text_px)
    axis_title = "tap along a row: the bar's length" if taps else "the bar's length"
    fig.update_xaxes(
        range=[-0.5, SKETCH_LEVELS + 0.5],
        tickvals=list(range(SKETCH_LEVELS + 1)),
        title=dict(text=f"{axis_title}, 0 to {SKETCH_LEVELS}", font=dict(size=text_px)),
        showgrid=True,
        gridcolor="#e6e6e6",
        fixedrange=True,
        zeroline=False,
    )
    axis = _keys_axis(labels, text_px, allowed)
    axis["ticktext"] = [
        f"{tick}{' ' if beside else '<br>'}<b>{w:.2f}</b>" if ok else f"{tick}<br>masked"
        for tick, w, ok in zip(axis["ticktext"], weights, allowed, strict=True)
    ]
    fig.update_yaxes(axis)
    return fig


def overlay_figure(
    labels,
    values,
    truth,
    *,
    spread=None,
    name="the class's mean",
    title="",
    text_px=TEXT_PX,
    allowed=None,
):
    """Predicted ``values`` (n,) as bars (the class's mean, with ``spread`` (n,) as a ± band,
    or one phone's sketch) and the true row ``truth`` (n,) as black diamonds over them."""
    n = len(labels)
    fig = go.Figure()
    error = (
        None
        if spread is None
        else dict(type="data", array=list(spread), color="#555", thickness=2, width=text_px // 2)
    )
    fig.add_bar(
        x=np.asarray(values, dtype=float),
        y=np.arange(n),
        orientation="h",
        marker_color=SKETCH_COLOUR,
        error_x=error,
        name=name + (" ± spread (sd)" if spread is not None else ""),
        hoverinfo="skip",
    )
    fig.add_scatter(
        x=np.asarray(truth, dtype=float),
        y=np.arange(n),
        mode="markers",
        marker=dict(
            symbol="diamond", size=text_px + 4, color=TRUE_COLOUR, line=dict(color="white", width=1)
        ),
        name="the true row",
        hoverinfo="skip",
    )
    height = max(ROW_PX - 16, text_px * 2 + 8) * n + text_px * 9
    _layout(fig, title=title, height=height, text_px=text_px, left=_left_margin(labels, text_px))
    top = float(
        np.max([*np.asarray(values) + (0 if spread is None else np.asarray(spread)), *truth, 0.0])
    )
    fig.update_xaxes(
        range=[0, max(1.0, top * 1.05)] if top > 1 else [0, 1.0],
        fixedrange=True,
        title=dict(text="weight (the row sums to 1)", font=dict(size=text_px)),
        gridcolor="#e6e6e6",
        zeroline=False,
    )
    fig.update_yaxes(_keys_axis(labels, text_px, allowed))
    return fig


def distance_figure(histogram, distances, *, text_px=TEXT_PX, title="Distance to the true row"):
    """The class's distances: ``histogram`` (bins,) phones per tenth of [0, 1] as bars, and
    every phone's distance ``distances`` (m,) as a dot under them."""
    counts = np.asarray(histogram, dtype=int)
    bins = len(counts)
    centres = (np.arange(bins) + 0.5) / bins
    fig = go.Figure()
    fig.add_bar(
        x=centres,
        y=counts,
        width=1 / bins * 0.9,
        marker_color=SKETCH_COLOUR,
        name="phones per tenth",
        hoverinfo="skip",
        text=[str(c) if c else "" for c in counts],
        textposition="outside",
        cliponaxis=False,
    )
    top = max(1, int(counts.max(initial=0)))
    fig.add_scatter(
        x=np.asarray(distances, dtype=float),
        y=np.full(len(distances), -0.12 * top),
        mode="markers",
        marker=dict(symbol="line-ns-open", size=text_px + 6, color=TRUE_COLOUR, line=dict(width=2)),
        name="one phone",
        hoverinfo="skip",
    )
    _layout(fig, title=title, height=text_px * 22, text_px=text_px, left=text_px * 3)
    fig.update_xaxes(
        range=[0, 1],
        dtick=0.1,
        fixedrange=True,
        title=dict(
            text="total variation distance (0 = the same row, 1 = nothing in common)",
            font=dict(size=text_px),
        ),
    )
    fig.update_yaxes(
        range=[-0.25 * top, top * 1.25],
        fixedrange=True,
        dtick=max(1, -(-top // 5)),
        title=dict(text="phones", font=dict(size=text_px)),
        zeroline=True,
    )
    return fig


def sketches_figure(labels, rows, names, *, columns=3, text_px=TEXT_PX, title="", allowed=None):
    """Sketches side by side, small multiples: ``rows`` (m, n) weights, one panel each, named
    ``names`` (m,), ``columns`` panels a line; keys as rows, top to bottom."""
    rows = np.asarray(rows, dtype=float)
    m, n = rows.shape
    lines = max(1, -(-m // columns))
    fig = make_subplots(
        rows=lines,
        cols=columns,
        shared_yaxes=True,
        subplot_titles=[escape_label(name) for name in names],
        horizontal_spacing=0.04,
        vertical_spacing=min(0.3, 0.5 / lines),
    )
    for k in range(m):
        fig.add_bar(
            x=rows[k],
            y=np.arange(n),
            orientation="h",
            marker_color=SKETCH_COLOUR,
            showlegend=False,
            hoverinfo="skip",
            text=[f"{v:.2f}" for v in rows[k]],
            textposition="outside",
            cliponaxis=False,
            row=k // columns + 1,
            col=k % columns + 1,
        )
    height = lines * (n * (text_px + 10) + text_px * 4) + text_px * 4
    _layout(fig, title=title, height=height, text_px=text_px, left=_left_margin(labels, text_px))
    fig.update_xaxes(range=[0, 1.3], fixedrange=True, showticklabels=False, gridcolor="#eee")
    fig.update_yaxes(_keys_axis(labels, text_px, allowed))
    fig.update_annotations(font=dict(size=text_px + 2))
    return fig
