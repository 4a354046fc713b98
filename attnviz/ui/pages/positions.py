"""The positions page's controls and views: the shuffle, the two outputs side by side, the
repeated tokens and the encoding matrix P, each told in words with its numbers. Every number is
read from the ``PermutationExperiment`` of ``attnviz.lessons``.

Widget keys: ``attnviz_lesson_shuffle`` (the shuffle seed) and ``attnviz_lesson_shuffle_again``
(the button that adds 1 to it).
"""

import numpy as np
import pandas as pd
import streamlit as st

from attnviz import lessons
from attnviz.ui.charts import dims, show_matrix
from attnviz.ui.projector import data_table
from attnviz.ui.sidebar import is_present
from attnviz.ui.text import md_escape, notice

SHUFFLE = "attnviz_lesson_shuffle"
MAX_SEED_SHOWN = 2**31 - 1


def _shuffle_again():
    st.session_state[SHUFFLE] = (st.session_state.get(SHUFFLE, 0) + 1) % MAX_SEED_SHOWN


def shuffle_ui():
    """The shuffle seed's input and the "shuffle again" button; returns the seed (int)."""
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
    c2.button("🔀 Shuffle again", on_click=_shuffle_again, key="attnviz_lesson_shuffle_again")
    return int(st.session_state[SHUFFLE])


def moved_labels(exp, labels):
    """The labels in the shuffled order: each token keeps its label, so it can be followed."""
    return [labels[k] for k in exp.permutation]


def shuffle_table(exp, labels):
    """The sentence (first row) above the shuffled sentence (second row), one column a position."""
    data_table(
        pd.DataFrame(
            [labels, moved_labels(exp, labels)],
            index=["sentence", "shuffled: token π(i)"],
            columns=[f"position {i}" for i in range(len(labels))],
        ),
        width="stretch",
    )


def comparison(exp, labels, positions):
    """The original's output rows put in the shuffled order (left), beside the shuffled
    output (right), without (``positions`` False, keys ``off_*``) or with positions (``on_*``)."""
    key, title = ("on", "with positions") if positions else ("off", "no positions")
    original, permuted = (
        (exp.original_on, exp.permuted_on) if positions else (exp.original_off, exp.permuted_off)
    )
    moved, d_v = moved_labels(exp, labels), original.d_v
    left, right = st.columns(2)
    for place, output, name, what in (
        (left, original.output[exp.permutation], "reordered", "Output(X), rows reordered by π"),
        (right, permuted.output, "shuffled", "Output(X_π) of the shuffled tokens"),
    ):
        with place:
            show_matrix(
                output,
                moved,
                dims(d_v),
                key=f"{key}_{name}",
                share=0.5,
                family="O",
                # on a projector the step's heading says which: one line, above its axis title
                title=what if is_present() else f"{title}: {what}",
                col_title="value dimension c",
                row_title="token (row)",
            )


def equivariance_notice(exp):
    """What to notice without positions: the outputs only moved (or: one token, no shuffle)."""
    if len(exp.tokens) == 1:
        notice("With one token there is nothing to shuffle. Type a longer sentence in the sidebar.")
        return
    notice(
        f"Largest |Output(X)[π] − Output(X_π)| without positions: **{exp.max_abs_diff_off:.2e}**"
        f" ({'rounding only: the two are equal' if exp.equivariant_off else 'not equal'}). "
        "Shuffling the input only moved the output rows; attention alone cannot tell the "
        "original sentence from the shuffled one."
    )


def repeated_tokens(exp, labels):
    """The repeated tokens' row differences in a table, and what to notice in the first pair."""
    pairs = exp.repeated_pairs
    if not len(pairs):
        notice(
            "Your sentence has no repeated token. Type one twice (e.g. *the cat sat on the mat*) "
            "to see two copies of a token get the same output row."
        )
        return
    table = pd.DataFrame(
        {
            "first": [labels[i] for i in pairs[:, 0]],
            "second": [labels[j] for j in pairs[:, 1]],
            "max |row difference|, no positions": exp.pair_diff_off,
            "with positions": exp.pair_diff_on,
        }
    )
    data_table(table, hide_index=True)
    i, j = pairs[0]
    notice(
        f"**{md_escape(labels[i])}** (position {i}) and **{md_escape(labels[j])}** (position "
        f"{j}) have the same embedding, so without positions they get the same query, key and "
        f"value, and output rows that differ by at most **{exp.pair_diff_off[0]:.2e}**: "
        "attention cannot tell them apart. With positions the rows differ by "
        f"**{exp.pair_diff_on[0]:.3g}**."
    )


def symmetry_break_notice(exp):
    """What to notice with positions: the shuffled sentence's outputs differ (nothing for n = 1)."""
    if len(exp.tokens) == 1:
        return
    notice(
        f"Largest |Output(X)[π] − Output(X_π)| with positions: **{exp.max_abs_diff_on:.3g}** "
        f"(the outputs themselves are up to {exp.max_abs_output_on:.3g} in size), against "
        f"{exp.max_abs_diff_off:.2e} without. "
        + (
            "The shuffled sentence now gives different outputs: word order matters."
            if not exp.equivariant_on
            else "Here the difference is still at rounding level."
        )
    )


def encoding_matrix(P):
    """The sinusoidal encodings P (n, d_model), one row a position."""
    n, d_model = P.shape
    show_matrix(
        P,
        [f"position {p}" for p in range(n)],
        dims(d_model),
        key="P",
        family="X",
        title=f"P: {n} positions × {d_model} dimensions",
        row_title="position p",
        col_title="dimension",
        value_name="P_pc",
    )


def rotary_table(exp, labels):
    """RoPE on the sidebar's own query and key (token 0's query, token 1's key, no positions
    added): q · k at several (m, n), the same offset m - n giving the same score."""
    r = exp.original_off
    j = 1 if r.n > 1 else 0
    rot = lessons.rotary_scores(r.Q[0], r.K[j])
    data_table(
        pd.DataFrame(
            {
                "query at m": rot.pairs[:, 0],
                "key at n": rot.pairs[:, 1],
                "offset m − n": rot.offsets,
                "R(m)q · R(n)k": rot.scores,
            }
        ),
        hide_index=True,
    )
    worst = max(rot.spread_by_offset.values())
    groups = []
    for offset in sorted(rot.spread_by_offset, key=lambda o: (abs(o), o)):
        at = np.flatnonzero(rot.offsets == offset)
        where = ", ".join(f"({m}, {n})" for m, n in rot.pairs[at])
        groups.append(f"offset {offset}: {where} all give {rot.scores[at[0]]:.4g}")
    notice(
        md_escape(
            f"q = the query of {labels[0]}, k = the key of {labels[j]} (d_k = {r.d_k}; plain "
            f"q · k = {rot.plain:.4g}). Same offset, same score: "
            + "; ".join(groups)
            + f". The largest difference within one offset is {worst:.1e} "
            "(rounding): the score depends on how far apart the two tokens are, not on where "
            "they stand."
            + (" The last dimension (d_k is odd) is not rotated." if r.d_k % 2 else "")
        )
    )
