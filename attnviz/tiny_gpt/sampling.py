"""Generation: the next token's probabilities, with temperature and top-k, sampled token by token.

    p = softmax(logits / temperature) over the top_k largest logits (0 for the others)

Temperature 0 means: always take the most probable token (argmax decoding, the limit of the
formula as the temperature goes to 0).
"""

import numpy as np

from attnviz.checks import AttentionInputError
from attnviz.softmax import softmax_rows
from attnviz.tiny_gpt.model import next_token_logits


def sampling_probs(logits, temperature=1.0, top_k=None):
    """(V,) probabilities of the next token from its ``logits`` (V,).

    ``top_k`` keeps the k largest logits (None or V: all; ties go to the lower token id); the
    rest get probability 0. ``temperature`` >= 0: 1 leaves the model's own probabilities, less
    sharpens them, more flattens them, 0 puts probability 1 on the largest logit.
    """
    logits = np.asarray(logits, dtype=np.float64)
    V = logits.shape[0]
    if not (temperature >= 0 and np.isfinite(temperature)):
        raise AttentionInputError(f"temperature must be a number >= 0 (got {temperature})")
    if top_k is not None and not 1 <= top_k <= V:
        raise AttentionInputError(f"top_k must be 1 to {V}, the vocabulary (got {top_k})")
    order = np.argsort(-logits, kind="stable")  # token ids, largest logit first
    kept = order[: V if top_k is None else top_k]
    if temperature == 0:
        probs = np.zeros(V)
        probs[order[0]] = 1.0  # argmax decoding
        return probs
    z = np.full(V, -np.inf)
    z[kept] = logits[kept] / temperature  # the others stay at -inf: probability 0
    return softmax_rows(z[None])[0][0]


def next_token_probs(params, config, prompt_ids, temperature=1.0, top_k=None):
    """(V,) probabilities of the token after ``prompt_ids`` (1-D, at least one token)."""
    logits = next_token_logits(params, config, prompt_ids)  # (V,)
    return sampling_probs(logits, temperature, top_k)


def generate(params, config, prompt_ids, n_new, temperature=1.0, top_k=None, seed=0):
    """``prompt_ids`` followed by ``n_new`` tokens, each drawn from ``next_token_probs`` of
    everything before it (its last context_length tokens). Same seed, same tokens.

    Returns a 1-D int array of len(prompt_ids) + n_new ids.
    """
    ids = [int(i) for i in np.asarray(prompt_ids).ravel()]
    if not ids:
        raise AttentionInputError("the prompt is empty: give at least one token to continue")
    rng = np.random.default_rng(seed)
    for _ in range(n_new):
        probs = next_token_probs(params, config, np.array(ids), temperature, top_k)
        if temperature == 0:
            ids.append(int(np.argmax(probs)))
        else:  # inverse-CDF sampling: the first token whose cumulative probability passes u
            cumulative = np.cumsum(probs)
            u = rng.random() * cumulative[-1]
            ids.append(int(min(np.searchsorted(cumulative, u, side="right"), len(probs) - 1)))
    return np.array(ids, dtype=np.int64)
