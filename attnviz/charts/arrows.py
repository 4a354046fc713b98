"""Arrows from the origin on a plane, for Plotly: line arrows, filled arrows as wide as a weight,
and the convex hull of points. No Streamlit."""

import numpy as np

DECIMALS = 4  # numbers sent to the browser: enough for 3 decimals in a table


def arrow(x, y, colour, width, name, *, axes="", opacity=1.0, head=None, dash=None):
    """A scatter trace drawing the arrow from (0, 0) to (x, y) on the axes ``axes`` ("" or "2")."""
    head = 6 + 2 * width if head is None else head
    return dict(
        type="scatter",
        x=[0, x],
        y=[0, y],
        xaxis=f"x{axes}",
        yaxis=f"y{axes}",
        mode="lines+markers",
        name=name,
        line=dict(color=colour, width=width, dash=dash),
        marker=dict(symbol="arrow", size=[0, head], angleref="previous", color=colour),
        opacity=opacity,
        hovertemplate=f"{name} = (%{{x:.3f}}, %{{y:.3f}})<extra></extra>",
        showlegend=False,
    )


def arrow_outlines(tips, weights, reach):
    """(x, y) of one filled arrow per tip, from (0, 0) to it, as wide as its weight (0 to 1) on
    a plane of half-width ``reach``: the outlines one after another, separated by None (one
    trace draws them all)."""
    xs, ys = [], []
    for k, a in zip(tips, weights, strict=True):
        length = float(np.hypot(*k))
        if length == 0:
            continue  # a zero key has no direction: nothing to draw
        along, across = k / length, np.array([-k[1], k[0]]) / length
        half = reach * (0.008 + 0.045 * a)  # the shaft's half-width grows with the weight
        head = min(reach * 0.09 + 2 * half, 0.6 * length)
        base = k - head * along
        points = [
            half * across,
            base + half * across,
            base + 2.2 * half * across + 0.01 * reach * across,
            k,
            base - 2.2 * half * across - 0.01 * reach * across,
            base - half * across,
            -half * across,
            half * across,
        ]
        xs += [p[0] for p in points] + [None]
        ys += [p[1] for p in points] + [None]
    return rounded(xs, 3), rounded(ys, 3)  # 3 decimals: drawn, not read


def convex_hull(points):
    """(m + 1, 2) the corners of the convex hull of ``points`` (n, 2), closed (Andrew's
    monotone chain)."""
    pts = sorted({(float(x), float(y)) for x, y in points})
    if len(pts) < 3:
        return np.array(pts + pts[:1])

    def turns_left(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]) > 0

    def half(seq):
        out = []
        for p in seq:
            while len(out) >= 2 and not turns_left(out[-2], out[-1], p):
                out.pop()
            out.append(p)
        return out[:-1]

    corners = half(pts) + half(pts[::-1])
    return np.array([*corners, corners[0]])


def rounded(values, decimals=DECIMALS):
    """``values`` (None for a gap) as a list of floats with ``decimals`` decimals."""
    return [None if v is None else round(float(v), decimals) for v in np.ravel(values)]
