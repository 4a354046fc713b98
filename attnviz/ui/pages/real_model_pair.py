"""The Real model page's section 5, two sentences compared: the word picked among the pieces
both share, the heads ranked by how far its weight moves between them, the strongest tie to a
shared piece, and the chosen head's two rows side by side (the math is in
``attnviz.model.summaries``). Every number in the prose is computed from the runs drawn.
``real_model_summaries`` draws the two text boxes and calls ``compare_pair``.
"""

import numpy as np
import streamlit as st

from attnviz import token_labels
from attnviz.charts.paired_bars import paired_bars
from attnviz.charts.style import PRESENT_TEXT_PX, TEXT_PX
from attnviz.limits import MAX_MODEL_TOKENS
from attnviz.model.summaries import align, pair_difference, strongest_shared_links
from attnviz.serve.real_model import model_run
from attnviz.ui.charts import draw, show_matrix, toolbar
from attnviz.ui.pages.real_model import PENDING_KEY
from attnviz.ui.projector import data_table
from attnviz.ui.sidebar import is_present
from attnviz.ui.stepper import after_chart
from attnviz.ui.text import md_escape

WORD_KEY = "model_pair_word"
ALL_ROWS_KEY = "model_pair_all_rows"
DEFAULT_WORD = "it"
RANKED_SHOWN = 8  # heads in the table of differences
OPEN_BUTTONS = 4  # of which this many get a button that opens the head
SIDE_BY_SIDE_N = 10  # two n x n heatmaps fit side by side, numbers readable, up to this n


def two_places(n):
    """Two columns for two (n, n) heatmaps side by side when their cells fit (n up to
    SIDE_BY_SIDE_N), else two full-width places, one under the other."""
    return st.columns(2) if n <= SIDE_BY_SIDE_N else (st.container(), st.container())


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
