"""Watch a head learn: train a tiny GPT in the page and see its attention heads take shape."""

import streamlit as st

from attnviz.serve.watch_a_head_learn import finished_run, report_of
from attnviz.ui import page_settings
from attnviz.ui.pages.watch_a_head_learn import (
    PRESET_D_K,
    choices,
    task_explanation,
    train_button,
)
from attnviz.ui.pages.watch_a_head_learn_views import (
    generation,
    heads_over_training,
    loss_summary,
    random_heads,
    scaling_comparison,
)
from attnviz.ui.sidebar import is_present
from attnviz.ui.stepper import after_chart, first_screen, intro, lesson_steps

settings = page_settings()
show = lesson_steps()  # in projector mode one at a time

if first_screen(show, 0):  # the title and the goal on the first screen only
    with intro():
        st.markdown(
            "Most pages here draw W_Q, W_K and W_V at random or take them from you; the real-model "
            "page shows weights learned elsewhere. Here you watch the learning itself: a tiny GPT "
            "(a decoder-only Transformer: token and position embeddings, 1 or 2 layers of causal "
            "self-attention, each head the formula of the lessons with the causal mask, layer "
            "norms and an optional MLP) is trained in numpy on a small task while you watch. Its "
            "forward and backward passes are written out by hand in `attnviz/tiny_gpt/`; training "
            "uses Adam."
        )
        st.latex(r"A = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}} + M\right)")

with after_chart("controls"):  # on a projector after the heads' picture, with what follows
    choice = choices(settings.seed, draw=show(0) or not is_present())  # step 0's widgets only
if show(0):
    with after_chart("task"):
        task_explanation(choice)
    with after_chart("train"):
        run = train_button(choice)
else:
    run = finished_run(choice, scale=True)
if run is None:
    if show(0):
        random_heads(choice)
    else:
        st.info("Train the model on step 0 first: this step shows what it learned.", icon="🏋️")
    st.stop()
report = report_of(choice, run)


if show(1):
    st.header("1. The loss")
    loss_summary(run, report)

if show(2):
    if not is_present():  # a projector's bar names the step: the heads and slider need the room
        st.header("2. Every head, checkpoint by checkpoint")
    after_chart("heads").markdown(
        "Move the slider to go back through training: each panel is one head's attention matrix A "
        "for the same example sequence, with the weights saved at that step."
    )
    heads_over_training(report, run)

if show(3):
    st.header("3. Why scale, measured")
    after_chart("scaling").markdown(
        "The *Why scale* page showed that without the division by √d_k the scores grow like "
        "√d_k, the softmax saturates and its gradient vanishes. Without the division the scores "
        f"are √d_k times larger: here d_k = {run.config.d_k}, a factor of "
        f"{run.config.d_k**0.5:.2f}. The larger d_k, the larger the factor: ⚖️ at the top trains "
        f"one head of d_k = {PRESET_D_K} both ways, and the table below compares every d_k "
        "trained."
    )
    scaling_comparison(choice, run, report)

if show(4):
    st.header("4. Generate")
    after_chart("generate").markdown(  # on a projector after the probabilities
        "The trained model predicts a probability for every token of its vocabulary. Temperature "
        "sharpens (below 1) or flattens (above 1) them; top-k keeps only the k most probable. "
        "Sample to append a token drawn from them, and see the next prediction."
    )
    generation(choice, run)
