"""The pipeline of self-attention as a diagram: SVG text, with the live shapes.

    X -> Q, K, V -> S = QKᵀ -> S' = S / √d_k -> A = softmax(S') -> output = AV

Each matrix is a box in its family's colour (``charts.style.FAMILIES``, the same as the
charts' titles); each arrow says what is done. The graph never changes shape, so its boxes
sit at fixed places: plain SVG that the browser shows as it shows text (a layout engine such as
Graphviz's, run in the browser, cost a page update about a quarter of a second, measured in
docs/performance.md). No Streamlit here; the page draws it with ``st.html``.
"""

import html

from attnviz.charts.style import FAMILIES, FONT_FAMILY

WIDTH, HEIGHT = 1100, 250  # the viewBox: the SVG scales to the width of the page
BOX_H = 62
EDGE_COLOUR, LABEL_COLOUR = "#555555", "#262730"
# Box name -> (title, family, left x, top y, width)
BOXES = {
    "X": ("X", "X", 0, 94, 80),
    "Q": ("Q", "Q", 165, 8, 90),
    "K": ("K", "K", 165, 94, 90),
    "V": ("V", "V", 165, 180, 90),
    "S": ("S = QKᵀ", "S", 345, 51, 120),
    "Sp": ("S'", "S", 535, 51, 90),
    "A": ("A", "A", 730, 51, 170),
    "O": ("Output = AV", "O", 960, 137, 140),
}


def _text(x, y, text, size, colour, weight="normal", anchor="middle"):
    return (
        f'<text x="{x}" y="{y}" font-size="{size}" fill="{colour}" font-weight="{weight}" '
        f'text-anchor="{anchor}">{html.escape(text)}</text>'
    )


def _box(name, shape):
    title, family, x, y, w = BOXES[name]
    colour = FAMILIES[family][2]
    return (
        f'<rect x="{x}" y="{y}" width="{w}" height="{BOX_H}" rx="12" fill="white" '
        f'stroke="{colour}" stroke-width="3"/>'
        + _text(x + w / 2, y + 27, title, 20, colour, "bold")
        + _text(x + w / 2, y + 50, shape, 16, colour)
    )


def _side(name, side):
    """(x, y) of the middle of a box's left or right side."""
    _, _, x, y, w = BOXES[name]
    return (x + (w if side == "right" else 0), y + BOX_H / 2)


def _arrow(start, end, label, *, at="middle", below=False):
    """A straight arrow from ``start`` to ``end`` with ``label`` above (or below) it: at its
    middle, or by its "start" or "end" (where arrows fanning out are far apart)."""
    (x1, y1), (x2, y2) = _side(start, "right"), _side(end, "left")
    x, y, anchor = {
        "middle": ((x1 + x2) / 2, (y1 + y2) / 2, "middle"),
        "start": (x1 + 6, y1, "start"),
        "end": (x2 - 10, y2, "end"),
    }[at]
    return (
        f'<line x1="{x1}" y1="{y1}" x2="{x2 - 2}" y2="{y2}" stroke="{EDGE_COLOUR}" '
        'stroke-width="2" marker-end="url(#head)"/>'
        + _text(x, y + (20 if below else -8), label, 15, LABEL_COLOUR, anchor=anchor)
    )


def pipeline_svg(n, d_model, d_k, d_v, *, scale=True, masked=False, temperature=1.0):
    """SVG text of the pipeline for these sizes; the softmax's arrow says what it sees
    (/ T, + M) when a temperature or a mask is on, and the scaling arrow says when it is off."""
    extra = ("" if temperature == 1 else f"/ {temperature:g}") + (" + M" if masked else "")
    v_x, v_y = _side("V", "right")
    o_x, o_y = _side("O", "left")
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="100%" role="img" font-family=\'{FONT_FAMILY}\'>',
        "<title>The pipeline of self-attention, with these sizes</title>",
        '<defs><marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" '
        f'markerHeight="8" orient="auto"><path d="M0,0L10,5L0,10z" fill="{EDGE_COLOUR}"/>'
        "</marker></defs>",
        _box("X", f"{n} × {d_model}"),
        _box("Q", f"{n} × {d_k}"),
        _box("K", f"{n} × {d_k}"),
        _box("V", f"{n} × {d_v}"),
        _box("S", f"{n} × {n}"),
        _box("Sp", f"{n} × {n}"),
        _box("A", f"{n} × {n}, rows sum to 1"),
        _box("O", f"{n} × {d_v}"),
        _arrow("X", "Q", "× W_Q", at="end"),
        _arrow("X", "K", "× W_K", at="end"),
        _arrow("X", "V", "× W_V", at="end", below=True),
        _arrow("Q", "S", "queries", at="start"),
        _arrow("K", "S", "keys", at="start", below=True),
        _arrow("S", "Sp", "÷ √d_k" if scale else "no scaling"),
        _arrow("Sp", "A", "softmax"),
        _arrow("A", "O", "weights", at="start", below=True),
        # the values go under S, S' and A to the output
        f'<path d="M{v_x},{v_y} H{o_x - 60} L{o_x - 2},{o_y}" fill="none" '
        f'stroke="{EDGE_COLOUR}" stroke-width="2" marker-end="url(#head)"/>',
        _text((v_x + o_x) / 2, v_y - 8, "values", 15, LABEL_COLOUR),
    ]
    if extra:  # what else the softmax sees, under its arrow
        x1, y = _side("Sp", "right")
        x2, _ = _side("A", "left")
        parts.append(_text((x1 + x2) / 2, y + 20, extra.strip(), 15, LABEL_COLOUR))
    parts.append("</svg>")
    return "".join(parts)
