"""The Real model page: the model loaded once per server, a sentence's forward pass cached,
the grid of heads, the head picker, and one head step by step.
"""

import numpy as np
import streamlit as st

from attnviz.charts.finish import with_shape
from attnviz.charts.model_grid import grid_selected_head, head_outline
from attnviz.limits import (
    MAX_MODEL_TOKENS,
    MAX_TEXT_CHARS,
)
from attnviz.model.head_stats import PATTERNS, describe, strongest_pattern
from attnviz.model.pretrained import MODEL_ID, ModelLoadError
from attnviz.serve.real_model import MODEL, grid_finished, model_run
from attnviz.serve.store import clear_shared_caches
from attnviz.ui.attention_view import show_attention
from attnviz.ui.charts import dims, draw, show_matrix
from attnviz.ui.inspectors import cell_inspector
from attnviz.ui.progress import progress_tqdm
from attnviz.ui.projector import data_table
from attnviz.ui.sidebar import is_present, palette
from attnviz.ui.stepper import after_chart
from attnviz.ui.text import md_escape, step_header

PENDING_KEY = "model.pending_head"  # (layer, head) to show: clicked in the grid or a ranking
GRID_KEY = "model_grid"  # the grid's chart, whose selection is the head clicked


def forget_model():
    """Drop the loaded model (tests: as if the server had just started)."""
    clear_shared_caches()  # its runs too: a server that has just started holds none


def loaded_model():
    """The model if this server has loaded it, else None (never loads)."""
    return MODEL.peek()


def pretrained_model():
    """The model, loaded on first use per server (a second visitor meanwhile waits for that
    load); stops the page with the fix if it can't load."""
    model = loaded_model()
    if model is not None:
        return model
    failed = None
    with st.spinner(f"Loading {MODEL_ID} (once per server)…"):
        progress = st.empty()  # the download's progress bars, cleared when done
        try:
            model = MODEL.get(tqdm_class=progress_tqdm(progress.container()))
        except ModelLoadError as exc:
            failed = exc
        progress.empty()
    if failed is not None:  # stopped outside the spinner, which st.stop() left spinning
        st.error(f"The real model is not available: {failed}", icon="🚫")
        st.info("Every other page works without it. After the fix, reload this page.")
        st.stop()
    return model


def apply_pending_head():
    """Set the layer and head widgets to the head clicked in the grid on the previous run."""
    pending = st.session_state.pop(PENDING_KEY, None)
    if pending is not None:
        st.session_state["model_layer"], st.session_state["model_head"] = pending


def head_summary(stats, layer, head):
    """What one head looks at: its strongest pattern in words, then every average in a table."""
    pattern, value = strongest_pattern(stats, layer, head)
    st.markdown(
        f"On average over the queries this head puts **{value:.2f}** of its weight on "
        f"{md_escape(PATTERNS[pattern])}. Its averages:"
    )
    values = stats.head(layer, head)
    table = {PATTERNS[name]: [round(values[name], 3)] for name in PATTERNS}
    table["entropy (0: one key, 1: all keys)"] = [round(values["entropy"], 3)]
    data_table(table, hide_index=True)


def grid_chart(text, selected):
    """Every head's attention for ``text`` (kept for all: ``grid_finished``), ``selected``
    outlined; a click on a head selects it (the page reruns)."""
    model = pretrained_model()
    outline = head_outline(model_run(model, text).attention.shape, selected)
    finished = with_shape(grid_finished(model, text, is_present(), palette()), outline, palette())
    draw(
        finished,
        GRID_KEY,
        on_select=_grid_clicked,  # before the rerun the click causes: the radios follow it
        selection_mode="points",
        config={"displaylogo": False, "toImageButtonOptions": {"filename": "attnviz-heads"}},
    )


def _grid_clicked():
    """The grid's selection changed: the head clicked is shown on this rerun."""
    clicked = grid_selected_head(st.session_state[GRID_KEY].selection)
    if clicked is not None:
        st.session_state[PENDING_KEY] = clicked


OWN_TEXT_KEY = "model_own_text"  # toggle: type a sentence here instead of the sidebar's
TEXT_KEY = "model_text"  # the page's own text box
KEPT_TEXT_KEY = "model.text"  # the box's text, kept while the box is hidden
DEFAULT_MODEL_TEXT = "The cat sat on the mat because it was tired."


def sentence_for_model(settings):
    """(text, where it comes from): the sidebar's sentence, or the page's own text box.

    The sidebar's sentence is used unless the user asks for a box of their own, or the sidebar
    generates t1 … tn (not words: the model would read letters and digits).
    """
    state = st.session_state
    if settings.generated:
        state[OWN_TEXT_KEY] = True
    own = st.toggle(
        "Type a sentence for the model here instead of the sidebar's",
        key=OWN_TEXT_KEY,
        disabled=settings.generated,
        help="The sidebar generates t1 … tn, which are not words: type a sentence here."
        if settings.generated
        else "Off: the model reads the sidebar's sentence (and the link keeps it).",
    )
    if not own:
        return settings.text, "the sidebar's sentence"
    if TEXT_KEY not in state:
        state[TEXT_KEY] = state.get(KEPT_TEXT_KEY) or (
            DEFAULT_MODEL_TEXT if settings.generated else settings.text
        )
    text = st.text_area(
        "Sentence for the model",
        key=TEXT_KEY,
        max_chars=MAX_TEXT_CHARS,
        height=80,
        help=f"Any text: the model cuts it into word pieces and reads the first "
        f"{MAX_MODEL_TOKENS}, [CLS] and [SEP] included.",
    )
    state[KEPT_TEXT_KEY] = text
    return text, "the sentence typed above"


def _origin(source):
    """Where the model's files came from, in words a student reads: the package, the
    environment variable or the Hub, never a path on the server."""
    where = source.split(" (")[0]
    return "a folder on the server" if where.startswith("the folder") else where


def reading_notes(run, model, where):
    """Which sentence the model reads and where its files come from; a warning if it was cut."""
    st.caption(f"The model reads {where}. Its files come from {md_escape(_origin(model.source))}.")
    if run.cut:
        st.warning(
            f"The text has {run.n_pieces} word pieces; this page reads the first "
            f"{MAX_MODEL_TOKENS - 1} and [SEP] (its limit, {MAX_MODEL_TOKENS} word pieces).",
            icon="✂️",
        )


def word_pieces(run):
    """The n word pieces the model reads, [CLS] and [SEP] included, and how text becomes them."""
    st.markdown(
        f"**{run.n} word pieces:** " + " · ".join(md_escape(piece) for piece in run.tokens) + "  \n"
        "The tokenizer lowercases the text and cuts rare words into pieces (## marks a piece that "
        "continues a word). [CLS] is added in front and [SEP] at the end: the model always sees "
        "them."
    )


def heads_in_words(stats):
    """What the head statistics say, then how many heads park their weight on [CLS] or [SEP]."""
    st.markdown("\n".join(f"- {md_escape(line)}" for line in describe(stats)))
    parked = int(((stats.cls + stats.sep) > 0.5).sum())
    st.markdown(
        f"Here {parked} of the {stats.cls.size} heads put more than half of their weight on "
        "[CLS] or [SEP]. A softmax row must sum to 1, so a head with nothing useful to look up "
        "for a word piece still has to put its weight somewhere: many park it on [CLS] or "
        "[SEP], which are always there."
    )


def head_picker(run, text):
    """Layer and head radios over the grid of every head; returns the (layer, head) chosen.

    A click on a thumbnail is applied to the radios on the rerun it causes.
    """
    apply_pending_head()
    with after_chart("head_picker"):  # on a projector the radios after the grid
        c1, c2 = st.columns([1, 2])
        layer = c1.radio("Layer", range(run.config.n_layers), key="model_layer", horizontal=True)
        head = c2.radio("Head", range(run.config.n_heads), key="model_head", horizontal=True)
    grid_chart(text, (layer, head))
    return layer, head


def queries_and_keys(r, labels, layer, head):
    """Q = XW_Q^h + b_Q^h and K = XW_K^h + b_K^h of one head: where they come from, then both."""
    n = r.n
    step_header(
        f"Queries and keys of layer {layer}, head {head}",
        r"Q = XW_Q^h + b_Q^h, \quad K = XW_K^h + b_K^h",
        rf"Q, K \in \mathbb{{R}}^{{{n} \times {r.d_k}}}",
        f"X is layer {layer}'s input ({n} × {r.d_model}): "
        + (
            "the word pieces' embeddings plus their learned position embeddings (a trained "
            "table, not the sinusoids of the Positions page) and token-type embeddings, "
            "normalised. "
            if layer == 0
            else f"the output of layer {layer - 1}. "
        )
        + f"W_Q^h is column block {head} of the layer's query weights ({r.d_model} × {r.d_k}) and "
        "b_Q^h its bias, both learned in training; the same for the keys.",
    )
    show_matrix(r.Q, labels, dims(r.d_k), key="model_Q", title="Q", family="Q")
    show_matrix(r.K, labels, dims(r.d_k), key="model_K", title="K", family="K")


def scores_and_attention(r, labels, layer, head):
    """S, S' and A of one head (a click on a cell opens it in the cell inspector below)."""
    n = r.n
    step_header(
        f"Scores, scaled scores and attention of layer {layer}, head {head}",
        r"S = QK^T, \quad S' = \frac{S}{\sqrt{d_k}}, \quad A = \mathrm{softmax}(S')",
        rf"\sqrt{{d_k}} = \sqrt{{{r.d_k}}} = {r.scale_factor:.4g}, \quad A \in \mathbb{{R}}^{{{n} "
        rf"\times {n}}}",
        "No mask: in an encoder every word piece sees every other one. **Click a cell** of S, S' "
        "or A to see its arithmetic below.",
    )
    matrices = [  # A with its switch to token lines
        (show_matrix, "model_S", r.scores, "S = QK^T", "S_ij", "signed"),
        (show_matrix, "model_S_scaled", r.scaled_scores, "S' = S / √d_k", "S'_ij", "signed"),
        (show_attention, "model_A", r.attention, "A = softmax(S')", "A_ij", "probability"),
    ]
    clicks = [
        show(
            M,
            labels,
            labels,
            key=key,
            title=t,
            family=t[0],
            value_name=v,
            kind=kind,
            selectable=True,
        )
        for show, key, M, t, v, kind in matrices
    ]
    cell_inspector(r, labels, next((c for c in clicks if c is not None), None))


def values_and_output(r, labels, layer, head, n_heads):
    """V = XW_V^h + b_V^h and the head's output AV, the step by step's last two steps; then
    where the output goes in the model (concatenated with the other heads, W_O)."""
    n = r.n
    step_header(
        f"Values and output of layer {layer}, head {head}",
        r"V = XW_V^h + b_V^h, \quad \mathrm{head}_h = AV",
        rf"V, \mathrm{{head}}_h \in \mathbb{{R}}^{{{n} \times {r.d_v}}}",
        f"Row i of the output is the average of the value rows, weighted by row i of A. In the "
        f"model, the {n_heads} heads' outputs ({n} × {r.d_v} each) are joined side by side "
        f"({n} × {n_heads * r.d_v}) and multiplied by the layer's W_O, then added to X (the "
        "residual path) and normalised.",
    )
    show_matrix(r.V, labels, dims(r.d_v), key="model_V", title="V", family="V")
    show_matrix(r.output, labels, dims(r.d_v), key="model_AV", title="AV", family="O")


def same_as_forward_pass(r, run, layer, head):
    """The head computed on its own against the whole forward pass: max |A - A_model|."""
    n = r.n
    diff = float(np.abs(r.attention - run.attention[layer, head]).max())
    same = "0: the same numbers to the last bit" if diff == 0 else f"{diff:.1e}"
    st.markdown(
        f"The head above is computed on its own, `attnviz.self_attention(X, W_Q^h, W_K^h, W_V^h)` "
        f"with the model's biases, from layer {layer}'s input X. It gives the A of the model's "
        f"whole forward pass (the grid, all heads of a layer at once) again: the largest "
        f"difference over its {n} × {n} weights is **{same}**. What makes one head look at [CLS] "
        "and another at the previous word piece is what the formula above holds: the head's "
        "learned W_Q^h, W_K^h and biases b_Q^h, b_K^h, and its input X, which carries the "
        "learned position embeddings and everything the earlier layers added. The whole "
        "forward pass (heads joined by W_O, residual sums, LayerNorm, feed-forward) matches "
        "Hugging Face's PyTorch model to within 1e-5 on every attention map (attnviz's own "
        "tests check it)."
    )
