"""The Masks and temperature page: the mask picker (preset or cell by cell), the temperature
slider, the cached experiments they feed, and the matrices and notices that show what each does.

Widget keys: ``attnviz_lesson_mask`` (the mode), ``attnviz_lesson_padding``,
``attnviz_lesson_cell_i`` / ``_cell_j`` / ``_toggle`` / ``_clear`` (the custom mask) and
``attnviz_lesson_T`` (the temperature).
"""

import numpy as np
import streamlit as st

from attnviz.charts.line_charts import temperature_chart
from attnviz.lessons import (
    DEFAULT_TEMPERATURES,
    MASK_MODES,
    TIE_TOLERANCE,
    build_mask,
)
from attnviz.ui.charts import dims, draw, show_matrix, toolbar
from attnviz.ui.sidebar import follow, is_present
from attnviz.ui.stepper import after_chart
from attnviz.ui.text import md_escape, notice

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


def custom_cells(labels):
    """The toggled cells of the custom mask, forgotten when the tokens change."""
    kept = st.session_state.get(CELLS)
    if kept is None or kept[0] != tuple(labels):
        kept = (tuple(labels), frozenset())
        st.session_state[CELLS] = kept
    return kept[1]


def toggle(labels, cell):
    """Block the (query, key) ``cell`` of the custom mask if it is allowed, else allow it."""
    st.session_state[CELLS] = (tuple(labels), custom_cells(labels) ^ {cell})


def _toggle_picked(labels):
    toggle(labels, (st.session_state[PICK_I], st.session_state[PICK_J]))


def _clear_cells(labels):
    st.session_state[CELLS] = (tuple(labels), frozenset())


def _padding_count(n):
    """How many of the n tokens, at the end, play the padding; kept within the sentence."""
    # Set through the session state only (a default as well would make Streamlit warn)
    st.session_state[PADDING] = min(st.session_state.get(PADDING, 1), n)
    return st.number_input("Padding tokens k at the end", 0, n, step=1, key=PADDING)


def _cell_picker(labels):
    """Pick a (query, key) cell by name and toggle it, or allow every cell again."""
    n = len(labels)
    c1, c2, c3, c4 = st.columns([3, 3, 2, 2], vertical_alignment="bottom")
    c1.selectbox("Query i (row)", range(n), format_func=labels.__getitem__, key=PICK_I)
    c2.selectbox("Key j (column)", range(n), format_func=labels.__getitem__, key=PICK_J)
    c3.button("Toggle cell", on_click=_toggle_picked, args=(labels,), key="attnviz_lesson_toggle")
    c4.button("Allow all", on_click=_clear_cells, args=(labels,), key="attnviz_lesson_clear")


def pick_mask(shared_mask, labels):
    """Draw the mask mode and its settings, say what it does; return (mode, (n, n) mask or None).

    The mode starts at the sidebar's ``shared_mask``; None is no mask (every key visible).
    """
    n = len(labels)
    follow(MODE, shared_mask)
    mode = st.radio(
        "Mask mode (this page's own; it starts at the sidebar's mask)",
        MASK_MODES,
        format_func=MODE_NAMES.get,
        horizontal=True,
        key=MODE,
    )
    n_padding, cells = 0, ()
    about = after_chart("mask_mode")  # on a projector after the mask's charts
    if mode == "none":
        about.markdown(
            "**No mask: bidirectional attention, as in BERT.** Every query sees every key, "
            "before and after it. An encoder reads the whole sentence at once, so each token may "
            "use its left and right context."
        )
    elif mode == "causal":
        about.markdown(
            "**Causal mask, as in GPT.** Query i may see keys 0 … i only: everything above the "
            "diagonal is −∞. A decoder is trained to predict the next token, so a token must "
            "not see the tokens after it; the mask also lets one pass train every position at "
            "once."
        )
    elif mode == "padding":
        n_padding = _padding_count(n)
        about.markdown(
            f"**Padding mask.** Sentences of different lengths are padded to one length so they "
            f"fit in one batch; here the last {n_padding} token(s) play the padding. No query "
            "may attend to a padding key, so the real tokens ignore them (the padding rows still "
            "compute something; a model ignores their outputs)."
        )
    else:
        cells = tuple(sorted(custom_cells(labels)))
        about.markdown(
            "**Custom mask.** Click a cell of the mask (or pick it below) to block or allow that "
            "key for that query. Block a whole row to see what a query with no key gets."
        )
        _cell_picker(labels)
    if mode == "none":
        return mode, None
    return mode, build_mask(mode, n, n_padding=int(n_padding), cells=cells)


def temperature_slider(shared_T):
    """The page's temperature T, on a log scale; it starts at the sidebar's ``shared_T``."""
    steps = tuple(sorted({*T_STEPS, shared_T}))
    follow(T_KEY, shared_T)
    return st.select_slider(
        "Temperature T (log scale; it starts at the sidebar's T)",
        steps,
        format_func=lambda t: f"{t:g}",
        key=T_KEY,
    )


SHOWN_KEYS = 6  # weights of at most this many keys are written out in the notice
SHOWN_ROWS = 8  # names of at most this many rows with no key


def mask_matrices(mask, masked, labels, *, selectable):
    """The mask, the masked logits, A and the output, two by two (on a projector the mask and A,
    the step's point, in the first row). With ``selectable`` a click on a cell of the mask
    toggles it (the custom mask) and reruns the page."""
    n = len(labels)

    def mask_cells():
        shown = np.ones((n, n)) if mask is None else mask.astype(float)
        click = show_matrix(
            shown,
            labels,
            labels,
            key="mask_cells",
            share=0.5,
            family="A",
            title="mask: 1 = may attend, 0 = blocked",
            value_name="allowed",
            kind="binary",
            selectable=selectable,
        )
        if click is not None:
            toggle(labels, click)
            st.rerun()

    def logits():
        show_matrix(
            masked.logits,
            labels,
            labels,
            key="masked_logits",
            share=0.5,
            family="S",
            title="logits before the softmax (−∞ where blocked)",
            value_name="logit_ij",
        )

    def attention():
        show_matrix(
            masked.attention,
            labels,
            labels,
            key="masked_A",
            share=0.5,
            mask=masked.mask,
            family="A",
            title="A after the softmax: each row normalised over the keys it may see",
            value_name="A_ij",
            kind="probability",
        )

    def output():
        show_matrix(
            masked.output,
            labels,
            dims(masked.d_v),
            key="masked_output",
            share=0.5,
            family="O",
            title="Output = AV",
            value_name="Output_ic",
        )

    rows = ((mask_cells, attention), (logits, output)) if is_present() else (
        (mask_cells, logits), (attention, output))  # fmt: skip
    for row in rows:
        for place, chart in zip(st.columns(2), row, strict=True):
            with place:
                chart()


def mask_notices(mode, effect, labels):
    """What to notice in the MaskEffect ``effect``: the renormalisation, row by row, and the
    rows with no key at all."""
    md = [md_escape(label) for label in labels]
    n = len(labels)
    if effect.row is not None:
        i, shown = effect.row, slice(SHOWN_KEYS)
        more = " …" if len(effect.keys) > SHOWN_KEYS else ""
        before_txt = " + ".join(f"{w:.3f}" for w in effect.before[shown]) + more
        after_txt = ", ".join(f"{w:.3f}" for w in effect.after[shown]) + more
        notice(
            f"Row **{md[i]}** may see {int(effect.allowed[i])} of {n} keys. Without the mask "
            f"those keys held {before_txt} = **{effect.share:.3f}** of its weight. The −∞ logits "
            f"give the others e^−∞ = 0, and the softmax divides what is left by "
            f"{effect.share:.3f}: {after_txt}, which sum to {effect.after.sum():.6f}. Every "
            "partly masked row is the unmasked row cut to its allowed keys and rescaled to sum 1 "
            f"(largest difference from that: {effect.renormalise_error:.1e})."
        )
    elif mode != "none" and not effect.empty.size:
        notice("This mask blocks no key: A is the unmasked attention.")
    if mode == "causal" and n > 1:
        notice(
            f"With the causal mask the first token, **{md[0]}**, may attend only to itself: its "
            f"row is [1, 0, …, 0]. The last, **{md[-1]}**, sees all {n} tokens, as it would "
            "without a mask. In BERT every row sees all of them."
        )
    empty = effect.empty
    if empty.size:
        one = empty.size == 1
        names = ", ".join(f"**{md[i]}**" for i in empty[:SHOWN_ROWS])
        names += " …" if empty.size > SHOWN_ROWS else ""
        notice(
            f"{'Row' if one else 'Rows'} {names} may attend to no key. All its logits are −∞, "
            "and a plain softmax would compute 0 / 0 = NaN. attnviz gives the whole row weight 0 "
            f"(row sum {effect.empty_row_sum:.0f}, not 1), so its output row is zero too: "
            f"largest |output| in {'it' if one else 'them'} = {effect.empty_output:.0f}."
        )
    elif mode == "custom":
        st.caption(
            "Block every key of one row (toggle its cells) to see what a query with no key gets."
        )


def temperature_plot(sweep, labels, T):
    """Each row's entropy as T varies, the page's ``T`` marked."""
    draw(
        temperature_chart(sweep, labels, current=T),
        "temperature_entropy",
        config=toolbar("temperature_entropy"),
    )


def limit_matrices(sweep, A, labels, T):
    """A at temperature ``T`` between its limits T -> 0 (argmax) and T -> inf (uniform)."""
    c1, c2, c3 = st.columns(3)
    for col, M, key, title in (
        (c1, sweep.argmax_limit, "limit_argmax", "T → 0: argmax (one-hot unless keys tie)"),
        (c2, A, "A_at_T", f"A at T = {T:g}"),
        (c3, sweep.uniform_limit, "limit_uniform", "T → ∞: uniform over allowed keys"),
    ):
        with col:
            show_matrix(
                M,
                labels,
                labels,
                key=key,
                share=1 / 3,
                family="A",
                title=title,
                value_name="A_ij",
                kind="probability",
                rotate_labels=True,  # a third of the page: level labels would run together
            )


def temperature_notice(effect, n, T):
    """What to notice in the TemperatureEffect at ``T`` of a sentence of ``n`` tokens."""
    if not effect.any_live:
        notice("Every row is masked from every key: A is all zero at any temperature.")
        return
    closer = "argmax (T → 0)" if effect.to_argmax < effect.to_uniform else "uniform (T → ∞)"
    notice(
        f"At T = {T:g} the rows' entropy averages **{effect.entropy:.3f}** nats (a uniform row "
        f"over all {n} keys has log {n} = {np.log(n):.3f}; a one-hot row 0) and the largest "
        f"weight averages **{effect.max_weight:.3f}**. A differs from the argmax limit by at "
        f"most {effect.to_argmax:.3g} and from the uniform limit by at most "
        f"{effect.to_uniform:.3g}: it is nearer the **{closer}** end. Lower T and each curve "
        "above falls to log k, where k is the number of keys tied for the row's largest logit "
        "(0 when one key wins alone); raise it and they climb to their uniform level."
        + (
            f" In {effect.ties} row(s) of the argmax limit two keys tie (within "
            f"{TIE_TOLERANCE:g}, e.g. a repeated token without positions), so the weight is "
            "split evenly."
            if effect.ties
            else ""
        )
    )
