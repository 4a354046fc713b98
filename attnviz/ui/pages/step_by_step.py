"""The Step by step page: the worked example by hand, the projector's one step at a time, its
summary of the settings, and the every-step downloads.

The step matrices and the inspectors it draws are shared with Your own numbers:
``attnviz.ui.steps`` and ``attnviz.ui.inspectors``.
"""

import functools

import numpy as np
import streamlit as st

from attnviz.files.export import step_numbers
from attnviz.lessons.summary import summary_rows
from attnviz.lessons.worked_example import TOKENS, worked_example
from attnviz.limits import MAX_JSON_NUMBERS
from attnviz.links.course import BY_PATH
from attnviz.serve.step_by_step import export_bytes
from attnviz.ui.charts import show_pipeline
from attnviz.ui.sidebar import is_present
from attnviz.ui.stepper import stepper
from attnviz.ui.text import md_escape, step_header


def settings_caption(result, settings):
    """The sizes and settings the page was computed with, in one sentence."""
    r, s = result, settings
    return (
        f"{r.n} tokens, d_model = {r.d_model}, d_k = {r.d_k}, d_v = {r.d_v}, seed {s.seed}, "
        f"mask {s.mask}, scaling {'on' if s.scale else 'off'}, T = {s.temperature:g}. Change "
        "any of them in the sidebar and every number below is recomputed. Hover a cell for its "
        "exact value."
    )


def downloads(example):
    """One export section: every step as CSV files, as NumPy .npz and, up to
    MAX_JSON_NUMBERS numbers, as JSON, each with the settings that made it. None in projector
    mode."""
    if is_present():
        return
    st.header("Download the numbers")
    settings = example.settings
    numbers = step_numbers(example)
    buttons = [
        ("csv", "⬇ Every matrix as CSV (zip)", "attnviz-steps.zip", "application/zip"),
        ("npz", "⬇ Every step (NumPy .npz)", "attnviz-steps.npz", "application/octet-stream"),
    ]
    if numbers <= MAX_JSON_NUMBERS:
        buttons.append(
            (
                "json",
                "⬇ Every step (JSON, with the settings)",
                "attnviz-steps.json",
                "application/json",
            )
        )
    for column, (kind, label, file_name, mime) in zip(st.columns(3), buttons, strict=False):
        column.download_button(
            label,
            data=functools.partial(export_bytes, settings, kind),
            file_name=file_name,
            mime=mime,
            key=f"download_{kind}",
            on_click="ignore",
        )
    st.caption(
        "The .npz reads back on Your own numbers; Plotly's toolbar saves any chart as a PNG."
        + (
            ""
            if numbers <= MAX_JSON_NUMBERS
            else f" JSON is offered up to {MAX_JSON_NUMBERS:,} numbers; these steps hold "
            f"{numbers:,}, so the .npz (every number, exactly) is the file to take."
        )
    )


# The page's steps; in projector mode one at a time, the one in the URL's step=
STEP_TITLES = BY_PATH["Step_by_step"].steps


def steps_shown():
    """Which steps to draw (a function of the step number, 0 to 10, that says yes or no): every
    step, or in projector mode the one of the link's ``step=`` (``step=6`` opens "6. Scaling"),
    with the stepper's bar above it (``attnviz.ui.stepper``)."""
    return stepper("Step by step", STEP_TITLES, first=0)


def _vector(row):
    return "(" + ", ".join(f"{x:g}" for x in row) + ")"


def _products(q, k):
    """q · k written out: "1·1 + 0·1 + ..."."""
    return " + ".join(f"{a:g}·{b:g}" for a, b in zip(q, k, strict=True))


def worked_example_view():
    """Step 0: attention on two tokens with small whole numbers, every sum written out, before
    the random matrices (the numbers come from the core, ``lessons.worked_example``)."""
    r = worked_example()
    a, b = TOKENS
    step_header(
        STEP_TITLES[0],
        r"S_{ij} = q_i \cdot k_j, \quad A_{ij} = \frac{e^{S_{ij}/\sqrt{d_k}}}"
        r"{\sum_{j'} e^{S_{ij'}/\sqrt{d_k}}}",
        r"d_k = 4, \ \sqrt{d_k} = 2",
        f"Two tokens, **{a}** and **{b}**, with these queries, keys and values (small whole "
        "numbers, so that every step can be done on paper):",
    )
    rows = [
        (name, _vector(M[0]), _vector(M[1]))
        for name, M in (("query q", r.Q), ("key k", r.K), ("value v", r.V))
    ]
    # A Markdown table: the same static table as st.table's, without a DataFrame and its Arrow
    # conversion on every rerun (about 5 % of the page's server time for six fixed cells)
    st.markdown(
        "\n".join(
            [f"| | {md_escape(a)} | {md_escape(b)} |", "| --- | --- | --- |"]
            + [f"| {name} | {md_escape(x)} | {md_escape(y)} |" for name, x, y in rows]
        )
    )
    S, Sp, A, out = r.scores, r.scaled_scores, r.attention, r.output
    st.markdown(
        f"1. **Scores:** S({a}, {a}) = q_{a} · k_{a} = {_products(r.Q[0], r.K[0])} = "
        f"**{S[0, 0]:g}**; S({a}, {b}) = {_products(r.Q[0], r.K[1])} = **{S[0, 1]:g}**; "
        f"S({b}, {a}) = **{S[1, 0]:g}**; "
        f"S({b}, {b}) = **{S[1, 1]:g}**. S({a}, {b}) = {S[0, 1]:g} but S({b}, {a}) = "
        f"{S[1, 0]:g}: S is not symmetric, because a token's query and its key are different "
        f"vectors (q_{a} ≠ k_{a}, q_{b} ≠ k_{b}).\n"
        f"2. **Scaling** by √d_k = 2: the row of {a} becomes ({Sp[0, 0]:g}, {Sp[0, 1]:g}).\n"
        f"3. **Softmax** of that row: e^{Sp[0, 0]:g} = {np.exp(Sp[0, 0]):.3f} and "
        f"e^{Sp[0, 1]:g} = {np.exp(Sp[0, 1]):.3f}, whose sum is "
        f"{np.exp(Sp[0]).sum():.3f}, so A({a}, ·) = ({A[0, 0]:.3f}, {A[0, 1]:.3f}): "
        f"{a} attends more to {b}, whose key matches its query better.\n"
        f"4. **Output** of {a} = {A[0, 0]:.3f} · v_{a} + {A[0, 1]:.3f} · v_{b} = "
        f"({out[0, 0]:.3f}, {out[0, 1]:.3f}), a weighted average of the values. For {b} the two "
        f"scores are equal, so its weights are ({A[1, 0]:.1f}, {A[1, 1]:.1f}) and its output "
        f"({out[1, 0]:g}, {out[1, 1]:g}) is the plain average."
    )


# The pipeline's box that each step computes (steps 0, 9 and 10 are about the whole)
STEP_BOXES = {1: "X", 2: "Q", 3: "K", 4: "V", 5: "S", 6: "Sp", 7: "A", 8: "O"}


def pipeline(result, settings, show):
    """The pipeline diagram with the live sizes: above step 1 on the page; in projector mode
    under each of steps 1 to 8 (the step's chart comes first), with larger labels and
    the step's own box lit."""
    present = is_present()
    k = next((k for k in range(len(STEP_TITLES)) if show(k)), None) if present else None
    if present and k not in STEP_BOXES:  # the worked example, the formula, the table
        return
    if not present and not (show(0) or show(1)):
        return
    place = st.container(key="step_meaning_pipeline") if present else st.container()
    with place:
        show_pipeline(result, settings, lit=STEP_BOXES.get(k))


def summary_view(result):
    """The course module's Summary as a cheat sheet: concept, formula, shape (symbols and the
    live sizes) and meaning of every step from X to the output (``lessons.summary``). Its
    text is the lesson's own, no token in it; the formulas render as KaTeX."""
    st.subheader("Summary: the whole computation on one page")
    lines = ["| concept | formula | shape | meaning |", "|---|---|---|---|"]
    lines += [
        f"| {row.concept} | ${row.formula}$ | ${row.symbols} = {row.sizes_latex}$ | {row.meaning} |"
        for row in summary_rows(result)
    ]
    st.markdown("\n".join(lines))
