"""What every lesson shares: row entropy, re-running attention with a change, argument checks."""

import numpy as np

from attnviz.checks import AttentionInputError, as_matrix, check_positive_int
from attnviz.core import self_attention
from attnviz.limits import MAX_D_K

TIE_TOLERANCE = 1e-9  # numbers this close (relative to max(1, |largest|)) count as tied
_KEEP = object()  # "leave this setting as it was" in reattend


def row_entropy(A):
    """(m,) entropy H_i = -sum_j A_ij log A_ij of each row of A (m, n), in nats.

    0 log 0 is taken as 0, so a one-hot row gives 0, a uniform row over n keys log n, and an
    all-zero row (a query masked from every key) 0.
    """
    A = as_matrix("A", A)
    if (A < 0).any():
        raise AttentionInputError("A must hold probabilities >= 0: pass an attention matrix")
    logs = np.log(A, out=np.zeros_like(A), where=A > 0)
    return -(A * logs).sum(axis=1)


def reattend(result, *, X=_KEEP, mask=_KEEP, scale=_KEEP, temperature=_KEEP):
    """Attention with the weights and biases of ``result``, and its X and settings unless
    given: ``X`` (n, d_model) another input; ``mask`` None (no mask) or an (n, n) bool array.
    """
    return self_attention(
        result.X if X is _KEEP else X,
        result.W_Q,
        result.W_K,
        result.W_V,
        mask=result.mask if mask is _KEEP else mask,
        scale=result.scale if scale is _KEEP else scale,
        temperature=result.temperature if temperature is _KEEP else temperature,
        b_Q=result.b_Q,
        b_K=result.b_K,
        b_V=result.b_V,
    )


def check_d_ks(d_ks):
    """(m,) int array of key widths, each from 1 to MAX_D_K, or raise AttentionInputError."""
    d_ks = list(np.atleast_1d(np.asarray(d_ks, dtype=object)))
    if not d_ks:
        raise AttentionInputError("d_ks is empty: give at least one key dimension, e.g. (1, 64)")
    hint = f"choose key dimensions from 1 to {MAX_D_K}"
    return np.array([check_positive_int("each d_k", d, MAX_D_K, hint) for d in d_ks])


def check_positive(name, values):
    """(m,) float array of finite numbers > 0, or raise AttentionInputError."""
    try:
        values = np.atleast_1d(np.asarray(values, dtype=float))
    except (TypeError, ValueError):
        values = np.array([np.nan])
    if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values) & (values > 0)):
        raise AttentionInputError(
            f"{name} must be a non-empty list of finite numbers > 0: e.g. (0.1, 1, 10)"
        )
    return values
