"""Every step's matrices, as the step-by-step page and Your own numbers draw them.

Each step's heatmaps under its header (the projections' headers too, written once for Q, K and
V), the clickable ones returning the cell clicked, the sentences that depend on the settings,
and the seed's dimension table (Markdown).

Chart keys are the matrices' names: ``W_Q`` .. ``W_V``, ``Q`` .. ``V``, ``S``, ``S_scaled``,
``logits``, ``A`` and ``output`` (the page draws ``X`` itself). The cell inspectors are in
``attnviz.ui.inspectors``.

The three fragments (a click reruns one of them alone) take ``steps``, an
``attnviz.serve.store.Lookup`` that gives (result, labels, found) from the shared cache, never the
arrays themselves: Streamlit keeps a fragment's arguments in the session for as long as it
lives (a tab, and ``disconnectedSessionTTL`` after it closes).
"""

import numpy as np
import streamlit as st

from attnviz.lessons.summary import attention_formula
from attnviz.ui import spread
from attnviz.ui.attention_view import show_attention
from attnviz.ui.charts import dims, show_matrix
from attnviz.ui.inspectors import cell_inspector, output_inspector, projection_inspector
from attnviz.ui.sidebar import is_present
from attnviz.ui.stepper import after_chart
from attnviz.ui.text import step_header

# (d_sub, what row i is) of each projection L = XW_L
PROJECTIONS = {
    "Q": ("k", "what token i is looking for"),
    "K": ("k", "what token i offers to be matched on"),
    "V": ("v", "what token i passes on when attended to"),
}
SHOWN_ROW_SUMS = 20  # the row sums listed one by one; the smallest and largest are always given


def projection_step(result, labels, title, L, sub, role, found=None):
    """Step "L = XW_L" for L in Q, K, V: its header, then W_L (d_model, d_sub) on the left and
    L (n, d_sub) on the right, clickable. ``sub`` is "k" or "v"; ``role`` says what row i of L
    is; ``found`` an edit's Spread (its changed cells outlined) or None. Returns (L, i, c) for
    the cell (i, c) of L just clicked, else None."""
    W, M = getattr(result, f"W_{L}"), getattr(result, L)
    d_model, width = W.shape
    step_header(
        title,
        rf"{L} = XW_{L}, \quad W_{L} \in \mathbb{{R}}^{{d_{{model}} \times d_{sub}}}",
        rf"W_{L} \in \mathbb{{R}}^{{{d_model} \times {width}}}, \quad "
        rf"{L} \in \mathbb{{R}}^{{{result.n} \times {width}}}",
        f"Each token's row of X is multiplied by W_{L}: row i of {L} is {role}. **Click a cell** "
        f"of {L} to see the sum that makes it.",
    )
    left, right = st.columns([2, 3])
    with left:
        show_matrix(
            W,
            dims(d_model),
            dims(width),
            key=f"W_{L}",
            share=0.4,
            title=f"W_{L}",
            family="W",
            row_title="input dimension d",
            col_title=f"d_{sub} dimension c",
        )
    with right:
        click = show_matrix(
            M,
            labels,
            dims(width),
            key=L,
            share=0.6,
            title=f"{L} = XW_{L}",
            family=L,
            value_name=f"{L}_ic",
            selectable=True,
            outline=spread.outline(found, L),
        )
    spread.note(found, L)
    return None if click is None else (L, *click)


@st.fragment  # a click on a cell, or the inspector's selectors, rerun this part only
def projection_steps(steps, titles):
    """The steps Q = XW_Q, K = XW_K, V = XW_V under ``titles`` ({"Q": title, ...}: those given
    are drawn, in projector mode one), then the projection inspector, on the cell of Q, K or V
    just clicked. ``steps()`` gives (result, labels, found: an edit's Spread or None)."""
    result, labels, found = steps()
    clicks = [
        projection_step(result, labels, titles[L], L, *PROJECTIONS[L], found)
        for L in PROJECTIONS
        if L in titles
    ]
    projection_inspector(result, labels, next((c for c in clicks if c is not None), None))


def score_range(result):
    """The colour range S and S' share: the largest |S_ij|. On it, dividing by √d_k shows
    as paler colours, not only as smaller numbers."""
    return float(np.max(np.abs(result.scores))) or 1.0


def scores_matrix(result, labels, found=None, share=1.0):
    """S = QK^T (n, n), clickable (cells an edit changed outlined, with ``found`` its Spread),
    in ``share`` of the page's width: returns the (i, j) just clicked, else None."""
    click = show_matrix(
        result.scores,
        labels,
        labels,
        key="S",
        title="S = QKᵀ",
        family="S",
        value_name="S_ij",
        selectable=True,
        value_range=score_range(result),
        outline=spread.outline(found, "scores"),
        share=share,
    )
    spread.note(found, "scores")
    return click


def scaled_latex(result):
    """S''s formula in LaTeX as the result computed it: the division only when scaling is on."""
    if result.scale:
        return r"S' = \frac{QK^T}{\sqrt{d_k}}"
    return r"S' = S = QK^T \quad (\text{scaling off})"


def scaled_scores_matrix(result, labels, found=None, share=1.0):
    """S' = S / sqrt(d_k) (n, n) on S's colour range, masked keys grey; clickable: returns the
    (i, j) just clicked, else None. ``found``: an edit's Spread, or None; ``share`` of the
    page's width."""
    title = (
        "S' = S / √d_k (on the colour range of S)"
        if result.scale
        else "S' = S (scaling off; on the colour range of S)"
    )
    return spread.step_matrix(
        found, "scaled_scores", result.scaled_scores, labels, labels, key="S_scaled",
        delta_title="S'", mask=result.mask, title=title, family="S", value_name="S'_ij",
        value_range=score_range(result), share=share,
    )  # fmt: skip


def attention_latex(result):
    """A's formula in LaTeX as the softmax sees it: the mask's M and the temperature's T appear
    when they are on, A = softmax(S' / T + M)."""
    inside = r"\frac{QK^T}{\sqrt{d_k}}" if result.scale else "QK^T"
    if result.temperature != 1:
        inside = rf"{inside} \Big/ {result.temperature:g}"
    if result.mask is not None:
        inside += " + M"
    return rf"A = \mathrm{{softmax}}\left({inside}\right), \quad \sum_{{j=1}}^{{n}} A_{{ij}} = 1"


def softmax_notes(settings):
    """The sentences on what changes the softmax's input: the causal mask, a temperature."""
    notes = []
    if settings.mask == "causal":
        notes.append("The causal mask sets the logits of later keys (above the diagonal) to −∞.")
    if settings.temperature != 1:
        notes.append(f"The softmax sees S' / T with T = {settings.temperature:g}.")
    return notes


def softmax_matrices(result, labels, notes, found=None, share=1.0):
    """A (n, n) as a heatmap (clickable) or as token lines, under the logits (folded away,
    drawn only when ``notes`` say the softmax sees more than S'), then A's row sums. Returns
    the (i, j) of A just clicked in the heatmap. ``found``: an edit's Spread (the cells of A
    it changed outlined in the heatmap), or None; ``share`` of the page's width."""
    r = result
    if notes:
        with st.expander("The logits that fed the softmax (S' / T, −∞ where masked)"):
            show_matrix(r.logits, labels, labels, key="logits", title="logits", family="S")
    click = spread.step_matrix(
        found, "attention", r.attention, labels, labels, key="A", delta_title="A",
        mask=r.mask, draw=show_attention, title=attention_formula(r), family="A",
        value_name="A_ij", kind="probability", share=share,
    )  # fmt: skip
    sums = r.row_sums
    st.markdown(
        f"**Row sums:** {', '.join(f'{v:.3f}' for v in sums[:SHOWN_ROW_SUMS])}"
        f"{' …' if r.n > SHOWN_ROW_SUMS else ''} "
        f"(smallest {sums.min():.6f}, largest {sums.max():.6f})"
    )
    return click


def output_matrix(result, labels, found=None):
    """Output = AV (n, d_v), clickable: returns the (i, c) just clicked, else None.
    ``found``: an edit's Spread, or None."""
    return spread.step_matrix(
        found, "output", result.output, labels, dims(result.d_v), key="output",
        delta_title="Output", title="Output = AV", family="O", value_name="Output_ic",
    )  # fmt: skip


def draw_header(header):
    """A step's header as ``score_steps`` takes it: ``step_header``'s arguments (a tuple), a
    subheader's text, or None for none."""
    if isinstance(header, tuple):
        step_header(*header)
    elif header:
        st.subheader(header)


@st.fragment  # a click on a cell, or the inspector's selectors, rerun this part only
def score_steps(steps, headers, notes=()):
    """S, S' and A, each under its header, then the cell inspector on the cell just clicked.

    ``headers`` {"S": header, "S_scaled": header, "A": header} for each step to show (in
    projector mode one), each as ``draw_header`` takes it (text, never a function: a function
    would keep the page script's variables); ``notes`` the sentences on what the softmax sees
    (``softmax_notes``); ``steps()`` gives (result, labels, found: an edit's Spread or None).
    """
    result, labels, found = steps()
    clicks = []
    # on a projector, several steps in one are side by side, their headers after them: the
    # step's point (S' and A) on the first screen with S
    row = is_present() and len(headers) > 1
    places = iter(st.columns(len(headers)) if row else ())
    share = 1 / len(headers) if row else 1.0
    for key, chart in (
        ("S", lambda: scores_matrix(result, labels, found, share)),
        ("S_scaled", lambda: scaled_scores_matrix(result, labels, found, share)),
        ("A", lambda: softmax_matrices(result, labels, notes, found, share)),
    ):
        if key not in headers:
            continue
        if row:
            with after_chart(f"header_{key}"):
                draw_header(headers[key])
            with next(places):
                clicks.append(chart())
        else:
            draw_header(headers[key])
            clicks.append(chart())
    cell_inspector(result, labels, next((c for c in clicks if c is not None), None))


@st.fragment  # a click on a cell, or the inspector's selectors, rerun this part only
def output_step(steps):
    """Output = AV, then the output inspector on the cell just clicked (``steps`` as above)."""
    result, labels, found = steps()
    output_inspector(result, labels, output_matrix(result, labels, found))


def dimension_table(result):
    """The seed's dimension table with the live sizes, as a Markdown table (6 rows): static, as
    the summary under it, without a DataFrame and its Arrow conversion on every rerun (about
    1 ms of the server's time against 0.1 ms, and 2 KB sent against 0.4)."""
    rows = [
        ("Input", "X", "n × d_model", result.X.shape),
        ("Query", "Q", "n × d_k", result.Q.shape),
        ("Key", "K", "n × d_k", result.K.shape),
        ("Value", "V", "n × d_v", result.V.shape),
        ("Attention matrix", "A", "n × n", result.attention.shape),
        ("Output", "Output", "n × d_v", result.output.shape),
    ]
    lines = ["| | matrix | shape | here |", "| --- | --- | --- | --- |"]
    lines += [f"| {what} | {sym} | {shape} | {a} × {b} |" for what, sym, shape, (a, b) in rows]
    return "\n".join(lines)
