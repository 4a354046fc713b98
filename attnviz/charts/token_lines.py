"""Token lines: an attention matrix as lines from each query to the keys it weighs, in the
manner of BertViz's head view. Arrays and labels in, ``go.Figure`` out; no Streamlit here.

The tokens stand in two columns, queries on the left (x = 0) and keys on the right (x = 1), row
0 at the top, one marker per position: a repeated token ("the (1)", "the (2)") is two positions
with two markers, and its lines go to the position, not to the word. What is drawn:

* a line from query i to key j whose opacity is A_ij rounded to the nearest multiple of STEP
  (0.05), and whose width is that rounded weight times LINE_MAX_PX (A_ij = 1: opaque,
  LINE_MAX_PX wide); a weight under half a step (0.025) rounds to 0 and draws no line;
* one Scatter trace per rounded weight, its segments split by NaN gaps: at most LEVELS = 20
  line traces (and two of markers) whatever n, not one per line (16,384 at n = 128);
* no line for a masked cell (``mask`` False), whatever its value;
* above MAX_LINE_TOKENS tokens, only each query's TOP_LINES_PER_QUERY largest weights (see
  ``line_levels``); ``lines_note`` says so with the numbers, for the page to show.

``selected=("query", i)`` draws only row i's lines, ``("key", j)`` only column j's, and
highlights that token. Tokens are data, never markup: every label is escaped
(``escape_label``) and reaches the hover only through ``customdata``; the hover of a token
lists its largest weights (numbers in ``customdata`` too). ``selected_token`` reads which token
a click picked from a ``st.plotly_chart`` selection.
"""

import html

import numpy as np
import plotly.graph_objects as go

from attnviz.charts import style
from attnviz.charts.style import AXIS_TITLE_COLOUR, FAMILIES, MAX_LABEL_CHARS, TEXT_PX, escape_label
from attnviz.limits import MAX_LINE_TOKENS, TOP_LINES_PER_QUERY

LEVELS = 20  # line traces at most: one per rounded weight STEP, 2 STEP, ..., 1
STEP = 1 / LEVELS  # 0.05: the rounding of a weight into an opacity and a width
LINE_MAX_PX = 10  # the width of a line of weight 1
LINE_COLOUR = "#6b4400"  # a dark shade of the attention family's colour: faint lines still show
TOKEN_COLOUR = "#555555"
ROW_PX = 34  # the room of one token at TEXT_PX; grows with the text (projector mode)
PLOT_PX = 420  # the width between the two columns at TEXT_PX; grows with the text
MAX_ROWS_PX = 2300  # the rows' height at most: past it, rows get closer and labels smaller
MIN_LABEL_PX = 7  # a label that would be drawn smaller is left to the hover
HOVER_WEIGHTS = 3  # the hover of a token lists this many of its largest weights
TITLE_PX = 34  # the title's room at TEXT_PX
SIDES = ("query", "key")


def top_k(n):
    """How many lines each query may draw at most with ``n`` tokens: None (all) up to
    MAX_LINE_TOKENS, else TOP_LINES_PER_QUERY."""
    return None if n <= MAX_LINE_TOKENS else min(TOP_LINES_PER_QUERY, n)


def row_sizes(n, text_px=TEXT_PX):
    """(row_px, label_px): the height of one token's row and the size of its label, in pixels;
    a label_px under MIN_LABEL_PX is not printed (the hover still names the token)."""
    row_px = min(ROW_PX * text_px / TEXT_PX, MAX_ROWS_PX / max(n, 1))
    return row_px, int(min(text_px, row_px * 0.75))


def line_levels(A, mask=None, selected=None):
    """(n, n) ints in 0 .. LEVELS: the rounded weight each line is drawn with (0: no line).

    ``round(A_ij / STEP)`` (halves up), then 0 where ``mask`` is False, beyond the query's
    ``top_k(n)`` largest allowed weights (ties: the lower column first), and, with
    ``selected``, outside the row ("query", i) or the column ("key", j).
    """
    A = np.clip(np.nan_to_num(np.asarray(A, dtype=float)), 0.0, 1.0)
    n = A.shape[0]
    levels = np.floor(A / STEP + 0.5).astype(np.int64)
    allowed = np.ones(A.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    levels[~allowed] = 0
    k = top_k(n)
    if k is not None:
        ranked = np.argsort(-np.where(allowed, A, -1.0), axis=1, kind="stable")[:, :k]
        kept = np.zeros(A.shape, dtype=bool)
        np.put_along_axis(kept, ranked, True, axis=1)
        levels[~kept] = 0
    if selected is not None:
        side, index = selected
        keep = np.zeros(A.shape, dtype=bool)
        if side == "query":
            keep[index, :] = True
        else:
            keep[:, index] = True
        levels[~keep] = 0
    return levels


def lines_note(A, *, mask=None, selected=None, text_px=TEXT_PX):
    """What ``token_lines(A, mask=mask, selected=selected, text_px=text_px)`` draws, in
    sentences with this matrix's numbers (markdown with no labels in it)."""
    A = np.asarray(A, dtype=float)
    n = A.shape[0]
    allowed = np.ones(A.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    small = int(np.count_nonzero(allowed & (np.floor(np.clip(A, 0, 1) / STEP + 0.5) == 0)))
    parts = [
        f"A line joins query i (left) to key j (right); its opacity is A_ij rounded to the "
        f"nearest {STEP:g}, and its width that rounded weight × {LINE_MAX_PX} px. "
        f"A weight under {STEP / 2:g} draws no line: here {small} of the {int(allowed.sum())} "
        f"{'allowed ' if mask is not None else ''}weights."
    ]
    if mask is not None and (~allowed).any():
        parts.append(f"The {int((~allowed).sum())} masked cells draw no line.")
    k = top_k(n)
    if k is not None:
        parts.append(
            f"With {n} tokens (more than {MAX_LINE_TOKENS}), only each query's {k} largest "
            "weights can draw a line."
        )
    levels = line_levels(A, mask, selected)
    drawn = int(np.count_nonzero(levels))
    if selected is not None:
        parts.append(f"{drawn} lines are drawn: the {selected[0]}'s own.")
    elif k is not None and A[allowed].sum() > 0:
        held = float(A[levels > 0].sum()) / float(A[allowed].sum())
        parts.append(f"{drawn} lines are drawn, holding {held:.1%} of all the weight.")
    else:
        parts.append(f"{drawn} lines are drawn.")
    if row_sizes(n, text_px)[1] < MIN_LABEL_PX:
        parts.append(f"{n} labels do not fit: hover a marker to read its token.")
    parts.append("Hover a token for its largest weights; click it to see only its lines.")
    return " ".join(parts)


def _hover(A, labels, allowed, side):
    """(customdata, hovertemplates) of the markers of ``side``: each token's label and its
    HOVER_WEIGHTS largest allowed weights (other side's labels and the numbers, as data)."""
    n = len(labels)
    names = {"query": "row", "key": "column"}
    other = "key" if side == "query" else "query"
    W = A if side == "query" else A.T  # row t: the weights of token t's lines
    ok = allowed if side == "query" else allowed.T
    customdata, templates = [], []
    for t in range(n):
        candidates = [u for u in np.argsort(-W[t], kind="stable") if ok[t, u]][:HOVER_WEIGHTS]
        row = [f"{escape_label(labels[t])} ({names[side]} {t})"]
        heading = "its largest weights A_ij:" if side == "query" else "largest weights A_ij on it:"
        lines = [f"{side}: %{{customdata[0]}}", heading]
        for u in candidates:
            row += [f"{escape_label(labels[u])} ({names[other]} {u})", float(W[t, u])]
            lines.append(f"%{{customdata[{len(row) - 2}]}}: %{{customdata[{len(row) - 1}]:.4f}}")
        if not candidates:
            lines[1] = "no key it may see" if side == "query" else "no query may see it"
        customdata.append(row)
        templates.append("<br>".join(lines) + "<extra></extra>")
    width = max(len(row) for row in customdata)
    customdata = [row + [""] * (width - len(row)) for row in customdata]
    return customdata, templates


def _token_trace(A, labels, allowed, side, selected, label_px, show_text):
    """The markers (and labels) of one column: queries at x = 0, keys at x = 1."""
    n = len(labels)
    chosen = selected[1] if selected is not None and selected[0] == side else None
    texts = [escape_label(label, MAX_LABEL_CHARS) for label in labels]
    if chosen is not None:
        texts[chosen] = f"<b>{texts[chosen]}</b>"
    customdata, templates = _hover(A, labels, allowed, side)
    size = np.full(n, max(6, label_px * 0.7))
    colour = [TOKEN_COLOUR] * n
    if chosen is not None:
        size[chosen] *= 1.6
        colour[chosen] = LINE_COLOUR
    return dict(
        type="scatter",
        name="queries" if side == "query" else "keys",
        x=np.full(n, 0.0 if side == "query" else 1.0, dtype=np.float32),
        y=np.arange(n, dtype=np.float32),
        mode="markers+text" if show_text else "markers",
        text=texts,
        textposition="middle left" if side == "query" else "middle right",
        textfont=dict(size=label_px, color=AXIS_TITLE_COLOUR),
        marker=dict(size=size, color=colour, line=dict(width=0)),
        customdata=customdata,
        hovertemplate=templates,
        hoverlabel=dict(bgcolor="white", bordercolor="#555", font_color="#111"),
        # a click selects a marker (Streamlit reports it); Plotly must not dim the others
        selected=dict(marker=dict(opacity=1)),
        unselected=dict(marker=dict(opacity=1)),
        cliponaxis=False,
        showlegend=False,
    )


def _line_trace(levels, level):
    """The lines of one rounded weight ``level * STEP``: segments (0, i) -> (1, j), NaN gaps."""
    i, j = np.nonzero(levels == level)
    x = np.tile(np.array([0.0, 1.0, np.nan], dtype=np.float32), i.size)
    y = np.column_stack([i, j, np.full(i.size, np.nan)]).astype(np.float32).ravel()
    weight = level * STEP
    return dict(
        type="scatter",
        name=f"A_ij ≈ {weight:.2f}",
        x=x,
        y=y,
        mode="lines",
        line=dict(color=LINE_COLOUR, width=weight * LINE_MAX_PX),
        opacity=weight,
        hoverinfo="skip",
        showlegend=False,
        meta=dict(weight=weight, lines=int(i.size)),
    )


def token_lines(A, labels, *, selected=None, mask=None, text_px=TEXT_PX, title=""):
    """Token lines of the square attention matrix ``A`` (n, n): see the module docstring.

    Args:
        A: (n, n) weights, rows are queries and columns keys (values are clipped to 0 .. 1).
        labels: (n,) strings, one per position (a repeated token is labelled per position).
        selected: None (every line), ("query", i) (row i's lines only) or ("key", j)
            (column j's lines only); that token is drawn larger, in the lines' colour.
        mask: (n, n) bool, True where query i may see key j; a False cell draws no line.
        text_px: size of the labels and titles in pixels (PRESENT_TEXT_PX in projector mode).
        title: the chart's title (escaped).

    Returns:
        go.Figure: one line trace per rounded weight that has lines, in increasing order
        (named "A_ij ≈ 0.35", ``meta`` {"weight", "lines"}), then the query markers (named
        "queries") and the key markers ("keys"). ``layout.meta`` holds ``n``, ``top_k`` (None:
        every line) and ``selected``.
    """
    A = np.asarray(A, dtype=float)
    n = len(labels)
    if A.ndim != 2 or A.shape != (n, n):
        raise ValueError(
            f"token lines need a square matrix with one label per row: got a matrix of shape "
            f"{A.shape} and {n} labels"
        )
    if selected is not None:
        side, index = selected
        if side not in SIDES or not 0 <= index < n:
            raise ValueError(f"selected must be ('query' or 'key', 0 .. {n - 1}): got {selected}")
    allowed = np.ones(A.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    levels = line_levels(A, mask, selected)
    scale = text_px / TEXT_PX
    title_px = round(TITLE_PX * scale) if title else 0
    top = title_px + round(text_px * 2.2)  # the title, then "query i" / "key j" above the plot
    row_px, label_px = row_sizes(n, text_px)
    show_text = label_px >= MIN_LABEL_PX
    shown = [html.unescape(escape_label(label, MAX_LABEL_CHARS)) for label in labels]
    widest = max((style.text_px(label, label_px) for label in shown), default=0)
    side_px = (widest if show_text else 0) + round(label_px * 1.5) + 8  # label, marker, gap
    traces = [  # the lines first, so that the tokens are drawn over them
        _line_trace(levels, level) for level in range(1, LEVELS + 1) if (levels == level).any()
    ]
    traces += [
        _token_trace(A, labels, allowed, side, selected, label_px, show_text) for side in SIDES
    ]
    plot_px = round(PLOT_PX * scale)
    axis_font = dict(size=max(text_px, 14), color=AXIS_TITLE_COLOUR)
    layout = dict(
        title=dict(
            text=escape_label(title),
            font=dict(size=max(text_px + 4, 16), color=FAMILIES["A"][2]),
            x=0,
            xanchor="left",
            y=1,
            yref="container",
            yanchor="top",
            pad=dict(t=8),
        ),
        width=plot_px + 2 * side_px,
        height=round(top + 10 + row_px * n),
        margin=dict(l=side_px, r=side_px, t=top, b=10),
        xaxis=dict(
            range=[0, 1],
            tickmode="array",
            tickvals=[0, 1],
            ticktext=["query i", "key j"],
            tickfont=axis_font,
            side="top",
            showgrid=False,
            zeroline=False,
            showline=False,
            ticks="",
            fixedrange=True,
        ),
        yaxis=dict(range=[n - 0.5, -0.5], visible=False, fixedrange=True),
        plot_bgcolor="white",
        hovermode="closest",
        clickmode="event+select",
        dragmode=False,
        meta=dict(n=n, top_k=top_k(n), selected=list(selected) if selected else None),
    )
    return go.Figure(data=traces, layout=layout)


def selected_token(selection, n):
    """("query", i) or ("key", j): the token marker clicked first in a ``st.plotly_chart``
    selection of ``token_lines`` (x = 0 a query, x = 1 a key; y its position), else None.
    A position outside 0 .. n - 1 (the tokens changed since) is None."""
    points = (selection or {}).get("points") or []
    for point in points:
        x, y = point.get("x"), point.get("y")
        if x is None or y is None:
            continue
        index = round(y)
        if round(x) in (0, 1) and 0 <= index < n:
            return SIDES[round(x)], index
    return None
