"""Row-wise softmax, numerically stable: the row maximum is always subtracted first.

    softmax(z)_j = exp(z_j - max_k z_k) / sum_l exp(z_l - max_k z_k)

Subtracting the row maximum changes nothing mathematically and keeps every exponent <= 0, so
``exp`` cannot overflow, and the largest term is exp(0) = 1, so the row sum is at least 1. A row
of only ``-inf`` (a query masked from every key) gives zeros, never NaN.
"""

import numpy as np

from attnviz.checks import AttentionInputError


def softmax_rows(logits):
    """Row-wise softmax of ``logits`` (m, n) -> (attention, row_max, row_sum).

    Guarantee: every row with at least one finite logit sums to 1 (to rounding). A row whose
    logits are all ``-inf`` (a query masked from every key) gives an all-zero row, never NaN.

    Returns the probabilities (m, n), the row maxima (m,) that were subtracted (``-inf`` for an
    empty row) and the normalisers (m,) ``sum_j exp(logit_ij - row_max_i)`` (0 for an empty
    row), so that ``attention_ij = exp(logit_ij - row_max_i) / row_sum_i``.
    """
    logits = np.asarray(logits)
    if logits.ndim != 2:
        raise AttentionInputError(
            f"softmax_rows needs a 2-D matrix (got shape {logits.shape}): pass (rows, keys)"
        )
    if logits.shape[1] == 0:
        raise AttentionInputError(
            f"softmax_rows needs at least one key (got shape {logits.shape}): "
            "a row of no logits has no probabilities"
        )
    if not np.issubdtype(logits.dtype, np.floating):
        logits = logits.astype(np.float64)
    row_max = logits.max(axis=1)  # (m,); NaN or +inf anywhere in a row shows here
    if np.isnan(row_max).any() or np.isposinf(row_max).any():
        raise AttentionInputError(
            "the softmax input holds NaN or +infinity (the scores overflowed): "
            "use smaller inputs or weights, or a larger temperature"
        )
    shift = np.where(np.isfinite(row_max), row_max, 0)  # an all -inf row: exp(-inf - 0) = 0
    with np.errstate(over="ignore"):  # a row spanning more than the dtype's range gives -inf
        exps = np.exp(logits - shift[:, None])  # (m, n), every exponent <= 0: no overflow
    row_sum = exps.sum(axis=1)  # (m,), >= 1 where a logit is finite, 0 for an all -inf row
    live = row_sum[:, None] > 0
    attention = np.divide(exps, row_sum[:, None], out=exps, where=live)  # rows sum to 1
    return attention, row_max, row_sum


def softmax(logits):
    """Stable softmax over the last axis of a 2-D array; each row sums to 1 (see softmax_rows)."""
    return softmax_rows(logits)[0]
