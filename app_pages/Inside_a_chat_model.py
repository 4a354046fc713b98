"""Inside a chat model: SmolLM2-135M-Instruct predicting, generating, and every head open."""

import streamlit as st

from attnviz.serve.inside_a_chat_model import chat_turn, display_tokens, prompt_run
from attnviz.ui import page_settings
from attnviz.ui.pages.inside_a_chat_model import (
    about_the_model,
    block_picture,
    chat_model,
    keep_choices,
    link_warnings,
    next_token_section,
    prompt_box,
    reading_note,
    sampling_controls,
    start_session,
    sync_link,
    token_strip,
)
from attnviz.ui.pages.inside_a_chat_model_generate import generation_section
from attnviz.ui.pages.inside_a_chat_model_heads import (
    HEAD_STEPS,
    chosen_head,
    grid_section,
    head_picker,
    head_steps_section,
)
from attnviz.ui.stepper import after_chart, lesson_steps
from attnviz.ui.text import learning_goal

page_settings()  # none of them used: the model's sizes and weights are its own
start_session()
show = lesson_steps()  # in projector mode one at a time; 2a to 2e: one head, step by step
NEXT, GENERATE, GRID = (2 + len(HEAD_STEPS) + k for k in range(3))  # steps 7, 8 and 9
keep_choices()  # a step draws only its own widgets: the others keep their values
head_steps = [k for k in range(2, 2 + len(HEAD_STEPS)) if show(k)]

if show(1):  # the title and the goal on the first screen only (a projector: after its picture)
    with after_chart("title"):
        st.title("Inside a chat model: SmolLM2, predicting and generating")
        learning_goal(
            "that a modern chat model's attention is the lesson's formula with a causal mask, "
            "rotated queries and keys, and keys and values shared among heads."
        )
model = chat_model()
c = model.config
if show(1):
    after_chart("intro").markdown(about_the_model(model))
link_warnings()

if show(1):
    st.header("1. The prompt, as tokens")
text = prompt_box(drawn=show(1))  # stops the page when the prompt is empty
with chat_turn(model, text):  # a new prompt: the rest of the run in the chat model's turn
    with st.spinner("Running the model on the prompt…"):
        run = prompt_run(model, text)  # in the heavy queue's turn
    labels = display_tokens(run.tokens)
    if show(1):
        block_picture(model)  # the decoder's block, whose attention the page opens next
        reading_note(model, run)
        token_strip(run)

    if len(head_steps) > 1:  # every step at once: the section's heading (a projector: the bar's)
        st.header("2. One head of the block, step by step")
    if head_steps:  # the head's picker above its steps (on a projector: each step's, after it)
        with after_chart("head_picker"):
            layer, head = head_picker(c)
        head_steps_section(model, run, text, labels, layer, head, [k - 2 for k in head_steps])
    elif not show(GRID):
        layer, head = chosen_head()

    if show(NEXT):
        st.header("3. The next token")
        with after_chart("sampling"):  # on a projector the controls after the bars
            temperature, top_k, pick = sampling_controls()
        next_token_section(model, run, temperature, top_k)
    elif not show(GENERATE):
        temperature, top_k, pick = sampling_controls(drawn=False)

    if show(GENERATE):
        st.header("4. Generate, token by token")
        if not show(NEXT):  # on a projector: what generation uses, on its own step too
            with st.expander("The sampling (step 3) and the head (step 2)"):
                temperature, top_k, pick = sampling_controls()
                if not show(GRID):
                    layer, head = head_picker(c)
        generation_section(model, run, text, temperature, top_k, pick, layer, head)

    if show(GRID):
        st.header("5. Every head at a glance")
        if not head_steps:  # on a projector the picker after the grid
            with after_chart("picker"):
                layer, head = head_picker(c)
        grid_section(model, run, text, layer, head)
    sync_link()
