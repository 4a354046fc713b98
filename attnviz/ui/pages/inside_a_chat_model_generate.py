"""Inside a chat model, section 4: generating token by token through the KV cache."""

import numpy as np
import streamlit as st

from attnviz.charts.token_bars import row_bars
from attnviz.limits import MAX_CHAT_GENERATED
from attnviz.serve.inside_a_chat_model import display_tokens, generation_in_turn
from attnviz.ui.charts import dims, draw, show_matrix
from attnviz.ui.pages.inside_a_chat_model import KEYS, STEP_KEY
from attnviz.ui.projector import data_table
from attnviz.ui.stepper import after_chart
from attnviz.ui.text import md_escape

NEW_ROW = "new row (this token)"  # the K and V charts' outline: the row computed for it


def _one_more():
    state = st.session_state
    state[KEYS["generate"]] = min(state[KEYS["generate"]] + 1, MAX_CHAT_GENERATED)
    state[STEP_KEY] = state[KEYS["generate"]]  # open the newest


def _clear():
    st.session_state[KEYS["generate"]] = 0


def generate_controls():
    """The slider, "Generate one more" and "Clear"; returns the number of tokens asked for."""
    left, middle, right = st.columns([3, 1, 1], vertical_alignment="bottom")
    steps = left.slider("Tokens generated", 0, MAX_CHAT_GENERATED, key=KEYS["generate"])
    middle.button(
        "Generate one more",
        key="chat_one_more",
        on_click=_one_more,
        disabled=steps >= MAX_CHAT_GENERATED,
        help=f"At most {MAX_CHAT_GENERATED} tokens.",
    )
    right.button("Clear", key="chat_clear", on_click=_clear, disabled=steps == 0)
    return steps


def generation_section(model, run, text, temperature, top_k, pick, layer, head):
    """Generate, then open one generated token: its attention row in the chosen head and what
    the KV cache saved."""
    steps = generate_controls()
    if steps == 0:
        st.markdown(
            "Press **Generate one more** (or move the slider): the model appends the token "
            "chosen from the probabilities above, then reads one more position, and so on."
        )
        return
    with st.spinner(f"Generating {steps} tokens…"):
        generation = generation_in_turn(model, text, temperature, top_k, pick, steps)
    new = [s.token for s in generation.steps]
    labels = display_tokens([*run.tokens, *new])
    with after_chart("generated"):  # on a projector after the opened token's chart
        st.markdown(
            f"The prompt continues with {steps} tokens, each "
            f"{'the likeliest' if pick == 'likeliest' else 'drawn'} at T = {temperature:g}"
            f"{f', top-k = {top_k}' if top_k else ''}:"
        )
        st.code("".join(new), language=None, wrap_lines=True)  # as typed: no markup
        data_table(
            {
                "#": list(range(1, steps + 1)),
                "position": [s.position for s in generation.steps],
                "token": labels[run.n :],
                "p": [round(s.probability, 4) for s in generation.steps],
                "keys and values reused": [s.cache_length for s in generation.steps],
            },
            hide_index=True,
            height=min(35 * (steps + 1) + 3, 250),
        )
    state = st.session_state
    if state.get(STEP_KEY) is None or not 1 <= state[STEP_KEY] <= steps:
        state[STEP_KEY] = steps
    if steps > 1:
        st.select_slider(
            "Open generated token",
            options=list(range(1, steps + 1)),
            format_func=lambda i: f"{i}: {labels[run.n + i - 1]}",
            key=STEP_KEY,
        )
    number = state[STEP_KEY]
    cache_view(model, run, generation, number, labels, layer, head)


def cache_view(model, run, generation, number, labels, layer, head):
    """Generated token ``number``: its A row in the chosen head, and its new rows of Q, K, V."""
    c = model.config
    step = generation.steps[number - 1]
    t = step.position  # the tokens before it, whose keys and values are in the cache
    g = c.group_of(head)
    fig = row_bars(
        step.attention[layer, head],
        labels[: t + 1],
        title=f"Token {number} ({labels[t]}) at position {t}: its row of A in block {layer}, "
        f"head {head}",
        value_name="A",
        highlight=t,
    )
    draw(fig, "chat_step_row", config={"displaylogo": False})
    top_key = int(np.argmax(step.attention[layer, head]))
    per_block = 2 * c.n_kv_heads * t * c.d_head
    total = c.n_layers * per_block
    st.markdown(
        f"To compute this token the model ran **one new position**, {t}: in each of the "
        f"{c.n_layers} blocks one new row of Q for each of the {c.n_heads} query heads "
        f"(1 × {c.d_head}), and one new row of K and one of V for each of the {c.n_kv_heads} "
        f"key/value heads. The {t} earlier rows of K and V came from the **KV cache**: "
        f"{per_block:,} numbers a block, {total:,} in all ({total * 4 / 1e6:.2f} MB in float32), "
        f"computed once and reused. This head's new query puts most weight, "
        f"{step.attention[layer, head, top_key]:.3f}, on position {top_key} "
        f"(“{md_escape(labels[top_key])}”). Head {head} reads key/value head {g}."
    )
    K_all = np.concatenate([run.cache.K[layer][g], [s.k[layer, g] for s in generation.steps]])
    V_all = np.concatenate([run.cache.V[layer][g], [s.v[layer, g] for s in generation.steps]])
    outline = np.zeros((t + 1, c.d_head), dtype=bool)
    outline[t] = True
    left, right = st.columns(2)
    with left:
        show_matrix(
            step.q[layer, head][None, :], [labels[t]], dims(c.d_head), key="chat_step_q",
            title=f"q: the one new row of Q (head {head})", family="Q",
        )  # fmt: skip
        show_matrix(
            K_all[: t + 1], labels[: t + 1], dims(c.d_head), key="chat_step_k",
            title=f"K, key/value head {g}: rows 0–{t - 1} cached, {t} new",
            family="K", outline=outline, outline_name=NEW_ROW,
        )  # fmt: skip
    with right:
        show_matrix(
            V_all[: t + 1], labels[: t + 1], dims(c.d_head), key="chat_step_v",
            title=f"V, key/value head {g}: rows 0–{t - 1} cached, {t} new",
            family="V", outline=outline, outline_name=NEW_ROW,
        )  # fmt: skip
