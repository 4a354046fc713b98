"""A trained Transformer, head by head: the same formula with learned weights, 72 heads."""

import streamlit as st

from attnviz import token_labels
from attnviz.serve.real_model import model_run
from attnviz.ui import page_settings
from attnviz.ui.pages.real_model import (
    pretrained_model,
    reading_notes,
    sentence_for_model,
    word_pieces,
)
from attnviz.ui.pages.real_model_summaries import (
    chosen_head,
    layer_summaries,
    summary_run,
)
from attnviz.ui.stepper import after_chart, first_screen, intro, lesson_steps

settings = page_settings()  # the sidebar's toy example is not needed here
show = lesson_steps()  # in projector mode one at a time

if first_screen(show):  # the title and the goal on the first screen only
    with intro():
        st.markdown(
            "BERT, GPT and every Transformer since compute attention with the formula of the "
            "lessons (the newest add to it, e.g. rotary positions applied to q and k, keys and "
            "values shared among heads, or a window of recent tokens). Here is a real one: "
            "**all-MiniLM-L6-v2**, a small BERT-style encoder (6 layers of 12 heads, d_model = "
            "384, d_k = 32 per head, 22.7 million weights learned from text). This page runs it in "
            "numpy with the same `self_attention` the other pages use. The sidebar's d_model, d_k, "
            "seed, mask, scaling and temperature do not apply: the model's are fixed. What you "
            "type is read as text: a typed [CLS] becomes the pieces [, cl, ##s, ], so the only "
            "[CLS] and [SEP] are the ones the model puts around the sentence."
        )
with after_chart("sentence"):  # on a projector the sentence's box after the step's chart
    text, where = sentence_for_model(settings)
model = pretrained_model()
if not text.strip():
    st.warning("The sentence is empty: type a few words for the model to read.", icon="✍️")
    st.stop()
with st.spinner("Running the model on the sentence…"):  # shown past half a second
    run = model_run(model, text)
labels = token_labels(run.tokens)
if first_screen(show):
    with after_chart("notes"):
        reading_notes(run, model, where)

if show(1):
    st.header("1. Word pieces")
    word_pieces(run)

if show(2) or show(3):  # sections 2 to 5: picking a head reruns them alone (it keeps the text)
    chosen_head(text, parts=("head",) * show(2) + ("pair",) * show(3))

if show(4):
    st.header("6. Each layer at a glance: the heads' average and attention rollout")
    after_chart("layers").markdown(
        "These weights were learned from text, not drawn at random as on the earlier pages: the "
        "patterns come from training. Two summaries of a layer: the mean of its heads, and "
        "attention rollout (Abnar & Zuidema, 2020), which multiplies the layers' means, with the "
        "residual path mixed in, to follow the weights from the input word pieces up to that layer."
    )
    layer_summaries(*summary_run(model, run, labels))
