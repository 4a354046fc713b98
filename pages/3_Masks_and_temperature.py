"""Masks and temperature: −∞ logits before the softmax, renormalised rows, T → 0 and T → ∞."""

import numpy as np
import streamlit as st

from attnviz.charts.lessons import temperature_chart
from attnviz.lessons import (
    DEFAULT_TEMPERATURES,
    MASK_MODES,
    TIE_TOLERANCE,
    build_mask,
    reattend,
    row_entropy,
    temperature_sweep,
)
from attnviz.ui import dims, page_setup, show_matrix
from attnviz.ui.lessons import follow, notice, show_chart
from attnviz.ui.views import md_escape

MODE_NAMES = {
    "none": "none (bidirectional, BERT)",
    "causal": "causal (GPT)",
    "padding": "padding",
    "custom": "custom",
}
CELLS = "attnviz.lesson.custom_cells"  # (token labels, frozenset of toggled (query, key) cells)
MODE, PADDING, T_KEY = "attnviz_lesson_mask", "attnviz_lesson_padding", "attnviz_lesson_T"
PICK_I, PICK_J = "attnviz_lesson_cell_i", "attnviz_lesson_cell_j"
# The temperature slider: 41 steps from 0.01 to 100, evenly spaced on a log scale.
T_STEPS = tuple(float(f"{t:.3g}") for t in DEFAULT_TEMPERATURES)

example = page_setup("Masks and temperature")
s, r, labels = example.settings, example.result, example.labels
n = r.n
md = [md_escape(label) for label in labels]

st.title("Masks and temperature")
st.markdown(
    "Both act on the logits, just before the softmax. A **mask** sets the logit of every key "
    "a query may not see to −∞, so e^−∞ = 0 and that key gets no weight; the softmax "
    "shares the row among the keys left. A **temperature** T divides the logits: small T "
    "sharpens every row, large T flattens it."
)
st.latex(
    r"A = \mathrm{softmax}\left(\frac{S'}{T} + M\right), \qquad M_{ij} = "
    r"\begin{cases} 0 & \text{query } i \text{ may see key } j \\ -\infty & \text{otherwise} "
    r"\end{cases}"
)


def custom_cells():
    """The toggled cells of the custom mask, forgotten when the tokens change."""
    kept = st.session_state.get(CELLS)
    if kept is None or kept[0] != tuple(labels):
        kept = (tuple(labels), frozenset())
        st.session_state[CELLS] = kept
    return kept[1]


def toggle(cell):
    st.session_state[CELLS] = (tuple(labels), custom_cells() ^ {cell})


def toggle_picked():
    toggle((st.session_state[PICK_I], st.session_state[PICK_J]))


def clear_cells():
    st.session_state[CELLS] = (tuple(labels), frozenset())


# 1. Masks ---------------------------------------------------------------------------------------
st.header("1. Masks: which keys a query may see")
follow(MODE, s.mask)
mode = st.radio(
    "Mask mode (this page's own; it starts at the sidebar's mask)",
    MASK_MODES,
    format_func=MODE_NAMES.get,
    horizontal=True,
    key=MODE,
)
n_padding, cells = 0, ()
if mode == "none":
    st.markdown(
        "**No mask: bidirectional attention, as in BERT.** Every query sees every key, before "
        "and after it. An encoder reads the whole sentence at once, so each token may use its "
        "left and right context."
    )
elif mode == "causal":
    st.markdown(
        "**Causal mask, as in GPT.** Query i may see keys 0 … i only: everything above the "
        "diagonal is −∞. A decoder is trained to predict the next token, so a token must not "
        "see the tokens after it; the mask also lets one pass train every position at once."
    )
elif mode == "padding":
    if st.session_state.get(PADDING, 0) > n:
        st.session_state[PADDING] = n
    n_padding = st.number_input(
        "Padding tokens k at the end", 0, n, value=min(1, n), step=1, key=PADDING
    )
    st.markdown(
        f"**Padding mask.** Sentences of different lengths are padded to one length so they "
        f"fit in one batch; here the last {n_padding} token(s) play the padding. No query may "
        "attend to a padding key, so the real tokens ignore them (the padding rows still "
        "compute something; a model ignores their outputs)."
    )
else:
    cells = tuple(sorted(custom_cells()))
    st.markdown(
        "**Custom mask.** Click a cell of the mask (or pick it below) to block or allow that "
        "key for that query. Block a whole row to see what a query with no key gets."
    )
    c1, c2, c3, c4 = st.columns([3, 3, 2, 2], vertical_alignment="bottom")
    c1.selectbox("Query i (row)", range(n), format_func=labels.__getitem__, key=PICK_I)
    c2.selectbox("Key j (column)", range(n), format_func=labels.__getitem__, key=PICK_J)
    c3.button("Toggle cell", on_click=toggle_picked, key="attnviz_lesson_toggle")
    c4.button("Allow all", on_click=clear_cells, key="attnviz_lesson_clear")

mask = None if mode == "none" else build_mask(mode, n, n_padding=int(n_padding), cells=cells)
allowed = np.full(n, n) if mask is None else mask.sum(axis=1)  # (n,) keys each query may see
masked = reattend(r, mask=mask)
plain = reattend(r, mask=None)  # the same logits, nothing masked

left, right = st.columns(2)
with left:
    shown = np.ones((n, n)) if mask is None else mask.astype(float)
    click = show_matrix(
        shown,
        labels,
        labels,
        key="mask_cells",
        title="mask: 1 = may attend, 0 = blocked",
        value_name="allowed",
        kind="probability",
        selectable=mode == "custom",
    )
    if click is not None:
        toggle(click)
        st.rerun()
with right:
    show_matrix(
        masked.logits,
        labels,
        labels,
        key="masked_logits",
        title="logits before the softmax (−∞ where blocked)",
        value_name="logit_ij",
    )
left, right = st.columns(2)
with left:
    show_matrix(
        masked.attention,
        labels,
        labels,
        key="masked_A",
        title="A after the softmax: each row renormalised",
        value_name="A_ij",
        kind="probability",
    )
with right:
    show_matrix(
        masked.output,
        labels,
        dims(r.d_v),
        key="masked_output",
        title="Output = AV",
        value_name="Output_ic",
        col_title="value dimension c",
    )

# What to notice: the renormalisation, row by row, and the rows with no key at all.
partial = np.flatnonzero((allowed > 0) & (allowed < n))
empty = np.flatnonzero(allowed == 0)
if partial.size:
    wide = partial[allowed[partial] >= 2]  # a row that keeps 2 keys or more shows the sharing
    pool = wide if wide.size else partial
    i = int(pool[np.argmin(allowed[pool])])  # of those, the row the mask cut most
    keep = mask[i]
    before = plain.attention[i, keep]
    share = float(before.sum())
    after = masked.attention[i, keep]
    shown_keys = np.flatnonzero(keep)[:6]
    more = " …" if keep.sum() > 6 else ""
    before_txt = " + ".join(f"{plain.attention[i, j]:.3f}" for j in shown_keys) + more
    after_txt = ", ".join(f"{masked.attention[i, j]:.3f}" for j in shown_keys) + more
    expect = np.where(mask, plain.attention, 0)
    expect = np.divide(
        expect,
        expect.sum(axis=1, keepdims=True),
        out=np.zeros_like(expect),
        where=expect.sum(axis=1, keepdims=True) > 0,
    )
    err = float(np.abs(expect - masked.attention).max())
    notice(
        f"Row **{md[i]}** may see {int(allowed[i])} of {n} keys. Without the mask those keys "
        f"held {before_txt} = **{share:.3f}** of its weight. The −∞ logits give the others "
        f"e^−∞ = 0, and the softmax divides what is left by {share:.3f}: {after_txt}, which "
        f"sum to {after.sum():.6f}. Every partly masked row is the unmasked row cut to its "
        f"allowed keys and rescaled to sum 1 (largest difference from that: {err:.1e})."
    )
elif mode != "none" and not empty.size:
    notice("This mask blocks no key: A is the unmasked attention.")
if mode == "causal" and n > 1:
    notice(
        f"With the causal mask the first token, **{md[0]}**, may attend only to itself: its "
        f"row is [1, 0, …, 0]. The last, **{md[-1]}**, sees all {n} tokens, as it would "
        "without a mask. In BERT every row sees all of them."
    )
if empty.size:
    names = ", ".join(f"**{md[i]}**" for i in empty[:8]) + (" …" if empty.size > 8 else "")
    notice(
        f"{'Row' if empty.size == 1 else 'Rows'} {names} may attend to no key. All its logits "
        "are −∞, and a plain softmax would compute 0 / 0 = NaN. attnviz gives the whole row "
        f"weight 0 (row sum {masked.row_sums[empty].max():.0f}, not 1), so its output row is "
        f"zero too: largest |output| in {'it' if empty.size == 1 else 'them'} = "
        f"{np.abs(masked.output[empty]).max():.0f}."
    )
elif mode == "custom":
    st.caption(
        "Block every key of one row (toggle its cells) to see what a query with no key gets."
    )

# 2. Temperature --------------------------------------------------------------------------------
st.header("2. Temperature: how sharp each row is")
st.markdown(
    "The softmax sees S' / T. Below 1, T stretches the gaps between the logits and the rows "
    "sharpen; as **T → 0** every row goes one-hot at its largest allowed logit (the argmax). "
    "Above 1 it shrinks the gaps; as **T → ∞** every row goes uniform over its allowed keys. "
    "Dividing by √d_k is itself a temperature, fixed by d_k. This section uses the mask above."
)
steps = tuple(sorted({*T_STEPS, s.temperature}))
follow(T_KEY, s.temperature)
T = st.select_slider(
    "Temperature T (log scale; it starts at the sidebar's T)",
    steps,
    format_func=lambda t: f"{t:g}",
    key=T_KEY,
)
sweep = temperature_sweep(s, mask=np.ones((n, n), bool) if mask is None else mask)
show_chart(temperature_chart(sweep, labels, current=T), "temperature_entropy")
at_T = reattend(r, mask=mask, temperature=T)
c1, c2, c3 = st.columns(3)
for col, M, key, title in (
    (c1, sweep.argmax_limit, "limit_argmax", "T → 0: argmax (one-hot)"),
    (c2, at_T.attention, "A_at_T", f"A at T = {T:g}"),
    (c3, sweep.uniform_limit, "limit_uniform", "T → ∞: uniform over allowed keys"),
):
    with col:
        show_matrix(M, labels, labels, key=key, title=title, value_name="A_ij", kind="probability")

live = allowed > 0
H = row_entropy(at_T.attention)[live]
to_argmax = float(np.abs(at_T.attention - sweep.argmax_limit).max())
to_uniform = float(np.abs(at_T.attention - sweep.uniform_limit).max())
closer = "argmax (T → 0)" if to_argmax < to_uniform else "uniform (T → ∞)"
ties = int(np.sum((sweep.argmax_limit > 0).sum(axis=1) > 1))
if not live.any():
    notice("Every row is masked from every key: A is all zero at any temperature.")
else:
    notice(
        f"At T = {T:g} the rows' entropy averages **{H.mean():.3f}** nats (a uniform row over "
        f"all {n} keys has log {n} = {np.log(n):.3f}; a one-hot row 0) and the largest weight "
        f"averages **{at_T.attention.max(axis=1)[live].mean():.3f}**. A differs from the "
        f"argmax limit by at most {to_argmax:.3g} and from the uniform limit by at most "
        f"{to_uniform:.3g}: it is nearer the **{closer}** end. Lower T and every curve above "
        "falls towards 0; raise it and they climb to their uniform level."
        + (
            f" In {ties} row(s) of the argmax limit two keys tie (within {TIE_TOLERANCE:g}, "
            "e.g. a repeated token without positions), so the weight is split evenly."
            if ties
            else ""
        )
    )
