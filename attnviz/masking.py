"""Attention masks: boolean (n, n), True where query i may attend to key j (PyTorch's convention).

The core sets the logits of forbidden keys to ``-inf`` before the softmax, so they get weight
exactly 0; a query that may attend to no key gets an all-zero attention row and output row.
"""

import numpy as np

from attnviz.checks import AttentionInputError, check_mask  # noqa: F401 (masks are checked there)


def causal_mask(n):
    """(n, n) bool, True on and below the diagonal: query i may attend to keys 0..i (GPT)."""
    return np.tri(n, dtype=bool)


def padding_mask(n, n_padding):
    """(n, n) bool, False in the columns of the last ``n_padding`` keys (padding tokens)."""
    if not 0 <= n_padding <= n:
        raise AttentionInputError(
            f"n_padding must be between 0 and n={n} (got {n_padding}): pad at most every token"
        )
    mask = np.ones((n, n), dtype=bool)
    mask[:, n - n_padding :] = False
    return mask
