"""Inside a chat model's server side: SmolLM2 (a pinned ``Slot``, loaded once per server), a
prompt's run (``ChatRun``), its generations and heads, kept per choice for every visitor, and
the charts every visitor shares, finished once; the model and its runs leave memory after
CHAT_IDLE_SECONDS unused (``release_if_idle``). A prompt's reading, a generation, a head and
the grid of heads not kept yet are computed in the visitor's turn of the heavy queue's chat
lane, one at a time per server (``prompt_run``, ``generation_in_turn``, ``head_in_turn``,
``grid_in_turn``). No Streamlit.
"""

import contextlib
import functools
import threading
import time
from dataclasses import dataclass

import numpy as np

from attnviz.charts.finish import finished, text_px
from attnviz.charts.model_grid import model_grid
from attnviz.charts.token_bars import probability_bars
from attnviz.inputs import token_labels
from attnviz.limits import (
    CACHE_BAR_FIGURES,
    CACHE_CHAT_MODEL,
    CACHE_GRID_FIGURES,
    CHAT_IDLE_SECONDS,
    CHAT_RUN_SECONDS,
    CHAT_TOKEN_SECONDS,
    MAX_CHAT_TOKENS,
)
from attnviz.serve.gate import CHAT, gated, turn
from attnviz.serve.slots import Slot
from attnviz.serve.store import cache_report, forget, kept, object_bytes, release_freed_memory

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


# The model leaves memory when unused ------------------------------------------------------------

_LAST_USE = [time.monotonic()]  # when a page last asked for the model
_KEPT_UNTIL = [0.0]  # a prepared lecture keeps the model until then (``keep_for``)


def keep_for(seconds):
    """Keep the model loaded for ``seconds`` from now even when unused (a prepared lecture's
    chat slides come late); 0 lets it go when idle again."""
    _KEPT_UNTIL[0] = time.monotonic() + seconds if seconds else 0.0
    _idle_watch()


def note_use():
    """A page asks for the model now: it stays CHAT_IDLE_SECONDS more (``release_if_idle``,
    checked every minute by one daemon thread, started here)."""
    _LAST_USE[0] = time.monotonic()
    _idle_watch()


def release_if_idle(now=None):
    """Drop the model and every run of it from the server's memory when no page has asked for
    it in CHAT_IDLE_SECONDS and no prepared lecture keeps it (``keep_for``; the next visitor
    loads it again); True if it was dropped."""
    now = time.monotonic() if now is None else now
    if now < _KEPT_UNTIL[0] or now - _LAST_USE[0] < CHAT_IDLE_SECONDS:
        return False
    if CHAT_MODEL.peek() is None:
        return False
    held = [row["cache"] for row in cache_report()]  # every cache keyed on the model too
    CHAT_MODEL.forget()
    for name in held:
        if name.startswith(__name__ + "."):
            forget(name)
    release_freed_memory()
    return True


@functools.cache
def _idle_watch():
    """One daemon thread per server that calls ``release_if_idle`` every minute."""

    def watch():
        while True:
            time.sleep(60)
            release_if_idle()

    threading.Thread(target=watch, name="chat-model-idle", daemon=True).start()


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


def chat_turn(model, text):
    """A context manager for the rest of the chat page's run: in the chat lane's turn when
    ``text``'s reading is not kept yet (a new prompt), else at once. Every computation of the
    run inside it (the reading, the grid, a head, the generation) then goes on without waiting
    again, and a burst of new prompts waits before any of it: a session that read its prompt
    and then waited for its generation held its run (about 12 MB) and its figures all along,
    and twenty such took a server to 940 MB with the chat lane alone (docs/performance.md)."""
    if chat_run.peek(model, text) is not None:
        return contextlib.nullcontext()
    return turn("the chat model", CHAT_RUN_SECONDS, lane=CHAT)


def prompt_run(model, text):
    """``chat_run(model, text)``: kept, at once; else computed in the heavy queue's chat lane
    (``serve.gate.CHAT``), so that a burst of distinct links reads one prompt at a time. The
    queue is entered before the cache's computation starts, so that a computation in progress
    always holds a slot and another slot's holder never waits for a queued one."""
    run = chat_run.peek(model, text)
    if run is not None:
        return run
    what = "the chat model's reading"
    return gated(lambda: chat_run(model, text), what, CHAT_RUN_SECONDS, lane=CHAT)


def generation_in_turn(model, text, temperature, top_k, pick, steps):
    """``chat_generation(...)``, as ``prompt_run`` (the chat lane): the tokens still to
    generate (past the longest kept generation of these choices) times CHAT_TOKEN_SECONDS is
    its cost, which the waiting notice does not need but the queue keeps."""
    args = (model, text, temperature, top_k, pick)
    done = next((k for k in range(steps, 0, -1) if chat_generation.peek(*args, k) is not None), 0)
    if done == steps:
        return chat_generation.peek(*args, steps)
    cost = CHAT_RUN_SECONDS * (chat_run.peek(model, text) is None)
    cost += (steps - done) * CHAT_TOKEN_SECONDS
    what = "the chat model's generation"
    return gated(lambda: chat_generation(*args, steps), what, cost, lane=CHAT)


def head_in_turn(model, text, layer, head):
    """``chat_head(...)``: kept, at once; else computed in the heavy queue's chat lane."""
    found = chat_head.peek(model, text, layer, head)
    if found is not None:
        return found
    return gated(lambda: chat_head(model, text, layer, head), "one head's steps", lane=CHAT)


def grid_in_turn(model, text, present, palette):
    """``grid_finished(...)``: kept, at once; else built in the heavy queue's chat lane (the
    figure of 270 heads holds tens of MB while it is built: twenty built at once were most of
    a burst's memory)."""
    found = grid_finished.peek(model, text, present, palette)
    if found is not None:
        return found
    build = lambda: grid_finished(model, text, present, palette)  # noqa: E731
    return gated(build, "the grid of every head", lane=CHAT)


@kept(entries=HEADS_KEPT)
def chat_head(_model, text, layer, head):
    """One head of the prompt's run, every step (HeadSteps, about 1 MB at 64 tokens)."""
    run = chat_run(_model, text)
    from attnviz.causal_lm.llama import head_steps

    return head_steps(_model.weights, _model.config, run.hidden_states[layer], layer, head)


@kept(*CACHE_BAR_FIGURES, size=object_bytes)
def bars_finished(_model, key, ids, probs, title, present, palette):
    """``probability_bars`` of the tokens ``ids`` with probabilities ``probs`` (float64
    bytes), finished (``charts.finish.finished``) for projector mode ``present`` and
    ``palette``, once for every visitor; it reads nothing else."""
    labels = display_tokens(_model.token_texts(list(ids)))
    fig = probability_bars(np.frombuffer(probs), labels, title=title, value_name="p")
    return finished(fig, present, palette, key=key)


@kept(*CACHE_GRID_FIGURES, size=object_bytes)
def grid_finished(_model, text, present, palette):
    """The grid of every head of ``text``'s run, no head outlined, finished
    (``charts.finish.finished``: figure dict, title, alt, words) for projector mode ``present``
    and ``palette``, once for every visitor; it reads nothing else."""
    run = chat_run(_model, text)
    # the page calls a layer a block, as the picker does; a projector's grid is turned (a head
    # a row, a block a column), so that 30 blocks of 9 heads fill its width, not a strip
    names = dict(row_name="head", col_name="block") if present else dict(row_name="block")
    attention = run.attention.swapaxes(0, 1) if present else run.attention
    fig = model_grid(attention, [""] * run.n, selected=None, text_px=text_px(present), **names)
    return finished(fig, present, palette, title="Every head")
