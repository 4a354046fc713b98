"""Attention without the n × n matrix: FlashAttention's blocks and running softmax, step by step."""

import streamlit as st

from attnviz.tiled import DEFAULT_BLOCK_SIZE, ONLINE_SOFTMAX
from attnviz.ui import page_setup
from attnviz.ui.pages.tiled_attention import (
    block_size_input,
    block_slider,
    largest_core_matrix,
    run_tiled,
    same_output,
    show_memory,
    show_row_update,
    show_running_output,
    show_step,
)

example = page_setup("Tiled attention")
r, labels, s = example.result, example.labels, example.settings
n = r.n

st.title("Memory-efficient (tiled) attention")
core_n, core_bytes = largest_core_matrix()
st.markdown(
    "The n × n matrix of scores is what limits how long a sequence attention can take: at "
    f"n = {core_n} one float64 copy is {core_bytes}. FlashAttention never "
    "builds it. It walks over the keys in **blocks of b**, and for every query row keeps only "
    "a running maximum **m**, a running normaliser **l** and a running output **Õ**."
)
b = block_size_input(n)
tiled = run_tiled(r, b)
st.caption(
    f"{n} tokens in {tiled.n_blocks} block(s) of b = {b} keys (the last may be shorter); "
    f"d_k = {r.d_k}, d_v = {r.d_v}, mask {s.mask}, scaling {'on' if s.scale else 'off'}, "
    f"T = {s.temperature:g}. attnviz's own default for long sequences is b = "
    f"{DEFAULT_BLOCK_SIZE}, from a measured sweep."
)

st.header("The online softmax")
st.markdown(
    "For each block of keys K_b, V_b with logits S_b (the block's columns of QKᵀ/√d_k), in "
    "order, starting from m = −∞, l = 0, Õ = 0:"
)
st.latex(ONLINE_SOFTMAX)
st.latex(r"\mathrm{Output} = \tilde O / l = \mathrm{softmax}(S)\, V")
st.markdown(
    "Every earlier term was computed against an older maximum; the factor e^(m−m′) moves it to "
    "the new one, so at the end Õ / l is exactly softmax(S) V, without S ever existing whole."
)

st.header("Step through the blocks")
k = block_slider(tiled)
show_step(tiled, k, labels)
show_row_update(tiled, k, labels)
show_running_output(tiled, k, labels, r.output)

st.header("The same output as the full computation")
same_output(tiled, r, labels)

st.header("Memory as n grows")
show_memory(n, b)
