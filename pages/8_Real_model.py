"""A real pretrained Transformer: 72 heads, each the same formula with learned weights."""

import numpy as np
import streamlit as st

from attnviz import token_labels
from attnviz.head_stats import describe
from attnviz.limits import MAX_MODEL_TOKENS
from attnviz.ui import shared_settings
from attnviz.ui.model import (
    apply_pending_head,
    grid_chart,
    head_summary,
    model_run,
    pretrained_model,
    sentence_for_model,
)
from attnviz.ui.model_views import queries_and_keys, scores_and_attention
from attnviz.ui.views import md_escape

st.set_page_config(page_title="Real model · attnviz", page_icon="🔎", layout="wide")
settings = shared_settings("Real model")  # the sidebar; its toy example is not needed here

st.title("A real model: all-MiniLM-L6-v2, head by head")
st.markdown(
    "BERT, GPT and every Transformer since compute attention with the formula of the lessons. "
    "Here is a real one: **all-MiniLM-L6-v2**, a small BERT-style encoder (6 layers of 12 "
    "heads, d_model = 384, d_k = 32 per head, 22.7 million weights learned from text). This "
    "page runs it in numpy with the same `self_attention` the other pages use. The sidebar's "
    "d_model, d_k, seed, mask, scaling and temperature do not apply: the model's are fixed."
)
text, where = sentence_for_model(settings)
model = pretrained_model()
if not text.strip():
    st.warning("The sentence is empty: type a few words for the model to read.", icon="✍️")
    st.stop()
run = model_run(model, text)
stats = run.stats
n, labels = run.n, token_labels(run.tokens)
st.caption(f"The model reads {where}. Its files come from {md_escape(model.source)}.")
if run.cut:
    st.warning(
        f"The text has {run.n_pieces} word pieces; this page reads the first "
        f"{MAX_MODEL_TOKENS - 1} and [SEP] (its limit, {MAX_MODEL_TOKENS} word pieces).",
        icon="✂️",
    )

st.header("1. Word pieces")
st.markdown(
    f"**{n} word pieces:** " + " · ".join(md_escape(piece) for piece in run.tokens) + "  \n"
    "The tokenizer lowercases the text and cuts rare words into pieces (## marks a piece that "
    "continues a word). [CLS] is added in front and [SEP] at the end: the model always sees them."
)

st.header("2. All 72 heads")
st.markdown(
    "Each thumbnail is one head's attention matrix A for this sentence (row i: how query i "
    "spreads its weight over the keys j). Layers go down, heads across. **Click a head** (or "
    "choose it below) to open it step by step. What the numbers say:"
)
st.markdown("\n".join(f"- {md_escape(line)}" for line in describe(stats)))
parked = int(((stats.cls + stats.sep) > 0.5).sum())
st.markdown(
    f"Here {parked} of the {stats.cls.size} heads put more than half of their weight on [CLS] "
    "or [SEP]. A softmax row must sum to 1, so a head with nothing useful to look up for a "
    "word piece still has to put its weight somewhere: many park it on [CLS] or [SEP], which "
    "are always there."
)
apply_pending_head()
c1, c2 = st.columns([1, 2])
layer = c1.radio("Layer", range(run.config.n_layers), key="model_layer", horizontal=True)
head = c2.radio("Head", range(run.config.n_heads), key="model_head", horizontal=True)
grid_chart(run, labels, (layer, head))

r = run.head(model, layer, head)  # recomputed from the layer's input X: see section 4
st.header(f"3. Layer {layer}, head {head}, step by step")
head_summary(stats, layer, head)
queries_and_keys(r, labels, layer, head)
scores_and_attention(r, labels, layer, head)

st.header("4. The lessons' formula, with learned weights")
diff = float(np.abs(r.attention - run.attention[layer, head]).max())
st.latex(r"A = \mathrm{softmax}\left(\frac{(XW_Q^h + b_Q^h)(XW_K^h + b_K^h)^T}{\sqrt{d_k}}\right)")
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
