"""The chat model ready to run: text -> tokens -> every head's attention and the next token.

``CausalLM.run(text)`` is the forward pass over a prompt (``CausalRun``); ``generate`` adds
tokens one at a time through the KV cache (``Generation``); ``head`` opens one head step by
step (``attnviz.causal_lm.llama.HeadSteps``).
"""

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from attnviz.causal_lm.config import LlamaConfig
from attnviz.causal_lm.llama import Forward, KVCache, forward, head_steps
from attnviz.causal_lm.loading import MODEL_ID
from attnviz.causal_lm.sampling import next_token_probabilities, pick, top
from attnviz.causal_lm.tokens import token_text
from attnviz.causal_lm.weights import ModelWeights
from attnviz.checks import AttentionInputError
from attnviz.results import freeze_arrays


@dataclass(frozen=True, eq=False)
class CausalRun:
    """The model over one prompt of n tokens. Arrays are read-only.

    token_ids (n,); tokens n strings as the student reads them (" capital"); logits (n, vocab)
    the next-token scores at every position; attention (n_layers, n_heads, n, n) every query
    head's A; hidden_states (n_layers + 1, n, d_model) the stream entering each block and after
    the last; cache the prompt's KVCache, from which generation goes on.
    """

    text: str
    token_ids: np.ndarray
    tokens: tuple
    logits: np.ndarray
    attention: np.ndarray
    hidden_states: np.ndarray
    cache: KVCache
    config: LlamaConfig

    def __post_init__(self):
        freeze_arrays(self)

    @property
    def n(self):
        return len(self.tokens)


@dataclass(frozen=True, eq=False)
class GeneratedToken:
    """One generated token and what computing it took. Arrays are read-only.

    position: its place (the prompt's n, then n + 1, ...); token_id and token; probability
    its p; top_ids, top_p the 10 likeliest then; attention (n_layers, n_heads, t) the new
    query's A row over the t = position + 1 tokens so far; q (n_layers, n_heads, d_head),
    k, v (n_layers, n_kv_heads, d_head) the one new row of Q, K (after RoPE) and V computed;
    cache_length the t − 1 old keys and values reused from the cache.
    """

    position: int
    token_id: int
    token: str
    probability: float
    top_ids: np.ndarray
    top_p: np.ndarray
    attention: np.ndarray
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    cache_length: int

    def __post_init__(self):
        freeze_arrays(self)


@dataclass(frozen=True, eq=False)
class Generation:
    """The prompt's run and the tokens generated after it, one at a time; ``cache`` holds the
    keys and values of them all, ``next_logits`` (vocab,) the scores of the token to come."""

    run: object  # a CausalRun (or any object with token_ids)
    steps: tuple
    cache: KVCache
    next_logits: np.ndarray

    @property
    def token_ids(self):
        return np.array([*self.run.token_ids, *(s.token_id for s in self.steps)], dtype=np.int64)

    @property
    def text(self):
        return "".join(s.token for s in self.steps)


@dataclass(frozen=True, eq=False)
class CausalLM:
    """SmolLM2-135M-Instruct (or a model of its architecture) in numpy. Build it with
    ``load_causal_lm``. ``source`` says where the weights came from."""

    config: LlamaConfig
    weights: ModelWeights
    tokenizer: object  # a tokenizers.Tokenizer
    path: Path
    source: str
    name: str = MODEL_ID

    def token_texts(self, ids):
        """Each id as the text a student reads (" capital"; "<F0 9F>" for part of a character)."""
        return tuple(token_text(self.tokenizer.id_to_token(int(i)) or "") for i in ids)

    def count_tokens(self, text):
        """How many tokens ``text`` is, with no limit applied."""
        return len(self._encode(text))

    def _encode(self, text):
        if not isinstance(text, str):
            raise AttentionInputError(f"the prompt must be a string (got {type(text).__name__})")
        return self.tokenizer.encode(text, add_special_tokens=False).ids

    def encode(self, text, *, max_tokens=None):
        """(tokens, token ids (n,)) of ``text``, cut to its first ``max_tokens`` if given."""
        ids = self._encode(text)
        if max_tokens is not None:
            ids = ids[:max_tokens]
        if not ids:
            raise AttentionInputError("the prompt has no tokens: type some text")
        if len(ids) > self.config.max_positions:
            raise AttentionInputError(
                f"the prompt has {len(ids)} tokens, but the model reads at most "
                f"{self.config.max_positions}: shorten it"
            )
        return self.token_texts(ids), np.array(ids, dtype=np.int64)

    def run(self, text, *, max_tokens=None):
        """The forward pass over ``text`` -> CausalRun."""
        tokens, ids = self.encode(text, max_tokens=max_tokens)
        out = forward(self.weights, self.config, ids)
        return CausalRun(
            text=text,
            token_ids=ids,
            tokens=tokens,
            logits=out.logits,
            attention=out.attention,
            hidden_states=out.hidden_states,
            cache=out.cache,
            config=self.config,
        )

    def step(self, token_id, cache):
        """One more token through the KV cache -> Forward of one row (m = 1)."""
        return forward(self.weights, self.config, np.array([token_id]), cache)

    def generate(self, run, steps, *, temperature=1.0, top_k=None, rule="likeliest", seed=0):
        """``steps`` tokens after ``run``'s prompt, each from the last one's logits -> Generation.

        Each token's probabilities are ``next_token_probabilities(logits, temperature, top_k)``;
        ``rule`` "likeliest" takes the most probable, "sample" draws with ``seed`` (the draw at
        position t uses the generator seeded [seed, t], so a longer generation extends a shorter).
        """
        start = Generation(run=run, steps=(), cache=run.cache, next_logits=run.logits[-1])
        return self.extend(start, steps, temperature=temperature, top_k=top_k, rule=rule, seed=seed)

    def extend(self, generation, steps, *, temperature=1.0, top_k=None, rule="likeliest", seed=0):
        """``generation`` with ``steps`` more tokens (see ``generate``)."""
        logits, cache, done = generation.next_logits, generation.cache, list(generation.steps)
        for _ in range(steps):
            p = next_token_probabilities(logits, temperature, top_k)
            token_id = pick(p, rule, np.random.default_rng([seed, cache.length]))
            top_ids, top_p = top(p, 10)
            out: Forward = self.step(token_id, cache)
            done.append(
                GeneratedToken(
                    position=cache.length,
                    token_id=token_id,
                    token=self.token_texts([token_id])[0],
                    probability=float(p[token_id]),
                    top_ids=top_ids,
                    top_p=top_p,
                    attention=out.attention[:, :, 0, :],
                    q=out.q_new[:, :, 0, :],
                    k=out.k_new[:, :, 0, :],
                    v=out.v_new[:, :, 0, :],
                    cache_length=cache.length,
                )
            )
            logits, cache = out.logits[0], out.cache
        return Generation(run=generation.run, steps=tuple(done), cache=cache, next_logits=logits)

    def head(self, run, layer, head):
        """Head ``head`` of block ``layer`` over ``run``'s prompt, step by step -> HeadSteps."""
        c = self.config
        if not (0 <= layer < c.n_layers and 0 <= head < c.n_heads):
            raise AttentionInputError(
                f"layer must be 0 to {c.n_layers - 1} and head 0 to {c.n_heads - 1} "
                f"(got {layer}, {head})"
            )
        return head_steps(self.weights, c, run.hidden_states[layer], layer, head)

    def __repr__(self):
        c = self.config
        return (
            f"CausalLM({self.name}: {c.n_layers} blocks, {c.n_heads} query heads sharing "
            f"{c.n_kv_heads} key/value heads, d_model={c.d_model}; from {self.source})"
        )
