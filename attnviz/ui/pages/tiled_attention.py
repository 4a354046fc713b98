"""The tiled-attention page's views: the block size, one block's step, the memory chart.

Every number is read from a ``TiledResult`` traced by ``attnviz.tiled.tiled_attention`` or
from ``attention_memory``. Widget keys start with ``tile_``.
"""

import math

import numpy as np
import pandas as pd
import streamlit as st

from attnviz.charts.tiled_memory import format_bytes, memory_chart
from attnviz.limits import MAX_CORE_N, MAX_TILED_BLOCKS, MAX_TOKENS
from attnviz.tiled import attention_memory, tiled_attention
from attnviz.ui.charts import dims, draw, show_matrix
from attnviz.ui.projector import data_table


def block_size_input(n):
    """Draw the block size b; return the b used (raised, with a warning, past MAX_TILED_BLOCKS)."""
    b = st.number_input(
        "Block size b (keys per block)",
        1,
        MAX_TOKENS,
        value=2,
        step=1,
        key="tile_block",
        help="How many keys each block holds. b ≥ n is one block: the plain computation.",
    )
    if math.ceil(n / b) > MAX_TILED_BLOCKS:
        used = math.ceil(n / MAX_TILED_BLOCKS)
        st.warning(
            f"b = {b} cuts the {n} keys into {math.ceil(n / b)} blocks; the page steps through at "
            f"most {MAX_TILED_BLOCKS}: using b = {used}. Choose b ≥ {used} to silence this.",
            icon="✂️",
        )
        return used
    return b


def block_slider(tiled):
    """The block to show: a slider over the block index (none when there is only one block)."""
    blocks = tiled.blocks
    if len(blocks) == 1:
        st.caption(f"b = {tiled.block_size} ≥ n = {tiled.n}: one block holds every key.")
        return 0
    if st.session_state.get("tile_step", 0) >= len(blocks):
        st.session_state["tile_step"] = 0
    return st.slider(
        f"Block k (of {len(blocks)}: 0 to {len(blocks) - 1})",
        0,
        len(blocks) - 1,
        value=0,
        key="tile_step",
        help="Step through the blocks of keys in the order the algorithm visits them.",
    )


def _tex(x):
    """A number for LaTeX: -inf as -\\infty."""
    return r"-\infty" if np.isneginf(x) else f"{x:.6g}"


def running_table(tiled, k, labels):
    """DataFrame, one row per query: m, block max, m', rescale, l, l' of block k."""
    step = tiled.steps[k]
    before = tiled.steps[k - 1].row_sum if k else np.zeros(tiled.n)
    return pd.DataFrame(
        {
            "m before": step.row_max_before,
            "block max": step.block_max,
            "m′ after": step.row_max,
            "rescale e^(m−m′)": step.rescale,
            "l before": before,
            "l′ after": step.row_sum,
        },
        index=pd.Index(labels, name="query token"),
    )


def row_update_latex(tiled, k, i):
    """The online-softmax update of query row i in block k, with its numbers (aligned LaTeX)."""
    step = tiled.steps[k]
    l_before = tiled.steps[k - 1].row_sum[i] if k else 0.0
    m, bm, m2 = step.row_max_before[i], step.block_max[i], step.row_max[i]
    keys = (
        rf"j={step.start}"
        if step.stop - step.start == 1
        else rf"{step.start} \le j \le {step.stop - 1}"
    )
    lines = [
        rf"m'_{{{i}}} &= \max\left(m_{{{i}}}, \max_{{{keys}}} S'_{{{i}j}}\right) = "
        rf"\max({_tex(m)}, {_tex(bm)}) = {_tex(m2)}",
        rf"e^{{m_{{{i}}} - m'_{{{i}}}}} &= {_tex(step.rescale[i])}",
        rf"l'_{{{i}}} &= e^{{m_{{{i}}} - m'_{{{i}}}}}\, l_{{{i}}} + \sum_{{{keys}}} "
        rf"e^{{S'_{{{i}j}} - m'_{{{i}}}}} = {_tex(step.rescale[i])} \cdot {_tex(l_before)} + "
        rf"{_tex(step.weights[i].sum())} = {_tex(step.row_sum[i])}",
    ]
    return r"\begin{aligned}" + r" \\ ".join(lines) + r"\end{aligned}"


def show_step(tiled, k, labels):
    """Block k: its logits and weights, the running m, l and rescale, and the running output."""
    step = tiled.steps[k]
    keys = labels[step.start : step.stop]
    st.markdown(
        f"Block {k} holds keys {step.start} to {step.stop - 1}. Only these {len(keys)} "
        f"columns of scores exist now: an n × b = {tiled.n} × {len(keys)} block."
    )
    left, right = st.columns(2)
    with left:
        show_matrix(
            step.logits,
            labels,
            keys,
            key="tile_logits",
            share=0.5,
            family="S",
            title=f"S′_b of block {k} (scaled)",
            value_name="S′_ij",
        )
    with right:
        show_matrix(
            step.weights,
            labels,
            keys,
            key="tile_weights",
            share=0.5,
            family="A",
            title="P̃ = exp(S′_b − m′)",
            value_name="P̃_ij",
            kind="probability",
        )
    st.caption(
        "Left: the block's logits, −∞ where the mask forbids a key. Right: its softmax "
        "numerators against the running maximum m′, each at most 1."
    )
    with st.expander("The raw scores Q K_bᵀ of this block (before scaling and the mask)"):
        show_matrix(step.scores, labels, keys, key="tile_scores", family="S", title="Q K_bᵀ")
    moved = (step.rescale < 1) & np.isfinite(step.row_max_before)
    if k == 0:
        st.markdown(
            "Block 0 is the first: m starts at −∞ and l at 0, so there is nothing to rescale "
            "(e^(m−m′) = 0 times an empty sum)."
        )
    elif moved.any():
        st.markdown(
            f"In block {k} the running maximum rose in **{int(moved.sum())} of {tiled.n} "
            f"rows**: their earlier l and Õ, computed against the old maximum, are multiplied "
            f"by e^(m−m′) (here as small as {step.rescale[moved].min():.4g}) to move them to the "
            "new one. In the other rows the factor is 1."
        )
    else:
        st.markdown(
            f"In block {k} no row's maximum rose: every rescale factor is 1, and the block's "
            "terms are simply added to l and Õ."
        )
    data_table(running_table(tiled, k, labels), width="stretch")


def show_row_update(tiled, k, labels):
    """A query row picked by label, and its update in block k with the numbers."""
    if st.session_state.get("tile_row", 0) >= tiled.n:
        st.session_state["tile_row"] = 0
    i = st.selectbox(
        "Query row to follow",
        range(tiled.n),
        format_func=lambda i: f"{labels[i]} (row {i})",
        key="tile_row",
    )
    st.latex(row_update_latex(tiled, k, i))


def show_running_output(tiled, k, labels, final):
    step = tiled.steps[k]
    show_matrix(
        step.output,
        labels,
        dims(tiled.d_v),
        key="tile_running",
        family="O",
        title=f"Õ / l after block {k}: the output if the keys stopped here",
        value_name="output_ic",
    )
    gap = float(np.max(np.abs(step.output - final)))
    if k == len(tiled.steps) - 1:
        st.markdown(f"This is the last block: Õ / l is the output (largest gap {gap:.3g}).")
    else:
        st.markdown(
            f"Keys {step.stop} to {tiled.n - 1} are still to come: this differs from the final "
            f"output by up to **{gap:.3g}**."
        )


def memory_figures(n, block_size):
    """(ns, full, tiled): attention_memory at powers of two up to MAX_CORE_N, and at n."""
    ns = sorted({2**p for p in range(int(math.log2(MAX_CORE_N)) + 1)} | {n})
    figures = [attention_memory(k, block_size) for k in ns]
    return ns, [f.full for f in figures], [f.tiled for f in figures]


def show_memory(n, block_size):
    ns, full, tiled = memory_figures(n, block_size)
    here, top = attention_memory(n, block_size), attention_memory(MAX_CORE_N, block_size)
    fig = memory_chart(ns, full, tiled, current_n=n, block_size=block_size)
    draw(fig, "tile_memory", title="Memory of attention", config={"displaylogo": False})
    st.markdown(
        f"For this sentence (n = {n}, b = {block_size}, float64): one n × n matrix takes "
        f"**{format_bytes(here.full)}**, one n × b block **{format_bytes(here.tiled)}**, "
        f"{here.ratio:g} times less. At n = {MAX_CORE_N}: {format_bytes(top.full)} against "
        f"{format_bytes(top.tiled)} ({top.ratio:g} times less). The full matrix grows as n², "
        "the block as n × b: doubling n quadruples one and only doubles the other."
    )


def run_tiled(result, block_size):
    """tiled_attention on the result's Q, K, V with its mask, scaling and temperature, every
    block traced (the page's n <= MAX_TOKENS)."""
    return tiled_attention(
        result.Q,
        result.K,
        result.V,
        block_size=block_size,
        mask=result.mask,
        scale=result.scale,
        temperature=result.temperature,
        trace=True,
    )


def same_output(tiled, r, labels):
    """The largest gap between the tiled output and the full softmax(S') V, in words, and the
    two outputs side by side."""
    n = r.n
    gap = float(np.max(np.abs(tiled.output - r.output)))
    st.markdown(
        f"Largest difference between the tiled output and the full softmax(S') V, over all "
        f"{n} × {r.d_v} entries: **{gap:.3g}**"
        + (" — rounding in the last bits of float64, the same answer." if gap < 1e-12 else ".")
    )
    left, right = st.columns(2)
    for place, output, key, title in (
        (left, tiled.output, "tile_output", "Tiled: Õ / l"),
        (right, r.output, "tile_full_output", "Full: softmax(S')V"),
    ):
        with place:
            show_matrix(output, labels, dims(r.d_v), key=key, share=0.5, family="O", title=title)


def largest_core_matrix():
    """(n, its size as text) for one float64 (n, n) matrix at the core's limit MAX_CORE_N."""
    return MAX_CORE_N, format_bytes(attention_memory(MAX_CORE_N).full)
