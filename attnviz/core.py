r"""Scaled dot-product self-attention, every step kept: the reference implementation, in numpy.

Glossary (the names copy the formula):

    n        sequence length (tokens, rows of X)
    d_model  embedding width (columns of X)
    d_k      query/key width;  d_v  value width
    X        (n, d_model)  input embeddings, one row per token
    W_Q, W_K (d_model, d_k) and W_V (d_model, d_v)  projection weights
    Q, K, V  (n, d_k), (n, d_k), (n, d_v): rows are queries, keys and values
    S        scores = Q K^T, (n, n): row i is query i, column j is key j
    S'       scaled_scores = S / sqrt(d_k)
    M        the mask as logits: 0 where query i may see key j, -inf where it may not
    A        attention = softmax(S' / T + M) over keys (each row sums to 1)
    output   A V, (n, d_v)

.. math::

    \mathrm{Attention}(Q, K, V) = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right) V

``self_attention`` below reads top to bottom like the lesson: each line is one step.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.checks import check_attention_inputs, check_finite
from attnviz.results import AttentionSizes, freeze_arrays
from attnviz.softmax import softmax_rows

FORMULA = r"\mathrm{Attention}(Q,K,V) = \mathrm{softmax}\left(\frac{QK^T}{\sqrt{d_k}}\right)V"


@dataclass(frozen=True, eq=False)
class AttentionResult(AttentionSizes):
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
    def d_model(self):
        return self.X.shape[1]

    @property
    def row_sums(self):
        """(n,) sum of each attention row: 1 for every query that may attend to a key, else 0."""
        return self.attention.sum(axis=1)


def masked_softmax(scaled_scores, mask=None, temperature=1.0):
    r"""A = softmax(S' / T + M), row by row -> (logits, attention, row_max, row_sum).

    ``scaled_scores`` S' (m, n); ``mask`` (m, n) bool or None, True where query i may see key j;
    ``temperature`` T > 0. ``logits`` (m, n) is S' / T with -inf where the mask forbids a key;
    the rest is ``softmax_rows(logits)``: a row with no allowed key is all zero.
    """
    T = scaled_scores.dtype.type(temperature)
    with np.errstate(over="ignore"):  # S' / T past the dtype's range: softmax_rows says so
        logits = scaled_scores if temperature == 1 else scaled_scores / T  # S' / T, (m, n)
    if mask is not None:
        logits = np.where(mask, logits, scaled_scores.dtype.type(-np.inf))  # + M: -inf if hidden
    attention, row_max, row_sum = softmax_rows(logits)  # (m, n), each live row sums to 1
    return logits, attention, row_max, row_sum


def self_attention(
    X, W_Q, W_K, W_V, *, mask=None, scale=True, temperature=1.0, b_Q=None, b_K=None, b_V=None
):
    r"""Scaled dot-product self-attention of ``X`` with every intermediate kept.

    .. math:: \mathrm{softmax}\left(\frac{(XW_Q + b_Q)(XW_K + b_K)^T}{\sqrt{d_k}\,T} + M\right)
              (XW_V + b_V)

    Args:
        X: (n, d_model) embeddings, one row per token.
        W_Q, W_K: (d_model, d_k) query and key projections.
        W_V: (d_model, d_v) value projection.
        mask: optional (n, n) bool, True where query i may attend to key j (PyTorch's
            convention). Forbidden logits become ``-inf`` before the softmax; a query that may
            attend to nothing gets an all-zero attention row and an all-zero output row.
        scale: divide the scores by sqrt(d_k) (True) or leave them as they are (False).
        temperature: T > 0; the softmax sees ``scaled_scores / T`` (a teaching knob: standard
            attention has T = 1).
        b_Q, b_K: optional (d_k,) biases; b_V: optional (d_v,) bias.

    Returns:
        AttentionResult. Computed in float32 when every input is float32, else float64.

    Raises:
        AttentionInputError (a ValueError) for non-2-D, empty, non-finite or mismatched input,
        a bad mask, a temperature that is not > 0, or steps that overflow.
    """
    X, W_Q, W_K, W_V, b_Q, b_K, b_V, mask, temperature = check_attention_inputs(
        X, W_Q, W_K, W_V, b_Q, b_K, b_V, mask, temperature
    )
    d_k = W_Q.shape[1]
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is checked just below
        Q = X @ W_Q if b_Q is None else X @ W_Q + b_Q  # (n, d_model) @ (d_model, d_k) -> (n, d_k)
        K = X @ W_K if b_K is None else X @ W_K + b_K  # (n, d_model) @ (d_model, d_k) -> (n, d_k)
        V = X @ W_V if b_V is None else X @ W_V + b_V  # (n, d_model) @ (d_model, d_v) -> (n, d_v)
        scores = Q @ K.T  # S = QK^T: (n, d_k) @ (d_k, n) -> (n, n), S_ij = q_i . k_j
    check_finite("inputs", Q=Q, K=K, V=V)
    check_finite("q . k", **{"the scores": scores})  # Q and K finite, some q_i . k_j too large
    scaled_scores = scores / X.dtype.type(np.sqrt(d_k)) if scale else scores  # S', (n, n)
    logits, attention, row_max, row_sum = masked_softmax(scaled_scores, mask, temperature)
    output = attention @ V  # (n, n) @ (n, d_v) -> (n, d_v): row i mixes the values by A_i
    return AttentionResult(
        X=X, W_Q=W_Q, W_K=W_K, W_V=W_V, b_Q=b_Q, b_K=b_K, b_V=b_V,
        Q=Q, K=K, V=V, scores=scores, scaled_scores=scaled_scores, logits=logits,
        attention=attention, output=output, mask=mask, row_max=row_max, row_sum=row_sum,
        scale=bool(scale), temperature=temperature,
    )  # fmt: skip
