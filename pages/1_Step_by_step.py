"""Every matrix from X to the output, live, with the arithmetic behind any cell (sections 1-10)."""

import streamlit as st

from attnviz import FORMULA
from attnviz.ui import dims, page_setup, show_matrix
from attnviz.ui.views import (
    cell_inspector,
    dimension_table,
    downloads,
    output_inspector,
    step_header,
)

example = page_setup("Step by step")
r, labels, s = example.result, example.labels, example.settings
n, d_model, d_k, d_v = r.n, r.d_model, r.d_k, r.d_v

st.title("Self-attention, step by step")
st.caption(
    f"{n} tokens, d_model = {d_model}, d_k = {d_k}, d_v = {d_v}, seed {s.seed}, mask {s.mask}, "
    f"scaling {'on' if s.scale else 'off'}, T = {s.temperature:g}. Change any of them in the "
    "sidebar and every number below is recomputed. Hover a cell for its exact value."
)

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

# 2-4. Query, key and value projections
PROJECTIONS = [
    ("2. Query (Q)", "Q", r.W_Q, r.Q, "k", "what token i is looking for"),
    ("3. Key (K)", "K", r.W_K, r.K, "k", "what token i offers to be matched on"),
    ("4. Value (V)", "V", r.W_V, r.V, "v", "what token i passes on when attended to"),
]
for title, L, W, M, sub, role in PROJECTIONS:
    width = M.shape[1]
    step_header(
        title,
        rf"{L} = XW_{L}, \quad W_{L} \in \mathbb{{R}}^{{d_{{model}} \times d_{sub}}}",
        rf"W_{L} \in \mathbb{{R}}^{{{d_model} \times {width}}}, \quad "
        rf"{L} \in \mathbb{{R}}^{{{n} \times {width}}}",
        f"Each token's row of X is multiplied by W_{L}: row i of {L} is {role}.",
    )
    left, right = st.columns([2, 3])
    with left:
        show_matrix(
            W,
            dims(d_model),
            dims(width),
            key=f"W_{L}",
            title=f"W_{L}",
            row_title="input dimension",
            col_title="output dimension",
        )
    with right:
        show_matrix(
            M,
            labels,
            dims(width),
            key=L,
            title=f"{L} = XW_{L}",
            col_title=f"d_{sub} dimension",
        )

# 5. Attention score
step_header(
    "5. Attention score S",
    r"S = QK^T, \quad S_{ij} = Q_i \cdot K_j",
    rf"S \in \mathbb{{R}}^{{{n} \times {n}}}",
    "Every query is compared with every key by a dot product: a large S_ij means query i "
    "matches key j well. **Click a cell** of S, S' or A to see its arithmetic.",
)
clicks = [
    show_matrix(
        r.scores, labels, labels, key="S", title="S = QK^T", value_name="S_ij", selectable=True
    )
]

# 6. Scaling
step_header(
    "6. Scaling",
    r"S' = \frac{QK^T}{\sqrt{d_k}}",
    rf"\sqrt{{d_k}} = \sqrt{{{d_k}}} = {d_k**0.5:.4g}" if s.scale else r"\text{scaling is off}",
    "A dot product of d_k terms grows like √d_k; dividing by √d_k keeps the softmax out of its "
    "saturated region, where one weight takes everything."
    + ("" if s.scale else " **Scaling is off** in the sidebar, so S' = S."),
)
clicks.append(
    show_matrix(
        r.scaled_scores,
        labels,
        labels,
        key="S_scaled",
        title="S' = S / √d_k",
        value_name="S'_ij",
        selectable=True,
    )
)

# 7. Softmax attention matrix
notes = []
if s.mask == "causal":
    notes.append("The causal mask sets the logits of later keys (above the diagonal) to −∞.")
if s.temperature != 1:
    notes.append(f"The softmax sees S' / T with T = {s.temperature:g}.")
step_header(
    "7. Softmax attention matrix A",
    r"A = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right), \quad \sum_{j=1}^{n} A_{ij} = 1",
    rf"A \in \mathbb{{R}}^{{{n} \times {n}}}",
    "Each row becomes probabilities over the keys: how much query i attends to key j. "
    + " ".join(notes),
)
if notes:
    with st.expander("The logits that fed the softmax (S' / T, −∞ where masked)"):
        show_matrix(r.logits, labels, labels, key="logits", title="logits")
clicks.append(
    show_matrix(
        r.attention,
        labels,
        labels,
        key="A",
        title="A = softmax(S')",
        value_name="A_ij",
        kind="probability",
        selectable=True,
    )
)
sums = r.row_sums
st.markdown(
    f"**Row sums:** {', '.join(f'{v:.3f}' for v in sums[:20])}{' …' if n > 20 else ''} "
    f"(smallest {sums.min():.12f}, largest {sums.max():.12f})"
)
cell_inspector(r, labels, next((c for c in clicks if c is not None), None))

# 8. Attention output
step_header(
    "8. Attention output",
    r"\mathrm{Output} = AV = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V",
    rf"\mathrm{{Output}} \in \mathbb{{R}}^{{{n} \times {d_v}}}",
    "Row i of the output is an average of the rows of V, weighted by row i of A. "
    "**Click a cell** to see the sum.",
)
out_click = show_matrix(
    r.output,
    labels,
    dims(d_v),
    key="output",
    title="Output = AV",
    value_name="Output_ic",
    col_title="value dimension c",
    selectable=True,
)
output_inspector(r, labels, out_click)

# 9-10. The complete formula and the dimensions
st.header("9. Complete self-attention formula")
st.latex(FORMULA)
st.markdown("This is the fundamental equation of the Transformer architecture.")
st.header("10. Matrix dimensions")
st.dataframe(dimension_table(r), hide_index=True, width="content")
downloads(example)
