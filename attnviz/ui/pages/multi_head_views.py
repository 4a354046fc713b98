"""The Multi-head page's views: the grid of heads, what each head does, one head opened step
by step (with the cell inspector), and Concat and W_O. The controls that build the heads are
``attnviz.ui.pages.multi_head``.
"""

import numpy as np
import pandas as pd
import streamlit as st

from attnviz.charts.head_grid import head_grid
from attnviz.lessons.head_rules import RULES, disagreement, rule_counts, tied_rows
from attnviz.limits import MAX_GRID_CELLS
from attnviz.serve.finish import kept_chart
from attnviz.ui.attention_view import show_attention
from attnviz.ui.charts import dims, display, draw, show_matrix
from attnviz.ui.inspectors import cell_inspector
from attnviz.ui.pages.multi_head import SEEDED
from attnviz.ui.projector import data_table
from attnviz.ui.sidebar import is_present
from attnviz.ui.stepper import after_chart
from attnviz.ui.text import md_escape

CHART_CONFIG = {"displaylogo": False}


def head_titles(n_heads, built):
    """A title per head; the hand-built one says how it was built."""
    titles = [f"head {k}" for k in range(n_heads)]
    how = []
    if built.used != SEEDED:
        how.append(PRESET_SHORT[built.used])
    if any(built.changed):
        how.append("edited")
    if how:
        titles[built.head] += f" · {', '.join(how)}"
    return titles


PRESET_SHORT = {"previous": "previous token", "same": "same token", "first": "first token"}


def grid(mh, labels, titles):
    """Every head's attention matrix in one figure (as many as MAX_GRID_CELLS allows)."""
    n = len(labels)
    fit = max(1, min(mh.n_heads, MAX_GRID_CELLS // (n * n)))
    if fit < mh.n_heads:
        st.info(
            f"The grid shows heads 0 to {fit - 1} of {mh.n_heads}: with n = {n} each head's "
            f"matrix has {n * n:,} cells, and the grid draws at most {MAX_GRID_CELLS:,}. "
            "Open any head in the step-by-step view below.",
            icon="ℹ️",
        )
    draw(
        kept_chart(
            _grid_figure,
            (tuple(labels), tuple(titles[:fit])),
            *display(),
            title="Every head",
            inputs=(mh.attention[:fit],),
        ),
        "mh_grid",
        config=CHART_CONFIG,
    )


def _grid_figure(labels, titles, attention):
    return head_grid(attention, labels, labels, titles=titles)


def _counts_text(counts):
    parts = [
        f"on {RULES[rule]} in {c.hits} of {c.rows} rows" for rule, c in counts.items() if c.rows
    ]
    return "; ".join(parts)


def built_head_notice(built, A, labels):
    """Say what to notice in the built head's attention matrix A (n, n), with its counts."""
    counts = rule_counts(A)
    if built.used != SEEDED and not any(built.changed):
        c = counts[built.used]
        if c.rows == 0:
            st.info("With one token there is no previous token: add tokens to see the pattern.")
            return
        note = ""
        if built.used == "previous":
            top = int(A[0].argmax())
            note = (
                f" (row 0 has no previous token: it attends to the key whose position looks "
                f"most like −1, here {md_escape(labels[top])}, column {top})"
            )
        say = st.success if c.all else st.warning
        say(
            f"Each row's largest weight is now on {RULES[built.used]}: **{c.hits} of {c.rows} "
            f"rows**{note}. For this sentence, W_Q and W_K were solved (a least-squares fit "
            "to these rows of X) so that every query asks for a position: change the sentence "
            "and these weights no longer fit. A trained head can follow such a rule for any "
            "sentence, because in a wide d_model the tokens and the positions live in nearly "
            "separate directions.",
            icon="🎯",
        )
        return
    lines = []
    if any(built.changed):
        lines.append(
            f"Your edits changed {built.changed[0]} weights of W_Q and {built.changed[1]} of W_K."
        )
    held = [rule for rule, c in counts.items() if c.all]
    tied = tied_rows(A)
    lines.append(
        f"Where head {built.head}'s rows put their largest weight: {_counts_text(counts)}"
        + (
            f" ({tied} of the {len(A)} rows share their largest weight between keys; such a row "
            "counts for the earliest of them)."
            if tied
            else "."
        )
    )
    if held:
        lines.append(f"Its rule: every row attends most to {RULES[held[0]]}.")
    elif built.used == SEEDED and not any(built.changed):
        lines.append(
            "A random head follows no rule for every row: choose a preset above to give it one."
        )
    st.info(" ".join(lines), icon="🔍")


def _which(key, row):
    """How key j relates to query row i, for the text: " (itself)", " (the previous token)"."""
    if key == row:
        return " (itself)"
    if key == row - 1:
        return " (the previous token)"
    return " (the first token)" if key == 0 else ""


def why_heads(mh, labels):
    """Why several heads help, in words with the current numbers, and a table per head."""
    st.header("Why several heads help")
    words = after_chart("why_heads")  # on a projector after the table
    words.markdown(
        "Each row of one head's A is **one** softmax: a single weighted average of the values. "
        "If a token needs information from two places at once (the word before it *and* the "
        "subject at the start), one head must split its weight between them and blurs both. "
        "Each head has its own W_Q and W_K, so it attends by its **own rule**; the "
        "concatenation keeps every head's average side by side, and W_O mixes them into one "
        "output row of width d_model."
    )
    A = mh.attention  # (h, n, n)
    if mh.n_heads == 1:
        words.markdown("With **h = 1** there is one rule only: raise h above to compare heads.")
    else:
        tops, n_distinct, row = disagreement(A)
        picks = ", ".join(
            f"head {k} puts its largest weight ({A[k, row, tops[k, row]]:.2f}) on "
            f"**{md_escape(labels[tops[k, row]])}**{_which(tops[k, row], row)}"
            for k in range(mh.n_heads)
            if tops[k, row] >= 0
        )
        differ = int(np.sum(n_distinct > 1))
        if differ:
            words.markdown(
                f"Here, for query **{md_escape(labels[row])}** (row {row}), {picks}: "
                f"{n_distinct[row]} different tokens. Over all {len(labels)} rows, "
                f"the heads pick different top keys in **{differ} rows**."
            )
        else:
            words.markdown(
                "Here every head puts each row's largest weight on the same key: these heads "
                "repeat one rule. Build one by hand above to give it another."
            )
    table = pd.DataFrame(
        {
            **{
                f"largest weight on {RULES[rule]}": [
                    f"{c.hits} of {c.rows}" for c in (rule_counts(a)[rule] for a in A)
                ]
                for rule in RULES
            },
            "mean largest weight": [f"{a.max(axis=1).mean():.2f}" for a in A],
        },
        index=pd.Index([f"head {k}" for k in range(mh.n_heads)], name="head"),
    )
    data_table(table, width="content")


def open_head(mh, labels):
    """One head step by step: its Q, K, scores, A and output, with the cell inspector."""
    st.header("Open one head, step by step")
    if st.session_state.get("mh_open", 0) >= mh.n_heads:
        st.session_state["mh_open"] = 0
    about = after_chart("open_head")  # on a projector the picker and the words after Q and K
    k = about.selectbox(
        "Head to open", range(mh.n_heads), format_func=lambda k: f"head {k}", key="mh_open"
    )
    r = mh.heads[k]
    about.markdown(
        f"Head {k} is ordinary single-head attention on its own slice of the weights: "
        f"W_Q and W_K columns {k * r.d_k} to {(k + 1) * r.d_k - 1}, "
        f"W_V columns {k * r.d_v} to {(k + 1) * r.d_v - 1}."
    )
    # on a projector S and A (the step's point) come first, Q and K after them
    first, second = st.container(), st.container()
    qk_row, sa_row = (second, first) if is_present() else (first, second)
    for place, L, M in zip(qk_row.columns(2), "QK", (r.Q, r.K), strict=True):
        with place:
            show_matrix(
                M,
                labels,
                dims(r.d_k),
                key=f"mh_head_{L}",
                share=0.5,
                family=L,
                title=f"{L} of head {k}",
            )
    left, right = sa_row.columns(2)
    with left:
        click_S = show_matrix(
            r.scores,
            labels,
            labels,
            key="mh_head_S",
            share=0.5,
            family="S",
            title=f"S = QKᵀ of head {k}",
            value_name="S_ij",
            selectable=True,
        )
    with right:
        click_A = show_attention(
            r.attention,
            labels,
            labels,
            key="mh_head_A",
            share=0.5,
            mask=r.mask,
            family="A",
            title=f"A of head {k}",
            value_name="A_ij",
            kind="probability",
            selectable=True,
        )
    cell_inspector(r, labels, click_S or click_A)
    show_matrix(
        r.output,
        labels,
        dims(r.d_v),
        key="mh_head_out",
        family="O",
        title=f"head {k} = AV",
    )


def concat_and_project(mh, labels):
    """The last step: Concat(head_0 .. head_{h-1}) (n, h d_v), W_O (h d_v, d_model), and their
    product MultiHead(X) (n, d_model), each as a heatmap."""
    n, d_model = mh.output.shape
    h, d_v = mh.n_heads, mh.heads[0].d_v
    st.header("Concatenate, then project with W_O")
    st.latex(
        rf"\mathrm{{Concat}} \in \mathbb{{R}}^{{{n} \times {h * d_v}}}, \quad "
        rf"W_O \in \mathbb{{R}}^{{{h * d_v} \times {d_model}}}, \quad "
        rf"\mathrm{{Concat}}\, W_O \in \mathbb{{R}}^{{{n} \times {d_model}}}"
    )
    concat_cols = [f"h{k}:{c}" for k in range(h) for c in range(d_v)]
    show_matrix(
        mh.concat,
        labels,
        concat_cols,
        key="mh_concat",
        family="O",
        title="Concat(head 0, …, head h−1)",
        col_title="head:value dimension",
    )
    left, right = st.columns([2, 3])
    with left:
        show_matrix(
            mh.W_O,
            concat_cols,
            dims(d_model),
            key="mh_W_O",
            share=0.4,
            family="W",
            title="W_O",
            row_title="head:value dimension",
            col_title="output dimension",
        )
    with right:
        show_matrix(
            mh.output,
            labels,
            dims(d_model),
            key="mh_output",
            share=0.6,
            family="O",
            title="MultiHead(X) = Concat · W_O",
            value_name="output_ic",
            col_title="output dimension",
        )
