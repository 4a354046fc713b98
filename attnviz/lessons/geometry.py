r"""Attention as geometry: 2-D queries and keys as arrows on a plane, and what d_k does to them.

.. math::

    a_j = \mathrm{softmax}_j\left(\frac{q \cdot k_j}{\sqrt{d_k}}\right), \qquad
    q \cdot k_j = |q|\,|k_j| \cos\theta_j, \qquad \text{output} = \sum_j a_j v_j

With d_k = 2 every query and key is an arrow. A key's weight follows the angle θ_j between it
and the query (alignment), but also its length |k_j|; and scaling the query by ℓ multiplies
every logit by ℓ, exactly what a temperature T = 1/ℓ does.

Every number comes from the core: ``attend`` runs ``self_attention`` once for any number of
queries (see its docstring). ``geometry_grid`` does so for a grid of query angles and lengths,
the frames of the page's figure. Random pairs in d_k dimensions are in ``dot_products``.
numpy only.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.checks import AttentionInputError, as_matrix
from attnviz.core import self_attention
from attnviz.lessons.common import TIE_TOLERANCE, check_positive
from attnviz.limits import GEO_ANGLES, GEO_LENGTHS, MAX_GEO_COORD, MAX_GEO_KEYS, MIN_GEO_KEYS
from attnviz.results import freeze_arrays

# The page's default keys and values, chosen by hand (not learned): k1 long and along the x axis,
# k2 short and upright, k3 the longest but pointing up and to the left (it wins for queries
# that point nearer to k2: length beats angle), k4 straight down. The values are the four
# corners of a diamond, so the output, their weighted average, stays inside it.
DEFAULT_KEYS = ((2.0, 0.0), (0.0, 1.0), (-2.6, 1.5), (0.0, -1.5))
DEFAULT_VALUES = ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0))
D_K = 2  # the plane's queries and keys have two numbers each: S' = S / sqrt(2)


def grid_angles(count=GEO_ANGLES):
    """(count,) query angles in degrees, 0 up to 360 (excluded) in equal steps."""
    return np.arange(count) * (360.0 / count)


def query_vectors(angles, lengths):
    """(L, A, 2) the query of each length (L,) at each angle (A,) in degrees:
    q = ℓ (cos α, sin α)."""
    radians = np.radians(np.asarray(angles, dtype=float))  # (A,)
    unit = np.stack([np.cos(radians), np.sin(radians)], axis=-1)  # (A, 2)
    return np.asarray(lengths, dtype=float)[:, None, None] * unit  # (L, 1, 1) * (A, 2)


def check_pairs(keys, values):
    """(keys, values) as float64 (n, 2) arrays, MIN_GEO_KEYS <= n <= MAX_GEO_KEYS, or raise."""
    keys = as_matrix("the keys", keys, np.float64)
    values = as_matrix("the values", values, np.float64)
    if keys.shape[1] != D_K or values.shape[1] != D_K:
        raise AttentionInputError(
            f"keys and values are 2-D vectors here (got widths {keys.shape[1]} and "
            f"{values.shape[1]}): give two numbers, x and y, for each"
        )
    if keys.shape[0] != values.shape[0]:
        raise AttentionInputError(
            f"{keys.shape[0]} keys but {values.shape[0]} values: each key needs its value"
        )
    if not MIN_GEO_KEYS <= keys.shape[0] <= MAX_GEO_KEYS:
        raise AttentionInputError(
            f"{keys.shape[0]} keys: give {MIN_GEO_KEYS} to {MAX_GEO_KEYS} keys, each with a value"
        )
    if max(np.abs(keys).max(), np.abs(values).max()) > MAX_GEO_COORD:
        raise AttentionInputError(
            f"an entry is larger than {MAX_GEO_COORD:g} in size: keep each x and y within "
            f"-{MAX_GEO_COORD:g} to {MAX_GEO_COORD:g}"
        )
    return keys, values


@dataclass(frozen=True, eq=False)
class QueryAttention:
    """m queries attending over the same n keys, all 2-D. Arrays are read-only.

    Shapes: queries (m, 2); keys, values (n, 2); scores = q_i . k_j, scaled_scores =
    scores / sqrt(2), logits (what the softmax saw: scaled_scores / T), weights (m, n), each
    row summing to 1; outputs (m, 2) = weights @ values.
    """

    queries: np.ndarray
    keys: np.ndarray
    values: np.ndarray
    scores: np.ndarray
    scaled_scores: np.ndarray
    logits: np.ndarray
    weights: np.ndarray
    outputs: np.ndarray
    temperature: float

    def __post_init__(self):
        freeze_arrays(self)


def attend(queries, keys, values, *, temperature=1.0):
    """Each of the m 2-D queries attends over the n keys; one ``self_attention`` call for all.

    The queries and the keys are the tokens of X (m + n, 4): a query's row is (q_x, q_y, 0, 0),
    a key's row (k_x, k_y, v_x, v_y). W_Q and W_K read a row's first two numbers and W_V its
    last two, so Q's rows are the queries and the keys, K's too, and V's rows are the values
    (0 for the queries). The mask lets each query see only the keys (the keys' own rows see
    nothing: all zero, unused). Rows 0..m-1, columns m.. of the result are then q_i . k_j, its
    scaling by sqrt(d_k) (d_k = 2) and the softmax, exactly as the core computes them.
    """
    queries = as_matrix("the queries", queries, np.float64)
    keys, values = check_pairs(keys, values)
    m, n = queries.shape[0], keys.shape[0]
    X = np.block([[queries, np.zeros((m, 2))], [keys, values]])  # (m + n, 4)
    read_first = np.vstack([np.eye(2), np.zeros((2, 2))])  # (4, 2): (x, y, ., .) -> (x, y)
    read_last = np.vstack([np.zeros((2, 2)), np.eye(2)])  # (4, 2): (., ., x, y) -> (x, y)
    mask = np.zeros((m + n, m + n), dtype=bool)
    mask[:m, m:] = True  # query i may see key j; nothing else
    r = self_attention(
        X, read_first, read_first, read_last, mask=mask, temperature=temperature
    )  # Q, K (m + n, 2), V (m + n, 2), S (m + n, m + n)
    return QueryAttention(
        queries=queries,
        keys=keys,
        values=values,
        scores=r.scores[:m, m:],  # (m, n) q_i . k_j
        scaled_scores=r.scaled_scores[:m, m:],  # (m, n) q_i . k_j / sqrt(2)
        logits=r.logits[:m, m:],  # (m, n) S' / T
        weights=r.attention[:m, m:],  # (m, n) softmax over the keys
        outputs=r.output[:m],  # (m, 2) sum_j a_ij v_j
        temperature=r.temperature,
    )


@dataclass(frozen=True, eq=False)
class GeometryGrid:
    """The query at every angle (A,) and length (L,) of a grid, attending over n keys.

    Shapes: angles (A,) in degrees; lengths (L,); keys, values (n, 2); queries (L, A, 2);
    scores, scaled_scores, weights (L, A, n); outputs (L, A, 2). Entry [l, a] is the query of
    length ``lengths[l]`` at angle ``angles[a]``. Arrays are read-only.
    """

    angles: np.ndarray
    lengths: np.ndarray
    keys: np.ndarray
    values: np.ndarray
    queries: np.ndarray
    scores: np.ndarray
    scaled_scores: np.ndarray
    weights: np.ndarray
    outputs: np.ndarray

    def __post_init__(self):
        freeze_arrays(self)

    @property
    def key_angles(self):
        """(n,) each key's angle in degrees, 0 to 360."""
        return np.degrees(np.arctan2(self.keys[:, 1], self.keys[:, 0])) % 360

    @property
    def key_lengths(self):
        """(n,) |k_j|."""
        return np.linalg.norm(self.keys, axis=1)


def geometry_grid(keys, values, angles=None, lengths=GEO_LENGTHS):
    """Attention of the query at every (length, angle) of the grid: one ``attend`` call."""
    angles = grid_angles() if angles is None else np.asarray(angles, dtype=float)
    lengths = check_positive("the query lengths", lengths)
    queries = query_vectors(angles, lengths)  # (L, A, 2)
    L, A = queries.shape[:2]
    att = attend(queries.reshape(L * A, 2), keys, values)
    return GeometryGrid(
        angles=angles,
        lengths=lengths,
        keys=att.keys,
        values=att.values,
        queries=queries,
        scores=att.scores.reshape(L, A, -1),
        scaled_scores=att.scaled_scores.reshape(L, A, -1),
        weights=att.weights.reshape(L, A, -1),
        outputs=att.outputs.reshape(L, A, 2),
    )


# What the grid shows ---------------------------------------------------------------------------


def length_as_temperature(grid):
    """(L,) how far the weights at each length ℓ are from those of the unit-length query at
    temperature T = 1/ℓ (largest absolute difference over every angle and key).

    softmax(ℓ q̂·k / √d_k) = softmax((q̂·k / √d_k) / (1/ℓ)): the two are the same numbers, so
    each entry is rounding only (about 1e-16).
    """
    unit = query_vectors(grid.angles, [1.0])[0]  # (A, 2)
    gaps = []
    for length, weights in zip(grid.lengths, grid.weights, strict=True):
        cooler = attend(unit, grid.keys, grid.values, temperature=1.0 / length)
        gaps.append(np.abs(weights - cooler.weights).max())
    return np.array(gaps)


def winners(grid):
    """(A,) the key with the largest weight at each angle (the first one on a tie).

    The same at every length: multiplying every logit by ℓ > 0 keeps their order."""
    return grid.weights[0].argmax(axis=1)


def angle_gaps(grid):
    """(A, n) the angle between the query at each grid angle and each key, 0 to 180 degrees."""
    gap = np.abs(grid.angles[:, None] - grid.key_angles[None, :]) % 360  # (A, n)
    return np.minimum(gap, 360 - gap)


@dataclass(frozen=True)
class LengthBeatsAngle:
    """At ``angle`` the key ``winner`` (longer, further off) beats ``aligned`` (nearest in angle).

    Lengths |k| and angle gaps θ in degrees of both, and their dot products with the unit query.
    """

    angle: float
    winner: int
    aligned: int
    winner_length: float
    winner_gap: float
    aligned_length: float
    aligned_gap: float


def length_beats_angle(grid):
    """An angle of the grid at which the winning key is not the one nearest the query in
    angle: the one where the query points most directly at the nearest key (then the largest
    gap to the winner); None when the nearest key always wins."""
    gaps = angle_gaps(grid)  # (A, n)
    win = winners(grid)
    aligned = gaps.argmin(axis=1)  # (A,)
    rows = np.arange(len(grid.angles))
    found = np.flatnonzero(gaps[rows, win] > gaps[rows, aligned] + TIE_TOLERANCE)
    if found.size == 0:
        return None
    a = min(found, key=lambda i: (gaps[i, aligned[i]], -gaps[i, win[i]]))
    lengths = grid.key_lengths
    w, k = int(win[a]), int(aligned[a])
    return LengthBeatsAngle(
        angle=float(grid.angles[a]),
        winner=w,
        aligned=k,
        winner_length=float(lengths[w]),
        winner_gap=float(gaps[a, w]),
        aligned_length=float(lengths[k]),
        aligned_gap=float(gaps[a, k]),
    )


def peak_angles(grid, length_index=None):
    """(n,) the grid angle at which each key's weight is largest, at ``lengths[length_index]``
    (the longest query, the sharpest rows, by default)."""
    index = len(grid.lengths) - 1 if length_index is None else length_index
    return grid.angles[grid.weights[index].argmax(axis=0)]


def top_weights(grid):
    """(L,) the largest weight of the row, averaged over the angles, at each length: how sure
    the query is, on average. Grows with the length (sharper rows)."""
    return grid.weights.max(axis=2).mean(axis=1)
