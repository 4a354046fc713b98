"""The Multi-head page's controls: how many heads, a hand-built head, and the run of them.

Its views (the grid of heads, what each head does, one head opened step by step, Concat and
W_O) are ``attnviz.ui.pages.multi_head_views``.
"""

import zlib
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st

from attnviz.checks import AttentionInputError
from attnviz.lessons.hand_built_heads import (
    PRESETS,
    multi_head_weights,
    read_weight_table,
    replace_head,
)
from attnviz.limits import MAX_D_K, MAX_D_V, MAX_EDIT_CELLS, MAX_PAGE_HEADS
from attnviz.multihead import multi_head_attention
from attnviz.serve.example import heavy_example
from attnviz.serve.gate import gated
from attnviz.ui.charts import dims

SEEDED = "seeded"
CHOICES = (SEEDED, *PRESETS)  # what head k's W_Q, W_K start from


def choice_text(choice):
    return "seeded at random" if choice == SEEDED else f"preset: {PRESETS[choice][1]}"


@dataclass(frozen=True)
class HeadConfig:
    """h heads of widths d_k, d_v, and the four weight matrices of multi_head_weights."""

    n_heads: int
    d_k: int
    d_v: int
    split: bool
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    W_O: np.ndarray


def head_config(settings):
    """Draw h, the split toggle and the free widths; return a HeadConfig or stop with a message."""
    d_model = settings.d_model
    c1, c2, c3, c4 = st.columns([2, 3, 2, 2])
    h = c1.number_input(
        "Heads h",
        1,
        MAX_PAGE_HEADS,
        value=2,
        step=1,
        key="mh_heads",
        help=f"1 to {MAX_PAGE_HEADS}.",
    )
    split = c2.toggle(
        "d_k = d_v = d_model / h",
        value=True,
        key="mh_split",
        help="As in the Transformer: the heads together are as wide as one full head. "
        "Switch off to choose each head's widths freely.",
    )
    if split:
        if d_model % h:
            divisors = [k for k in range(1, MAX_PAGE_HEADS + 1) if d_model % k == 0]
            st.error(
                f"h = {h} does not divide d_model = {d_model}, so d_model / h is not a whole "
                f"number: choose h from {', '.join(map(str, divisors))}, change d_model in the "
                "sidebar, or switch the even split off to choose d_k and d_v freely.",
                icon="🚫",
            )
            st.stop()
        d_k = d_v = d_model // h
        c3.metric("d_k per head", d_k)
        c4.metric("d_v per head", d_v)
    else:
        d_k = c3.number_input("d_k per head", 1, MAX_D_K, value=settings.d_k, step=1, key="mh_d_k")
        d_v = c4.number_input("d_v per head", 1, MAX_D_V, value=settings.d_v, step=1, key="mh_d_v")
    try:
        weights = multi_head_weights(d_model, h, settings.seed, d_k=d_k, d_v=d_v)
    except AttentionInputError as exc:
        st.error(f"{exc}", icon="🚫")
        st.stop()
    return HeadConfig(h, d_k, d_v, split, *weights)


@dataclass(frozen=True)
class BuiltHead:
    """The weights with head ``head`` built: from ``choice`` (seeded or a preset), then edits.

    ``used`` is the choice that took effect (a preset that failed leaves SEEDED); ``changed``
    counts the weights the user's table edits changed in (W_Q, W_K).
    """

    head: int
    choice: str
    used: str
    editing: bool
    changed: tuple[int, int]
    W_Q: np.ndarray
    W_K: np.ndarray


def _index_state(key, n_options):
    if st.session_state.get(key, 0) >= n_options:
        st.session_state[key] = 0


def _preset(example, cfg, choice):
    """(W_Q block, W_K block) of the preset, or None after showing why it cannot be built."""
    try:
        return PRESETS[choice][0](example.E, example.P, cfg.d_k)
    except AttentionInputError as exc:
        hint = ""
        if example.P is None:
            hint = " In the sidebar, switch on **Add positional encoding**."
        elif cfg.d_k < 2 and cfg.split:
            hint = " On this page, use fewer heads (each then gets a wider d_k)."
        st.error(f"The preset cannot be built here: {exc}.{hint}", icon="🚫")
        return None


def _editor(name, block, head, signature):
    """A data_editor over ``block`` (d_model, d_k); the edited block, or None if it is invalid."""
    version = st.session_state.get("mh_edit_version", 0)
    table = pd.DataFrame(
        block,
        index=pd.Index(dims(block.shape[0]), name="input dim"),
        columns=dims(block.shape[1], "c"),
    )
    st.markdown(f"**{name}** of head {head} (rows: input dimensions, columns: head dimensions c)")
    edited = st.data_editor(
        table,
        key=f"mh_edit_{name}_{signature}_{version}",
        num_rows="fixed",
        column_config={c: st.column_config.NumberColumn(format="%.3f") for c in table.columns},
        height=min(38 + 35 * block.shape[0], 400),
    )
    try:
        return read_weight_table(edited, block.shape, f"{name} of head {head}")
    except AttentionInputError as exc:
        st.error(f"{exc}. Until it is fixed, head {head} uses {name} as it was.", icon="✏️")
        return None


def _reset_edits():
    st.session_state["mh_edit_version"] = st.session_state.get("mh_edit_version", 0) + 1


def hand_build(example, cfg):
    """Draw the head builder; return a BuiltHead (the full W_Q, W_K with one head replaced)."""
    _index_state("mh_build_head", cfg.n_heads)
    head = st.selectbox(
        "Head to build",
        range(cfg.n_heads),
        format_func=lambda k: f"head {k}",
        key="mh_build_head",
    )
    choice = st.radio(
        "Its W_Q and W_K",
        CHOICES,
        format_func=choice_text,
        key="mh_build",
        help="A preset reads each token's position out of X and asks for the position it "
        "wants: it needs positional encoding on and no more tokens than d_model.",
    )
    width = slice(head * cfg.d_k, (head + 1) * cfg.d_k)
    W_Q_h, W_K_h = cfg.W_Q[:, width], cfg.W_K[:, width]
    used = SEEDED
    if choice != SEEDED:
        built = _preset(example, cfg, choice)
        if built is not None:
            (W_Q_h, W_K_h), used = built, choice
    editing = st.toggle("Edit this head's W_Q and W_K by hand", key="mh_edit")
    changed = (0, 0)
    if editing:
        d_model = cfg.W_Q.shape[0]
        if d_model * cfg.d_k > MAX_EDIT_CELLS:
            st.warning(
                f"W_Q and W_K of one head have d_model × d_k = {d_model} × {cfg.d_k} weights "
                f"each, too many to edit by hand (at most {MAX_EDIT_CELLS}): lower d_model or "
                "use more heads.",
                icon="✋",
            )
        else:
            s = example.settings
            signature = zlib.crc32(
                repr((s.tokens, s.generated, s.d_model, s.seed, s.embedding, s.positions)).encode()
            )
            signature = f"{head}_{used}_{cfg.n_heads}x{cfg.d_k}_{signature:08x}"
            new_Q = _editor("W_Q", W_Q_h, head, signature)
            new_K = _editor("W_K", W_K_h, head, signature)
            changed = tuple(
                0 if new is None else int(np.sum(new != old))
                for new, old in ((new_Q, W_Q_h), (new_K, W_K_h))
            )
            W_Q_h = W_Q_h if new_Q is None else new_Q
            W_K_h = W_K_h if new_K is None else new_K
            st.button("Reset the tables", key="mh_edit_reset", on_click=_reset_edits)
    return BuiltHead(
        head=head,
        choice=choice,
        used=used,
        editing=editing,
        changed=changed,
        W_Q=replace_head(cfg.W_Q, cfg.n_heads, head, W_Q_h),
        W_K=replace_head(cfg.W_K, cfg.n_heads, head, W_K_h),
    )


def run_heads(example, cfg, built):
    """multi_head_attention of the example's X with the built weights (the seeded ones, with a
    message, if the built weights make the scores overflow). At the largest sizes it waits
    for a heavy slot (``attnviz.serve.gate``), so that ten such links at once compute two at a
    time."""
    r, s = example.result, example.settings
    heavy = heavy_example(s)

    def run(W_Q, W_K):
        if heavy is not None:
            return gated(lambda: heads(W_Q, W_K), "the heads of a max-size example")
        return heads(W_Q, W_K)

    def heads(W_Q, W_K):
        return multi_head_attention(
            r.X,
            W_Q,
            W_K,
            cfg.W_V,
            cfg.W_O,
            n_heads=cfg.n_heads,
            mask=r.mask,
            scale=s.scale,
            temperature=s.temperature,
        )

    try:
        with np.errstate(over="ignore", invalid="ignore"):  # the core reports overflow itself
            return run(built.W_Q, built.W_K)
    except AttentionInputError as exc:
        st.error(
            f"Head {built.head} cannot be computed: {exc}. It is shown with its seeded "
            "weights instead.",
            icon="🚫",
        )
        return run(cfg.W_Q, cfg.W_K)
