"""The next token: logits -> probabilities with a temperature and top-k, through the same
stable row softmax as attention's A (``attnviz.core.masked_softmax``, the mask keeping the k
largest logits), and the pick: the most likely token, or a draw with a seed."""

import numpy as np

from attnviz.checks import AttentionInputError
from attnviz.core import masked_softmax


def next_token_probabilities(logits, temperature=1.0, top_k=None):
    """(vocab,) p = softmax(logits / T) over the ``top_k`` largest logits (all if None), else 0.

    ``logits`` (vocab,) the model's scores for the next token; T > 0.
    """
    logits = np.asarray(logits, dtype=np.float32)
    if not temperature > 0:
        raise AttentionInputError(f"the temperature must be > 0 (got {temperature})")
    keep = None
    if top_k is not None:
        if not 1 <= top_k <= logits.shape[0]:
            raise AttentionInputError(f"top-k must be 1 to {logits.shape[0]} (got {top_k})")
        kth = np.partition(logits, -top_k)[-top_k]
        keep = logits >= kth  # ties at the k-th logit are all kept
    mask = None if keep is None else keep[None, :]
    _, p, _, _ = masked_softmax(logits[None, :], mask, temperature)  # (1, vocab)
    return p[0]


def pick(probabilities, rule="likeliest", rng=None):
    """The next token's id: the most probable ("likeliest") or a draw ("sample", with ``rng``)."""
    if rule == "likeliest":
        return int(np.argmax(probabilities))
    if rule == "sample":
        p = np.asarray(probabilities, dtype=np.float64)
        return int(rng.choice(p.shape[0], p=p / p.sum()))
    raise AttentionInputError(f"the pick must be 'likeliest' or 'sample' (got {rule!r})")


def top(probabilities, k=10):
    """(ids, probabilities) of the k most probable tokens, most probable first."""
    k = min(k, probabilities.shape[0])
    ids = np.argpartition(probabilities, -k)[-k:]
    ids = ids[np.argsort(-probabilities[ids], kind="stable")]
    return ids, probabilities[ids]
