"""Going further: tiled attention gives softmax(S')V without ever holding the n × n matrix."""

import streamlit as st

from attnviz.tiled import ONLINE_SOFTMAX
from attnviz.ui import lesson
from attnviz.ui.pages import tiled_attention as view
from attnviz.ui.stepper import after_chart, first_screen, intro, lesson_steps

example = lesson()
r, labels, s = example.result, example.labels, example.settings
n = r.n
show = lesson_steps()  # in projector mode one at a time

if first_screen(show):  # the title and the goal on the first screen only
    with intro(random_weights=True):
        core_n, core_bytes = view.largest_core_matrix()
        st.markdown(
            "An optional, more advanced page. The n × n matrix of scores grows like n²: at "
            f"n = {core_n} one float64 copy is {core_bytes}. Tiled attention never builds it. It "
            "walks over the keys in **blocks of b**, and for every query row keeps only a running "
            "maximum **m**, a running normaliser **l** and a running output **Õ**. It still does "
            "every multiplication, so the work stays O(n² d); what it saves is memory. "
            "FlashAttention (Dao et al., 2022) uses this online softmax (Milakov and "
            "Gimelshein, 2018; Rabe and Staats, 2021) to keep each tile in a GPU's small on-chip "
            "memory (SRAM), so that far fewer scores are read from and written to its large, "
            "slow memory (HBM): that is where its speed comes from. Real kernels also cut the "
            "**queries** into blocks; this page keeps all n queries in each step, a "
            "simplification that shows the idea."
        )

with after_chart("block_size"):  # on a projector after the step's chart
    b = view.block_size_input(n)
tiled = view.run_tiled(r, b)
st.caption(
    f"{n} tokens in {tiled.n_blocks} block(s) of b = {b} keys (the last may be shorter); "
    f"d_k = {r.d_k}, d_v = {r.d_v}, mask {s.mask}, scaling {'on' if s.scale else 'off'}, "
    f"T = {s.temperature:g}."
)

if show(1):
    st.header("1. The online softmax")
    seen = ["S' = QKᵀ/√d_k" if r.scale else "S' = QKᵀ (scaling off)"]
    seen += [] if s.temperature == 1 else ["divided by T"]
    seen += [] if r.mask is None else ["−∞ where masked"]
    st.markdown(
        "For each block of keys K_b, V_b with logits S′_b (the block's columns of the logits the "
        f"softmax sees: {', '.join(seen)}), in order, starting from m = −∞, l = 0, Õ = 0:"
    )
    st.latex(ONLINE_SOFTMAX)
    st.latex(r"\mathrm{Output} = \tilde O / l = \mathrm{softmax}(S')\, V")
    st.markdown(
        "Every earlier term was computed against an older maximum; the factor e^(m−m′) moves it to "
        "the new one, so at the end Õ / l is exactly softmax(S') V, without S' ever existing whole."
    )

if show(2):
    st.header("2. Step through the blocks")
    with after_chart("block"):  # on a projector the slider after the step's charts
        k = view.block_slider(tiled)
    view.show_step(tiled, k, labels)
    view.show_row_update(tiled, k, labels)
    view.show_running_output(tiled, k, labels, r.output)

if show(3):
    st.header("3. The same output as the full computation")
    view.same_output(tiled, r, labels)

if show(4):
    st.header("4. Memory as n grows")
    view.show_memory(n, b)
