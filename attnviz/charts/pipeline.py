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


def _box(name, shape, shape_px=16, lit=False):
    """A matrix's box; ``lit``: the step shown now (filled with its colour, a thicker line)."""
    title, family, x, y, w = BOXES[name]
    colour = FAMILIES[family][2]
    fill, stroke = (f"{colour}33", 6) if lit else ("white", 3)
    return (
        f'<rect x="{x}" y="{y}" width="{w}" height="{BOX_H}" rx="12" fill="{fill}" '
        f'stroke="{colour}" stroke-width="{stroke}"/>'
        + _text(x + w / 2, y + 25, title, max(20, shape_px + 2), colour, "bold")
        + _text(x + w / 2, y + 52, shape, shape_px, colour, "bold" if lit else "normal")
    )


def _side(name, side):
    """(x, y) of the middle of a box's left or right side."""
    _, _, x, y, w = BOXES[name]
    return (x + (w if side == "right" else 0), y + BOX_H / 2)


def _arrow(start, end, label, *, at="middle", below=False, label_px=15):
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
        + _text(
            x, y + (label_px + 5 if below else -8), label, label_px, LABEL_COLOUR, anchor=anchor
        )
    )


def pipeline_svg(
    n, d_model, d_k, d_v, *, scale=True, masked=False, temperature=1.0, text_px=15, lit=None
):
    """SVG text of the pipeline for these sizes; the softmax's arrow says what it sees
    (/ T, + M) when a temperature or a mask is on, and the scaling arrow says when it is off.

    ``text_px``: the labels' size in the viewBox's units (about pixels at the page's width;
    larger on a projector); ``lit``: the box of the step shown now ("X", "Q", "K", "V", "S",
    "Sp", "A" or "O"), drawn filled, or None."""
    shape_px, label_px = max(16, text_px), text_px
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
        _box("X", f"{n} × {d_model}", shape_px, lit == "X"),
        _box("Q", f"{n} × {d_k}", shape_px, lit == "Q"),
        _box("K", f"{n} × {d_k}", shape_px, lit == "K"),
        _box("V", f"{n} × {d_v}", shape_px, lit == "V"),
        _box("S", f"{n} × {n}", shape_px, lit == "S"),
        _box("Sp", f"{n} × {n}", shape_px, lit == "Sp"),
        _box("A", f"{n} × {n}" + (", rows sum to 1" if text_px < 18 else ""), shape_px, lit == "A"),
        _box("O", f"{n} × {d_v}", shape_px, lit == "O"),
        _arrow("X", "Q", "× W_Q", at="end", label_px=label_px),
        _arrow("X", "K", "× W_K", at="end", label_px=label_px),
        _arrow("X", "V", "× W_V", at="end", below=True, label_px=label_px),
        _arrow("Q", "S", "queries", at="start", label_px=label_px),
        _arrow("K", "S", "keys", at="start", below=True, label_px=label_px),
        _arrow("S", "Sp", "÷ √d_k" if scale else "no scaling", label_px=label_px),
        _arrow("Sp", "A", "softmax", label_px=label_px),
        _arrow("A", "O", "weights", at="end", below=True, label_px=label_px),
        # the values go under S, S' and A to the output
        f'<path d="M{v_x},{v_y} H{o_x - 60} L{o_x - 2},{o_y}" fill="none" '
        f'stroke="{EDGE_COLOUR}" stroke-width="2" marker-end="url(#head)"/>',
        _text((v_x + o_x) / 2, v_y - 8, "values", label_px, LABEL_COLOUR),
    ]
    if extra:  # what else the softmax sees, under its arrow
        x1, y = _side("Sp", "right")
        x2, _ = _side("A", "left")
        parts.append(_text((x1 + x2) / 2, y + label_px + 5, extra.strip(), label_px, LABEL_COLOUR))
    parts.append("</svg>")
    return "".join(parts)


def pipeline_flow_html(n, d_model, d_k, d_v, *, scale=True, masked=False, temperature=1.0):
    """The same pipeline as boxes in a column of HTML, for a narrow screen (a phone), where the
    wide diagram's text would shrink below readable: each step's box (its family's colour, its
    live shape) under the one it comes from, with what is done between them. Reflows at any
    width; every label is text a screen reader reads in order."""
    extra = ("" if temperature == 1 else f" / {temperature:g}") + (" + M" if masked else "")

    def box(title, family, shape):
        colour = FAMILIES[family][2]
        return (
            f'<div style="border:3px solid {colour};border-radius:10px;padding:6px 10px;'
            f'color:{colour};font-weight:bold;font-size:19px;text-align:center;background:white">'
            f"{html.escape(title)}<br><span style='font-weight:normal;font-size:16px;"
            f"color:{LABEL_COLOUR}'>{html.escape(shape)}</span></div>"
        )

    def step(text):
        return (
            f'<div style="text-align:center;color:{LABEL_COLOUR};padding:4px 0">↓ '
            f"{html.escape(text)}</div>"
        )

    qkv = "".join(
        f'<div style="flex:1 1 0;min-width:90px">{box(name, name, f"{n} × {d}")}</div>'
        for name, d in (("Q", d_k), ("K", d_k), ("V", d_v))
    )
    parts = [
        box("X", "X", f"{n} × {d_model}"),
        step("× W_Q, × W_K, × W_V"),
        f'<div style="display:flex;gap:8px;flex-wrap:wrap">{qkv}</div>',
        step("queries · keys"),
        box("S = QKᵀ", "S", f"{n} × {n}"),
        step("÷ √d_k" if scale else "no scaling"),
        box("S'", "S", f"{n} × {n}"),
        step("softmax" + extra),
        box("A", "A", f"{n} × {n}, rows sum to 1"),
        step("weights × values V"),
        box("Output = AV", "O", f"{n} × {d_v}"),
    ]
    return (
        f'<div role="group" aria-label="The pipeline of self-attention, with these sizes" '
        f'style="font-family:{html.escape(FONT_FAMILY)};font-size:16px;max-width:420px;'
        f'margin:auto">{"".join(parts)}</div>'
    )
