"""Attention masks: boolean (n, n), True where query i may attend to key j (PyTorch's convention).

The core sets the logits of forbidden keys to ``-inf`` before the softmax, so they get weight
exactly 0; a query that may attend to no key gets an all-zero attention row and output row.
"""

import numpy as np

from attnviz.errors import AttentionInputError


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


def check_mask(mask, n):
    """Return ``mask`` as a read-only (n, n) bool array, or raise AttentionInputError."""
    try:
        mask = np.asarray(mask)
    except (TypeError, ValueError) as exc:
        raise AttentionInputError(
            f"mask could not be read as a matrix ({exc}): pass an ({n}, {n}) boolean array"
        ) from None
    if mask.shape != (n, n):
        raise AttentionInputError(
            f"mask must have shape ({n}, {n}), one row per query and one column per key "
            f"(got {mask.shape}): build it with causal_mask(n) or padding_mask(n, k)"
        )
    if mask.dtype != np.bool_:
        raise AttentionInputError(
            f"mask must be boolean, True where query i may attend to key j (got dtype "
            f"{mask.dtype}): convert it with mask.astype(bool)"
        )
    return mask
