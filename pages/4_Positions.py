"""Positions: without them attention cannot tell word order; sinusoidal encodings break the tie."""

import numpy as np
import pandas as pd
import streamlit as st

from attnviz.ui import dims, page_setup, show_matrix
from attnviz.ui.lessons import notice, permutation_experiment
from attnviz.ui.views import md_escape

SHUFFLE = "attnviz_lesson_shuffle"
MAX_SEED_SHOWN = 2**31 - 1

example = page_setup("Positions")
s, labels = example.settings, example.labels
n, d_v = example.result.n, example.result.d_v

st.title("Positions: does attention know word order?")
st.markdown(
    "Self-attention compares every query with every key, and the comparison does not depend "
    "on where the tokens stand. So shuffle the sentence and, without positional "
    "information, every token gets exactly the output row it had before, only in its new "
    "place. Mathematically, for any permutation π of the rows of X:"
)
st.latex(r"\mathrm{Attention}(X_\pi) = \mathrm{Attention}(X)_\pi")


def shuffle_again():
    st.session_state[SHUFFLE] = (st.session_state.get(SHUFFLE, 0) + 1) % MAX_SEED_SHOWN


c1, c2 = st.columns([1, 3], vertical_alignment="bottom")
c1.number_input(
    "Shuffle seed",
    0,
    MAX_SEED_SHOWN,
    value=0,
    step=1,
    key=SHUFFLE,
    help="Decides the shuffle. The tokens' embeddings and the weights come from the sidebar.",
)
c2.button("🔀 Shuffle again", on_click=shuffle_again, key="attnviz_lesson_shuffle_again")
exp = permutation_experiment(s, int(st.session_state[SHUFFLE]))
perm = exp.permutation
moved = [labels[k] for k in perm]  # each token keeps its label, so it can be followed

st.dataframe(
    pd.DataFrame(
        [labels, moved],
        index=["sentence", "shuffled: token π(i)"],
        columns=[f"position {i}" for i in range(n)],
    ),
    width="stretch",
)
st.caption(
    "The experiment uses no mask: a causal mask is itself information about order (query i "
    f"sees keys 0..i), so it would break the symmetry on its own. Scaling "
    f"({'on' if s.scale else 'off'}) and T = {s.temperature:g} are the sidebar's; the "
    "sidebar's positional-encoding switch is overridden: both cases are shown."
)


def comparison(original, permuted, key, title):
    """The original's output rows put in the shuffled order, beside the shuffled output."""
    left, right = st.columns(2)
    with left:
        show_matrix(
            original.output[perm],
            moved,
            dims(d_v),
            key=f"{key}_reordered",
            title=f"{title}: Output(X), rows reordered by π",
            col_title="value dimension c",
            row_title="token (row)",
        )
    with right:
        show_matrix(
            permuted.output,
            moved,
            dims(d_v),
            key=f"{key}_shuffled",
            title=f"{title}: Output(X_π) of the shuffled tokens",
            col_title="value dimension c",
            row_title="token (row)",
        )


# 1. No positions --------------------------------------------------------------------------------
st.header("1. Without positions: the same rows, reordered")
st.markdown(
    "X = token embeddings E only. Left: the original outputs, moved; right: computed on the "
    "shuffled sentence."
)
comparison(exp.original_off, exp.permuted_off, "off", "no positions")
if n == 1:
    notice("With one token there is nothing to shuffle. Type a longer sentence in the sidebar.")
else:
    notice(
        f"Largest |Output(X)[π] − Output(X_π)| without positions: **{exp.max_abs_diff_off:.2e}**"
        f" ({'rounding only: the two are equal' if exp.equivariant_off else 'not equal'}). "
        "Shuffling the input only moved the output rows; attention alone cannot tell the "
        "original sentence from the shuffled one."
    )

st.subheader("Two identical tokens get identical rows")
pairs = exp.repeated_pairs
if not len(pairs):
    notice(
        "Your sentence has no repeated token. Type one twice (e.g. *the cat sat on the mat*) "
        "to see two copies of a token get the same output row."
    )
else:
    table = pd.DataFrame(
        {
            "first": [labels[i] for i in pairs[:, 0]],
            "second": [labels[j] for j in pairs[:, 1]],
            "max |row difference|, no positions": exp.pair_diff_off,
            "with positions": exp.pair_diff_on,
        }
    )
    st.dataframe(table, hide_index=True)
    i, j = pairs[0]
    notice(
        f"**{md_escape(labels[i])}** (position {i}) and **{md_escape(labels[j])}** (position "
        f"{j}) have the same embedding, so without positions they get the same query, key and "
        f"value, and output rows that differ by at most **{exp.pair_diff_off[0]:.2e}**: "
        "attention cannot tell them apart. With positions the rows differ by "
        f"**{exp.pair_diff_on[0]:.3g}**."
    )

# 2. With positions ------------------------------------------------------------------------------
st.header("2. With sinusoidal positions: the symmetry breaks")
st.markdown(
    "Now X = E + P, where row p of P encodes position p. When the tokens move, P stays where "
    "it is: a token at a new position gets a different X row, so a different query, key and "
    "value."
)
comparison(exp.original_on, exp.permuted_on, "on", "with positions")
if n > 1:
    scale = float(np.abs(exp.original_on.output).max())
    notice(
        f"Largest |Output(X)[π] − Output(X_π)| with positions: **{exp.max_abs_diff_on:.3g}** "
        f"(the outputs themselves are up to {scale:.3g} in size), against "
        f"{exp.max_abs_diff_off:.2e} without. "
        + (
            "The shuffled sentence now gives different outputs: word order matters."
            if not exp.equivariant_on
            else "Here the difference is still at rounding level."
        )
    )

st.subheader("The encoding matrix P")
st.latex(
    r"P_{p,2i} = \sin\!\left(\frac{p}{10000^{2i/d_{model}}}\right), \qquad "
    r"P_{p,2i+1} = \cos\!\left(\frac{p}{10000^{2i/d_{model}}}\right)"
)
show_matrix(
    exp.P,
    [f"position {p}" for p in range(n)],
    dims(example.result.d_model),
    key="P",
    title=f"P: {n} positions × {example.result.d_model} dimensions",
    row_title="position p",
    col_title="dimension",
    value_name="P_pc",
)
st.caption(
    "Each pair of columns is a sine and cosine of one frequency: the first columns change "
    "fast from one position to the next, the last ones slowly. Every position gets its own "
    "pattern of values (the sidebar's d_model sets the width)."
)
