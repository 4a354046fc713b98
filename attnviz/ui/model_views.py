"""The real-model page's views: one head of all-MiniLM-L6-v2, step by step.

``r`` is one head recomputed on its own (``ModelRun.head``, an ``AttentionResult``): Q, K
(n, d_k); S, S', A (n, n). Chart keys start with ``model_``.
"""

from attnviz.ui.matrix import dims, show_matrix
from attnviz.ui.views import cell_inspector, step_header


def queries_and_keys(r, labels, layer, head):
    """Q = XW_Q^h + b_Q^h and K = XW_K^h + b_K^h of one head: where they come from, then both."""
    n = r.n
    step_header(
        f"Queries and keys of layer {layer}, head {head}",
        r"Q = XW_Q^h + b_Q^h, \quad K = XW_K^h + b_K^h",
        rf"Q, K \in \mathbb{{R}}^{{{n} \times {r.d_k}}}",
        f"X is layer {layer}'s input ({n} × {r.d_model}): "
        + (
            "the word pieces' embeddings plus their positions, normalised. "
            if layer == 0
            else f"the output of layer {layer - 1}. "
        )
        + f"W_Q^h is column block {head} of the layer's query weights ({r.d_model} × {r.d_k}) and "
        "b_Q^h its bias, both learned in training; the same for the keys.",
    )
    show_matrix(r.Q, labels, dims(r.d_k), key="model_Q", title="Q", col_title="d_k dimension")
    show_matrix(r.K, labels, dims(r.d_k), key="model_K", title="K", col_title="d_k dimension")


def scores_and_attention(r, labels, layer, head):
    """S, S' and A of one head (a click on a cell opens it in the cell inspector below)."""
    n = r.n
    step_header(
        f"Scores, scaled scores and attention of layer {layer}, head {head}",
        r"S = QK^T, \quad S' = \frac{S}{\sqrt{d_k}}, \quad A = \mathrm{softmax}(S')",
        rf"\sqrt{{d_k}} = \sqrt{{{r.d_k}}} = {r.scale_factor:.4g}, \quad A \in \mathbb{{R}}^{{{n} "
        rf"\times {n}}}",
        "No mask: in an encoder every word piece sees every other one. **Click a cell** of S, S' "
        "or A to see its arithmetic below.",
    )
    matrices = [
        ("model_S", r.scores, "S = QK^T", "S_ij", "signed"),
        ("model_S_scaled", r.scaled_scores, "S' = S / √d_k", "S'_ij", "signed"),
        ("model_A", r.attention, "A = softmax(S')", "A_ij", "probability"),
    ]
    clicks = [
        show_matrix(M, labels, labels, key=key, title=t, value_name=v, kind=kind, selectable=True)
        for key, M, t, v, kind in matrices
    ]
    cell_inspector(r, labels, next((c for c in clicks if c is not None), None))
