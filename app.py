"""attnviz home: what self-attention is, the complete formula, why it matters, where to go next."""

import streamlit as st

from attnviz import FORMULA
from attnviz.ui import link_query, page_setup, show_matrix
from attnviz.ui.frame import lesson_pages
from attnviz.ui.text import md_escape

example = page_setup("Home", icon="🏠")
r = example.result

st.title("attnviz: self-attention, step by step")
st.markdown(
    "**Self-attention** is the core building block of the Transformer. It lets every token in a "
    "sequence attend to every other token, so the model can capture long-range dependencies "
    "and context. The input embeddings are turned into **queries** Q, **keys** K and **values** "
    "V; each query is compared with every key (the **attention scores**), the scores are "
    "**scaled**, a softmax turns them into the **attention matrix**, and the matrix mixes the "
    "values into the **attention output**."
)
st.subheader("The complete formula")
st.latex(FORMULA)

left, right = st.columns([3, 2])
with left:
    sentence = " ".join(example.tokens[:12]) + (" …" if r.n > 12 else "")
    st.markdown(f"Live, for **{md_escape(sentence)}** ({r.n} tokens):")
    show_matrix(
        r.attention,
        example.labels,
        example.labels,
        key="home_A",
        title="Attention matrix A",
        kind="probability",
    )
with right:
    st.subheader("Where to go next")
    for path, label, what in lesson_pages():
        st.page_link(path, label=label, query_params=link_query())
        st.caption(what)
    st.caption(
        "Every page shares the sidebar's settings, and the URL holds them: copy it to "
        "share exactly what you see."
    )

st.subheader("Why self-attention matters")
st.markdown(
    "Self-attention lets each token gather information from all the other tokens in the "
    "sequence. It is the foundation of the **Transformer**, **BERT**, **GPT**, **T5**, "
    "**ViT**, **LLaMA**, **Gemma**, **Qwen**, **Mistral**, **DeepSeek**, **Phi** and modern "
    "large language models (LLMs)."
)
