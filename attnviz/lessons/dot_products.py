r"""Random queries and keys in d_k dimensions: long, nearly perpendicular, and q . k growing
like sqrt(d_k), which the division by sqrt(d_k) undoes (the geometry page's last section).

.. math:: |q| \approx \sqrt{d_k}, \qquad \cos\theta \approx \pm\frac{1}{\sqrt{d_k}}, \qquad
          q \cdot k = |q|\,|k| \cos\theta \approx \pm\sqrt{d_k}

numpy only; the softmax is the core's ``masked_softmax``.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.checks import check_positive_int
from attnviz.core import masked_softmax
from attnviz.inputs import check_seed
from attnviz.limits import GEO_ROW_KEYS, GEO_ROWS, MAX_D_K
from attnviz.results import freeze_arrays


@dataclass(frozen=True, eq=False)
class RandomPairs:
    """Random queries and keys in d_k dimensions, entries i.i.d. N(0, 1) (how attnviz's weights
    make them), each query against ``row_keys`` keys. Arrays are read-only.

    Shapes: scores, scaled_scores, cosines (rows * row_keys,): q . k, q . k / sqrt(d_k) and
    cos θ of every pair; query_lengths (rows,) |q|; top_weight, top_weight_scaled (rows,) the
    largest softmax weight of each query's row, without and with the division by sqrt(d_k).
    """

    d_k: int
    scores: np.ndarray
    scaled_scores: np.ndarray
    cosines: np.ndarray
    query_lengths: np.ndarray
    top_weight: np.ndarray
    top_weight_scaled: np.ndarray

    def __post_init__(self):
        freeze_arrays(self)


def random_pairs(d_k, rows=GEO_ROWS, row_keys=GEO_ROW_KEYS, seed=0):
    """Draw ``rows`` queries and ``row_keys`` keys for each in d_k dimensions; measure q . k.

    The draw depends only on (seed, d_k). The softmax weights are the core's ``masked_softmax``.
    """
    d_k = check_positive_int("d_k", d_k, MAX_D_K, f"choose a key dimension from 1 to {MAX_D_K}")
    rows = check_positive_int("rows", rows, 100_000, "draw 1 to 100000 queries")
    row_keys = check_positive_int("row_keys", row_keys, 64, "draw 1 to 64 keys per query")
    rng = np.random.default_rng([check_seed(seed), d_k])
    q = rng.standard_normal((rows, d_k), dtype=np.float32)  # (rows, d_k)
    k = rng.standard_normal((rows, row_keys, d_k), dtype=np.float32)  # (rows, keys, d_k)
    S = np.einsum("rd,rkd->rk", q, k, dtype=np.float64)  # (rows, keys) q . k
    S_scaled = S / np.sqrt(d_k)  # (rows, keys)
    q_len = np.linalg.norm(q.astype(np.float64), axis=1)  # (rows,)
    k_len = np.linalg.norm(k.astype(np.float64), axis=2)  # (rows, keys)
    cos = S / (q_len[:, None] * k_len)  # (rows, keys)
    _, A, _, _ = masked_softmax(S)  # (rows, keys) softmax(q . k)
    _, A_scaled, _, _ = masked_softmax(S_scaled)  # (rows, keys) softmax(q . k / sqrt(d_k))
    return RandomPairs(
        d_k=d_k,
        scores=S.ravel(),
        scaled_scores=S_scaled.ravel(),
        cosines=cos.ravel(),
        query_lengths=q_len,
        top_weight=A.max(axis=1),
        top_weight_scaled=A_scaled.max(axis=1),
    )
