"""The Real model page's server side: the model (a pinned ``Slot``, loaded once per server), a
sentence's forward pass kept per text (``model_run``: a ``ModelRun``), and the grid of every
head finished once for every visitor. No Streamlit.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.charts.finish import finished, text_px
from attnviz.charts.model_grid import model_grid
from attnviz.inputs import token_labels
from attnviz.limits import (
    CACHE_GRID_FIGURES,
    CACHE_MODEL,
    CACHE_MODEL_RUNS,
    MAX_MODEL_TOKENS,
    MODEL_RUN_SECONDS,
)
from attnviz.model.bert import head_attention
from attnviz.model.head_stats import PATTERNS, HeadStats, head_stats
from attnviz.model.pretrained import load_pretrained
from attnviz.serve.slots import Slot
from attnviz.serve.store import MB, kept, object_bytes, release_freed_memory

# The server's one model, loaded on first use (``load_pretrained``'s keywords, e.g. its
# ``tqdm_class``, reach it through ``MODEL.get``), never evicted to make room for another cache.
MODEL = Slot("attnviz.model", load_pretrained, CACHE_MODEL[1])
RUN_PEAK_BYTES = 31 * MB  # a forward pass at MAX_MODEL_TOKENS pieces while it runs (its trace)


@dataclass(frozen=True, eq=False)
class ModelRun:
    """One sentence through the model, kept as what the page draws from it.

    Kept per sentence for every session (``model_run``), so only what the page needs: every
    head's attention (the grid), each layer's input X (a head is recomputed from it with
    ``head``) and the head statistics; about 6 MB at 128 word pieces, where the whole trace
    (every head's S, S', Q, K, V, the feed-forward ...) is about 31 MB.
    """

    tokens: tuple[str, ...]  # the word pieces read, [CLS] first and [SEP] last
    config: object  # attnviz.model.bert.BertConfig
    attention: np.ndarray  # (n_layers, n_heads, n, n) from the whole forward pass, read-only
    hidden_states: np.ndarray  # (n_layers + 1, n, d_model): [l] is layer l's input X
    stats: HeadStats
    n_pieces: int  # word pieces of the whole text, [CLS] and [SEP] included, before the cap

    @property
    def n(self):
        return len(self.tokens)

    @property
    def cut(self):
        return self.n_pieces > self.n

    def head(self, model, layer, head):
        """Head ``head`` of layer ``layer`` recomputed on its own: an AttentionResult."""
        X = self.hidden_states[layer]  # (n, d_model)
        return head_attention(model.weights, model.config, X, layer, head)


@kept(
    *CACHE_MODEL_RUNS,
    estimate=lambda _model, text: RUN_PEAK_BYTES,
    heavy=lambda _model, text: ("the real model's forward pass", MODEL_RUN_SECONDS),
)
def model_run(_model, text):
    """``_model.run(text)`` on at most MAX_MODEL_TOKENS word pieces, kept per text for every
    session (about 6 MB each at 128 pieces)."""
    trace = _model.run(text, max_pieces=MAX_MODEL_TOKENS)
    attention = trace.attention  # (n_layers, n_heads, n, n): a new stacked array
    attention.flags.writeable = False
    run = ModelRun(
        tokens=trace.tokens,
        config=trace.config,
        attention=attention,
        hidden_states=trace.hidden_states,
        stats=head_stats(attention, trace.tokens),
        n_pieces=_model.count_pieces(text),
    )
    del trace  # every step of the forward pass: about 31 MB at 128 pieces
    release_freed_memory()
    return run


SHORT_NAMES = {"previous": "previous", "next": "next", "same": "same piece"}


def _hover_lines(stats, layer, head):
    """Two short lines of a head's averages, for the grid's hover."""
    values = stats.head(layer, head)
    parts = [
        f"{SHORT_NAMES.get(name, PATTERNS[name])} {values[name]:.2f}"
        for name in PATTERNS
        if not np.isnan(values[name])
    ]
    return [", ".join(parts[:3]), ", ".join([*parts[3:], f"entropy {values['entropy']:.2f}"])]


@kept(*CACHE_GRID_FIGURES, size=object_bytes)
def grid_finished(_model, text, present, palette):
    """The 72-head grid of ``text``, no head outlined, finished (``charts.finish.finished``:
    figure dict, title, alt, words; up to 3 MB at 128 pieces) for projector mode ``present``
    and ``palette``, once for every visitor; it reads nothing else."""
    run = model_run(_model, text)
    stats = run.stats
    n_layers, n_heads = stats.shape
    hover = [[_hover_lines(stats, layer, h) for h in range(n_heads)] for layer in range(n_layers)]
    fig = model_grid(
        run.attention,
        token_labels(run.tokens),
        head_hover=hover,
        text_px=text_px(present),
    )
    return finished(fig, present, palette, title="Every head")
