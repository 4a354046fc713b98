r"""Scaled dot-product self-attention, every step kept (numpy only).

Glossary (the names copy the formula):

    n        sequence length (tokens, rows of X)
    d_model  embedding width (columns of X)
    d_k      query/key width;  d_v  value width
    X        (n, d_model)  input embeddings, one row per token
    W_Q, W_K (d_model, d_k) and W_V (d_model, d_v)  projection weights
    Q, K, V  (n, d_k), (n, d_k), (n, d_v)
    S        scores = Q K^T, (n, n): row i is query i, column j is key j
    S'       scaled_scores = S / sqrt(d_k)
    A        attention = softmax(S' / T) over keys (each row sums to 1)
    output   A V, (n, d_v)

.. math::

    \mathrm{Attention}(Q, K, V) = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right) V
"""

from dataclasses import dataclass

import numpy as np

from attnviz import memory, parallel
from attnviz.errors import AttentionInputError, as_matrix, as_vector, float_dtype
from attnviz.masking import causal_mask, check_mask, padding_mask  # noqa: F401 (re-exported)
from attnviz.stable_softmax import block_rows, logit_bound, softmax_into, unshifted_limit

FORMULA = r"\mathrm{Attention}(Q,K,V) = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V"


def freeze_arrays(obj):
    """Make every numpy array field of the frozen dataclass ``obj`` a read-only view.

    Views, so the caller's own arrays (passed in as X or weights) stay writeable.
    """
    for name, value in vars(obj).items():
        if isinstance(value, np.ndarray):
            view = value.view()
            view.flags.writeable = False
            object.__setattr__(obj, name, view)


@dataclass(frozen=True, eq=False)
class AttentionResult:
    """Every step of one head of scaled dot-product attention. Arrays are read-only.

    Shapes: X (n, d_model); W_Q, W_K (d_model, d_k); W_V (d_model, d_v); b_Q, b_K (d_k,) and
    b_V (d_v,) or None; Q, K (n, d_k); V (n, d_v); scores, scaled_scores, logits, attention
    (n, n); mask (n, n) bool or None; row_max, row_sum (n,); output (n, d_v).

    ``logits`` is what fed the softmax: ``scaled_scores / temperature`` with ``-inf`` where the
    mask forbids a key. ``attention_ij = exp(logits_ij - row_max_i) / row_sum_i``.
    """

    X: np.ndarray
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    b_Q: np.ndarray | None
    b_K: np.ndarray | None
    b_V: np.ndarray | None
    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    scores: np.ndarray
    scaled_scores: np.ndarray
    logits: np.ndarray
    attention: np.ndarray
    output: np.ndarray
    mask: np.ndarray | None
    row_max: np.ndarray
    row_sum: np.ndarray
    scale: bool
    temperature: float

    def __post_init__(self):
        freeze_arrays(self)

    @property
    def n(self):
        return self.X.shape[0]

    @property
    def d_model(self):
        return self.X.shape[1]

    @property
    def d_k(self):
        return self.Q.shape[1]

    @property
    def d_v(self):
        return self.V.shape[1]

    @property
    def scale_factor(self):
        """What the scores are divided by: sqrt(d_k) when scaling is on, else 1."""
        return float(np.sqrt(self.d_k)) if self.scale else 1.0

    @property
    def row_sums(self):
        """(n,) sum of each attention row: 1 for every query that may attend to a key, else 0."""
        return self.attention.sum(axis=1)


def project(X, weights, workers):
    """[X W + b for each (W, b) of ``weights``]: X (n, d_model), W (d_model, width), b (width,)
    or None -> one (n, width) matrix each, a block of rows at a time on ``workers`` threads.

    Overflow gives inf or NaN silently; the caller checks and says what to do.
    """
    n = X.shape[0]
    outs = [np.empty((n, W.shape[1]), X.dtype) for W, _ in weights]
    step = -(-n // workers)  # one block per thread: small products cost more in calls

    def block(start):
        rows = slice(start, start + step)
        with np.errstate(over="ignore", invalid="ignore"):  # per thread: set it in the block
            for (W, b), out in zip(weights, outs, strict=True):
                np.matmul(X[rows], W, out=out[rows])
                if b is not None:
                    out[rows] += b

    parallel.run_blocks(block, range(0, n, step), workers)
    return outs


def attend(Q, K, V, sqrt_d_k, temperature, mask, workers, bound=np.inf):
    """Every (n, n) step and the output, one block of query rows at a time.

    Returns (scores, scaled_scores, logits, attention, row_max, row_sum, output). A block of
    rows goes through S = Q K^T, S / sqrt(d_k), / T, the mask, the softmax and A V while it is
    in cache, and blocks are shared among ``workers`` threads (``attnviz.parallel``): rows
    of attention do not depend on each other. ``sqrt_d_k`` is None when scaling is off; then
    ``scaled_scores`` is ``scores`` itself, and ``logits`` is ``scaled_scores`` itself when
    there is neither a temperature nor a mask: no copy is made of what would be equal.
    ``bound`` >= every |logit_ij| (``logit_bound``): within the dtype's ``unshifted_limit`` the
    softmax skips subtracting the row maxima, which cannot change its result beyond rounding.
    """
    n, dtype = Q.shape[0], Q.dtype
    scores = memory.empty((n, n), dtype)  # np.empty, reusing large matrices freed earlier
    scaled_scores = scores if sqrt_d_k is None else memory.empty((n, n), dtype)
    plain = temperature == 1 and mask is None
    logits = scaled_scores if plain else memory.empty((n, n), dtype)
    attention = memory.empty((n, n), dtype)
    row_max, row_sum = np.empty(n, dtype), np.empty(n, dtype)
    output = np.empty((n, V.shape[1]), dtype)
    K_T, T = K.T, dtype.type(temperature)
    step = block_rows(n, dtype)
    shift = bound > unshifted_limit(dtype)  # else exp cannot overflow without the shift

    def block(start):
        rows = slice(start, start + step)
        np.matmul(Q[rows], K_T, out=scores[rows])  # S = Q K^T: S_ij = q_i . k_j
        if sqrt_d_k is not None:
            np.divide(scores[rows], sqrt_d_k, out=scaled_scores[rows])  # S' = S / sqrt(d_k)
        if temperature != 1:
            np.divide(scaled_scores[rows], T, out=logits[rows])  # S' / T
        elif not plain:
            logits[rows] = scaled_scores[rows]
        if mask is not None:
            np.copyto(logits[rows], -np.inf, where=~mask[rows])  # forbidden keys: -inf
        softmax_into(logits[rows], attention[rows], row_max[rows], row_sum[rows], shift=shift)
        np.matmul(attention[rows], V, out=output[rows])  # A V

    parallel.run_blocks(block, range(0, n, step), workers)
    return scores, scaled_scores, logits, attention, row_max, row_sum, output


def self_attention(
    X,
    W_Q,
    W_K,
    W_V,
    *,
    mask=None,
    scale=True,
    temperature=1.0,
    b_Q=None,
    b_K=None,
    b_V=None,
):
    r"""Scaled dot-product self-attention of ``X`` with every intermediate kept.

    .. math:: \mathrm{softmax}\left(\frac{(XW_Q + b_Q)(XW_K + b_K)^T}{\sqrt{d_k}\,T}\right)
              (XW_V + b_V)

    Args:
        X: (n, d_model) embeddings, one row per token.
        W_Q, W_K: (d_model, d_k) query and key projections.
        W_V: (d_model, d_v) value projection.
        mask: optional (n, n) bool, True where query i may attend to key j (PyTorch's
            convention). Forbidden logits become ``-inf`` before the softmax; a query that may
            attend to nothing gets an all-zero attention row and an all-zero output row.
        scale: divide the scores by sqrt(d_k) (True) or leave them as they are (False).
        temperature: T > 0; the softmax sees ``scaled_scores / T``.
        b_Q, b_K: optional (d_k,) biases; b_V: optional (d_v,) bias.

    Returns:
        AttentionResult. Computed in float32 when every input is float32, else float64.

    Raises:
        AttentionInputError (a ValueError) for non-2-D, empty, non-finite or mismatched input,
        a bad mask or a temperature that is not > 0.
    """
    dtype = float_dtype(X, W_Q, W_K, W_V)
    X = as_matrix("X", X, dtype)
    W_Q = as_matrix("W_Q", W_Q, dtype)
    W_K = as_matrix("W_K", W_K, dtype)
    W_V = as_matrix("W_V", W_V, dtype)
    n, d_model = X.shape
    for name, W in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V)):
        if W.shape[0] != d_model:
            raise AttentionInputError(
                f"{name} must have d_model={d_model} rows to multiply X {X.shape} "
                f"(got {W.shape}): give it shape ({d_model}, width)"
            )
    if W_K.shape != W_Q.shape:
        raise AttentionInputError(
            f"W_Q and W_K must have the same shape, since q_i . k_j needs equal widths d_k "
            f"(got {W_Q.shape} and {W_K.shape}): give both shape ({d_model}, d_k)"
        )
    d_k, d_v = W_Q.shape[1], W_V.shape[1]
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float, np.number)):
        raise AttentionInputError(f"temperature must be a number (got {temperature!r})")
    if not (np.isfinite(temperature) and temperature > 0):
        raise AttentionInputError(
            f"temperature must be a finite number > 0 (got {temperature}): use 1 for the "
            "plain softmax, smaller to sharpen it, larger to flatten it"
        )
    with np.errstate(over="ignore"):
        T = dtype.type(temperature)  # what the logits are divided by
    if not np.finfo(dtype).tiny <= T < np.inf:
        raise AttentionInputError(
            f"temperature {temperature} is out of {dtype}'s range ({np.finfo(dtype).tiny:.3g} "
            f"to {np.finfo(dtype).max:.3g}): a temperature of 0.01 already gives nearly the "
            "argmax, and 100 a nearly uniform row"
        )
    if mask is not None:
        mask = check_mask(mask, n)
    b_Q = None if b_Q is None else as_vector("b_Q", b_Q, d_k, dtype)
    b_K = None if b_K is None else as_vector("b_K", b_K, d_k, dtype)
    b_V = None if b_V is None else as_vector("b_V", b_V, d_v, dtype)

    # One decision for every step: no multi-threaded product wakes OpenBLAS's workers between
    # the threaded steps, where they would spin and take a core from ours
    workers = parallel.workers_for(n * n * dtype.itemsize)
    # Q = X W_Q + b_Q (n, d_k); K = X W_K + b_K (n, d_k); V = X W_V + b_V (n, d_v)
    Q, K, V = project(X, [(W_Q, b_Q), (W_K, b_K), (W_V, b_V)], workers)
    for name, M in (("Q", Q), ("K", K), ("V", V)):
        if not np.isfinite(M).all():
            raise AttentionInputError(
                f"{name} overflowed {dtype} (inputs too large): rescale X or the weights"
            )

    sqrt_d_k = dtype.type(np.sqrt(d_k)) if scale else None
    bound = logit_bound(Q, K, sqrt_d_k, T)
    # S = Q K^T (n, n); S' = S / sqrt(d_k); logits = S' / T, -inf where masked;
    # A = softmax(logits), rows sum to 1; output = A V (n, d_v)
    scores, scaled_scores, logits, attention, row_max, row_sum, output = attend(
        Q, K, V, sqrt_d_k, temperature, mask, workers, bound
    )
    return AttentionResult(
        X=X,
        W_Q=W_Q,
        W_K=W_K,
        W_V=W_V,
        b_Q=b_Q,
        b_K=b_K,
        b_V=b_V,
        Q=Q,
        K=K,
        V=V,
        scores=scores,
        scaled_scores=scaled_scores,
        logits=logits,
        attention=attention,
        output=output,
        mask=mask,
        row_max=row_max,
        row_sum=row_sum,
        scale=bool(scale),
        temperature=float(temperature),
    )
