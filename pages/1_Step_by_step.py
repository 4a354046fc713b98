"""Every matrix from X to the output, live, with the arithmetic behind any cell (sections 1-10)."""

import streamlit as st

from attnviz import FORMULA
from attnviz.ui import dims, inspectors, page_setup, show_matrix, steps
from attnviz.ui.pages.step_by_step import downloads, settings_caption
from attnviz.ui.text import step_header

example = page_setup("Step by step")
r, labels, s = example.result, example.labels, example.settings
n, d_model, d_k, d_v = r.n, r.d_model, r.d_k, r.d_v

st.title("Self-attention, step by step")
st.caption(settings_caption(r, s))

# 1. Input embedding
step_header(
    "1. Input embedding X",
    r"X \in \mathbb{R}^{n \times d_{model}}",
    rf"X \in \mathbb{{R}}^{{{n} \times {d_model}}}",
    f"One row per token: the {n} tokens are the rows, the {d_model} embedding dimensions the "
    "columns. "
    + (
        "Here X = token embedding + sinusoidal positional encoding."
        if s.positions
        else "No positions are added, so two equal tokens have equal rows."
    ),
)
show_matrix(r.X, labels, dims(d_model), key="X", title="X", col_title="embedding dimension")

# 2-4. Query, key and value projections, and the inspector of their cells
steps.projection_steps(r, labels, ["2. Query (Q)", "3. Key (K)", "4. Value (V)"])

# 5. Attention score
step_header(
    "5. Attention score S",
    r"S = QK^T, \quad S_{ij} = Q_i \cdot K_j",
    rf"S \in \mathbb{{R}}^{{{n} \times {n}}}",
    "Every query is compared with every key by a dot product: a large S_ij means query i "
    "matches key j well. **Click a cell** of S, S' or A to see its arithmetic.",
)
click_S = steps.scores_matrix(r, labels)

# 6. Scaling
step_header(
    "6. Scaling",
    r"S' = \frac{QK^T}{\sqrt{d_k}}",
    rf"\sqrt{{d_k}} = \sqrt{{{d_k}}} = {d_k**0.5:.4g}" if s.scale else r"\text{scaling is off}",
    "A dot product of d_k terms grows like √d_k; dividing by √d_k keeps the softmax out of its "
    "saturated region, where one weight takes everything."
    + ("" if s.scale else " **Scaling is off** in the sidebar, so S' = S."),
)
click_S_scaled = steps.scaled_scores_matrix(r, labels)

# 7. Softmax attention matrix
notes = steps.softmax_notes(s)
step_header(
    "7. Softmax attention matrix A",
    r"A = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right), \quad \sum_{j=1}^{n} A_{ij} = 1",
    rf"A \in \mathbb{{R}}^{{{n} \times {n}}}",
    "Each row becomes probabilities over the keys: how much query i attends to key j. "
    + " ".join(notes),
)
click_A = steps.softmax_matrices(r, labels, notes)
inspectors.cell_inspector(r, labels, click_S or click_S_scaled or click_A)  # the first cell clicked

# 8. Attention output
step_header(
    "8. Attention output",
    r"\mathrm{Output} = AV = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V",
    rf"\mathrm{{Output}} \in \mathbb{{R}}^{{{n} \times {d_v}}}",
    "Row i of the output is an average of the rows of V, weighted by row i of A. "
    "**Click a cell** to see the sum.",
)
inspectors.output_inspector(r, labels, steps.output_matrix(r, labels))

# 9-10. The complete formula and the dimensions
st.header("9. Complete self-attention formula")
st.latex(FORMULA)
st.markdown("This is the fundamental equation of the Transformer architecture.")
st.header("10. Matrix dimensions")
st.dataframe(steps.dimension_table(r), hide_index=True, width="content")
downloads(example)
