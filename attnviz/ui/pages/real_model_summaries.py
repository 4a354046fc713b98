"""The Real model page's summaries: each layer's heads averaged, attention rollout, and one word's
attention compared between two sentences (the math is in ``attnviz.model.summaries``); and
``chosen_head``, the part of the page that picking a head reruns (a fragment).

Kept apart from ``real_model`` (the model, its runs and one head step by step), which is
already past 300 lines. Every number in the prose is computed from the runs drawn.

The two sentences live in the URL as ``model_a`` and ``model_b`` (left out while they are the
classic pair); a link's empty or too long value is replaced or cut, with a warning.
"""

import numpy as np
import streamlit as st

from attnviz import token_labels
from attnviz.charts.paired_bars import paired_bars
from attnviz.charts.style import PRESENT_TEXT_PX, TEXT_PX
from attnviz.limits import MAX_MODEL_TOKENS, MAX_PAIR_CHARS
from attnviz.links.real_model import DEFAULT_PAIR, PAIR_PARAMS, pair_from_query
from attnviz.model.summaries import (
    align,
    head_mean,
    pair_difference,
    rollout,
    shares,
    strongest_shared_links,
)
from attnviz.serve.real_model import model_run
from attnviz.ui.charts import draw, show_matrix, toolbar
from attnviz.ui.pages.real_model import (
    PENDING_KEY,
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
from attnviz.ui.projector import data_table
from attnviz.ui.sidebar import is_present, url_query, write_page_params
from attnviz.ui.stepper import after_chart
from attnviz.ui.text import md_escape

SUMMARY_LAYER_KEY = "model_summary_layer"

PAIR_KEYS = ("model_pair_a", "model_pair_b")  # their text boxes
PAIR_KEPT = "model.pair"  # the two sentences, kept while the page is not shown
PAIR_URL = "model.pair_url"  # ((first, second) read from the link, its warnings)
WORD_KEY = "model_pair_word"
ALL_ROWS_KEY = "model_pair_all_rows"
DEFAULT_WORD = "it"
RANKED_SHOWN = 8  # heads in the table of differences
OPEN_BUTTONS = 4  # of which this many get a button that opens the head
SIDE_BY_SIDE_N = 10  # two n x n heatmaps fit side by side, numbers readable, up to this n


# Each layer at a glance -------------------------------------------------------------------------


def two_places(n):
    """Two columns for two (n, n) heatmaps side by side when their cells fit (n up to
    SIDE_BY_SIDE_N), else two full-width places, one under the other."""
    return st.columns(2) if n <= SIDE_BY_SIDE_N else (st.container(), st.container())


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


def _word_choice(alignment, labels_a):
    """A select box of the pieces both sentences share; returns the chosen one's position in
    sentence 1. Starts at "it" (or the first shared word) and keeps the choice while offered;
    when an edit takes the chosen word out of one sentence, says which word replaced it."""
    shared = [i for i, _ in alignment.shared()]
    options = [labels_a[i] for i in shared]
    before = st.session_state.get(WORD_KEY)
    if before not in options:
        tokens = alignment.tokens_a
        words = [i for i in shared if tokens[i] not in ("[CLS]", "[SEP]")] or shared
        default = next((i for i in shared if tokens[i] == DEFAULT_WORD), words[0])
        st.session_state[WORD_KEY] = labels_a[default]
        if before is not None:
            st.info(
                f"“{md_escape(before)}” is no longer a word piece both sentences share, so "
                f"the word compared is now “{md_escape(labels_a[default])}”.",
                icon="🔁",
            )
    chosen = st.selectbox(
        "The word whose attention is compared (a word piece both sentences share)",
        options,
        key=WORD_KEY,
    )
    places = [a + " / " + b for a, b in _differing(alignment)]
    st.caption(
        f"The sentences are lined up word piece by word piece (Python's difflib): "
        f"{len(shared)} pieces match; each place where they differ ("
        + md_escape("; ".join(places))
        + ") counts as one key. A word there cannot be compared."
    )
    return shared[options.index(chosen)]


def _differing(alignment):
    """[(text of a, text of b)]: each place where the sentences differ, as short texts."""
    return [
        (" ".join(a) or "(nothing)", " ".join(b) or "(nothing)") for a, b in alignment.differing()
    ]


def _open_head(layer, head):
    """A button's callback: the head picker above shows this head on the rerun."""
    st.session_state[PENDING_KEY] = (layer, head)


def _ranking(diff, runs, labels, word):
    """The heads where the two sentences differ most, a table and buttons that open them."""
    ranking = diff.ranked()
    total = len(ranking)
    rows = []
    for rank, (layer, head, value) in enumerate(ranking[:RANKED_SHOWN], 1):
        row = {"rank": rank, "layer": layer, "head": head, "difference": round(value, 3)}
        for number, (run, query, names) in enumerate(
            zip(runs, (diff.query_a, diff.query_b), labels, strict=True), 1
        ):
            weights = run.attention[layer, head, query]
            top = int(np.argmax(weights))
            row[f"most weight in sentence {number}"] = f"{names[top]} ({weights[top]:.2f})"
        rows.append(row)
    data_table(rows, hide_index=True)
    values = diff.distance.ravel()
    st.markdown(
        f"Ranked by how much of the weight of {word} would have to move to turn its row in "
        f"sentence 1 into its row in sentence 2 (each place where they differ counts as one "
        f"key): from **{ranking[0][2]:.2f}** in the first head down to "
        f"**{ranking[-1][2]:.2f}**, median {np.median(values):.2f} over the {total} heads. Open "
        "one (it opens step by step in §3 above, and side by side below):"
    )
    for column, (layer, head, _) in zip(
        st.columns(OPEN_BUTTONS), ranking[:OPEN_BUTTONS], strict=False
    ):
        column.button(
            f"Layer {layer}, head {head}",
            key=f"model_pair_open_{layer}_{head}",
            on_click=_open_head,
            args=(layer, head),
        )


def _strongest_head(diff, runs):
    """(layer, head) of sentence 1's strongest tie of the compared word to a shared piece, or
    the head where the sentences differ most when there is none."""
    link = strongest_shared_links(
        runs[0].attention, runs[1].attention, diff.alignment, diff.query_a
    )[0]
    if link is not None:
        return link.layer, link.head
    layer, head, _ = diff.ranked()[0]
    return layer, head


def _shared_links(diff, runs, labels, word):
    """In each sentence, the shared piece the word ties to most (beyond its neighbours), and
    what the same head does in the other sentence; then why that is no explanation."""
    links = strongest_shared_links(
        runs[0].attention, runs[1].attention, diff.alignment, diff.query_a
    )
    lines = []
    for number, link in enumerate(links, 1):
        if link is None:
            continue
        piece = md_escape(labels[0][link.key_a])
        lines.append(
            f"- Sentence {number}: {word} puts **{link.weight:.2f}** of its weight on {piece} "
            f"in layer {link.layer} head {link.head}; the same head puts **{link.other:.2f}** "
            f"on {piece} in sentence {3 - number}."
        )
    if not lines:
        return
    st.markdown(
        f"The strongest tie of {word} to a word piece both sentences share (not [CLS], [SEP], "
        "itself or a neighbour, which are habits of position):\n" + "\n".join(lines)
    )
    st.markdown(
        "Attention is not explanation: a weight says where a head looks, not what it takes "
        "from there or how the model reads the word in the end."
    )


def compare_pair(model, first, second, layer=None, head=None):
    """The word picker, the heads ranked by difference, then the chosen head side by side.

    ``layer``, ``head`` None (a projected step of its own, where no head was picked): the head
    of sentence 1's strongest tie of the word to a shared piece (the default pair: "it" to
    "animal"). In projector mode the side-by-side bars come first, the rest after them."""
    if not first.strip() or not second.strip():
        st.warning("A sentence is empty: type a few words in both boxes.", icon="✍️")
        return
    runs = (model_run(model, first), model_run(model, second))
    for number, run in enumerate(runs, 1):
        if run.cut:
            st.warning(
                f"Sentence {number} has {run.n_pieces} word pieces; the first "
                f"{MAX_MODEL_TOKENS - 1} and [SEP] are read (the limit).",
                icon="✂️",
            )
    labels = tuple(token_labels(run.tokens) for run in runs)
    alignment = align(runs[0].tokens, runs[1].tokens)
    with after_chart("pair_word"):  # on a projector after the bars
        query = _word_choice(alignment, labels[0])
    word = f"“{md_escape(labels[0][query])}”"
    diff = pair_difference(runs[0].attention, runs[1].attention, alignment, query)
    if alignment.identical:
        st.info("The two sentences have the same word pieces: every head reads them alike.")
        return
    slot_labels = alignment.slot_labels(labels[0])
    with after_chart("pair_ranking"):
        _ranking(diff, runs, labels, word)
        _shared_links(diff, runs, labels, word)
    if layer is None:
        layer, head = _strongest_head(diff, runs)
        where = "the head of sentence 1's strongest tie"
    else:
        where = "chosen above"
    rank = next(k for k, (ll, hh, _) in enumerate(diff.ranked(), 1) if (ll, hh) == (layer, head))
    with after_chart("pair_rank"):
        st.subheader(f"Layer {layer}, head {head} ({where}), side by side")
        st.markdown(
            f"Here the difference is **{diff.distance[layer, head]:.2f}** (rank {rank} of "
            f"{diff.distance.size}): half the sum of the gaps between each pair of bars."
        )
    fig = paired_bars(
        diff.rows_a[layer, head],
        diff.rows_b[layer, head],
        slot_labels,
        names=("sentence 1", "sentence 2"),
        title=f"Where “{labels[0][query]}” puts its weight, layer {layer} head {head}",
        text_px=PRESENT_TEXT_PX if is_present() else TEXT_PX,
    )
    draw(fig, "model_pair_bars", config=toolbar("model_pair_bars"))
    if st.toggle(  # off by default: every session's rerun would send both heatmaps
        f"Show every row of layer {layer} head {head} in both sentences",
        key=ALL_ROWS_KEY,
    ):
        places = two_places(max(run.n for run in runs))
        for place, run, names, number in zip(places, runs, labels, (1, 2), strict=True):
            with place:
                show_matrix(
                    run.attention[layer, head],
                    names,
                    names,
                    key=f"model_pair_A{number}",
                    title=f"A of sentence {number}",
                    family="A",
                    kind="probability",
                    value_name="A_ij",
                    rotate_labels=True,
                )


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
