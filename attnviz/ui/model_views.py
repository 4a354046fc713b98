"""The real-model page's views: the word pieces, the heads in words, one head step by step.

``run`` is a sentence through the model (``attnviz.ui.model.ModelRun``): attention
(n_layers, n_heads, n, n) and its head statistics. ``r`` is one head recomputed on its own
(``ModelRun.head``, an ``AttentionResult``): Q, K (n, d_k); S, S', A (n, n). Widget and chart
keys start with ``model_``.
"""

import numpy as np
import streamlit as st

from attnviz.limits import MAX_MODEL_TOKENS
from attnviz.model.head_stats import describe
from attnviz.ui.matrix import dims, show_matrix
from attnviz.ui.model import apply_pending_head, grid_chart
from attnviz.ui.views import cell_inspector, md_escape, step_header


def reading_notes(run, model, where):
    """Which sentence the model reads and where its files come from; a warning if it was cut."""
    st.caption(f"The model reads {where}. Its files come from {md_escape(model.source)}.")
    if run.cut:
        st.warning(
            f"The text has {run.n_pieces} word pieces; this page reads the first "
            f"{MAX_MODEL_TOKENS - 1} and [SEP] (its limit, {MAX_MODEL_TOKENS} word pieces).",
            icon="✂️",
        )


def word_pieces(run):
    """The n word pieces the model reads, [CLS] and [SEP] included, and how text becomes them."""
    st.markdown(
        f"**{run.n} word pieces:** " + " · ".join(md_escape(piece) for piece in run.tokens) + "  \n"
        "The tokenizer lowercases the text and cuts rare words into pieces (## marks a piece that "
        "continues a word). [CLS] is added in front and [SEP] at the end: the model always sees "
        "them."
    )


def heads_in_words(stats):
    """What the head statistics say, then how many heads park their weight on [CLS] or [SEP]."""
    st.markdown("\n".join(f"- {md_escape(line)}" for line in describe(stats)))
    parked = int(((stats.cls + stats.sep) > 0.5).sum())
    st.markdown(
        f"Here {parked} of the {stats.cls.size} heads put more than half of their weight on "
        "[CLS] or [SEP]. A softmax row must sum to 1, so a head with nothing useful to look up "
        "for a word piece still has to put its weight somewhere: many park it on [CLS] or "
        "[SEP], which are always there."
    )


def head_picker(run, labels):
    """Layer and head radios over the grid of every head; returns the (layer, head) chosen.

    A click on a thumbnail is applied to the radios on the rerun it causes.
    """
    apply_pending_head()
    c1, c2 = st.columns([1, 2])
    layer = c1.radio("Layer", range(run.config.n_layers), key="model_layer", horizontal=True)
    head = c2.radio("Head", range(run.config.n_heads), key="model_head", horizontal=True)
    grid_chart(run, labels, (layer, head))
    return layer, head


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


def same_as_forward_pass(r, run, layer, head):
    """The head computed on its own against the whole forward pass: max |A - A_model|."""
    n = r.n
    diff = float(np.abs(r.attention - run.attention[layer, head]).max())
    same = "0: the same numbers to the last bit" if diff == 0 else f"{diff:.1e}"
    st.markdown(
        f"The head above is computed on its own, `attnviz.self_attention(X, W_Q^h, W_K^h, W_V^h)` "
        f"with the model's biases, from layer {layer}'s input X. It gives the A of the model's "
        f"whole forward pass (the grid, all heads of a layer at once) again: the largest "
        f"difference over its {n} × {n} weights is **{same}**. What makes one head look at [CLS] "
        "and another at the previous word piece is only the numbers in its W_Q^h and W_K^h, "
        "learned in training. The whole "
        "forward pass (heads joined by W_O, residual sums, LayerNorm, feed-forward) matches "
        "Hugging Face's PyTorch model to within 1e-5 on every attention map "
        "(tests/test_pretrained.py)."
    )
