"""Peer instruction's charts (attnviz.classroom.rounds): both rounds' answers side by side, who
moved where between them, the right share of each round and the twin, and how sure the right
and the wrong answers were. Pure Plotly; option texts escaped (they may quote typed tokens).
"""

import plotly.graph_objects as go

from attnviz.charts.class_answers import OTHER_COLOUR, RIGHT_COLOUR
from attnviz.charts.style import FONT_FAMILY, TEXT_COLOUR, TEXT_PX, escape_label

ROUND_COLOURS = ("#a6a6a6", "#4d4d4d", "#7570b3")  # round 1 light, round 2 dark, the twin
SHADES = ("light", "dark", "violet")  # the colours' names, in the titles (no legend)
WRONG_COLOUR = "#b2182b"
HEIGHT_PX = 300
SHARE_TOP = 118  # the share axis's top (%): a bar at 100 % has room for its label above it


def _layout(fig, title, text_px, height, **axes):
    fig.update_layout(
        title=dict(text=title, x=0, xanchor="left"),
        height=height,
        margin=dict(l=text_px * 2 + 10, r=10, t=text_px * 4, b=text_px * 2 + 10),
        font=dict(family=FONT_FAMILY, size=text_px, color=TEXT_COLOUR),
        plot_bgcolor="white",
        **axes,
    )
    return fig


def _dtick(top):
    """Whole-number ticks, at most about five."""
    return max(1, -(-int(top) // 5))


def _ticks(letters, right):
    return [escape_label(x) + (" ✓" if k == right else "") for k, x in enumerate(letters)]


def rounds_bars(letters, options, rounds, right, *, text_px=TEXT_PX, height=HEIGHT_PX):
    """Grouped bars: for each option (``letters`` (m,), texts ``options`` (m,) in the hover),
    one bar per round of ``rounds`` [(name, counts (m,))], the right option ``right`` ticked."""
    fig = go.Figure()
    top = 1
    for r, (name, counts) in enumerate(rounds):
        counts = [int(c) for c in counts]
        top = max(top, *counts)
        fig.add_trace(
            go.Bar(
                name=name,
                x=list(range(len(letters))),
                y=counts,
                text=[str(c) for c in counts],
                textposition="outside",
                cliponaxis=False,
                customdata=[escape_label(o) for o in options],
                hovertemplate=f"{name}<br>%{{customdata}}<br>%{{y}} students<extra></extra>",
                marker_color=ROUND_COLOURS[r % len(ROUND_COLOURS)],
            )
        )
    return _layout(
        fig,
        ", ".join(
            f"{name} ({SHADES[r % len(SHADES)]})" for r, (name, _) in enumerate(rounds)
        ).capitalize(),
        text_px,
        height,
        barmode="group",
        xaxis=dict(
            tickmode="array",
            tickvals=list(range(len(letters))),
            ticktext=_ticks(letters, right),
            fixedrange=True,
        ),
        yaxis=dict(range=[0, top * 1.3], fixedrange=True, title="students", dtick=_dtick(top)),
        showlegend=False,
    )


def transition_chart(letters, moves, right, *, text_px=TEXT_PX, height=HEIGHT_PX):
    """Who moved where: a line from each first answer (left) to each second answer (right),
    as thick as the students who made that move (``moves`` [(from, to, students)]); the moves
    onto the right answer ``right`` in green, staying put dotted."""
    m = len(letters)
    fig = go.Figure()
    most = max([n for _, _, n in moves] or [1])
    for a, b, n in moves:
        onto = a != b and b == right
        colour = RIGHT_COLOUR if onto else OTHER_COLOUR
        fig.add_trace(
            go.Scatter(
                x=[0, 1],
                y=[a, b],
                mode="lines+text",
                line=dict(width=2 + 12 * n / most, color=colour, dash="dot" if a == b else "solid"),
                text=["", ""],
                name=f"{letters[a]} → {letters[b]}: {n}",
                hovertemplate=f"{escape_label(letters[a])} → {escape_label(letters[b])}: "
                f"{n} students<extra></extra>",
                showlegend=False,
            )
        )
        fig.add_annotation(  # above its line's middle, clear of the line's own width
            x=0.5,
            y=(a + b) / 2,
            text=str(n),
            showarrow=False,
            font=dict(size=text_px, color=colour),
            yanchor="bottom",
            yshift=(2 + 12 * n / most) / 2 + 2,
        )
    ticks = dict(
        tickmode="array",
        tickvals=list(range(m)),
        ticktext=_ticks(letters, right),
        range=[m - 0.5, -0.5],
        fixedrange=True,
        showgrid=False,
    )
    return _layout(
        fig,
        "Who moved where",
        text_px,
        height,
        xaxis=dict(
            tickmode="array",
            tickvals=[0, 1],
            ticktext=["round 1", "round 2"],
            range=[-0.15, 1.15],
            fixedrange=True,
            showgrid=False,
        ),
        yaxis=ticks,
    )


def transition_words(letters, moves, right):
    """The transition chart's text alternative: every move with its count, the moves onto the
    right answer first."""
    if not moves:
        return "Who moved where: nobody answered both rounds."
    onto = [(a, b, n) for a, b, n in moves if a != b and b == right]
    other = [(a, b, n) for a, b, n in moves if a != b and b != right]
    stay = [(a, b, n) for a, b, n in moves if a == b]

    def said(group):
        return "; ".join(f"{letters[a]} → {letters[b]}: {n}" for a, b, n in group) or "none"

    return (
        f"Who moved where, round 1 → round 2 (students). Onto the right answer "
        f"{letters[right] if 0 <= right < len(letters) else '?'}: {said(onto)}. Other moves: "
        f"{said(other)}. Kept their answer: {said(stay)}."
    )


def shares_bars(names, shares, *, text_px=TEXT_PX, height=HEIGHT_PX):
    """The right answers' share of each round (``names``, ``shares`` 0 to 1 or None)."""
    values = [0 if s is None else round(100 * s) for s in shares]
    fig = go.Figure(
        go.Bar(
            x=list(names),
            y=values,
            text=["–" if s is None else f"{v} %" for s, v in zip(shares, values, strict=True)],
            textposition="outside",
            cliponaxis=False,
            marker_color=[ROUND_COLOURS[k % len(ROUND_COLOURS)] for k in range(len(names))],
            hovertemplate="%{x}: %{y} % right<extra></extra>",
        )
    )
    return _layout(
        fig,
        "Right answers",
        text_px,
        height,
        yaxis=dict(  # room above 100 % for a bar's label, but no tick past 100 %
            range=[0, SHARE_TOP],
            fixedrange=True,
            title="% right",
            tickmode="array",
            tickvals=[0, 25, 50, 75, 100],
        ),
        xaxis=dict(fixedrange=True),
        showlegend=False,
    )


def confidence_bars(levels, table, name, *, text_px=TEXT_PX, height=HEIGHT_PX):
    """How sure the right and the wrong answers of round ``name`` were: for each level of
    ``levels`` (names), ``table`` [(level, right, wrong)], as stacked horizontal bars (a level's
    name on one line beside its bar); the most sure on top, wrong on the left."""
    order = sorted(table, key=lambda row: -row[0])
    names = [levels[level] for level, _, _ in order]
    fig = go.Figure()
    for label, column, colour in (("wrong", 2, WRONG_COLOUR), ("right", 1, RIGHT_COLOUR)):
        counts = [int(row[column]) for row in order]
        fig.add_trace(
            go.Bar(
                name=label,
                y=names,  # a row per level, its name on one line: names never meet
                x=counts,
                orientation="h",
                text=[f"{c} {label}" if c else "" for c in counts],
                textposition="inside",
                insidetextanchor="middle",
                marker_color=colour,
                hovertemplate=f"%{{y}}, {label}: %{{x}} students<extra></extra>",
            )
        )
    top = max([r + w for _, r, w in table] + [1])
    _layout(
        fig,
        f"How sure? ({name})",
        text_px,
        height,
        barmode="stack",
        xaxis=dict(range=[0, top * 1.05], fixedrange=True, title="students", dtick=_dtick(top)),
        yaxis=dict(fixedrange=True, autorange="reversed"),  # the most sure on top
        showlegend=False,
    )
    widest = max((len(n) for n in names), default=1)
    fig.update_layout(margin_l=int(0.6 * widest * text_px) + 16)  # the names, whole
    return fig
