"""Inside a chat model's server side: SmolLM2 (a pinned ``Slot``, loaded once per server), a
prompt's run (``ChatRun``), its generations and heads, kept per choice for every visitor, and
the charts every visitor shares, finished once. No Streamlit.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.charts.model_grid import model_grid
from attnviz.charts.token_bars import probability_bars
from attnviz.inputs import token_labels
from attnviz.limits import CACHE_BAR_FIGURES, CACHE_CHAT_MODEL, CACHE_GRID_FIGURES, MAX_CHAT_TOKENS
from attnviz.serve.finish import finished, text_px
from attnviz.serve.kept import kept
from attnviz.serve.slots import Slot
from attnviz.serve.store import object_bytes, release_freed_memory

RUNS_KEPT = 4  # prompts kept per server: each about 12 MB at 64 tokens
GENERATIONS_KEPT = 8  # generations kept: one per length, so "one more" reuses the last
HEADS_KEPT = 4


def _load(**progress):
    """The chat model (``load_causal_lm``: ``progress`` and ``tqdm_class`` show its loading),
    imported on first use, its reading's temporaries handed back to the system."""
    from attnviz.causal_lm import load_causal_lm

    loaded = load_causal_lm(**progress)
    release_freed_memory()
    return loaded


# The server's one chat model, pinned like MiniLM (``serve.real_model.MODEL``).
CHAT_MODEL = Slot("attnviz.chat_model", _load, CACHE_CHAT_MODEL[1])


def display_tokens(tokens):
    """Unique labels that show spaces (␣), line breaks (↵) and tabs (⇥) in a token."""
    shown = [t.replace(" ", "␣").replace("\n", "↵").replace("\t", "⇥") for t in tokens]
    return token_labels(shown)


# The prompt's forward pass, kept per text for every session ------------------------------------


@dataclass(frozen=True, eq=False)
class ChatRun:
    """What the page draws from one prompt (the whole run's logits at every position are
    (n, 49,152): only the last row is kept). Arrays read-only, shared by every session."""

    tokens: tuple
    token_ids: np.ndarray  # (n,)
    next_logits: np.ndarray  # (vocab,) the scores of the token after the prompt
    attention: np.ndarray  # (n_layers, n_heads, n, n)
    hidden_states: np.ndarray  # (n_layers + 1, n, d_model): [l] enters block l
    cache: object  # the prompt's KVCache
    n_total: int  # tokens of the whole text, before the cut to MAX_CHAT_TOKENS

    @property
    def n(self):
        return len(self.tokens)

    @property
    def logits(self):  # what Generation continues from
        return self.next_logits[None, :]


@kept(entries=RUNS_KEPT)
def chat_run(_model, text):
    """``_model.run(text)`` on its first MAX_CHAT_TOKENS tokens, as a ChatRun."""
    run = _model.run(text, max_tokens=MAX_CHAT_TOKENS)
    kept = ChatRun(
        tokens=run.tokens,
        token_ids=run.token_ids,
        next_logits=run.logits[-1].copy(),
        attention=run.attention,
        hidden_states=run.hidden_states,
        cache=run.cache,
        n_total=_model.count_tokens(text),
    )
    del run
    release_freed_memory()
    return kept


@kept(entries=GENERATIONS_KEPT)
def chat_generation(_model, text, temperature, top_k, pick, steps):
    """``steps`` tokens generated after ``text``'s run; the one with ``steps − 1`` (kept too)
    is extended by one token, so a click on "one more" computes one token."""
    from attnviz.causal_lm import Generation

    if steps == 0:
        run = chat_run(_model, text)
        return Generation(run=run, steps=(), cache=run.cache, next_logits=run.next_logits)
    before = chat_generation(_model, text, temperature, top_k, pick, steps - 1)
    return _model.extend(before, 1, temperature=temperature, top_k=top_k or None, rule=pick, seed=0)


@kept(entries=HEADS_KEPT)
def chat_head(_model, text, layer, head):
    """One head of the prompt's run, every step (HeadSteps, about 1 MB at 64 tokens)."""
    run = chat_run(_model, text)
    from attnviz.causal_lm.llama import head_steps

    return head_steps(_model.weights, _model.config, run.hidden_states[layer], layer, head)


@kept(*CACHE_BAR_FIGURES, size=object_bytes)
def bars_finished(_model, key, ids, probs, title, present, palette):
    """``probability_bars`` of the tokens ``ids`` with probabilities ``probs`` (float64
    bytes), finished (``serve.finish.finished``) for projector mode ``present`` and
    ``palette``, once for every visitor; it reads nothing else."""
    labels = display_tokens(_model.token_texts(list(ids)))
    fig = probability_bars(np.frombuffer(probs), labels, title=title, value_name="p")
    return finished(fig, present, palette, key=key)


@kept(*CACHE_GRID_FIGURES, size=object_bytes)
def grid_finished(_model, text, present, palette):
    """The grid of every head of ``text``'s run, no head outlined, finished
    (``serve.finish.finished``: figure dict, title, alt, words) for projector mode ``present``
    and ``palette``, once for every visitor; it reads nothing else."""
    run = chat_run(_model, text)
    fig = model_grid(run.attention, [""] * run.n, selected=None, text_px=text_px(present))
    return finished(fig, present, palette, title="Every head")
