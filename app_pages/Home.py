"""attnviz home: what self-attention is, the pipeline, the formula, and the course, page by page."""

import streamlit as st

from attnviz import FORMULA
from attnviz.links.course import COURSE, LECTURERS, PAGES
from attnviz.ui import lesson, link_query, show_matrix
from attnviz.ui.charts import show_pipeline
from attnviz.ui.frame import page_of
from attnviz.ui.stepper import after_chart, lesson_steps
from attnviz.ui.text import learning_goal, md_escape, random_weights_note

example = lesson()
r, s = example.result, example.settings

show = lesson_steps()  # in projector mode one at a time
if show(1):
    st.title("attnviz: self-attention, step by step")
    learning_goal(
        "what self-attention computes, in which order, and where each page of this course fits."
    )
    st.subheader("The pipeline, with the sidebar's sizes")
    show_pipeline(r, s)
    with after_chart("home_intro"):  # on a projector after the picture
        st.markdown(
            "**Self-attention** is the building block of the Transformer: it lets every token of a "
            "sequence gather information from every other token. Think of it as a **soft "
            "dictionary lookup**. Each token asks a question, its **query** q; each token "
            "advertises what it holds, its **key** k; and each token has something to pass on, its "
            "**value** v. A query is compared with every key (a dot product: the **score**), the "
            "scores are **scaled** and a softmax turns them into weights that sum to 1 (the "
            "**attention matrix** A), and the token's new vector, the **output**, is the weighted "
            "average of the values. A real dictionary returns the one value whose key matches "
            "exactly; attention returns a blend (the Masks and temperature page turns the blend "
            "into a lookup: as T → 0, each row's weight all goes to its best-matching key, shared "
            "only by keys that tie)."
        )
        st.markdown(
            "Why are queries and keys two different matrices? With one matrix for both, S would be "
            "symmetric (the score of i for j equal to that of j for i), and a token's score with "
            "itself would be the squared length of its own vector, so tokens would tend to attend "
            "to themselves. With W_Q ≠ W_K, *what a token looks for* can differ from *what it "
            "offers*: a pronoun can look for a noun without nouns looking for pronouns."
        )
if show(2):
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
            family="A",
            mask=r.mask,
            title="Attention matrix A",
            kind="probability",
        )
        random_weights_note()
    with right:
        for section in (COURSE, LECTURERS):
            st.subheader("The course, in order" if section == COURSE else section)
            for page in (page for page in PAGES if page.section == section):
                st.page_link(page_of(page), label=page.label, query_params=link_query())
                st.caption(page.summary)
        st.caption(
            "Every page shares the sidebar's settings, and the URL holds them: copy it to "
            "share exactly what you see. Projector mode (top of the sidebar) is for lectures."
        )

    st.subheader("Why self-attention matters")
    st.markdown(
        "Self-attention lets each token gather information from all the other tokens in the "
        "sequence. It is the foundation of the **Transformer**, **BERT**, **GPT**, **T5**, "
        "**ViT**, **LLaMA**, **Gemma**, **Qwen**, **Mistral**, **DeepSeek**, **Phi** and modern "
        "large language models (LLMs)."
    )
