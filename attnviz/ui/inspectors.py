"""The cell inspectors: pick a cell (by a click or two selectors) and see the arithmetic behind it.

``cell_inspector`` for S, S' and A; ``projection_inspector`` for Q, K and V; ``output_inspector``
for the output. The numbers come from ``attnviz.lessons.cell_arithmetic``.

An inspector shows its table and formula once a cell has been picked in this session (a
click, or a change of its selectors), not before: every rerun of a page paid for three tables
and formulas that nobody had asked for (about a seventh of the step page's server time).
"""

import numpy as np
import pandas as pd
import streamlit as st

from attnviz.lessons.cell_arithmetic import output_cell, projection_cell, score_cell
from attnviz.ui.sidebar import is_present
from attnviz.ui.text import md_escape

MAX_STATIC_ROWS = 16  # an inspector's table up to this many rows is static HTML (st.table)


def numbers_table(container, table):
    """Draw a DataFrame of numbers in ``container``: up to MAX_STATIC_ROWS rows as a static
    table (cheap for the browser to show: the page updates faster), longer ones in a
    scrolling grid (in projector mode a static table that scrolls). Numbers to 6 significant
    digits. A static table's cells are Markdown: its text (the tokens) goes through
    ``md_escape``."""
    long = len(table) > MAX_STATIC_ROWS
    if not long or is_present():  # on a projector static, in the page's larger text
        numeric = table.select_dtypes("number").columns
        table = table.assign(**{c: table[c].map(md_escape) for c in table.columns.drop(numeric)})
        container.table(
            table.style.format("{:.6g}", subset=numeric), height=400 if long else "content"
        )
    else:
        container.dataframe(table, width="stretch", height=400)


PICKED = "attnviz.inspector_picked."  # + the inspector's name: True once a cell was picked


def _mark_picked(name):
    st.session_state[PICKED + name] = True


def _picked(name, clicked, hint):
    """Whether inspector ``name`` shows its arithmetic: once a cell was clicked (``clicked``)
    or picked by its selectors in this session. Until then ``hint`` says how to pick one."""
    if clicked is not None:
        _mark_picked(name)
    if st.session_state.get(PICKED + name, False):
        return True
    st.caption(hint)
    return False


def _index_select(label, n_options, labels, key, clicked, name):
    """A selectbox over 0..n_options-1 shown by label; a click or a stale value resets it.

    Streamlit keeps a selectbox's value as the text it shows: after the labels change, a text
    that is no longer an option comes back as that text, not as an index (seen when a page
    stopped on bad input, then ran with new labels).
    """
    if clicked is not None:
        st.session_state[key] = clicked
    value = st.session_state.get(key, 0)
    if isinstance(value, str):  # a label: the same token's row if it is still there
        shown = list(labels[:n_options])
        st.session_state[key] = shown.index(value) if value in shown else 0
    elif value >= n_options:
        st.session_state[key] = 0
    return st.selectbox(
        label,
        range(n_options),
        format_func=lambda k: labels[k],
        key=key,
        on_change=_mark_picked,
        args=(name,),
    )


def _pick_cell(row, col, clicked, name):
    """(i, j) picked by two selectboxes side by side; ``row`` and ``col`` are (label, the
    options' labels, widget key); ``clicked`` is the (i, j) just clicked, else None; ``name``
    the inspector's."""
    picked = []
    for k, column in enumerate(st.columns(2)):
        label, options, key = (row, col)[k]
        with column:
            at = None if clicked is None else clicked[k]
            picked.append(_index_select(label, len(options), options, key, at, name))
    return tuple(picked)


def cell_inspector(result, labels, clicked=None):
    """Pick a cell (i, j) of S, S' or A (by click or selectors) and show the arithmetic."""
    st.subheader("Cell inspector: where one attention weight comes from")
    i, j = _pick_cell(
        ("Query token i (row)", labels, "attnviz_inspect_i"),
        ("Key token j (column)", labels, "attnviz_inspect_j"),
        clicked,
        "cell",
    )
    if not _picked(
        "cell",
        clicked,
        "Click a cell of S, S' or A, or choose a query and a key "
        "above, to see the arithmetic behind its weight.",
    ):
        return
    cell = score_cell(result, i, j)
    st.markdown(
        f"Query **{md_escape(labels[i])}** (row {i}) and key **{md_escape(labels[j])}** "
        f"(column {j})"
    )
    left, right = st.columns([2, 3])
    table = pd.DataFrame(
        {"q_i": cell.q_i, "k_j": cell.k_j, "q_i × k_j": cell.products},
        index=pd.Index(range(result.d_k), name="dimension c"),
    )
    numbers_table(left, table)
    right.latex(score_cell_latex(cell, result.d_k))
    if cell.allowed and cell.row_sum > 0:
        right.caption(
            f"m_{i} = {cell.row_max:.6g} is the largest logit of row {i}. Subtracting it before "
            "exp keeps every exponent ≤ 0, so nothing overflows; it cancels in the fraction."
        )


def score_cell_latex(cell, d_k):
    """The chain S_ij -> S'_ij -> A_ij with the cell's numbers, as one aligned LaTeX block."""
    ij = f"{cell.i},{cell.j}"
    lines = [
        rf"S_{{{ij}}} &= \textstyle\sum_c q_{{{cell.i},c}}\, k_{{{cell.j},c}} = {cell.S_ij:.6g}"
    ]
    if cell.scale_factor != 1:
        lines.append(
            rf"S'_{{{ij}}} &= S_{{{ij}}} / \sqrt{{{d_k}}} = {cell.S_ij:.6g} / "
            rf"{cell.scale_factor:.6g} = {cell.S_prime_ij:.6g}"
        )
    else:
        lines.append(
            rf"S'_{{{ij}}} &= S_{{{ij}}} = {cell.S_prime_ij:.6g} \quad \text{{(no scaling)}}"
        )
    letter = "S'" if cell.temperature == 1 else r"\ell"  # the softmax sees S', or S' / T
    z, z_row = f"{letter}_{{{ij}}}", f"{letter}_{{{cell.i},j'}}"
    if cell.temperature != 1 and cell.allowed:
        lines.append(
            rf"{z} &= S'_{{{ij}}} / T = {cell.S_prime_ij:.6g} / {cell.temperature:g}"
            rf" = {cell.logit_ij:.6g}"
        )
    m = f"m_{{{cell.i}}}"
    if not cell.allowed:
        lines.append(rf"A_{{{ij}}} &= 0 \quad \text{{(masked: the softmax sees }} -\infty)")
    elif cell.row_sum == 0:
        lines.append(rf"A_{{{ij}}} &= 0 \quad \text{{(this query may attend to no key)}}")
    else:
        lines += [
            rf"\exp({z} - {m}) &= \exp({cell.logit_ij:.6g} - {cell.row_max:.6g})"
            rf" = {cell.exp_term:.6g}",
            rf"A_{{{ij}}} &= \frac{{\exp({z} - {m})}}{{\sum_{{j'}} \exp({z_row} - {m})}}"
            rf" = \frac{{{cell.exp_term:.6g}}}{{{cell.row_sum:.6g}}} = {cell.A_ij:.6g}",
        ]
    return "\\begin{aligned}" + r" \\ ".join(lines) + "\\end{aligned}"


def projection_inspector(result, labels, clicked=None):
    """Pick a cell (i, c) of Q, K or V and show L_ic = sum_d X_id (W_L)_dc (+ the bias).

    ``clicked`` is ("Q", i, c) (or "K", "V") when a cell was just clicked, else None.
    """
    st.subheader("Projection inspector: where one number of Q, K or V comes from")
    if clicked is not None:
        st.session_state["attnviz_proj_L"] = clicked[0]
    L = st.radio(
        "Matrix",
        ["Q", "K", "V"],
        key="attnviz_proj_L",
        horizontal=True,
        on_change=_mark_picked,
        args=("projection",),
    )
    width = result.d_v if L == "V" else result.d_k
    i, c = _pick_cell(
        ("Token i (row)", labels, "attnviz_proj_i"),
        (f"Dimension c (column of {L})", [str(k) for k in range(width)], "attnviz_proj_c"),
        None if clicked is None else clicked[1:],
        "projection",
    )
    if not _picked(
        "projection",
        clicked,
        "Click a cell of Q, K or V, or choose a token and a "
        "dimension above, to see the sum behind it.",
    ):
        return
    cell = projection_cell(result, L, i, c)
    table = pd.DataFrame(
        {"X_id": cell.x_i, f"W_{L}[d, {c}]": cell.w_c, "product": cell.terms},
        index=pd.Index(range(result.d_model), name="dimension d"),
    )
    left, right = st.columns([3, 2])
    numbers_table(left, table)
    bias = "" if cell.bias is None else rf" + (b_{L})_{{{c}}}"
    right.latex(
        rf"{L}_{{{i},{c}}} = \sum_d X_{{{i},d}}\,(W_{L})_{{d,{c}}}{bias} = {cell.value:.6g}"
    )
    added = "" if cell.bias is None else f" plus the bias {cell.bias:.6g}"
    right.caption(
        f"Row {i} of X times column {c} of W_{L}: the products add up to "
        f"{np.sum(cell.terms):.6g}{added}."
    )


def output_inspector(result, labels, clicked=None):
    """Pick a cell (i, c) of the output and show output_ic = sum_j A_ij V_jc."""
    st.subheader("Output inspector: a weighted average of values")
    i, c = _pick_cell(
        ("Query token i (row)", labels, "attnviz_out_i"),
        ("Value dimension c (column)", [str(k) for k in range(result.d_v)], "attnviz_out_c"),
        clicked,
        "output",
    )
    if not _picked(
        "output",
        clicked,
        "Click a cell of the output, or choose a query and a "
        "dimension above, to see the weighted sum behind it.",
    ):
        return
    cell = output_cell(result, i, c)
    table = pd.DataFrame(
        {"key token j": labels, "A_ij": cell.A_i, "V_jc": cell.V_c, "A_ij × V_jc": cell.terms}
    )
    left, right = st.columns([3, 2])
    numbers_table(left, table)
    right.latex(
        rf"\mathrm{{Output}}_{{{i},{c}}} = \sum_j A_{{{i},j}} V_{{j,{c}}} = {cell.O_ic:.6g}"
    )
    right.caption(f"The terms add up to {np.sum(cell.terms):.6g}.")
