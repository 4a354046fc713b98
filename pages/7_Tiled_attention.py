"""Attention without the n × n matrix: FlashAttention's blocks and running softmax, step by step."""

import numpy as np
import streamlit as st

from attnviz.charts.tiled_memory import format_bytes
from attnviz.limits import MAX_CORE_N
from attnviz.tiled import DEFAULT_BLOCK_SIZE, ONLINE_SOFTMAX, attention_memory, tiled_attention
from attnviz.ui import dims, page_setup, show_matrix
from attnviz.ui.pages.tiled_attention import (
    block_size_input,
    block_slider,
    show_memory,
    show_row_update,
    show_running_output,
    show_step,
)

example = page_setup("Tiled attention")
r, labels, s = example.result, example.labels, example.settings
n = r.n

st.title("Memory-efficient (tiled) attention")
biggest = attention_memory(MAX_CORE_N)
st.markdown(
    "The n × n matrix of scores is what limits how long a sequence attention can take: at "
    f"n = {MAX_CORE_N} one float64 copy is {format_bytes(biggest.full)}. FlashAttention never "
    "builds it. It walks over the keys in **blocks of b**, and for every query row keeps only "
    "a running maximum **m**, a running normaliser **l** and a running output **Õ**."
)
b = block_size_input(n)
tiled = tiled_attention(
    r.Q, r.K, r.V, block_size=b, mask=r.mask, scale=s.scale, temperature=s.temperature, trace=True
)
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
gap = float(np.max(np.abs(tiled.output - r.output)))
st.markdown(
    f"Largest difference between the tiled output and the full softmax(S) V, over all "
    f"{n} × {r.d_v} entries: **{gap:.3g}**"
    + (" — rounding in the last bits of float64, the same answer." if gap < 1e-12 else ".")
)
left, right = st.columns(2)
with left:
    show_matrix(
        tiled.output,
        labels,
        dims(r.d_v),
        key="tile_output",
        title="Tiled: Õ / l",
        col_title="value dimension c",
    )
with right:
    show_matrix(
        r.output,
        labels,
        dims(r.d_v),
        key="tile_full_output",
        title="Full: softmax(S)V",
        col_title="value dimension c",
    )

st.header("Memory as n grows")
show_memory(n, b)
