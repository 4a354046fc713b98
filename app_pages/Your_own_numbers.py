"""Check a hand-worked exercise: type, paste or upload X and the weights, and see every step
computed from them."""

import streamlit as st

from attnviz import token_labels
from attnviz.files.own_numbers import EXERCISE_SOURCE
from attnviz.lessons.summary import attention_formula, scaled_formula
from attnviz.serve.store import Lookup
from attnviz.serve.your_own_numbers import own_spread, own_steps, steps_key, unedited
from attnviz.ui import dims, page_settings, show_matrix, spread
from attnviz.ui.pages.your_own_numbers import (
    attend_to,
    download_matrices,
    inputs,
    matrices,
    sync_url,
)
from attnviz.ui.sidebar import is_present
from attnviz.ui.stepper import first_screen, intro, lesson_steps
from attnviz.ui.steps import (
    dimension_table,
    output_step,
    projection_steps,
    score_steps,
    softmax_notes,
)

PAGE = "Your own numbers"
s = page_settings()
show = lesson_steps()  # in projector mode one at a time

if first_screen(show):  # the title and the goal on the first screen only
    with intro():
        st.markdown(
            "Working an exercise by hand, or checking a textbook's numbers? Type the embeddings X "
            "and the projections W_Q, W_K, W_V below and every step is computed from them, with "
            "the sidebar's mask, scaling and temperature (its sentence, seed and sizes are not "
            "used here: the sizes come from your matrices). The link in the address bar holds your "
            "numbers. "
            "The boxes open on a small integer exercise, " + EXERCISE_SOURCE + "."
        )
# The boxes are drawn on every step (in a closed expander after the first): a widget not drawn
# in a run loses what was typed in it
with st.container() if show(1) else st.expander("Your matrices X, W_Q, W_K, W_V"):
    texts = inputs()
read = matrices(texts)
if read is None:
    st.stop()  # the messages above say what to fix; the text boxes keep what was typed
found, tokens = read
labels = token_labels(tokens)  # unique row labels: "a (1)", "b", "a (2)"
sync_url(texts, found)
key = steps_key(texts, s)  # what the steps are cached under, for every session
typed = attend_to(key)  # stops with a message if a step overflows
edited = spread.current_spread(  # one entry of X changed, or None
    typed, labels, PAGE, lambda result, edit, labels: own_spread(key, edit)
)
r = typed if edited is None else edited.after
# What the fragments and callbacks keep: the keys to these results, never the arrays
this = Lookup(own_steps, (key, None if edited is None else edited.edit))
before = Lookup(unedited, (key,))
n = r.n

if not is_present():
    st.header("Every step from your numbers")
st.caption(
    f"{n} tokens, d_model = {r.d_model}, d_k = {r.d_k}, d_v = {r.d_v}; mask {s.mask}, "
    f"scaling {'on' if s.scale else 'off'}, T = {s.temperature:g}. Hover a cell for its exact "
    "value; click a cell of Q, K, V, S, S', A or the output for its arithmetic."
)
if edited is not None:
    spread.banner(PAGE, edited, labels, before)
if show(2):
    show_matrix(
        r.X,
        labels,
        dims(r.d_model),
        key="X",
        family="X",
        title="X",
        col_title="embedding dimension",
        outline=spread.outline(edited, "X"),
    )
    spread.note(edited, "X")
    spread.edit_controls(PAGE, before, labels, edited)
if show(3):
    projection_steps(this, {"Q": "Q = XW_Q", "K": "K = XW_K", "V": "V = XW_V"})
if show(4):
    headers = {
        "S": f"S = QKᵀ and {scaled_formula(r)}",
        "S_scaled": None,  # under the same subheader
        "A": f"{attention_formula(r)}, row by row",
    }
    score_steps(this, headers, tuple(softmax_notes(s)))
if show(5):
    st.subheader("Output = AV")
    output_step(this)
    st.markdown(dimension_table(r))
download_matrices(key)
