"""Row-wise softmax, numerically stable, block by block so each block is worked on in cache.

    softmax(z)_j = exp(z_j - max_k z_k) / sum_l exp(z_l - max_k z_k)

Subtracting the row maximum changes nothing mathematically and keeps every exponent <= 0, so
``exp`` cannot overflow. A row of only ``-inf`` (a query masked from every key) gives zeros.

When the caller knows every finite logit lies within +-``unshifted_limit(dtype)``
(``logit_bound`` bounds them from the lengths of the query and key vectors), ``exp`` can neither
overflow nor underflow, so ``softmax_into(..., shift=False)`` skips the subtraction, one pass
over the matrix fewer, and the numbers agree to rounding.
"""

import numpy as np

from attnviz.errors import AttentionInputError

_BLOCK_BYTES = 1 << 20  # bytes of one row block of one (n, n) matrix (measured: 1 MiB to 2 MiB
# was fastest at n = 2048 on two threads, 256 KiB 30% slower, 128 KiB slower still)


def block_rows(n_keys, dtype):
    """Rows per block of an (m, n_keys) matrix of ``dtype`` so a block holds about _BLOCK_BYTES."""
    return max(1, _BLOCK_BYTES // max(1, n_keys * np.dtype(dtype).itemsize))


def unshifted_limit(dtype):
    """Largest |logit| for which ``softmax_into(..., shift=False)`` is safe in ``dtype``.

    exp(64) * 8192 keys (MAX_CORE_N) is about 5e31 and exp(-64) about 2e-28: both far inside
    float32's normal range (1e-38 to 3e38), so no row sum overflows and no term is subnormal.
    float64 reaches exp(+-708); 512 leaves the same kind of margin. The margin (safe would be
    up to about 79 and 700) also covers a bound that is off by rounding.
    """
    return 64.0 if np.dtype(dtype) == np.float32 else 512.0


def longest_row(M):
    """max_i |m_i|, the length of the longest row of M (rows, width), as a Python float.

    Worked out on M / max|M_ij|, so squaring neither overflows nor underflows to 0.
    """
    top = float(np.abs(M).max())
    if top == 0:
        return 0.0
    unit = M / M.dtype.type(top)  # entries within [-1, 1], the largest exactly +-1
    return top * float(np.sqrt(np.einsum("ij,ij->i", unit, unit).max()))


def logit_bound(Q, K, sqrt_d_k, temperature):
    """A bound on every |logit_ij| (up to rounding: a relative few d_k eps); raise if the
    scores, or the logits, would overflow.

    |S_ij| = |q_i . k_j| <= |q_i| |k_j| (Cauchy-Schwarz), so max_i |q_i| max_j |k_j|, put
    through the same divisions as the logits, bounds them all: one cheap pass over Q and K.
    Q K^T is only formed here when that bound comes near the largest number of the dtype
    (division is monotone, so the largest |logit| overflows exactly when some logit does).
    ``sqrt_d_k`` (None: no scaling) and ``temperature`` are the dtype's own numbers the logits
    are divided by; the bound is worked out in Python floats from them.
    """
    dtype = Q.dtype
    q_max, k_max = longest_row(Q), longest_row(K)
    bound = q_max * k_max / (float(1 if sqrt_d_k is None else sqrt_d_k) * float(temperature))
    big = float(np.finfo(dtype).max) / 2
    if max(q_max * k_max, bound) < big:
        return bound
    with np.errstate(over="ignore", invalid="ignore"):
        worst = np.abs(Q @ K.T).max()  # NaN or inf if some q . k overflowed
        if sqrt_d_k is not None:
            worst = worst / sqrt_d_k
        worst = worst / dtype.type(temperature)
    if not np.isfinite(worst):
        raise AttentionInputError(
            f"the scores overflowed {dtype} (q . k is too large although Q and K are "
            "finite): rescale X or the weights, or use a larger temperature"
        )
    return float(worst)


def softmax_into(logits, probs, row_max, row_sum, *, shift=True):
    """Softmax of each row of ``logits`` (m, n) written into ``probs``; fills row_max, row_sum.

    ``logits`` holds finite numbers and ``-inf``; a row of only ``-inf`` gives zeros.
    ``shift=False`` skips subtracting the row maxima: only for logits whose finite entries lie
    within +-unshifted_limit(dtype), where exp(z) is a normal number and no row sum overflows;
    the outputs are the same to rounding (``row_sum`` is still sum_j exp(z_j - row_max)).
    """
    np.max(logits, axis=1, out=row_max)
    if shift:
        m = np.where(np.isfinite(row_max), row_max, 0).astype(logits.dtype)
        with np.errstate(over="ignore"):  # a row spanning more than the dtype's range gives
            np.subtract(logits, m[:, None], out=probs)  # -inf: exp(-inf) = 0, the right answer
        np.exp(probs, out=probs)  # every exponent is now <= 0: exp cannot overflow
    else:
        np.exp(logits, out=probs)
    np.sum(probs, axis=1, out=row_sum)
    live = row_sum > 0  # False for a row of only -inf (a query masked from every key)
    inv = np.divide(1, row_sum, out=np.zeros_like(row_sum), where=live)
    probs *= inv[:, None]
    if not shift:  # the sum found is exp(row_max) times sum_j exp(z_j - row_max)
        np.multiply(row_sum, np.exp(-row_max, where=live, out=np.zeros_like(row_max)), out=row_sum)


def softmax_rows(logits):
    """Row-wise softmax of ``logits`` (m, n) -> (attention, row_max, row_sum).

    Stable: each row has its maximum subtracted before ``exp``, so no finite input overflows.
    Guarantee: every row with at least one finite logit sums to 1 (to rounding). A row whose
    logits are all ``-inf`` (a query masked from every key) gives an all-zero row, never NaN.

    Returns the probabilities (m, n), the row maxima (m,) that were subtracted (``-inf`` for an
    empty row) and the normalisers (m,) ``sum_j exp(logit_ij - max_i)`` (0 for an empty row),
    so that ``attention_ij = exp(logit_ij - row_max_i) / row_sum_i``.
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
    top = logits.max(axis=1)  # NaN or +inf anywhere in a row shows in its maximum
    if np.isnan(top).any() or np.isposinf(top).any():
        raise AttentionInputError(
            "the softmax input holds NaN or +infinity (the scores overflowed): "
            "use smaller inputs or weights, or a larger temperature"
        )
    probs = np.empty_like(logits)
    row_max = np.empty(logits.shape[0], logits.dtype)
    row_sum = np.empty_like(row_max)
    step = block_rows(logits.shape[1], logits.dtype)
    for start in range(0, logits.shape[0], step):
        rows = slice(start, start + step)  # views: each block is written while it is in cache
        softmax_into(logits[rows], probs[rows], row_max[rows], row_sum[rows])
    return probs, row_max, row_sum


def softmax(logits):
    """Stable softmax over the last axis of a 2-D array; each row sums to 1 (see softmax_rows)."""
    return softmax_rows(logits)[0]
