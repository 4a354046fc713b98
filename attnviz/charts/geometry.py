"""Attention as geometry: a query and its keys as arrows, the weights, the output. No Streamlit.

``geometry_figure`` draws a ``GeometryGrid`` (``attnviz.lessons.geometry``) as one figure with
Plotly's own sliders and frames, so turning the query redraws in the browser with no server
round trip:

* frame ``a{i}`` holds everything that depends on the query (its arrow, each key arrow's width
  and opacity, the weight bars, the output arrow, the table of numbers) at angle i, for every
  length of the grid at once: one copy of those traces per length;
* frame ``l{j}`` only shows length j's copy and hides the others.

A slider step can only name a fixed frame, so two sliders could not name one frame of an
(angle, length) grid between them; with the lengths side by side in every angle frame, each
slider moves one thing and keeps the other where the student left it.
"""

import numpy as np
import plotly.graph_objects as go

from attnviz.charts.arrows import arrow, arrow_outlines, convex_hull, rounded
from attnviz.charts.style import AXIS_TITLE_COLOUR, FAMILIES, PRESENT_TEXT_PX, TEXT_PX

QUERY_COLOUR = FAMILIES["Q"][2]
KEY_COLOUR = FAMILIES["K"][2]
VALUE_COLOUR = FAMILIES["V"][2]
OUTPUT_COLOUR = FAMILIES["O"][2]
WEIGHT_COLOUR = FAMILIES["A"][2]
GUIDE_COLOUR = "#9a9a9a"
BLOCK = 5  # traces per query length: keys, query, weight bars, output, table
# What a slider step asks of Plotly.animate: jump to the frame now. An angle step changes only
# numbers, which Plotly redraws trace by trace (redraw=False: 3 to 4 times faster than a whole
# redraw, measured); a length step shows other traces, which needs the whole figure redrawn.
TURN = dict(mode="immediate", frame=dict(duration=0, redraw=False), transition=dict(duration=0))
STRETCH = dict(mode="immediate", frame=dict(duration=0, redraw=True), transition=dict(duration=0))
# The table of numbers is text on a hidden pair of axes (not a Plotly table, which a frame that
# is not fully redrawn would leave as it was): its columns' left edges, on an x axis of 0 to 7
TABLE_HEADER = ("key", "|k|", "angle θ to q", "q·k = |q||k| cos θ", "q·k / √2", "weight a")
COLUMN_X = (0.0, 0.7, 1.5, 2.9, 4.7, 5.9)


def _per_length(grid, li, ai, names, reach, table=True):
    """The traces of length ``li`` at angle ``ai``: query, keys, bars, output, table (dicts that
    also serve as frame updates; ``table`` False: the table's trace without text)."""
    q = grid.queries[li, ai]
    w = grid.weights[li, ai]
    key_x, key_y = arrow_outlines(grid.keys, w, reach)
    theta = np.degrees(np.arccos(np.clip(q @ grid.keys.T / (
        grid.lengths[li] * np.maximum(grid.key_lengths, 1e-300)), -1, 1)))  # fmt: skip
    columns = np.array(  # (4, n): the columns that change with the query
        [
            [f"{v:.0f}°" for v in theta],
            [f"{v:.3f}" for v in grid.scores[li, ai]],
            [f"{v:.3f}" for v in grid.scaled_scores[li, ai]],
            [f"{v:.3f}" for v in w],
        ]
    )
    n = len(names)
    return [
        dict(type="scatter", x=key_x, y=key_y, mode="lines", fill="toself",
             fillcolor=KEY_COLOUR, line=dict(color=KEY_COLOUR, width=1), opacity=0.85,
             hoverinfo="skip", showlegend=False),
        arrow(*rounded(q), QUERY_COLOUR, 5, "q", head=18),
        dict(type="bar", orientation="h", x=rounded(w), y=list(names), xaxis="x3", yaxis="y3",
             marker=dict(color=WEIGHT_COLOUR), text=[f"{v:.2f}" for v in w],
             textposition="outside", cliponaxis=False,
             hovertemplate="%{y}: a = %{x:.4f}<extra></extra>", showlegend=False),
        arrow(*rounded(grid.outputs[li, ai]), OUTPUT_COLOUR, 4, "output", axes="2"),
        dict(type="scatter", name="numbers", mode="text", xaxis="x4", yaxis="y4",
             x=list(COLUMN_X[2:]) * n, y=np.repeat(np.arange(n), 4).tolist(),
             text=columns.T.ravel().tolist() if table else [""] * columns.size,
             textposition="middle right", hoverinfo="skip",
             showlegend=False),
    ]  # fmt: skip


def _updates(traces):
    """What a frame changes of each trace: its numbers, not its style."""
    keep = ("type", "x", "y", "text")  # a table cell's text, its place never changes
    return [{k: v for k, v in t.items() if k in keep} for t in traces]


def _slider(steps, active, prefix, y, text_px):
    return dict(
        active=active,
        steps=steps,
        x=0.05,
        len=0.9,
        y=y,
        yanchor="top",
        pad=dict(t=0, b=0),
        currentvalue=dict(prefix=prefix, font=dict(size=text_px + 2), xanchor="left"),
        font=dict(size=text_px),
        transition=dict(duration=0),
    )


def geometry_figure(grid, start_angle=0, start_length=0, *, key_names=None, text_px=TEXT_PX):
    """The query, keys, weights and output of ``grid`` with two sliders (angle, length).

    ``start_angle`` and ``start_length`` index ``grid.angles`` and ``grid.lengths``: what is
    drawn first. Trace order: 6 fixed traces and n value arrows, then one block of BLOCK
    traces (keys, query, bars, output, table) per length; only ``start_length``'s is visible.
    """
    n = len(grid.keys)
    names = key_names or [f"k{j + 1}" for j in range(n)]
    big = text_px >= PRESENT_TEXT_PX  # a projector's text
    table = not big
    L, A = len(grid.lengths), len(grid.angles)
    reach = 1.15 * max(grid.lengths.max(), grid.key_lengths.max(), 1.0)
    v_reach = 1.4 * max(np.linalg.norm(grid.values, axis=1).max(), 0.1)
    circle = np.linspace(0, 2 * np.pi, 73)
    unit = np.radians(grid.angles[start_angle])
    hull = convex_hull(grid.values)  # every weighted average of the values lies inside it
    fixed = [
        dict(
            type="scatter",
            x=rounded(np.cos(circle)),
            y=rounded(np.sin(circle)),
            mode="lines",
            line=dict(color=GUIDE_COLOUR, width=1, dash="dot"),
            hoverinfo="skip",
            showlegend=False,
        ),  # the unit circle
        dict(
            type="scatter",
            x=rounded([-reach * np.cos(unit), reach * np.cos(unit)]),
            y=rounded([-reach * np.sin(unit), reach * np.sin(unit)]),
            mode="lines",
            line=dict(color=QUERY_COLOUR, width=1, dash="dash"),
            hoverinfo="skip",
            opacity=0.5,
            showlegend=False,
        ),  # the query's direction: it changes with the angle
        dict(
            type="scatter",
            x=rounded(grid.keys[:, 0] * 1.12),
            y=rounded(grid.keys[:, 1] * 1.12),
            mode="text",
            text=[f"<b>{name}</b>" for name in names],
            hoverinfo="skip",
            textfont=dict(color=KEY_COLOUR, size=text_px + 2),
            showlegend=False,
        ),
        dict(
            type="scatter",
            x=rounded(hull[:, 0]),
            y=rounded(hull[:, 1]),
            xaxis="x2",
            yaxis="y2",
            mode="lines",
            line=dict(color=VALUE_COLOUR, width=1, dash="dot"),
            hoverinfo="skip",
            fill="toself",
            fillcolor="rgba(31, 120, 180, 0.07)",
            showlegend=False,
        ),
        dict(
            type="scatter",
            x=rounded(grid.values[:, 0] * 1.15),
            y=rounded(grid.values[:, 1] * 1.15),
            xaxis="x2",
            yaxis="y2",
            mode="text",
            text=[f"v{j + 1}" for j in range(n)],
            hoverinfo="skip",
            textfont=dict(color=VALUE_COLOUR, size=text_px),
            showlegend=False,
        ),
        dict(
            type="scatter",
            x=[c for v in grid.values for c in (0, *rounded(v[:1]), None)],
            y=[c for v in grid.values for c in (0, *rounded(v[1:]), None)],
            xaxis="x2",
            yaxis="y2",
            mode="lines+markers",
            line=dict(color=VALUE_COLOUR, width=2),
            marker=dict(
                symbol="arrow", size=[0, 10, 0] * n, angleref="previous", color=VALUE_COLOUR
            ),
            opacity=0.8,
            hoverinfo="skip",
            showlegend=False,
        ),
    ]  # fmt: skip  (few fixed traces: Plotly's work per slider step grows with the traces)
    fixed.append(  # the table's header, and the columns that do not change: key, |k|
        dict(type="scatter", mode="text", xaxis="x4", yaxis="y4", hoverinfo="skip",
             x=list(COLUMN_X) + [COLUMN_X[0]] * n + [COLUMN_X[1]] * n,
             y=[-1] * len(COLUMN_X) + list(range(n)) * 2,
             text=[f"<b>{h}</b>" for h in TABLE_HEADER] + list(names)
             + [f"{v:.2f}" for v in grid.key_lengths] if table else [""] * (len(COLUMN_X) + 2 * n),
             textposition="middle right", textfont=dict(size=text_px), showlegend=False)
    )  # fmt: skip
    blocks = []
    for li in range(L):
        block = _per_length(grid, li, start_angle, names, reach, table)
        for trace in block:
            trace["visible"] = li == start_length
        blocks += block
    for trace in blocks:
        if trace.get("name") == "numbers":
            trace["textfont"] = dict(size=text_px)

    first_block = len(fixed)
    block_traces = list(range(first_block, first_block + L * BLOCK))
    frames = []
    for ai in range(A):
        a = np.radians(grid.angles[ai])
        direction = dict(
            x=rounded([-reach * np.cos(a), reach * np.cos(a)]),
            y=rounded([-reach * np.sin(a), reach * np.sin(a)]),
        )
        data = [direction]
        for li in range(L):
            data += _updates(_per_length(grid, li, ai, names, reach, table))
        frames.append(dict(name=f"a{ai}", data=data, traces=[1, *block_traces]))
    for li in range(L):
        shown = [
            dict(type=trace["type"], visible=t // BLOCK == li) for t, trace in enumerate(blocks)
        ]
        frames.append(dict(name=f"l{li}", data=shown, traces=block_traces))

    angle_steps = [
        dict(method="animate", label=f"{a:g}°", args=[[f"a{i}"], TURN])
        for i, a in enumerate(grid.angles)
    ]
    length_steps = [
        dict(method="animate", label=f"{v:g}", args=[[f"l{i}"], STRETCH])
        for i, v in enumerate(grid.lengths)
    ]
    ticks = dict(
        tickfont=dict(size=text_px), title_font=dict(size=text_px)
    )  # the theme's are small
    axis = dict(ticks, zeroline=True, zerolinecolor="#d0d0d0", gridcolor="#eeeeee",
                constrain="domain")  # fmt: skip
    title_font = dict(size=text_px + 2, color=AXIS_TITLE_COLOUR)
    titles = (("query q and keys k", 0), ("output Σ a_j v_j", 0.44), ("weights a", 0.76))
    # On a projector (large text) the arrows, the weights and both sliders fit the first
    # screen under the stepper's bar: 560 px, no table of numbers (its rows at 20 px would run
    # together; the bars print the weights)
    height = 560 if big else int(58 * text_px + 140)  # 836 px at 12 px text
    plots = [0.58, 1] if big else [0.5, 1]  # the three plots' height, as a share
    slider_y = (0.45, 0.2) if big else (0.44, 0.33)
    table_domain = [0, 0.01] if big else [0, 0.2]
    fig = go.Figure(
        data=fixed + blocks,
        frames=frames,
        layout=dict(
            height=height,
            # room for the toolbar above the titles, and for a weight's text right of its bar
            margin=dict(l=10, r=3 * text_px, t=36 + 2 * text_px, b=10),
            font=dict(size=text_px),
            plot_bgcolor="white",
            xaxis=dict(axis, domain=[0, 0.36], range=[-reach, reach], title="x"),
            yaxis=dict(axis, domain=plots, range=[-reach, reach], scaleanchor="x",
                       title="y"),
            xaxis2=dict(axis, domain=[0.44, 0.66], anchor="y2", range=[-v_reach, v_reach]),
            yaxis2=dict(axis, domain=plots, anchor="x2", range=[-v_reach, v_reach],
                        scaleanchor="x2"),
            xaxis3=dict(ticks, domain=[0.76, 1], anchor="y3", range=[0, 1.12],
                        title="a = softmax(q·k / √2)", tickvals=[0, 0.5, 1], gridcolor="#eeeeee"),
            yaxis3=dict(ticks, domain=plots, anchor="x3", autorange="reversed",
                        categoryorder="array", categoryarray=list(names)),
            xaxis4=dict(domain=[0, 1], anchor="y4", range=[-0.05, 7], visible=False,
                        fixedrange=True),
            yaxis4=dict(domain=table_domain, anchor="x4", range=[max(n, 4) - 0.4, -1.6],
                        visible=False, fixedrange=True),
            shapes=[dict(type="line", xref="paper", yref="y4", x0=0, x1=1, y0=-0.5, y1=-0.5,
                         line=dict(color=GUIDE_COLOUR, width=1))],
            annotations=[
                dict(text=text, x=x, y=1, xref="paper", yref="paper", xanchor="left",
                     yanchor="bottom", showarrow=False, font=title_font)
                for text, x in titles
            ],
            sliders=[
                _slider(angle_steps, start_angle, "query angle: ", slider_y[0], text_px),
                _slider(length_steps, start_length, "query length |q| = ", slider_y[1], text_px),
            ],
        ),
    )  # fmt: skip
    return fig
