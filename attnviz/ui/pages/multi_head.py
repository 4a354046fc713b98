"""The Multi-head page: its controls (how many heads, a hand-built head) and its views
(the grid of heads, what each head does, one head opened step by step).
"""

import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from attnviz.charts.head_grid import head_grid
from attnviz.errors import AttentionInputError
from attnviz.lessons.hand_built_heads import PRESETS, multi_head_weights, replace_head
from attnviz.lessons.head_rules import RULES, disagreement, rule_counts
from attnviz.limits import MAX_D_K, MAX_D_V, MAX_EDIT_CELLS, MAX_GRID_CELLS, MAX_PAGE_HEADS
from attnviz.multihead import multi_head_attention
from attnviz.ui.attention_view import show_attention
from attnviz.ui.inspectors import cell_inspector
from attnviz.ui.matrix import dims, projected, show_matrix
from attnviz.ui.text import md_escape

SEEDED = "seeded"
CHOICES = (SEEDED, *PRESETS)  # what head k's W_Q, W_K start from


def choice_text(choice):
    return "seeded at random" if choice == SEEDED else f"preset: {PRESETS[choice][1]}"


@dataclass(frozen=True)
class HeadConfig:
    """h heads of widths d_k, d_v, and the four weight matrices of multi_head_weights."""

    n_heads: int
    d_k: int
    d_v: int
    split: bool
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    W_O: np.ndarray


def head_config(settings):
    """Draw h, the split toggle and the free widths; return a HeadConfig or stop with a message."""
    d_model = settings.d_model
    c1, c2, c3, c4 = st.columns([2, 3, 2, 2])
    h = c1.number_input(
        "Heads h",
        1,
        MAX_PAGE_HEADS,
        value=2,
        step=1,
        key="mh_heads",
        help=f"1 to {MAX_PAGE_HEADS}.",
    )
    split = c2.toggle(
        "d_k = d_v = d_model / h",
        value=True,
        key="mh_split",
        help="As in the Transformer: the heads together are as wide as one full head. "
        "Switch off to choose each head's widths freely.",
    )
    if split:
        if d_model % h:
            divisors = [k for k in range(1, MAX_PAGE_HEADS + 1) if d_model % k == 0]
            st.error(
                f"h = {h} does not divide d_model = {d_model}, so d_model / h is not a whole "
                f"number: choose h from {', '.join(map(str, divisors))}, change d_model in the "
                "sidebar, or switch the even split off to choose d_k and d_v freely.",
                icon="🚫",
            )
            st.stop()
        d_k = d_v = d_model // h
        c3.metric("d_k per head", d_k)
        c4.metric("d_v per head", d_v)
    else:
        d_k = c3.number_input("d_k per head", 1, MAX_D_K, value=settings.d_k, step=1, key="mh_d_k")
        d_v = c4.number_input("d_v per head", 1, MAX_D_V, value=settings.d_v, step=1, key="mh_d_v")
    try:
        weights = multi_head_weights(d_model, h, settings.seed, d_k=d_k, d_v=d_v)
    except AttentionInputError as exc:
        st.error(f"{exc}", icon="🚫")
        st.stop()
    return HeadConfig(h, d_k, d_v, split, *weights)


@dataclass(frozen=True)
class BuiltHead:
    """The weights with head ``head`` built: from ``choice`` (seeded or a preset), then edits.

    ``used`` is the choice that took effect (a preset that failed leaves SEEDED); ``changed``
    counts the weights the user's table edits changed in (W_Q, W_K).
    """

    head: int
    choice: str
    used: str
    editing: bool
    changed: tuple[int, int]
    W_Q: np.ndarray
    W_K: np.ndarray


def _index_state(key, n_options):
    if st.session_state.get(key, 0) >= n_options:
        st.session_state[key] = 0


def _preset(example, cfg, choice):
    """(W_Q block, W_K block) of the preset, or None after showing why it cannot be built."""
    try:
        return PRESETS[choice][0](example.E, example.P, cfg.d_k)
    except AttentionInputError as exc:
        hint = ""
        if example.P is None:
            hint = " In the sidebar, switch on **Add positional encoding**."
        elif cfg.d_k < 2 and cfg.split:
            hint = " On this page, use fewer heads (each then gets a wider d_k)."
        st.error(f"The preset cannot be built here: {exc}.{hint}", icon="🚫")
        return None


def _editor(name, block, head, signature):
    """A data_editor over ``block`` (d_model, d_k); the edited block, or None if it is invalid."""
    version = st.session_state.get("mh_edit_version", 0)
    table = pd.DataFrame(
        block,
        index=pd.Index(dims(block.shape[0]), name="input dim"),
        columns=dims(block.shape[1], "c"),
    )
    st.markdown(f"**{name}** of head {head} (rows: input dimensions, columns: head dimensions c)")
    edited = st.data_editor(
        table,
        key=f"mh_edit_{name}_{signature}_{version}",
        num_rows="fixed",
        column_config={c: st.column_config.NumberColumn(format="%.3f") for c in table.columns},
        height=min(38 + 35 * block.shape[0], 400),
    )
    try:
        return read_weight_table(edited, block.shape, f"{name} of head {head}")
    except AttentionInputError as exc:
        st.error(f"{exc}. Until it is fixed, head {head} uses {name} as it was.", icon="✏️")
        return None


def _reset_edits():
    st.session_state["mh_edit_version"] = st.session_state.get("mh_edit_version", 0) + 1


def hand_build(example, cfg):
    """Draw the head builder; return a BuiltHead (the full W_Q, W_K with one head replaced)."""
    _index_state("mh_build_head", cfg.n_heads)
    head = st.selectbox(
        "Head to build",
        range(cfg.n_heads),
        format_func=lambda k: f"head {k}",
        key="mh_build_head",
    )
    choice = st.radio(
        "Its W_Q and W_K",
        CHOICES,
        format_func=choice_text,
        key="mh_build",
        help="A preset reads each token's position out of X and asks for the position it "
        "wants: it needs positional encoding on and no more tokens than d_model.",
    )
    width = slice(head * cfg.d_k, (head + 1) * cfg.d_k)
    W_Q_h, W_K_h = cfg.W_Q[:, width], cfg.W_K[:, width]
    used = SEEDED
    if choice != SEEDED:
        built = _preset(example, cfg, choice)
        if built is not None:
            (W_Q_h, W_K_h), used = built, choice
    editing = st.toggle("Edit this head's W_Q and W_K by hand", key="mh_edit")
    changed = (0, 0)
    if editing:
        d_model = cfg.W_Q.shape[0]
        if d_model * cfg.d_k > MAX_EDIT_CELLS:
            st.warning(
                f"W_Q and W_K of one head have d_model × d_k = {d_model} × {cfg.d_k} weights "
                f"each, too many to edit by hand (at most {MAX_EDIT_CELLS}): lower d_model or "
                "use more heads.",
                icon="✋",
            )
        else:
            s = example.settings
            signature = zlib.crc32(
                repr((s.tokens, s.generated, s.d_model, s.seed, s.embedding, s.positions)).encode()
            )
            signature = f"{head}_{used}_{cfg.n_heads}x{cfg.d_k}_{signature:08x}"
            new_Q = _editor("W_Q", W_Q_h, head, signature)
            new_K = _editor("W_K", W_K_h, head, signature)
            changed = tuple(
                0 if new is None else int(np.sum(new != old))
                for new, old in ((new_Q, W_Q_h), (new_K, W_K_h))
            )
            W_Q_h = W_Q_h if new_Q is None else new_Q
            W_K_h = W_K_h if new_K is None else new_K
            st.button("Reset the tables", key="mh_edit_reset", on_click=_reset_edits)
    return BuiltHead(
        head=head,
        choice=choice,
        used=used,
        editing=editing,
        changed=changed,
        W_Q=replace_head(cfg.W_Q, cfg.n_heads, head, W_Q_h),
        W_K=replace_head(cfg.W_K, cfg.n_heads, head, W_K_h),
    )


def run_heads(example, cfg, built):
    """multi_head_attention of the example's X with the built weights (the seeded ones, with a
    message, if the built weights make the scores overflow)."""
    r, s = example.result, example.settings

    def run(W_Q, W_K):
        return multi_head_attention(
            r.X,
            W_Q,
            W_K,
            cfg.W_V,
            cfg.W_O,
            n_heads=cfg.n_heads,
            mask=r.mask,
            scale=s.scale,
            temperature=s.temperature,
        )

    try:
        with np.errstate(over="ignore", invalid="ignore"):  # the core reports overflow itself
            return run(built.W_Q, built.W_K)
    except AttentionInputError as exc:
        st.error(
            f"Head {built.head} cannot be computed: {exc}. It is shown with its seeded "
            "weights instead.",
            icon="🚫",
        )
        return run(cfg.W_Q, cfg.W_K)


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
    fig = head_grid(mh.attention[:fit], labels, labels, titles=titles[:fit])
    st.plotly_chart(projected(fig), key="mh_grid", config=CHART_CONFIG)


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
    lines.append(
        f"Where head {built.head}'s rows put their largest weight: {_counts_text(counts)}."
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
    st.markdown(
        "Each row of one head's A is **one** softmax: a single weighted average of the values. "
        "If a token needs information from two places at once (the word before it *and* the "
        "subject at the start), one head must split its weight between them and blurs both. "
        "Each head has its own W_Q and W_K, so it attends by its **own rule**; the "
        "concatenation keeps every head's average side by side, and W_O mixes them into one "
        "output row of width d_model."
    )
    A = mh.attention  # (h, n, n)
    if mh.n_heads == 1:
        st.markdown("With **h = 1** there is one rule only: raise h above to compare heads.")
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
            st.markdown(
                f"Here, for query **{md_escape(labels[row])}** (row {row}), {picks}: "
                f"{n_distinct[row]} different tokens. Over all {len(labels)} rows, "
                f"the heads pick different top keys in **{differ} rows**."
            )
        else:
            st.markdown(
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
    st.dataframe(table, width="content")


def open_head(mh, labels):
    """One head step by step: its Q, K, scores, A and output, with the cell inspector."""
    st.header("Open one head, step by step")
    if st.session_state.get("mh_open", 0) >= mh.n_heads:
        st.session_state["mh_open"] = 0
    k = st.selectbox(
        "Head to open", range(mh.n_heads), format_func=lambda k: f"head {k}", key="mh_open"
    )
    r = mh.heads[k]
    st.markdown(
        f"Head {k} is ordinary single-head attention on its own slice of the weights: "
        f"W_Q and W_K columns {k * r.d_k} to {(k + 1) * r.d_k - 1}, "
        f"W_V columns {k * r.d_v} to {(k + 1) * r.d_v - 1}."
    )
    left, right = st.columns(2)
    with left:
        show_matrix(
            r.Q,
            labels,
            dims(r.d_k),
            key="mh_head_Q",
            share=0.5,
            family="Q",
            title=f"Q of head {k}",
        )
    with right:
        show_matrix(
            r.K,
            labels,
            dims(r.d_k),
            key="mh_head_K",
            share=0.5,
            family="K",
            title=f"K of head {k}",
        )
    left, right = st.columns(2)
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


def read_weight_table(values, shape, name):
    """A hand-edited weight table as a finite float array of ``shape``, or a clear error.

    ``values`` is anything 2-D: a DataFrame from ``st.data_editor``, nested lists, an array. Cells
    may hold numbers or number text ("0.5"); an empty cell (None, NaN), text that is not a number
    or an infinity raises AttentionInputError naming the first bad cell, as does a table whose
    shape is not ``shape`` (rows added or deleted).
    """
    arr = np.asarray(values, dtype=object)
    if arr.ndim != 2 or arr.shape != tuple(shape):
        raise AttentionInputError(
            f"{name} must have shape {tuple(shape)}, one row per input dimension and one column "
            f"per head dimension (got {arr.shape}): give it {shape[0]} rows of {shape[1]} "
            "numbers, or reset the table"
        )
    out = np.empty(arr.shape)
    for (r, c), cell in np.ndenumerate(arr):
        empty = cell is None or (isinstance(cell, str) and not cell.strip())
        try:
            if empty or isinstance(cell, (bool, np.bool_)):
                raise TypeError
            number = float(cell.strip()) if isinstance(cell, str) else float(cell)
        except (TypeError, ValueError):
            number = None
        if number is not None and np.isnan(number) and not isinstance(cell, str):
            empty = True  # a cleared cell of a number column arrives as NaN
        if empty:
            raise AttentionInputError(
                f"{name} has an empty cell at row {r}, column {c}: every weight must be a "
                "number; type one there (0 if unsure)"
            )
        if number is None or not np.isfinite(number):
            raise AttentionInputError(
                f"{name} has {cell!r} at row {r}, column {c}, which is not a finite number: "
                "type a number such as 0.5 or -1.2"
            )
        out[r, c] = number
    return out
