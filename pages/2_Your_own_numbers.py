"""Check a hand-worked exercise: type, paste or upload X and the weights, and see every step
computed from them."""

import streamlit as st

from attnviz import token_labels
from attnviz.files.own_numbers import EXERCISE_SOURCE
from attnviz.ui import dims, page_frame, show_matrix, spread
from attnviz.ui.pages.your_own_numbers import (
    FIELDS,
    attend_to,
    download_matrices,
    inputs,
    matrices,
    sync_url,
)
from attnviz.ui.steps import (
    attention_formula,
    dimension_table,
    output_step,
    projection_steps,
    scaled_formula,
    score_steps,
    softmax_notes,
)
from attnviz.ui.text import learning_goal

PAGE = "Your own numbers"
s = page_frame(
    PAGE,
    icon="✍️",
    page_params=(*FIELDS, "edit"),
    uses=("mask", "scale", "temperature"),
    note="This page uses only the **mask**, **scaling** and **temperature**: X and the weights "
    "are yours (the button \"The sidebar's example\" copies the sidebar's X and weights into "
    "the boxes).",
)

st.title("Your own numbers")
learning_goal(
    "check a hand-worked exercise: type your own X and weights and see every step computed "
    "from them."
)
st.markdown(
    "Working an exercise by hand, or checking a textbook's numbers? Type the embeddings X and "
    "the projections W_Q, W_K, W_V below and every step is computed from them, with the "
    "sidebar's mask, scaling and temperature (its sentence, seed and sizes are not used here: "
    "the sizes come from your matrices). The link in the address bar holds your numbers. "
    "The boxes open on a small integer exercise, " + EXERCISE_SOURCE + "."
)
texts = inputs()
read = matrices(texts)
if read is None:
    st.stop()  # the messages above say what to fix; the text boxes keep what was typed
found, tokens = read
labels = token_labels(tokens)  # unique row labels: "a (1)", "b", "a (2)"
sync_url(texts, found)
typed = attend_to(found, s)  # stops with a message if a step overflows
edited = spread.current_spread(typed, labels, PAGE)  # one entry of X changed, or None
r = typed if edited is None else edited.after
n = r.n

st.header("Every step from your numbers")
st.caption(
    f"{n} tokens, d_model = {r.d_model}, d_k = {r.d_k}, d_v = {r.d_v}; mask {s.mask}, "
    f"scaling {'on' if s.scale else 'off'}, T = {s.temperature:g}. Hover a cell for its exact "
    "value; click a cell of Q, K, V, S, S', A or the output for its arithmetic."
)
if edited is not None:
    spread.banner(PAGE, edited, labels)
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
spread.edit_controls(PAGE, typed, labels, edited)
projection_steps(r, labels, {"Q": "Q = XW_Q", "K": "K = XW_K", "V": "V = XW_V"}, edited)
headers = {
    "S": lambda: st.subheader(f"S = QKᵀ and {scaled_formula(r)}"),
    "S_scaled": lambda: None,  # under the same subheader
    "A": lambda: st.subheader(f"{attention_formula(r)}, row by row"),
}
score_steps(r, labels, headers, softmax_notes(s), edited)
st.subheader("Output = AV")
output_step(r, labels, edited)
st.dataframe(dimension_table(r), hide_index=True, width="content")
download_matrices(found, tokens)
