"""Inside a chat model, sections 2 and 5: one head of the block step by step (RMSNorm, Q and K
before and after RoPE, V, S, S′, the causal A, the output); every head at a glance and the
heads to find."""

import numpy as np
import streamlit as st

from attnviz.causal_lm.findings import INDUCTION_PROMPT, SCORES, THRESHOLD, head_scores
from attnviz.causal_lm.llama import rope
from attnviz.charts.finish import with_shape
from attnviz.charts.model_grid import head_outline
from attnviz.lessons.positions import ROPE_BASE
from attnviz.links.course import CHAT_HEAD_STEPS
from attnviz.serve.inside_a_chat_model import grid_in_turn, head_in_turn
from attnviz.ui.charts import dims, draw, show_matrix
from attnviz.ui.pages.inside_a_chat_model import KEYS
from attnviz.ui.sidebar import is_present, palette
from attnviz.ui.stepper import after_chart
from attnviz.ui.text import md_escape, notice, step_header

HEAD_STEPS = CHAT_HEAD_STEPS  # section 2's parts: one step each in projector mode


def head_picker(config):
    """Block and head selectors; returns (layer, head)."""
    left, right = st.columns(2)
    layer = left.selectbox("Block", list(range(config.n_layers)), key=KEYS["layer"])
    head = right.selectbox(
        "Query head",
        list(range(config.n_heads)),
        key=KEYS["head"],
        format_func=lambda h: f"{h} (reads key/value head {config.group_of(h)})",
    )
    return layer, head


def chosen_head():
    """(layer, head) as picked, on a step that does not draw the picker."""
    return st.session_state[KEYS["layer"]], st.session_state[KEYS["head"]]


def grid_section(model, run, text, layer, head):
    """Section 5: every head's A for ``text``'s run (``run``), ``(layer, head)`` outlined, then
    the heads to find."""
    c = model.config
    groups = "; ".join(
        f"query heads {g * c.group_size} to {(g + 1) * c.group_size - 1} share key/value head {g}"
        for g in range(c.n_kv_heads)
    )
    turned = is_present()  # a projector's grid: a head a row, a block a column
    where = (
        "row h is query head h, column l is block l"
        if turned
        else "row l is block l, column h is query head h"
    )
    after_chart("grid").markdown(  # on a projector after the grid
        f"Every one of the {c.n_layers * c.n_heads} heads' A for this prompt: {where}. "
        f"{groups.capitalize()} (grouped-query "
        f"attention: {c.n_heads} queries, {c.n_kv_heads} keys and values per block). Every A is "
        "zero above its diagonal: the causal mask."
    )
    # 30 tiles high leave no room for the tokens beside each: the hover names each head
    shape = run.attention.shape
    outline = (  # per head picked, the rest kept
        head_outline((shape[1], shape[0], *shape[2:]), (head, layer))
        if turned
        else head_outline(shape, (layer, head))
    )
    finished = with_shape(grid_in_turn(model, text, turned, palette()), outline, palette())
    draw(finished, "chat_grid", config={"displaylogo": False})
    findings(run)


def _head_list(found):
    return ", ".join(f"block {layer} head {head} ({score:.2f})" for layer, head, score in found)


def findings(run):
    """Heads that look at the previous token, at the first token, at what followed a repeat."""
    scores = head_scores(run.attention, run.token_ids)
    lines = []
    for name, what in SCORES.items():
        if name == "induction" and scores.induction_queries == 0:
            lines.append(
                f"- **{what.capitalize()}**: this prompt repeats no token, so there is nothing "
                f"to copy. Try “{INDUCTION_PROMPT}”."
            )
            continue
        found = scores.top(name)
        if found:
            lines.append(
                f"- **{what.capitalize()}**: {_head_list(found)} put on average at least "
                f"{THRESHOLD:.0%} of their weight there."
            )
        else:
            best = scores.top(name, k=1, threshold=-1)
            lines.append(
                f"- **{what.capitalize()}**: no head puts {THRESHOLD:.0%} there on this prompt; "
                f"the most is {_head_list(best)}."
            )
    st.markdown("Things to find, measured on this prompt (mean weight over its queries):")
    st.markdown("\n".join(lines))


def head_steps_section(model, run, text, labels, layer, head, parts):
    """Section 2: the parts of HEAD_STEPS numbered in ``parts`` (0 to 4: every one, or in
    projector mode the step's one)."""
    if not parts:
        return
    c = model.config
    with st.spinner("Recomputing the head…"):
        h = head_in_turn(model, text, layer, head)
    if 0 in parts:
        after_chart("head_intro").markdown(
            f"Block {layer}, query head {head}, which reads key/value head {h.group}. Each step "
            "below is computed from the stream entering the block, with this head's own rows of "
            "the weights."
        )
    for part in parts:
        (_normalised, _queries_and_keys, _values, _scores, _output)[part](h, run, labels, c)


def _normalised(h, run, labels, c):
    step_header(
        HEAD_STEPS[0],
        r"\hat{x} = \frac{x}{\sqrt{\mathrm{mean}(x^2) + \epsilon}} \odot g",
        rf"({run.n} \times {c.d_model})",
        "Each token's row is divided by its root mean square and scaled by learned gains: "
        "no mean subtracted, no bias (the 2017 Transformer used LayerNorm after each part).",
    )
    show_matrix(h.x_hat, labels, dims(c.d_model), key="chat_xhat", title="x̂", family="X")


def _queries_and_keys(h, run, labels, c):
    d = c.d_head
    step_header(
        HEAD_STEPS[1],
        r"Q = \mathrm{RoPE}(\hat{x} W_Q^{h\,T}),\; K = \mathrm{RoPE}(\hat{x} W_K^{g\,T})",
        rf"({run.n} \times {d})",
        f"RoPE turns each pair of columns (i, i + {d // 2}) of the query or key at position p by "
        f"the angle p·θᵢ, θᵢ = {c.rope_base:,.0f}^(−2i/{d}): column pair 0 turns one radian per "
        f"position, pair {d // 2 - 1} {1 / c.rope_base ** ((d - 2) / d):.2g} radians. The "
        f"Positions page pairs neighbouring columns (2i, 2i + 1) with base {ROPE_BASE:,.0f}: "
        "which columns make a pair is a fixed reordering of the dimensions (this model's "
        "weights were trained with this one), and the base is the model's choice. Both pages "
        "count an offset as the query's position minus the key's.",
    )
    left, right = st.columns(2)
    with left:
        show_matrix(h.Q_raw, labels, dims(d), key="chat_qraw", title="x̂ W_Q: before", family="Q",
                    share=0.5)  # fmt: skip
        show_matrix(h.Q, labels, dims(d), key="chat_q", title="Q: after RoPE", family="Q",
                    share=0.5)  # fmt: skip
    with right:
        show_matrix(h.K_raw, labels, dims(d), key="chat_kraw", title="x̂ W_K: before", family="K",
                    share=0.5)  # fmt: skip
        show_matrix(h.K, labels, dims(d), key="chat_k", title="K: after RoPE", family="K",
                    share=0.5)  # fmt: skip
    offset_table(h, labels, c)


def _values(h, run, labels, c):
    d = c.d_head
    step_header(
        HEAD_STEPS[2], r"V = \hat{x} W_V^{g\,T}", rf"({run.n} \times {d})",
        "Values are not rotated: position enters only through q · k.",
    )  # fmt: skip
    show_matrix(h.V, labels, dims(d), key="chat_v", title="V", family="V")


def _scores(h, run, labels, c):
    d = c.d_head
    step_header(
        HEAD_STEPS[3],
        r"S = QK^T,\; S' = S/\sqrt{" + str(d) + r"},\; A = \mathrm{softmax}(S' + M)",
        rf"({run.n} \times {run.n})",
        "The same steps as the lessons'. M is the causal mask: −∞ above the diagonal.",
    )
    bound = float(np.abs(h.S).max())
    left, right = st.columns(2)
    with left:
        show_matrix(h.S, labels, labels, key="chat_s", title="S = QKᵀ", family="S",
                    value_range=bound, share=0.5)  # fmt: skip
    with right:
        show_matrix(h.S_scaled, labels, labels, key="chat_s2", family="S", value_range=bound,
                    title=f"S′ = S / √d_k (= {np.sqrt(d):g})", share=0.5)  # fmt: skip
    show_matrix(h.A, labels, labels, key="chat_a", title="A (causal)", family="A",
                kind="probability", mask=h.mask)  # fmt: skip
    diff = float(np.abs(h.A - run.attention[h.layer, h.head]).max())
    notice(
        f"This A, recomputed from the weights, differs from the one the whole forward pass "
        f"gave (the grid's) by at most {diff:.1e}. Row 0 is 1 on the first token: it sees only "
        "itself."
    )


def _output(h, run, labels, c):
    d = c.d_head
    step_header(
        HEAD_STEPS[4], r"\mathrm{head} = AV", rf"({run.n} \times {d})",
        f"Each row mixes the values of the tokens up to it. The {c.n_heads} heads' outputs are "
        f"joined ({c.n_heads * d} columns) and multiplied by W_O, added to the stream, then the "
        "SwiGLU MLP follows.",
    )  # fmt: skip
    show_matrix(h.output, labels, dims(d), key="chat_out", title="A V", family="O")


def offset_table(h, labels, c):
    """q · k of the same two vectors placed at several positions: equal at equal offsets."""
    n = h.Q_raw.shape[0]
    i, j = n - 1, max(n - 2, 0)
    q, k = h.Q_raw[i][None, :], h.K_raw[j][None, :]
    rows = []
    for p_q, p_k in [(i, j), (i + 10, j + 10), (i + 100, j + 100), (i, i), (i + 5, j)]:
        value = float(rope(q, [p_q], c.rope_base)[0] @ rope(k, [p_k], c.rope_base)[0])
        rows.append(
            {
                "query at": p_q,
                "key at": p_k,
                "offset (query − key)": p_q - p_k,
                "q · k": round(value, 4),
            }
        )
    st.table(rows)
    st.markdown(
        f"The query of “{md_escape(labels[i])}” and the key of “{md_escape(labels[j])}” "
        "(before RoPE), placed at other positions: q · k stays the same at the same offset "
        "(rows 1 to 3, up to float32 rounding) and changes with it (rows 4 and 5). RoPE makes "
        "attention depend on how far apart two tokens are, not where they are; the "
        "sinusoidal positions of the Positions page are added to X once, at the input, "
        "and every block sees them mixed into the token's meaning."
    )
