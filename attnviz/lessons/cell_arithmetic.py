r"""The arithmetic behind one cell, read from an AttentionResult (numpy only).

For a cell (i, j) of S, S' or A:

.. math:: S_{ij} = \sum_c q_{ic} k_{jc}, \quad S'_{ij} = S_{ij} / \sqrt{d_k}, \quad
          A_{ij} = \frac{\exp(S'_{ij}/T - m_i)}{\sum_{j'} \exp(S'_{ij'}/T - m_i)}

For a cell (i, c) of the output: :math:`O_{ic} = \sum_j A_{ij} V_{jc}`; for a cell (i, c) of
Q, K or V: :math:`Q_{ic} = \sum_d X_{id} (W_Q)_{dc} + (b_Q)_c`.
Every value that the result holds (q_i, k_j, S_ij, S'_ij, the logit, m_i, the normaliser, A_ij,
O_ic, Q_ic) is read from it; only the terms of the sums are multiplied out here, to show them.
"""

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ScoreCell:
    """How S_ij, S'_ij and A_ij came to be. Vectors have length d_k."""

    i: int
    j: int
    q_i: np.ndarray  # (d_k,) row i of Q
    k_j: np.ndarray  # (d_k,) row j of K
    products: np.ndarray  # (d_k,) q_i * k_j, elementwise
    S_ij: float  # scores[i, j] = sum(products)
    scale_factor: float  # sqrt(d_k), or 1 when scaling is off
    S_prime_ij: float  # scaled_scores[i, j] = S_ij / scale_factor
    temperature: float
    allowed: bool  # False when the mask forbids query i to see key j
    logit_ij: float  # S'_ij / T, or -inf when masked
    row_max: float  # m_i, subtracted before exp for stability
    exp_term: float  # exp(logit_ij - m_i)
    row_sum: float  # sum over j' of exp(logit_ij' - m_i)
    A_ij: float  # attention[i, j] = exp_term / row_sum


def score_cell(result, i, j):
    """The ScoreCell for query i and key j of ``result``."""
    q_i, k_j = result.Q[i], result.K[j]
    logit = float(result.logits[i, j])
    row_max = float(result.row_max[i])
    exp_term = float(np.exp(logit - row_max)) if np.isfinite(logit) else 0.0
    return ScoreCell(
        i=i,
        j=j,
        q_i=q_i,
        k_j=k_j,
        products=q_i * k_j,  # (d_k,) terms of the dot product
        S_ij=float(result.scores[i, j]),
        scale_factor=result.scale_factor,
        S_prime_ij=float(result.scaled_scores[i, j]),
        temperature=result.temperature,
        allowed=True if result.mask is None else bool(result.mask[i, j]),
        logit_ij=logit,
        row_max=row_max,
        exp_term=exp_term,
        row_sum=float(result.row_sum[i]),
        A_ij=float(result.attention[i, j]),
    )


@dataclass(frozen=True)
class OutputCell:
    """How output[i, c] = sum_j A_ij V_jc came to be. Vectors have length n."""

    i: int
    c: int
    A_i: np.ndarray  # (n,) row i of the attention matrix
    V_c: np.ndarray  # (n,) column c of V
    terms: np.ndarray  # (n,) A_ij * V_jc
    O_ic: float  # output[i, c] = sum(terms)


def output_cell(result, i, c):
    """The OutputCell for query i and value column c of ``result``."""
    A_i, V_c = result.attention[i], result.V[:, c]
    return OutputCell(i=i, c=c, A_i=A_i, V_c=V_c, terms=A_i * V_c, O_ic=float(result.output[i, c]))


@dataclass(frozen=True)
class ProjectionCell:
    """How L[i, c] = sum_d X_id W_L[d, c] + b_L[c] came to be, for L = "Q", "K" or "V".
    Vectors have length d_model."""

    L: str
    i: int
    c: int
    x_i: np.ndarray  # (d_model,) row i of X
    w_c: np.ndarray  # (d_model,) column c of W_L
    terms: np.ndarray  # (d_model,) X_id * W_L[d, c]
    bias: float | None  # b_L[c], or None when the projection has no bias
    value: float  # L[i, c] = sum(terms) + bias


def projection_cell(result, L, i, c):
    """The ProjectionCell for row i, column c of ``result``'s Q, K or V (``L``)."""
    x_i, w_c = result.X[i], getattr(result, f"W_{L}")[:, c]
    b = getattr(result, f"b_{L}")
    return ProjectionCell(
        L=L,
        i=i,
        c=c,
        x_i=x_i,
        w_c=w_c,
        terms=x_i * w_c,  # (d_model,) terms of the dot product
        bias=None if b is None else float(b[c]),
        value=float(getattr(result, L)[i, c]),
    )
