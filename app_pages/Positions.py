"""Does attention know word order? Without positions or a causal mask it cannot; sinusoidal,
learned or rotary positions give it."""

import streamlit as st

from attnviz.lessons.positions import ROPE_BASE
from attnviz.serve import positions as numbers
from attnviz.ui import lesson
from attnviz.ui.pages import positions as view
from attnviz.ui.stepper import after_chart, first_screen, intro, lesson_steps

example = lesson()
s, labels = example.settings, example.labels
show = lesson_steps()  # in projector mode one at a time

if first_screen(show):  # the title and the goal on the first screen only
    with intro(random_weights=True):
        st.markdown(
            "Self-attention compares every query with every key, and the comparison does not "
            "depend on where the tokens stand. So shuffle the sentence and, without positional "
            "information, every token gets exactly the output row it had before, only in its new "
            "place. Mathematically, for any permutation π of the rows of X:"
        )
        st.latex(r"\mathrm{Attention}(X_\pi) = \mathrm{Attention}(X)_\pi")
        st.caption(
            "The experiment uses no mask: a causal mask is itself information about order (query i "
            f"sees keys 0..i), so it would break the symmetry on its own. Scaling "
            f"({'on' if s.scale else 'off'}) and T = {s.temperature:g} are the sidebar's; the "
            "sidebar's positional-encoding switch is overridden: both cases are shown."
        )

with after_chart("shuffle_ui"):  # the shuffle's controls: on a projector after the charts
    shuffle = view.shuffle_ui()
exp = numbers.cached_permutation_experiment(s, shuffle)  # the shuffle: every step uses it
if show(1):
    with after_chart("shuffle"):  # on a projector after the step's charts
        view.shuffle_table(exp, labels)

# 1. No positions --------------------------------------------------------------------------------
if show(1):
    st.header("1. Without positions: the same rows, reordered")
    after_chart("no_positions").markdown(
        "X = token embeddings E only. Left: the original outputs, moved; right: computed on the "
        "shuffled sentence."
    )
    view.comparison(exp, labels, positions=False)
    view.equivariance_notice(exp)
    st.subheader("Two identical tokens get identical rows")
    view.repeated_tokens(exp, labels)

# 2. With positions ------------------------------------------------------------------------------
if show(2):
    st.header("2. With sinusoidal positions: the symmetry breaks")
    after_chart("positions").markdown(
        "Now X = E + P, where row p of P encodes position p. When the tokens move, P stays where "
        "it is: a token at a new position gets a different X row, so a different query, key and "
        "value."
    )
    view.comparison(exp, labels, positions=True)
    view.symmetry_break_notice(exp)

    st.subheader("The encoding matrix P")
    st.latex(
        r"P_{p,2i} = \sin\!\left(\frac{p}{10000^{2i/d_{model}}}\right), \qquad "
        r"P_{p,2i+1} = \cos\!\left(\frac{p}{10000^{2i/d_{model}}}\right)"
    )
    view.encoding_matrix(exp.P)
    st.caption(
        "Each pair of columns is a sine and cosine of one frequency: the first columns change "
        "fast from one position to the next, the last ones slowly. Every position gets its own "
        "pattern of values (the sidebar's d_model sets the width)."
    )

# 3. Learned and rotary positions ---------------------------------------------------------------
if show(3):
    st.header("3. Other ways to give positions: learned and rotary")
    after_chart("rotary").markdown(  # on a projector after the formula and its table
        "Sinusoids are one choice. **Learned positions** (BERT, GPT-2 and the Real model page's "
        "MiniLM; the tiny GPT of Watch a head learn too) replace P by a table with one trained row "
        "per position, added to the embeddings in the same way; the model then knows only the "
        "positions it has a row for. **Rotary positions** (RoPE, Su et al. 2021; LLaMA, Qwen, "
        "Mistral and many newer models) add nothing to X: they rotate each query and key by an "
        "angle that grows with its position, pair of dimensions by pair of dimensions, "
        f"(q_{{2i}}, q_{{2i+1}}) at position m by m·θ_i with θ_i = {ROPE_BASE:.0f}^(−2i/d_k). "
        "Rotations compose, so the score sees only the offset m − n between the two positions "
        "(the query's position minus the key's, as on Inside a chat model):"
    )
    st.latex(r"(R_m q) \cdot (R_n k) = q \cdot (R_{n-m}\, k)")
    view.rotary_table(exp, labels)
    st.markdown(
        "And a causal mask, with no positions at all, leaks order too: query i sees only keys "
        "0 … i, so the first token sees itself alone and later ones see more; decoders trained "
        "without any positional encoding learn positions from that (Haviv et al., 2022)."
    )
