"""Why several heads: each attends by its own rule; build one by hand and watch it work."""

import streamlit as st

from attnviz.ui import lesson, show_matrix
from attnviz.ui.pages.multi_head import hand_build, head_config, run_heads
from attnviz.ui.pages.multi_head_views import (
    built_head_notice,
    concat_and_project,
    grid,
    head_titles,
    open_head,
    why_heads,
)
from attnviz.ui.stepper import after_chart, first_screen, intro, lesson_steps

example = lesson()
r, labels, s = example.result, example.labels, example.settings
n, d_model = r.n, r.d_model
show = lesson_steps()  # in projector mode one at a time

if first_screen(show):  # the title and the goal on the first screen only
    with intro(random_weights=True):
        st.markdown(
            "Multi-head attention runs **h** ordinary attention heads side by side, each on its "
            "own slice of W_Q, W_K and W_V, then concatenates their outputs and projects them back "
            "to width d_model with W_O."
        )
        st.latex(
            r"\mathrm{head}_i = \mathrm{Attention}(XW_Q^{(i)}, XW_K^{(i)}, XW_V^{(i)}),\ "
            r"i = 0, \dots, h-1, \quad "
            r"\mathrm{MultiHead}(X) = "
            r"\mathrm{Concat}(\mathrm{head}_0, \dots, \mathrm{head}_{h-1})\, W_O"
        )
# The heads' controls: on the first step above its grid; on a projector's later steps after
# the step's chart (drawn, so that they keep their values, but out of the first screen)
with st.container() if show(1) else after_chart("head_config"):
    cfg = head_config(s)
h, d_k, d_v = cfg.n_heads, cfg.d_k, cfg.d_v
st.caption(
    f"{n} tokens, d_model = {d_model}, h = {h} heads of d_k = {d_k}, d_v = {d_v}; mask "
    f"{s.mask}, scaling {'on' if s.scale else 'off'}, T = {s.temperature:g}, seed {s.seed}."
    + (
        " Head 0 has exactly the single head's weights of the other pages."
        if (d_k, d_v) == (s.d_k, s.d_v)
        else ""
    )
)

if show(1):
    st.header(f"The {h} heads' attention matrices")
grid_box = st.container()

# The hand-built head's controls are drawn on every step (closed after the first): a widget
# not drawn in a run loses its value, and every step shows that head
later = after_chart("built_head") if not show(1) else st.container()
with later, st.container() if show(1) else st.expander("The hand-built head's controls"):
    if show(1):
        st.header("Hand-build a head")
        st.markdown(
            "Give one head a rule of your choosing: a preset (its W_Q and W_K are solved so that "
            "every query asks for a position), or edit its W_Q and W_K yourself. Each column c of "
            "the two tables is one term of q_i · k_j = Σ_c q_ic k_jc."
        )
    controls, view = st.columns([2, 3])
    with controls:
        built = hand_build(example, cfg)
mh = run_heads(example, cfg, built)
titles = head_titles(h, built)
if show(1):
    with grid_box:
        grid(mh, labels, titles)
with view:
    show_matrix(
        mh.heads[built.head].attention,
        labels,
        labels,
        key="mh_built_A",
        family="A",
        title=f"A of {titles[built.head]}",
        value_name="A_ij",
        kind="probability",
    )
    built_head_notice(built, mh.heads[built.head].attention, labels)

if show(2):
    why_heads(mh, labels)
if show(3):
    concat_and_project(mh, labels)
if show(4):
    open_head(mh, labels)
