"""Drawing an exercise's numbers from (level, seed): small, exact, and easy by hand.

X holds whole numbers from -2 to 2 and the weights W_Q, W_K, W_V halves from -1 to 1, so Q, K
and V (computed by the core, ``attnviz.self_attention``) hold halves too. A draw is kept only
if every answer of its level is reasonable by hand (``reasonable``): no entry of Q, K, V past
4, scores that scale to at most two decimals, rows of A neither flat nor one-hot, outputs that
a 3-decimal A gives to within 0.01. Draws are repeated from the same generator until one is,
so one (level, seed) always gives the same exercise.

Sizes per level (n tokens, d_model, d_k, d_v): see ``SIZES``. Levels with a softmax use
d_k = 4, so that √d_k = 2 exactly.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.core import AttentionResult, self_attention
from attnviz.limits import EX_LEVELS, MAX_EX_TRIES, MAX_SEED
from attnviz.masking import causal_mask

X_VALUES = np.arange(-2, 3, dtype=float)  # entries of X
W_VALUES = np.array([-1, -0.5, 0, 0.5, 1])  # entries of W_Q, W_K, W_V
MAX_ENTRY = 4.0  # largest |entry| of Q, K, V shown or asked
MAX_SCORE = 12.0  # largest |S_ij| asked for

# level -> ((n choices), (d_model choices), (d_k choices), (d_v choices))
SIZES = {
    1: ((2, 3, 4), (2, 3, 4), (2, 3), (2,)),
    2: ((2, 3), (2, 3, 4), (4,), (2,)),
    3: ((2, 3, 4), (2, 3, 4), (2, 3), (2, 3)),
    4: ((3, 4), (2, 3, 4), (4,), (2,)),
    5: ((2, 3), (2, 3, 4), (4,), (2,)),
}
CAUSAL_LEVELS = (4,)


@dataclass(frozen=True, eq=False)
class Draw:
    """One level's numbers: the core's result and the cell asked about (indices from 0):
    query ``i`` and key ``j``; ``tries`` is how many draws it took."""

    level: int
    seed: int
    result: AttentionResult
    i: int
    j: int
    tries: int


def check_level_seed(level, seed):
    """``level`` (1 to EX_LEVELS) and ``seed`` (0 to MAX_SEED) as ints, or ValueError."""
    if isinstance(level, bool) or int(level) != level or not 1 <= level <= EX_LEVELS:
        raise ValueError(f"level must be a whole number from 1 to {EX_LEVELS} (got {level!r})")
    if isinstance(seed, bool) or int(seed) != seed or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be a whole number from 0 to {MAX_SEED} (got {seed!r})")
    return int(level), int(seed)


def _candidate(rng, level):
    n_s, dm_s, dk_s, dv_s = SIZES[level]
    n, d_model, d_k, d_v = (int(rng.choice(s)) for s in (n_s, dm_s, dk_s, dv_s))
    X = rng.choice(X_VALUES, size=(n, d_model))
    W_Q, W_K, W_V = (rng.choice(W_VALUES, size=(d_model, d)) for d in (d_k, d_k, d_v))
    mask = causal_mask(n) if level in CAUSAL_LEVELS else None
    result = self_attention(X, W_Q, W_K, W_V, mask=mask)
    # level 4: query 2 or 3 (from 1), which may see two or three keys
    i = int(rng.integers(1, 3)) if level == 4 else int(rng.integers(0, n))
    j = int(rng.integers(0, n))
    return result, i, j


def _softmax_row_ok(result, i):
    """Row i's visible scaled scores: at most two decimals, spread 0.5 to 3, no weight < 0.04."""
    keys = np.ones(result.n, dtype=bool) if result.mask is None else result.mask[i]
    S = result.scores[i, keys]
    if not np.allclose(S * 2, np.round(S * 2)):  # S a multiple of 0.5: S' = S / 2 of 0.25
        return False
    spread = np.ptp(result.scaled_scores[i, keys])
    return 0.5 <= spread <= 3.0 and result.attention[i, keys].min() >= 0.04


def _output_row_ok(result, i):
    """Output row i: |entries| <= 6, and a 3-decimal A gives it to within 0.004."""
    V = np.abs(result.V)
    return np.abs(result.output[i]).max() <= 6 and V.sum(axis=0).max() <= 8


def reasonable(level, result, i, j):
    """Whether every answer of ``level`` about query i (and key j) is reasonable by hand."""
    Q, K, V = result.Q, result.K, result.V
    if max(np.abs(Q).max(), np.abs(K).max(), np.abs(V).max()) > MAX_ENTRY:
        return False
    if not (np.abs(Q).sum(axis=1) > 0).all() or not (np.abs(K).sum(axis=1) > 0).all():
        return False
    if level == 1:
        return result.scores[i, j] != 0 and abs(result.scores[i, j]) <= MAX_SCORE
    if level == 2:
        return _softmax_row_ok(result, i)
    if level == 3:
        return result.attention[i].min() >= 0.05 and _output_row_ok(result, i)
    if level == 4:
        return _softmax_row_ok(result, i) and _output_row_ok(result, i)
    return all(_softmax_row_ok(result, row) for row in range(result.n))


def draw(level, seed):
    """The first reasonable draw of ``level`` from ``seed`` (a Draw); ValueError for a level or
    seed out of range. Every level finds one in well under MAX_EX_TRIES draws (tested over many
    seeds); past it, the last draw is kept."""
    level, seed = check_level_seed(level, seed)
    rng = np.random.default_rng([level, seed])
    tries = 0
    while tries < MAX_EX_TRIES:
        tries += 1
        result, i, j = _candidate(rng, level)
        if reasonable(level, result, i, j):
            break
    return Draw(level=level, seed=seed, result=result, i=i, j=j, tries=tries)
