"""Compute attention end to end: every matrix from X to the output, live, and the arithmetic behind
any cell."""

import streamlit as st

from attnviz import FORMULA
from attnviz.lessons.summary import attention_formula
from attnviz.serve.step_by_step import cached_spread, page_steps, unedited
from attnviz.serve.store import Lookup
from attnviz.ui import dims, lesson, show_matrix, spread, steps
from attnviz.ui.frame import is_present
from attnviz.ui.pages.step_by_step import (
    STEP_TITLES,
    downloads,
    pipeline,
    settings_caption,
    steps_shown,
    summary_view,
    worked_example_view,
)
from attnviz.ui.stepper import after_chart
from attnviz.ui.text import learning_goal, random_weights_note, step_header

PAGE = "Step by step"
example = lesson()
labels, s = example.labels, example.settings
found = spread.current_spread(example.result, labels, PAGE, cached_spread(s))  # or None
r = example.result if found is None else found.after  # every step below, with the edit
# What the fragments and callbacks keep: the keys to these results, never the arrays
this = Lookup(page_steps, (s, None if found is None else found.edit))
before = Lookup(unedited, (s,))
n, d_model, d_k, d_v = r.n, r.d_model, r.d_k, r.d_v

show = steps_shown()  # every step, or in projector mode the one of the URL's step=
if show(0) or not is_present():  # the title and the goal on the first screen only
    st.title("Self-attention, step by step")
    learning_goal("compute attention from the embeddings X to the output, and read every shape.")
pipeline(r, s, show)  # the map of the whole computation, the step's box highlighted
st.caption(settings_caption(r, s))
if found is not None:
    with after_chart("edit_banner"):  # on a projector after the step's chart
        spread.banner(PAGE, found, labels, before)

if show(0):
    worked_example_view()
if show(1):
    with after_chart("random_weights"):
        random_weights_note()
    step_header(
        STEP_TITLES[1],
        r"X \in \mathbb{R}^{n \times d_{model}}",
        rf"X \in \mathbb{{R}}^{{{n} \times {d_model}}}",
        f"One row per token: the {n} tokens are the rows, the {d_model} embedding dimensions "
        "the columns. "
        + (
            "Here X = token embedding + sinusoidal positional encoding."
            if s.positions
            else "No positions are added, so two equal tokens have equal rows."
        ),
    )
    X_outline = spread.outline(found, "X")
    show_matrix(r.X, labels, dims(d_model), key="X", family="X", title="X", outline=X_outline)
    spread.note(found, "X")
    spread.edit_controls(PAGE, before, labels, found)
titles = {L: STEP_TITLES[k] for k, L in ((2, "Q"), (3, "K"), (4, "V")) if show(k)}
if titles:  # a query asks, a key advertises, a value is what is passed on
    steps.projection_steps(this, titles)
headers = {}  # S, S' and A with the cell inspector: one part of the page (a fragment)
if show(5):
    headers["S"] = (
        STEP_TITLES[5],
        r"S = QK^T, \quad S_{ij} = q_i \cdot k_j",
        rf"S \in \mathbb{{R}}^{{{n} \times {n}}}",
        "Every query is compared with every key by a dot product: a large S_ij means the key of "
        "token j matches what token i's query asks for. S is not symmetric (S_ij ≠ S_ji): token "
        "i's query and its key are different vectors, because W_Q ≠ W_K. **Click a cell** of "
        "S, S' or A to see its arithmetic.",
    )
if show(6):
    headers["S_scaled"] = (
        STEP_TITLES[6],
        steps.scaled_latex(r),
        rf"\sqrt{{d_k}} = \sqrt{{{d_k}}} = {d_k**0.5:.4g}" if r.scale else r"\text{scaling is off}",
        "With entries of mean 0 and variance 1, the standard deviation of a dot product of d_k "
        "terms grows like √d_k; dividing by √d_k keeps it near 1, out of the softmax's "
        "saturated region where one weight takes everything (the Why scale page measures it). "
        + (
            "S' is drawn on the colour range of S, so the division shows as paler colours."
            if r.scale
            else "**Scaling is off** in the sidebar, so S' = S: drawn on the same colour "
            "range, the two look the same."
        ),
    )
notes = steps.softmax_notes(s)
if show(7):
    headers["A"] = (
        STEP_TITLES[7],
        steps.attention_latex(r),
        rf"A \in \mathbb{{R}}^{{{n} \times {n}}}",
        "Each row becomes probabilities over the keys: how much query i attends to key j. "
        + " ".join(notes),
    )
if headers:
    steps.score_steps(this, headers, tuple(notes))
if show(8):
    step_header(
        STEP_TITLES[8],
        r"\mathrm{Output} = AV",
        rf"\mathrm{{Output}} \in \mathbb{{R}}^{{{n} \times {d_v}}}",
        "Row i of the output is an average of the rows of V (the values), weighted by row i of "
        "A: a new, context-mixed vector for token i. **Click a cell** to see the sum.",
    )
    steps.output_step(this)
if show(9):
    st.header(STEP_TITLES[9])
    st.latex(FORMULA)
    st.markdown(
        "This is the fundamental equation of the Transformer architecture."
        + (
            ""
            if r.scale and r.mask is None and r.temperature == 1
            else f" With the sidebar's settings this page computes {attention_formula(r)}"
            + ("" if r.scale else " with S' = S (scaling off)")
            + ", then Output = AV."
        )
    )
if show(10):
    st.header(STEP_TITLES[10])
    st.markdown(steps.dimension_table(r))
    summary_view(r)
downloads(example)
