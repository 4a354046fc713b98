r"""Positions: self-attention alone cannot tell word order; positional encodings can.

Without positions, attention is permutation-equivariant: shuffle the rows of X by a permutation
pi and the output rows come out shuffled the same way,

.. math:: \mathrm{Attention}(X_{\pi}) = \mathrm{Attention}(X)_{\pi},

and two occurrences of the same token get identical output rows. Adding sinusoidal encodings
(X = E + P, P fixed to the positions 0..n-1) breaks both.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.checks import AttentionInputError
from attnviz.core import AttentionResult, self_attention
from attnviz.inputs import check_seed
from attnviz.lessons.common import TIE_TOLERANCE
from attnviz.results import freeze_arrays


@dataclass(frozen=True, eq=False)
class PermutationExperiment:
    """Attention on the tokens and on the shuffled tokens, without and with positions.

    ``permutation`` (n,): the shuffled sentence is ``tokens[permutation]`` (position i holds
    token permutation[i]). ``original_off``, ``permuted_off`` (X = E) and ``original_on``,
    ``permuted_on`` (X = E + P) are full AttentionResults; ``P`` (n, d_model) the sinusoidal
    encodings. ``max_abs_diff_off``, ``max_abs_diff_on``: max |output[permutation] -
    output_permuted|; ``equivariant_*``: that difference is within ``tolerance``.
    ``max_abs_output_on``: max |output| with positions, the size to read ``max_abs_diff_on`` by.
    ``repeated_pairs`` (p, 2): (first occurrence, later occurrence) of each repeated token;
    ``pair_diff_off``, ``pair_diff_on`` (p,): max |output_i - output_j| of those rows;
    ``same_row_off``, ``same_row_on`` (p,) bool: within ``tolerance``. With one token there
    is nothing to shuffle, and both cases report equivariant.
    """

    tokens: list
    permuted_tokens: list
    permutation: np.ndarray
    P: np.ndarray
    original_off: AttentionResult
    permuted_off: AttentionResult
    original_on: AttentionResult
    permuted_on: AttentionResult
    max_abs_diff_off: float
    max_abs_diff_on: float
    max_abs_output_on: float
    equivariant_off: bool
    equivariant_on: bool
    repeated_pairs: np.ndarray
    pair_diff_off: np.ndarray
    pair_diff_on: np.ndarray
    same_row_off: np.ndarray
    same_row_on: np.ndarray
    tolerance: float

    def __post_init__(self):
        freeze_arrays(self)


def _check_permutation(permutation, n):
    perm = np.asarray(permutation)
    if (
        perm.shape != (n,)
        or not np.issubdtype(perm.dtype, np.integer)
        or not np.array_equal(np.sort(perm), np.arange(n))
    ):
        raise AttentionInputError(
            f"permutation must hold each of 0..{n - 1} exactly once (got {permutation!r}): "
            f"e.g. numpy.random.default_rng(0).permutation({n})"
        )
    return perm.astype(np.intp)


def draw_permutation(n, seed=0):
    """(n,) a random permutation of 0..n-1 from ``seed``; never the identity when n >= 2."""
    perm = np.random.default_rng(check_seed(seed)).permutation(n)
    if n >= 2 and np.array_equal(perm, np.arange(n)):
        perm = np.roll(perm, 1)  # a shuffle that moves nothing would show nothing
    return perm


def _repeated_pairs(tokens):
    first = {}
    pairs = []
    for j, token in enumerate(tokens):
        if token in first:
            pairs.append((first[token], j))
        else:
            first[token] = j
    return np.array(pairs, dtype=np.intp).reshape(-1, 2)


def _check_pair(off, on):
    """Raise unless ``off`` and ``on`` are one example without and with positions, no mask."""
    if off.P is not None or on.P is None:
        raise AttentionInputError(
            "off must be computed without positional encodings and on with them: e.g. "
            "compute(replace(settings, positions=False)) and (positions=True)"
        )
    a, b = off.result, on.result
    same = (
        list(off.tokens) == list(on.tokens)
        and np.array_equal(off.E, on.E)
        and all(np.array_equal(getattr(a, W), getattr(b, W)) for W in ("W_Q", "W_K", "W_V"))
        and (a.scale, a.temperature) == (b.scale, b.temperature)
    )
    if not same:
        raise AttentionInputError(
            "off and on differ in more than the positions (tokens, embeddings, weights, scale or "
            "temperature): compute both from the same settings, changing only positions"
        )
    if off.result.mask is not None or on.result.mask is not None:
        raise AttentionInputError(
            "off and on must be computed without a mask (mask='none'): a causal mask is itself "
            "information about order, so it would break the symmetry on its own"
        )


def permutation_experiment(off, on, permutation=None, *, seed=0):
    """Shuffle a sentence's tokens and compare the outputs, with positions off and on.

    ``off`` and ``on`` are the Examples (tokens, E, P and the AttentionResult) of one sentence
    without positional encodings (X = E) and with them (X = E + P), both without a mask, e.g.
    ``compute(replace(settings, positions=p, mask="none"))`` for p = False, True; their weights,
    scale and temperature apply. ``permutation`` (n,) of 0..n-1, or None to draw one from
    ``seed``. Each token keeps its embedding row when shuffled (E_permuted = E[permutation]);
    with positions on, P stays with the positions.
    """
    _check_pair(off, on)
    n = len(off.tokens)
    perm = draw_permutation(n, seed) if permutation is None else _check_permutation(permutation, n)
    r_off, r_on = off.result, on.result

    def shuffled(X):  # the same weights and settings, rows of X in the new order
        return self_attention(
            X, r_off.W_Q, r_off.W_K, r_off.W_V, scale=r_off.scale, temperature=r_off.temperature
        )

    p_off = shuffled(on.E[perm])  # (n, d_model): the tokens moved, no positions
    p_on = shuffled(on.E[perm] + on.P)  # the tokens moved, the positions stayed
    diff_off = float(np.abs(r_off.output[perm] - p_off.output).max())
    diff_on = float(np.abs(r_on.output[perm] - p_on.output).max())
    size_on = float(np.abs(r_on.output).max())
    size = max(1.0, float(np.abs(r_off.output).max()), size_on)
    tolerance = TIE_TOLERANCE * size
    pairs = _repeated_pairs(off.tokens)
    i, j = pairs[:, 0], pairs[:, 1]
    pair_off = np.abs(r_off.output[i] - r_off.output[j]).max(axis=1, initial=0.0)
    pair_on = np.abs(r_on.output[i] - r_on.output[j]).max(axis=1, initial=0.0)
    return PermutationExperiment(
        tokens=list(off.tokens),
        permuted_tokens=[off.tokens[k] for k in perm],
        permutation=perm,
        P=on.P,
        original_off=r_off,
        permuted_off=p_off,
        original_on=r_on,
        permuted_on=p_on,
        max_abs_diff_off=diff_off,
        max_abs_diff_on=diff_on,
        max_abs_output_on=size_on,
        equivariant_off=diff_off <= tolerance,
        equivariant_on=diff_on <= tolerance,
        repeated_pairs=pairs,
        pair_diff_off=pair_off,
        pair_diff_on=pair_on,
        same_row_off=pair_off <= tolerance,
        same_row_on=pair_on <= tolerance,
        tolerance=tolerance,
    )


# --- rotary positions (RoPE) -------------------------------------------------------------------
ROPE_BASE = 10000.0  # theta_i = ROPE_BASE ** (-2i / d), as in Su et al. (2021)
# (query position m, key position n) pairs shown: three offsets m - n (the query's position
# minus the key's, as on the chat model's page), each at three places
ROPE_PAIRS = ((0, 0), (3, 3), (7, 7), (1, 0), (4, 3), (9, 8), (0, 2), (3, 5), (6, 8))


def rotate(x, position, base=ROPE_BASE):
    """RoPE: x (d,) with each pair of dimensions (2i, 2i + 1) turned by the angle
    ``position`` * theta_i, theta_i = base^(-2i / d). An odd last dimension is left as it is.
    Returns (d,)."""
    x = np.asarray(x, dtype=float)
    d = x.shape[-1]
    half = d // 2
    theta = base ** (-2.0 * np.arange(half) / d)  # (d // 2,)
    cos, sin = np.cos(position * theta), np.sin(position * theta)
    out = x.copy()
    even, odd = x[0 : 2 * half : 2], x[1 : 2 * half : 2]
    out[0 : 2 * half : 2] = even * cos - odd * sin
    out[1 : 2 * half : 2] = even * sin + odd * cos
    return out


@dataclass(frozen=True, eq=False)
class RotaryScores:
    """q · k with rotary positions: query q (d,) placed at m, key k (d,) at n.

    ``pairs`` (p, 2) the (m, n) shown; ``offsets`` (p,) m - n; ``scores`` (p,) the rotated
    q_m · k_n; ``plain`` q · k without positions; ``spread_by_offset`` {offset: largest minus
    smallest score among the pairs with that offset} (rounding only: the score depends on the
    offset alone).
    """

    q: np.ndarray
    k: np.ndarray
    pairs: np.ndarray
    offsets: np.ndarray
    scores: np.ndarray
    plain: float
    spread_by_offset: dict

    def __post_init__(self):
        freeze_arrays(self)


def rotary_scores(q, k, pairs=ROPE_PAIRS, base=ROPE_BASE):
    """RotaryScores of q and k (each (d,)) at the (m, n) ``pairs``: R(m) q · R(n) k, which
    equals q · R(n - m) k, because rotations compose: it depends on the offset n - m only."""
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    if q.shape != k.shape or q.ndim != 1:
        raise AttentionInputError(
            f"q and k must be two vectors of one size (got {q.shape}, {k.shape})"
        )
    pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
    scores = np.array([rotate(q, m, base) @ rotate(k, n, base) for m, n in pairs])  # (p,)
    offsets = pairs[:, 0] - pairs[:, 1]  # the query's position minus the key's
    spread = {int(o): float(np.ptp(scores[offsets == o])) for o in sorted(set(offsets.tolist()))}
    return RotaryScores(q, k, pairs, offsets, scores, float(q @ k), spread)
