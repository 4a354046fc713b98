"""The Real model page's summaries: each layer's heads averaged, attention rollout, and one word's
attention compared between two sentences (the math is in ``attnviz.model.summaries``); and
``chosen_head``, the part of the page that picking a head reruns (a fragment).

Kept apart from ``real_model`` (the model, its runs and one head step by step); the comparison
of the two sentences is ``real_model_pair``. Every number in the prose is computed from the
runs drawn.

The two sentences live in the URL as ``model_a`` and ``model_b`` (left out while they are the
classic pair); a link's empty or too long value is replaced or cut, with a warning.
"""

import streamlit as st

from attnviz import token_labels
from attnviz.limits import MAX_PAIR_CHARS
from attnviz.links.real_model import DEFAULT_PAIR, PAIR_PARAMS, pair_from_query
from attnviz.model.summaries import head_mean, rollout, shares
from attnviz.serve.real_model import model_run
from attnviz.ui.charts import show_matrix
from attnviz.ui.pages.real_model import (
    apply_pending_head,
    head_picker,
    head_summary,
    heads_in_words,
    pretrained_model,
    queries_and_keys,
    same_as_forward_pass,
    scores_and_attention,
    values_and_output,
)
from attnviz.ui.pages.real_model_pair import compare_pair, two_places
from attnviz.ui.sidebar import url_query, write_page_params
from attnviz.ui.stepper import after_chart
from attnviz.ui.text import md_escape

SUMMARY_LAYER_KEY = "model_summary_layer"

PAIR_KEYS = ("model_pair_a", "model_pair_b")  # their text boxes
PAIR_KEPT = "model.pair"  # the two sentences, kept while the page is not shown
PAIR_URL = "model.pair_url"  # ((first, second) read from the link, its warnings)


# Each layer at a glance -------------------------------------------------------------------------


def _summary(matrix, tokens, labels, key, value_name, title):
    """Draw one summary of a layer, an (n, n) matrix of weights, as a head's A is drawn
    (half-width), and return its ``shares`` among the word pieces ``tokens``."""
    show_matrix(
        matrix,
        labels,
        labels,
        key=key,
        share=0.5,
        title=title,
        family="A",
        kind="probability",
        value_name=value_name,
        rotate_labels=True,
    )
    return shares(matrix, tokens)


def layer_summaries(run, labels):
    """A layer picker, then its heads' average and the rollout through it, side by side."""
    n_layers, n_heads = run.config.n_layers, run.config.n_heads
    controls = after_chart("layer_controls")  # on a projector the formula and picker after
    controls.latex(
        r"\bar A_l = \frac{1}{H}\sum_{h=0}^{H-1} A_l^h, \quad "
        r"\tilde A_l = 0.5\,\bar A_l + 0.5\,I, \quad "
        r"R_l = \tilde A_l\,\tilde A_{l-1} \cdots \tilde A_0"
    )
    layer = controls.radio(
        "Layer to summarise",
        range(n_layers),
        index=n_layers - 1,
        key=SUMMARY_LAYER_KEY,
        horizontal=True,
    )
    mean = head_mean(run.attention)[layer]  # (n, n)
    rolled = rollout(run.attention)[layer]  # (n, n)
    mean_title = f"Mean of layer {layer}'s {n_heads} heads"
    rollout_title = f"Rollout through layer {layer}"
    left, right = two_places(run.n)
    with left:
        s = _summary(mean, run.tokens, labels, "model_layer_mean", "mean A_ij", mean_title)
        st.markdown(
            f"On average over its {n_heads} heads, each word piece puts **{s.itself:.2f}** of "
            f"its weight on itself and **{s.special:.2f}** on [CLS] and [SEP]; the key with most "
            f"weight is {md_escape(labels[s.top_key])} ({s.top_weight:.2f} of a row on average). "
            "**It tells** where the layer as a whole looks, **not** what any one head does "
            "(sharp heads blur in the mean) nor why the output is what it is: a weight says "
            "where a head looks, not what it takes from there or what comes of it."
        )
    with right:
        s = _summary(rolled, run.tokens, labels, "model_rollout", "R_ij", rollout_title)
        st.markdown(
            f"Through layers 0 to {layer}, rollout says each position draws **{s.itself:.2f}** "
            f"on average from its own input word piece; the input piece that flowed most into "
            f"the positions is {md_escape(labels[s.top_key])} ({s.top_weight:.2f} of a row on "
            "average). "
            "**It tells** how far information may have spread across the layers, **not** where "
            "it did: it assumes information mixes linearly by the weights (with half kept on "
            "the residual path) and ignores the values, W_O and the feed-forward layers."
        )


SUMMARY_TEXT_KEY = "model_summary_text"
SUMMARY_TEXTS = ("the sidebar's sentence", "sentence 1 of §5", "sentence 2 of §5")


def summary_run(model, run, labels):
    """Which sentence section 6 summarises: the sidebar's (``run``, ``labels``) or one of the
    pair just compared in section 5 (its run cached by ``model_run``). Returns (run, labels)."""
    choice = after_chart("summary_text").radio(
        "Sentence to summarise", SUMMARY_TEXTS, key=SUMMARY_TEXT_KEY, horizontal=True
    )
    index = SUMMARY_TEXTS.index(choice)
    pair = st.session_state.get(PAIR_KEPT, DEFAULT_PAIR)
    if index == 0 or not pair[index - 1].strip():
        if index:
            st.warning(f"Sentence {index} of §5 is empty: the sidebar's sentence is shown.")
        return run, labels
    st.markdown(md_escape(f"Summarised: “{pair[index - 1]}”"))
    other = model_run(model, pair[index - 1])
    return other, token_labels(other.tokens)


# Two sentences, one word -------------------------------------------------------------------------


def _sync_pair_url(pair):
    """The URL holds each sentence that is not the classic one."""
    want = {name: v for name, v, d in zip(PAIR_PARAMS, pair, DEFAULT_PAIR, strict=True) if v != d}
    write_page_params(PAIR_PARAMS, want)


def pair_sentences():
    """Two text boxes, side by side; returns (first, second) as typed.

    A new session starts from the link (with a warning for what had to change); the boxes keep
    their text across pages; the link follows the boxes.
    """
    state = st.session_state
    if PAIR_KEPT not in state:
        pair, warnings = pair_from_query(url_query())
        state[PAIR_KEPT], state[PAIR_URL] = pair, (pair, warnings)
    for key, value in zip(PAIR_KEYS, state[PAIR_KEPT], strict=True):
        if key not in state:  # a new session, or back from another page
            state[key] = value
    columns = st.columns(2)
    pair = tuple(
        column.text_input(f"Sentence {number}", key=key, max_chars=MAX_PAIR_CHARS)
        for number, (column, key) in enumerate(zip(columns, PAIR_KEYS, strict=True), 1)
    )
    state[PAIR_KEPT] = pair
    _sync_pair_url(pair)
    url_pair, warnings = state[PAIR_URL]
    if warnings and pair == url_pair:
        st.warning("The link's sentences:\n" + "\n".join(f"- {w}" for w in warnings), icon="⚠️")
    return pair


@st.fragment  # a head picked (radios, a click in the grid, a ranked head's button) reruns this
def chosen_head(text, parts=("head", "pair")):
    """Sections 2 to 5 of the page, one part of it: every head, the chosen one step by step,
    the formula with learned weights (``"head"`` in ``parts``), and two sentences compared on
    it (``"pair"``): in projector mode one of them is a step of its own.

    Takes the sentence, never the model or its run: Streamlit keeps a fragment's arguments in
    the session, and both live once per server (the model's slot, ``model_run``'s cache)."""
    model = pretrained_model()
    run = model_run(model, text)
    labels = token_labels(run.tokens)
    if "head" in parts:
        st.header("2. All 72 heads")
        with after_chart("heads"):  # on a projector after the grid
            st.markdown(
                "Each thumbnail is one head's attention matrix A for this sentence (row i: how "
                "query i spreads its weight over the keys j). Layers go down, heads across. "
                "**Click a head** (or choose it below) to open it step by step. What the numbers "
                "say:"
            )
            heads_in_words(run.stats)
    if "head" in parts:  # the picker and the grid; the pair's projected step has neither
        layer, head = head_picker(run, text)
    else:
        apply_pending_head()  # a ranked head's button opens it
        state = st.session_state
        picked = "model_layer" in state and "model_head" in state
        layer, head = (state["model_layer"], state["model_head"]) if picked else (None, None)
    if "head" in parts:
        r = run.head(model, layer, head)  # recomputed from the layer's input X: see section 4
        st.header(f"3. Layer {layer}, head {head}, step by step")
        head_summary(run.stats, layer, head)
        queries_and_keys(r, labels, layer, head)
        scores_and_attention(r, labels, layer, head)
        values_and_output(r, labels, layer, head, run.config.n_heads)

        st.header("4. The lessons' formula, with learned weights")
        st.latex(
            r"A = \mathrm{softmax}\left(\frac{(XW_Q^h + b_Q^h)(XW_K^h + b_K^h)^T}"
            r"{\sqrt{d_k}}\right)"
        )
        same_as_forward_pass(r, run, layer, head)
    if "pair" not in parts:
        return
    st.header("5. Compare two sentences")
    with after_chart("pair_intro"):  # on a projector after the comparison
        st.markdown(
            "A classic pair: a reader takes “it” to be the animal when it is too tired and the "
            "street when it is too wide. Does attention follow? Edit either sentence, pick a "
            "word both share, and see which heads move that word's weight most."
        )
        pair = pair_sentences()
    compare_pair(model, *pair, layer, head)
