r"""Why divide by sqrt(d_k): the variance of q . k, softmax saturation and its vanishing gradient.

.. math::

    \mathrm{Var}(q \cdot k) = d_k \quad \text{for } q, k \sim \mathcal{N}(0, I_{d_k}),
    \qquad \mathrm{Var}\left(\frac{q \cdot k}{\sqrt{d_k}}\right) = 1

Unscaled, the scores spread out like sqrt(d_k), the softmax saturates (rows go one-hot) and its
Jacobian diag(a) - a a^T, the gradient that trains W_Q and W_K, goes to zero.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.checks import AttentionInputError, check_positive_int
from attnviz.core import self_attention
from attnviz.inputs import check_seed, projection_weights
from attnviz.lessons.common import check_d_ks, check_positive, reattend, row_entropy
from attnviz.limits import MAX_TOKENS
from attnviz.results import freeze_arrays
from attnviz.softmax import softmax_rows

DEFAULT_D_KS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)  # d_k from 1 to MAX_D_K, doubling
DEFAULT_FACTORS = tuple(np.logspace(-1, 2, 31))  # logits multiplied by 0.1 .. 100
MAX_SAMPLES = 20_000  # samples per d_k in dot_product_variance
NEARLY_ONE_HOT = 0.9  # a row whose largest weight is above this counts as nearly one-hot
_CHUNK = 2048  # samples drawn at a time: bounds memory at d_k = 512


@dataclass(frozen=True, eq=False)
class DotProductVariance:
    """Measured mean and variance of q . k (and of q . k / sqrt(d_k)) for each d_k.

    Shapes: every array is (m,), one entry per d_k. ``theory_variance`` is d_k and
    ``theory_scaled_variance`` is 1 (the theory mean is 0). ``variance_se`` is the standard
    error of the measured variance: q . k has fourth moment 3 d_k^2 + 6 d_k, so the sample
    variance of n_samples draws has variance about (2 d_k^2 + 6 d_k) / n_samples.
    ``off_by_se`` is (variance - theory_variance) / variance_se: how far each measurement lies
    from the theory, in standard errors.
    """

    d_k: np.ndarray
    n_samples: int
    mean: np.ndarray
    variance: np.ndarray
    theory_variance: np.ndarray
    variance_se: np.ndarray
    off_by_se: np.ndarray
    scaled_mean: np.ndarray
    scaled_variance: np.ndarray
    theory_scaled_variance: np.ndarray

    def __post_init__(self):
        freeze_arrays(self)


def dot_product_variance(d_ks=DEFAULT_D_KS, n_samples=2000, seed=0):
    """Draw ``n_samples`` pairs q, k with i.i.d. N(0, 1) entries for each d_k; measure q . k.

    The samples for one d_k depend only on (seed, d_k), so adding a d_k changes no other.
    """
    d_k = check_d_ks(d_ks)
    hint = f"choose 2 to {MAX_SAMPLES} samples"
    n_samples = check_positive_int("n_samples", n_samples, MAX_SAMPLES, hint)
    if n_samples < 2:
        raise AttentionInputError(f"n_samples must be >= 2 to measure a variance: {hint}")
    seed = check_seed(seed)
    mean, variance = np.empty(len(d_k)), np.empty(len(d_k))
    for m, d in enumerate(d_k):
        rng = np.random.default_rng([seed, int(d)])
        qk = np.empty(n_samples)  # (n_samples,) one q . k per pair
        for start in range(0, n_samples, _CHUNK):
            rows = min(_CHUNK, n_samples - start)
            # float32 draws take half the time; the sums are taken in float64
            q = rng.standard_normal((rows, d), dtype=np.float32)  # (rows, d_k)
            k = rng.standard_normal((rows, d), dtype=np.float32)  # (rows, d_k)
            qk[start : start + rows] = np.einsum("ij,ij->i", q, k, dtype=np.float64)  # q . k
        mean[m], variance[m] = qk.mean(), qk.var(ddof=1)
    d = d_k.astype(float)
    se = np.sqrt((2 * d**2 + 6 * d) / n_samples)
    return DotProductVariance(
        d_k=d_k,
        n_samples=n_samples,
        mean=mean,
        variance=variance,
        theory_variance=d,
        variance_se=se,
        off_by_se=(variance - d) / se,  # measured - theory, in standard errors
        scaled_mean=mean / np.sqrt(d),  # the same samples, each divided by sqrt(d_k)
        scaled_variance=variance / d,
        theory_scaled_variance=np.ones_like(d),
    )


@dataclass(frozen=True, eq=False)
class RowStats:
    """Attention row statistics averaged over rows, one entry per d_k swept: (m,) each.

    ``entropy`` mean H_i in nats; ``normalised_entropy`` mean H_i / log(allowed keys of row i)
    over rows with at least 2 allowed keys (1 = uniform, 0 = one-hot; NaN when no row has 2,
    e.g. n = 1); ``max_weight`` mean largest weight max_j A_ij. Rows masked from every key are
    left out.
    """

    entropy: np.ndarray
    normalised_entropy: np.ndarray
    max_weight: np.ndarray

    def __post_init__(self):
        freeze_arrays(self)


def _row_stats(A, allowed):
    """(entropy, normalised entropy, max weight) averaged over the live rows of A (rows, n)."""
    live, wide = allowed > 0, allowed > 1
    H = row_entropy(A)  # (rows,)
    normalised = (H[wide] / np.log(allowed[wide])).mean() if wide.any() else np.nan
    return H[live].mean(), normalised, A.max(axis=1)[live].mean()


def _stack(rows):
    entropy, normalised, max_weight = (np.array(column) for column in zip(*rows, strict=True))
    return RowStats(entropy, normalised, max_weight)


@dataclass(frozen=True, eq=False)
class SaturationCurve:
    """Attention row statistics as d_k grows, scaled (S / sqrt(d_k)) and unscaled (S).

    ``d_k`` (m,); each RowStats holds (m,) arrays. ``sentence_*`` keep the sentence's X
    (embeddings, and positions if any), mask and temperature, with weights drawn at each d_k
    (only d_k and scaling vary); ``random_*`` use q, k with i.i.d. N(0, 1) entries:
    ``n_trials`` draws of ``n_random`` tokens each, no mask, temperature 1.
    """

    d_k: np.ndarray
    sentence_scaled: RowStats
    sentence_unscaled: RowStats
    random_scaled: RowStats
    random_unscaled: RowStats
    n_sentence: int
    n_random: int
    n_trials: int

    def __post_init__(self):
        freeze_arrays(self)


def saturation_curve(result, seed, d_ks=DEFAULT_D_KS, *, n_random=16, n_trials=8):
    """Entropy and largest weight of the attention rows for each d_k, with and without scaling.

    ``result`` is the sentence's AttentionResult: its X, mask and temperature are kept, and at
    each d_k the weights are drawn from ``seed`` as the settings draw them (projection_weights).
    ``seed`` also draws the random q, k. Without scaling the scores' spread grows like
    sqrt(d_k), so the rows collapse towards one-hot (entropy -> 0, largest weight -> 1); with
    scaling they stay about as spread out.
    """
    d_k = check_d_ks(d_ks)
    n_random = check_positive_int("n_random", n_random, MAX_TOKENS, "choose 1 to 512 tokens")
    n_trials = check_positive_int("n_trials", n_trials, 64, "choose 1 to 64 trials")
    seed = check_seed(seed)
    X, mask, T, n = result.X, result.mask, result.temperature, result.n
    allowed = np.full(n, n) if mask is None else mask.sum(axis=1)  # (n,) keys each query sees
    sentence = {True: [], False: []}
    random = {True: [], False: []}
    for d in d_k:
        # W_Q, W_K do not depend on d_v, and A does not depend on W_V: a 1-wide W_V saves time.
        W_Q, W_K, W_V = projection_weights(result.d_model, int(d), 1, seed)
        for scale in (True, False):  # A (n, n): what the settings give at this d_k
            A = self_attention(X, W_Q, W_K, W_V, mask=mask, scale=scale, temperature=T).attention
            sentence[scale].append(_row_stats(A, allowed))
        rng = np.random.default_rng([seed, int(d), n_random])
        Q = rng.standard_normal((n_trials, n_random, d))  # (trials, n, d_k)
        K = rng.standard_normal((n_trials, n_random, d))  # (trials, n, d_k)
        S = (Q @ K.transpose(0, 2, 1)).reshape(-1, n_random)  # (trials * n, n)
        for scale in (True, False):
            A = softmax_rows(S / np.sqrt(d) if scale else S)[0]  # (trials * n, n)
            random[scale].append(_row_stats(A, np.full(len(A), n_random)))
    return SaturationCurve(
        d_k=d_k,
        sentence_scaled=_stack(sentence[True]),
        sentence_unscaled=_stack(sentence[False]),
        random_scaled=_stack(random[True]),
        random_unscaled=_stack(random[False]),
        n_sentence=n,
        n_random=n_random,
        n_trials=n_trials,
    )


def scaling_pair(result, seed, d_k):
    """(scaled, unscaled) AttentionResults of the sentence at key width ``d_k``, side by side.

    ``result``'s X, mask and temperature, with the weights that ``seed`` draws at ``d_k``
    (projection_weights, d_v as in ``result``): the settings' own example at that d_k, with
    scaling on and off. No biases.
    """
    W_Q, W_K, W_V = projection_weights(result.d_model, d_k, result.d_v, seed)
    X, mask, T = result.X, result.mask, result.temperature
    scaled = self_attention(X, W_Q, W_K, W_V, mask=mask, scale=True, temperature=T)
    return scaled, reattend(scaled, scale=False)


@dataclass(frozen=True, eq=False)
class ScalingContrast:
    """How much sharper the unscaled rows of a scaling_pair are than the scaled ones.

    ``max_weight_*``: the largest weight per row, averaged over the rows that attend to some key;
    ``one_hot_*``: how many rows put more than NEARLY_ONE_HOT on a single key; ``spread_*``: the
    standard deviation of the finite logits, S / sqrt(d_k) scaled and S unscaled.
    """

    max_weight_scaled: float
    max_weight_unscaled: float
    one_hot_scaled: int
    one_hot_unscaled: int
    spread_scaled: float
    spread_unscaled: float


def scaling_contrast(scaled, unscaled):
    """The ScalingContrast of the AttentionResults ``(scaled, unscaled)`` of scaling_pair."""
    max_on, max_off = scaled.attention.max(axis=1), unscaled.attention.max(axis=1)  # (n,)
    live = scaled.row_sums > 0
    return ScalingContrast(
        max_weight_scaled=float(max_on[live].mean()),
        max_weight_unscaled=float(max_off[live].mean()),
        one_hot_scaled=int(np.sum(max_on > NEARLY_ONE_HOT)),
        one_hot_unscaled=int(np.sum(max_off > NEARLY_ONE_HOT)),
        spread_scaled=float(np.std(scaled.scaled_scores[np.isfinite(scaled.logits)])),
        spread_unscaled=float(np.std(unscaled.scores[np.isfinite(unscaled.logits)])),
    )


@dataclass(frozen=True, eq=False)
class SoftmaxGradient:
    """How the softmax's Jacobian J = diag(a) - a a^T shrinks as its logits are scaled up.

    Shapes (f,), one entry per factor c (the softmax sees c * logits): ``jacobian_norm`` the
    Frobenius norm of J, mean over rows; ``max_weight`` and ``entropy`` (nats) of those rows.
    """

    factor: np.ndarray
    jacobian_norm: np.ndarray
    max_weight: np.ndarray
    entropy: np.ndarray

    def __post_init__(self):
        freeze_arrays(self)


def softmax_gradient_norm(logits=None, factors=DEFAULT_FACTORS, *, n=8, seed=0):
    """Softmax Jacobian norm of ``c * logits`` for each factor c (rows of ``logits`` (m, n)).

    ``logits`` defaults to one row of ``n`` N(0, 1) numbers drawn from ``seed``; ``-inf``
    entries (masked keys) are allowed, rows of only ``-inf`` are left out. Per row,
    ||J||_F^2 = sum a^2 - 2 sum a^3 + (sum a^2)^2: as a -> one-hot it goes to 0.
    """
    if logits is None:
        check_positive_int("n", n, MAX_TOKENS, f"choose 1 to {MAX_TOKENS} logits")
        logits = np.random.default_rng(check_seed(seed)).standard_normal((1, n))
    logits = np.atleast_2d(np.asarray(logits, dtype=float))
    if logits.ndim != 2 or logits.size == 0 or np.isnan(logits).any() or np.isposinf(logits).any():
        raise AttentionInputError(
            f"logits must be a non-empty (m, n) array of numbers, -inf allowed (got shape "
            f"{logits.shape}): pass scaled scores, e.g. result.scaled_scores"
        )
    factors = check_positive("factors", factors)
    live = np.isfinite(logits).any(axis=1)
    if not live.any():
        raise AttentionInputError("every row of logits is -inf: leave at least one key unmasked")
    norm, max_weight, entropy = [], [], []
    for c in factors:
        a = softmax_rows(logits[live] * c)[0]  # (live rows, n)
        sq = (a**2).sum(axis=1)  # (live rows,)
        norm.append(np.sqrt(np.maximum(sq - 2 * (a**3).sum(axis=1) + sq**2, 0)).mean())
        max_weight.append(a.max(axis=1).mean())
        entropy.append(row_entropy(a).mean())
    return SoftmaxGradient(factors, np.array(norm), np.array(max_weight), np.array(entropy))
