"""Inside a chat model: SmolLM2-135M-Instruct predicting, generating, and every head open."""

import streamlit as st

from attnviz.ui import page_frame
from attnviz.ui.pages.inside_a_chat_model import (
    chat_model,
    chat_run,
    display_tokens,
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
from attnviz.ui.pages.inside_a_chat_model_heads import grid_section, head_picker, head_steps_section
from attnviz.ui.text import learning_goal

page_frame(
    "Inside a chat model",
    icon="💬",
    page_params=("prompt", "temperature", "top_k", "pick", "generate", "layer", "head"),
    uses=(),
    note="This page uses only its own prompt: the model's sizes and weights are its own.",
)
start_session()

st.title("Inside a chat model: SmolLM2, predicting and generating")
learning_goal(
    "that a modern chat model's attention is the lesson's formula with a causal mask, rotated "
    "queries and keys, and keys and values shared among heads."
)
model = chat_model()
c = model.config
st.markdown(
    f"**SmolLM2-135M-Instruct** is a small chat model of the LLaMA architecture, the design of "
    f"LLaMA, Mistral and Qwen: {c.n_layers} blocks, each with {c.n_heads} query heads of "
    f"{c.d_head} numbers sharing {c.n_kv_heads} key/value heads, d_model = {c.d_model}, and a "
    f"vocabulary of {c.vocab_size:,} byte-level tokens. Its 135 million weights were learned from "
    "text, then tuned to follow instructions; they are stored 4-bit (32 weights share a scale "
    "and an offset), and this page computes with them widened to float32, exactly as the "
    "reference (Hugging Face transformers) does, in numpy on the server's CPU. It reads the "
    "prompt left to right and scores every possible next token."
)
link_warnings()

st.header("1. The prompt, as tokens")
text = prompt_box()
with st.spinner("Running the model on the prompt…"):
    run = chat_run(model, text)
reading_note(model, run)
token_strip(run)
labels = display_tokens(run.tokens)

st.header("2. The next token")
temperature, top_k, pick = sampling_controls()
next_token_section(model, run, temperature, top_k)

st.header("3. Every head at a glance")
layer, head = head_picker(c)
grid_section(model, run, labels, layer, head)

st.header("4. Generate, token by token")
generation_section(model, run, text, temperature, top_k, pick, layer, head)

st.header("5. One head, step by step")
head_steps_section(model, run, text, labels, layer, head)
sync_link()
