"""A chart's words: its accessible name and a text alternative, from the chart's own numbers.

A screen reader reads a chart's name (``st.plotly_chart(alt=...)``), and anyone can open its
text alternative: for a matrix, its shape, what its rows and columns are, and per row the
largest entries ("query 'cat': 0.46 on 'on', 0.16 on 'the (1)', 0.12 on 'mat'"); for any
other chart, what each trace shows and where it starts, ends and peaks. Plain text, no markup,
no Streamlit, no Plotly: the page decides how to show it, as text.
"""

import html
import re

import numpy as np

from attnviz.text import visible_all

TOP_ENTRIES = 3  # entries named per row of a matrix
MAX_ROWS_DESCRIBED = 64  # rows of a matrix described one by one; the rest are counted
MAX_TRACES_DESCRIBED = 12  # traces of one figure described (a grid of 72 heads: 12, counted)


def _number(value):
    return f"{value:.2f}" if abs(value) >= 0.005 or value == 0 else f"{value:.2e}"


def matrix_name(title, shape, row_title, col_title):
    """The accessible name of a heatmap: what it is, its shape, what rows and columns are."""
    rows, cols = shape
    return f"Heatmap {title}: {rows} × {cols}; rows: {row_title}; columns: {col_title}."


def top_entries(row, mask_row=None, *, kind="signed", top=TOP_ENTRIES):
    """Indices of a row's ``top`` largest entries, largest first: by value for
    probabilities, by size (|value|) for signed numbers; masked and non-finite entries left
    out. Ties keep the lower index first."""
    row = np.asarray(row, dtype=float)
    keep = np.isfinite(row) if mask_row is None else np.isfinite(row) & np.asarray(mask_row)
    size = row if kind == "probability" else np.abs(row)
    order = np.argsort(-np.where(keep, size, -np.inf), kind="stable")
    return [int(j) for j in order[: min(top, int(keep.sum()))]]


def matrix_rows(M, row_labels, col_labels, *, row_name="row", mask=None, kind="signed"):
    """One sentence per row (at most MAX_ROWS_DESCRIBED, then a count of the rest): the row's
    label and its largest entries, each with its column's label.

    Shapes: M (rows, cols); row_labels (rows,); col_labels (cols,); mask (rows, cols) bool
    or None (True where an entry counts)."""
    M = np.asarray(M, dtype=float)
    lines = []
    rows = visible_all(list(row_labels)[:MAX_ROWS_DESCRIBED])
    cols = visible_all(col_labels)
    for i, row in enumerate(rows):
        chosen = top_entries(M[i], None if mask is None else mask[i], kind=kind)
        entries = ", ".join(f"{_number(M[i, j])} on '{cols[j]}'" for j in chosen)
        lines.append(f"{row_name} '{row}': {entries or 'no entry'}")
    if len(M) > MAX_ROWS_DESCRIBED:
        lines.append(f"… and {len(M) - MAX_ROWS_DESCRIBED} more rows (the table has them all).")
    return lines


def matrix_words(M, row_labels, col_labels, *, title, row_title, col_title, mask=None, kind):
    """(accessible name, whole text alternative) of a heatmap of ``M``: its name, then one line
    per row (``matrix_rows``)."""
    M = np.asarray(M, dtype=float)
    what = "largest weights" if kind == "probability" else "largest entries by size"
    head = matrix_name(title, M.shape, row_title, col_title)
    row_name = row_title.split(" (")[0]
    lines = matrix_rows(M, row_labels, col_labels, row_name=row_name, mask=mask, kind=kind)
    return head, "\n".join([head, f"Per row, its {what}:", *lines])


def matrix_text(M, row_labels, col_labels, **options):
    """The whole text alternative of a heatmap (``matrix_words``' second part)."""
    return matrix_words(M, row_labels, col_labels, **options)[1]


def plain(text):
    """A Plotly label as plain text: its HTML tags dropped, its entities read, <br> a space."""
    text = re.sub(r"<br\s*/?>", " ", str(text or ""), flags=re.I)
    return " ".join(html.unescape(re.sub(r"<[^>]*>", "", text)).split())


def _title(layout_part):
    title = getattr(layout_part, "title", None)
    return plain(getattr(title, "text", None) or "")


def _axis(layout, trace, letter):
    ref = getattr(trace, f"{letter}axis", None) or letter
    return layout[f"{letter}axis{ref[1:]}"] if len(ref) > 1 else layout[f"{letter}axis"]


def _tick_labels(axis, n):
    ticks = list(axis.ticktext) if axis.ticktext is not None else []
    if len(ticks) == n:
        return [plain(t) for t in ticks]
    return [str(i) for i in range(n)]


def _points_text(trace, name, x_title, y_title):
    """One line for a line or bar trace: its first, last and largest point (None if it has no
    finite number)."""
    try:
        ys = np.asarray(trace.y, dtype=float)
    except (TypeError, ValueError):  # categories on the y axis: nothing to read as numbers
        return None
    if not len(ys) or not np.isfinite(ys).any():
        return None
    xs = list(trace.x) if trace.x is not None else list(range(len(ys)))
    xs = [plain(x) if isinstance(x, str) else x for x in xs]
    big = int(np.nanargmax(ys))
    return (
        f"{name or 'line'}: {y_title} from {_number(ys[0])} at {x_title} {xs[0]} "
        f"to {_number(ys[-1])} at {xs[-1]}, largest {_number(ys[big])} at {xs[big]} "
        f"({len(ys)} points)."
    )


def figure_name(fig):
    """The accessible name of any figure: its title and what its traces are."""
    kinds = sorted({trace.type for trace in fig.data if trace.visible is not False})
    title = _title(fig.layout) or "chart"
    return f"{title} ({', '.join(kinds) or 'empty'} chart)."


def figure_text(fig):
    """A text alternative of any figure, read from its traces: a heatmap row by row (its
    largest cells, as drawn), a line or bar trace by its points (first, last, largest)."""
    layout = fig.layout
    out = [figure_name(fig)]
    described = [
        trace
        for trace in fig.data
        if trace.visible is not False and trace.type in ("heatmap", "scatter", "bar")
    ]
    for trace in described[:MAX_TRACES_DESCRIBED]:
        x_axis, y_axis = _axis(layout, trace, "x"), _axis(layout, trace, "y")
        x_title, y_title = _title(x_axis) or "x", _title(y_axis) or "y"
        name = plain(trace.name) or ""
        if trace.type == "heatmap" and trace.z is not None:
            z = np.asarray(trace.z, dtype=float)
            rows = _tick_labels(y_axis, z.shape[0])
            cols = _tick_labels(x_axis, z.shape[1])
            out.append(matrix_name(name or _title(layout) or "", z.shape, y_title, x_title))
            out += matrix_rows(z, rows, cols, row_name=y_title.split(" (")[0])
        elif trace.y is not None and (trace.type == "bar" or trace.mode != "markers"):
            line = _points_text(trace, name, x_title, y_title)
            if line:
                out.append(line)
    if len(described) > MAX_TRACES_DESCRIBED:
        out.append(f"… and {len(described) - MAX_TRACES_DESCRIBED} more traces.")
    return "\n".join(out)
