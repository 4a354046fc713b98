"""The masks page's controls: the mask mode with its own settings, and the temperature slider.

``pick_mask`` draws the mode picker, says what the chosen mask does, draws its settings (the
padding count, or the custom cells' picker) and returns the mask; ``temperature_slider`` draws
the page's T. Both start at the sidebar's value and follow it (see ``follow``). The custom
mask's toggled cells live in ``st.session_state[CELLS]`` and are forgotten when the tokens
change. Every widget key starts with ``attnviz_lesson_``.
"""

import streamlit as st

from attnviz.lessons import DEFAULT_TEMPERATURES, MASK_MODES, build_mask
from attnviz.ui.lessons import follow

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
    if mode == "none":
        st.markdown(
            "**No mask: bidirectional attention, as in BERT.** Every query sees every key, "
            "before and after it. An encoder reads the whole sentence at once, so each token may "
            "use its left and right context."
        )
    elif mode == "causal":
        st.markdown(
            "**Causal mask, as in GPT.** Query i may see keys 0 … i only: everything above the "
            "diagonal is −∞. A decoder is trained to predict the next token, so a token must "
            "not see the tokens after it; the mask also lets one pass train every position at "
            "once."
        )
    elif mode == "padding":
        n_padding = _padding_count(n)
        st.markdown(
            f"**Padding mask.** Sentences of different lengths are padded to one length so they "
            f"fit in one batch; here the last {n_padding} token(s) play the padding. No query "
            "may attend to a padding key, so the real tokens ignore them (the padding rows still "
            "compute something; a model ignores their outputs)."
        )
    else:
        cells = tuple(sorted(custom_cells(labels)))
        st.markdown(
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
