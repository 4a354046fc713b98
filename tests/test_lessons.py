"""Tests of the lessons' experiments (attnviz.lessons), each against an independent reference.

The references here are written from the formulas, not from the code under test: a one-line
softmax attention, the entropy sum, the Jacobian diag(a) - a a^T built as a matrix, and the
sampling theory of the variance of q . k.
"""

import ast
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz import AttentionInputError, Settings, compute, lessons, self_attention
from attnviz.inputs import projection_weights
from attnviz.settings import embeddings
from tests.reference import attention, attention_steps

DEFAULT = Settings()


def reference_inputs(s):
    """X (n, d_model) and the weights for settings ``s``, from the input functions."""
    E, P = embeddings(s, s.tokens)
    X = E if P is None else E + P
    return X, projection_weights(s.d_model, s.d_k, s.d_v, s.seed)


def result_of(s):
    """The AttentionResult that settings ``s`` make: what a page passes to a lesson."""
    return compute(s).result


def without_and_with_positions(s):
    """The Examples of ``s`` without and with positional encodings, no mask (the positions page's
    pair)."""
    return tuple(compute(replace(s, positions=p, mask="none")) for p in (False, True))


def entropy_by_hand(p):
    """-sum p log p over the positive entries of a 1-D probability vector."""
    p = np.asarray(p, dtype=float)
    p = p[p > 0]
    return float(-np.sum(p * np.log(p)))


# --- Why divide by sqrt(d_k): the variance of q . k ---------------------------------------------
#
# q . k = sum_i z_i with z_i = q_i k_i independent, E z = 0, E z^2 = 1, E z^4 = E q^4 E k^4 = 9.
# So Var(q . k) = d_k and E(q . k)^4 = 9 d_k + 3 d_k (d_k - 1) = 3 d_k^2 + 6 d_k. The sample
# variance of N draws has variance about (mu_4 - sigma^4) / N = (2 d_k^2 + 6 d_k) / N, and the
# sample mean has variance d_k / N. Five standard errors: a false failure has odds below 1e-5.


def variance_se(d_k, n_samples):
    return np.sqrt((2.0 * d_k**2 + 6.0 * d_k) / n_samples)


@pytest.mark.parametrize("seed", [0, 1])
def test_variance_of_q_dot_k_is_d_k_within_sampling_error(seed):
    n = 4000
    v = lessons.dot_product_variance(n_samples=n, seed=seed)
    d = np.array(lessons.DEFAULT_D_KS, dtype=float)
    assert np.array_equal(v.d_k, d)
    assert v.n_samples == n
    assert np.all(np.abs(v.variance - d) <= 5 * variance_se(d, n))
    assert np.all(np.abs(v.mean) <= 5 * np.sqrt(d / n))
    assert np.array_equal(v.theory_variance, d)


def test_scaled_variance_is_near_one():
    n = 4000
    v = lessons.dot_product_variance(n_samples=n, seed=2)
    d = v.d_k.astype(float)
    assert np.all(np.abs(v.scaled_variance - 1) <= 5 * variance_se(d, n) / d)
    assert np.all(np.abs(v.scaled_mean) <= 5 / np.sqrt(n))
    assert np.all(v.theory_scaled_variance == 1)
    # The unscaled variance grows with d_k; the scaled one does not.
    assert v.variance[-1] > 100 * v.variance[0]
    assert v.scaled_variance.max() < 2 * v.scaled_variance.min()


def test_reported_standard_error_matches_the_spread_over_seeds():
    n, seeds = 500, range(40)
    runs = [lessons.dot_product_variance((1, 16), n_samples=n, seed=s) for s in seeds]
    spread = np.std([r.variance for r in runs], axis=0, ddof=1)  # (2,)
    assert np.allclose(runs[0].variance_se, variance_se(np.array([1.0, 16.0]), n))
    # 40 seeds estimate a standard deviation to about +-12 %; allow a factor 1.6 either way.
    assert np.all(spread < 1.6 * runs[0].variance_se)
    assert np.all(spread > runs[0].variance_se / 1.6)


def test_variance_is_deterministic_and_each_d_k_has_its_own_samples():
    a = lessons.dot_product_variance((4, 16), n_samples=300, seed=7)
    b = lessons.dot_product_variance((16,), n_samples=300, seed=7)
    c = lessons.dot_product_variance((4, 16), n_samples=300, seed=8)
    assert a.variance[1] == b.variance[0]
    assert np.array_equal(a.variance, lessons.dot_product_variance((4, 16), 300, 7).variance)
    assert not np.array_equal(a.variance, c.variance)
    with pytest.raises(ValueError):
        a.variance[0] = 1.0  # read-only


@pytest.mark.parametrize(
    "kwargs",
    [
        {"d_ks": []},
        {"d_ks": [0]},
        {"d_ks": [513]},
        {"d_ks": [2.5]},
        {"n_samples": 1},
        {"seed": -1},
        {"seed": 1.5},
    ],
)
def test_variance_rejects_bad_arguments(kwargs):
    with pytest.raises(AttentionInputError, match=r"d_k|n_samples|seed"):
        lessons.dot_product_variance(**kwargs)


def test_seeds_are_checked_everywhere():
    calls = [
        lambda: lessons.saturation_curve(result_of(DEFAULT), -1, (1,)),
        lambda: lessons.softmax_gradient_norm(seed=-1),
        lambda: lessons.draw_permutation(3, seed=-1),
        lambda: lessons.permutation_experiment(*without_and_with_positions(DEFAULT), seed=2**32),
        lambda: lessons.quiz(result_of(DEFAULT), compute(DEFAULT).labels, seed="0"),
    ]
    for call in calls:
        with pytest.raises(AttentionInputError, match="seed"):
            call()


# --- row_entropy -------------------------------------------------------------------------------


def test_row_entropy_against_the_hand_formula_and_edge_cases():
    A = np.array(
        [
            [0.5, 0.25, 0.25, 0.0],  # 0.5 ln 2 + 2 * 0.25 ln 4 = 1.5 ln 2
            [0.0, 1.0, 0.0, 0.0],  # one-hot: 0
            [0.25, 0.25, 0.25, 0.25],  # uniform: ln 4
            [0.0, 0.0, 0.0, 0.0],  # a row masked from every key: 0, not NaN
        ]
    )
    H = lessons.row_entropy(A)
    assert H.shape == (4,)
    assert np.allclose(H, [1.5 * np.log(2), 0.0, np.log(4), 0.0], atol=1e-15)


@given(st.integers(1, 40), st.integers(0, 10_000))
def test_row_entropy_of_random_distributions(n, seed):
    rng = np.random.default_rng(seed)
    A = rng.dirichlet(np.full(n, 0.5), size=3) * (rng.random((3, n)) > 0.3)
    A /= np.maximum(A.sum(axis=1, keepdims=True), 1e-300)
    H = lessons.row_entropy(A)
    assert np.allclose(H, [entropy_by_hand(row) for row in A], atol=1e-12)
    assert H.min() >= -1e-15 and H.max() <= np.log(n) + 1e-12


def test_row_entropy_rejects_negative_and_non_matrix_input():
    with pytest.raises(AttentionInputError, match=">= 0"):
        lessons.row_entropy([[0.5, -0.5, 1.0]])
    with pytest.raises(AttentionInputError, match="2-D"):
        lessons.row_entropy([0.5, 0.5])


# --- Saturation: entropy and largest weight as d_k grows -----------------------------------------


def test_unscaled_rows_saturate_as_d_k_grows_and_scaled_rows_do_not():
    curve = lessons.saturation_curve(result_of(DEFAULT), DEFAULT.seed)
    at = {int(d): m for m, d in enumerate(curve.d_k)}
    for unscaled in (curve.sentence_unscaled, curve.random_unscaled):
        assert unscaled.entropy[at[256]] < 0.5 * unscaled.entropy[at[4]]
        assert unscaled.max_weight[at[256]] > unscaled.max_weight[at[4]]
    # Random data, averaged over 8 x 16 rows: scaled stays flat, unscaled nearly one-hot.
    assert np.ptp(curve.random_scaled.normalised_entropy) < 0.1
    assert curve.random_unscaled.normalised_entropy[at[512]] < 0.1
    assert curve.random_unscaled.max_weight[at[512]] > 0.9
    # One sentence is noisier, but scaling keeps every row far from one-hot.
    assert curve.sentence_scaled.normalised_entropy.min() > 0.5
    assert curve.sentence_unscaled.normalised_entropy[at[512]] < 0.3
    # At d_k = 1, dividing by sqrt(1) changes nothing.
    for scaled, unscaled in (
        (curve.sentence_scaled, curve.sentence_unscaled),
        (curve.random_scaled, curve.random_unscaled),
    ):
        assert scaled.entropy[at[1]] == unscaled.entropy[at[1]]


@pytest.mark.parametrize(
    "s",
    [
        DEFAULT,
        replace(DEFAULT, mask="causal", temperature=0.5),
        replace(DEFAULT, positions=True, embedding="one-hot", seed=3),
        replace(DEFAULT, text="a b c a b", scale=False),
    ],
)
def test_sentence_curve_matches_compute_at_each_d_k(s):
    d_ks = (1, 3, 64)
    curve = lessons.saturation_curve(result_of(s), s.seed, d_ks)
    assert curve.n_sentence == len(s.tokens)
    for m, d in enumerate(d_ks):
        for scale, stats in ((True, curve.sentence_scaled), (False, curve.sentence_unscaled)):
            A = compute(replace(s, d_k=d, scale=scale)).result.attention
            H = np.array([entropy_by_hand(row) for row in A])
            allowed = np.arange(1, len(A) + 1) if s.mask == "causal" else np.full(len(A), len(A))
            wide = allowed > 1
            assert stats.entropy[m] == pytest.approx(H.mean(), abs=1e-12)
            assert stats.max_weight[m] == pytest.approx(A.max(axis=1).mean(), abs=1e-12)
            expected = (H[wide] / np.log(allowed[wide])).mean()
            assert stats.normalised_entropy[m] == pytest.approx(expected, abs=1e-12)


def test_saturation_of_one_token_has_no_normalised_entropy():
    alone = result_of(replace(DEFAULT, text="alone"))
    curve = lessons.saturation_curve(alone, DEFAULT.seed, (1, 8), n_random=1)
    for stats in (curve.sentence_scaled, curve.random_unscaled):
        assert np.all(stats.entropy == 0) and np.all(stats.max_weight == 1)
        assert np.all(np.isnan(stats.normalised_entropy))


def test_scaling_pair_is_the_same_example_with_scaling_on_and_off():
    scaled, unscaled = lessons.scaling_pair(result_of(DEFAULT), DEFAULT.seed, d_k=64)
    X, _ = reference_inputs(replace(DEFAULT, d_k=64))
    W = projection_weights(DEFAULT.d_model, 64, DEFAULT.d_v, DEFAULT.seed)
    assert np.allclose(scaled.attention, attention_steps(X, *W)["attention"], atol=1e-12)
    assert np.allclose(
        unscaled.attention, attention_steps(X, *W, scale=False)["attention"], atol=1e-12
    )
    assert scaled.d_k == unscaled.d_k == 64


def test_off_by_se_is_the_distance_from_the_theory_in_standard_errors():
    v = lessons.dot_product_variance((1, 8, 64), n_samples=300, seed=4)
    d = np.array([1.0, 8.0, 64.0])
    assert np.allclose(v.off_by_se, (v.variance - d) / variance_se(d, 300), rtol=1e-12)


@pytest.mark.parametrize("mask", ["none", "causal"])
def test_scaling_contrast_against_the_rows_by_hand(mask):
    s = replace(DEFAULT, mask=mask, d_k=64)
    c = lessons.scaling_contrast(*lessons.scaling_pair(result_of(s), s.seed, 64))
    X, W = reference_inputs(s)
    causal = np.tril(np.ones((6, 6), bool)) if mask == "causal" else None
    on = attention_steps(X, *W, mask=causal)
    S1, A_on = on["scaled_scores"], on["attention"]
    A_off = attention_steps(X, *W, mask=causal, scale=False)["attention"]
    assert c.max_weight_scaled == pytest.approx(A_on.max(axis=1).mean(), abs=1e-12)
    assert c.max_weight_unscaled == pytest.approx(A_off.max(axis=1).mean(), abs=1e-12)
    assert c.one_hot_scaled == sum(row.max() > lessons.NEARLY_ONE_HOT for row in A_on)
    assert c.one_hot_unscaled == sum(row.max() > lessons.NEARLY_ONE_HOT for row in A_off)
    seen = np.ones((6, 6), bool) if causal is None else causal
    assert c.spread_scaled == pytest.approx(np.std(S1[seen]), rel=1e-10)
    # S = sqrt(d_k) S': the unscaled spread is exactly sqrt(64) = 8 times the scaled one
    assert c.spread_unscaled == pytest.approx(8 * c.spread_scaled, rel=1e-10)
    assert c.max_weight_unscaled > c.max_weight_scaled
    pair = lessons.scaling_pair(result_of(s), s.seed, 1)
    same = lessons.scaling_contrast(*pair)  # sqrt(1) = 1: no difference
    assert same.max_weight_scaled == same.max_weight_unscaled
    assert same.spread_scaled == same.spread_unscaled


# --- The softmax's gradient as it saturates ----------------------------------------------------


def test_softmax_jacobian_norm_matches_the_explicit_matrix():
    logits = np.array([[0.3, -1.2, 2.0, 0.0, -np.inf], [1.0, 1.0, -0.5, 0.2, 3.0]])
    factors = (0.5, 1.0, 4.0)
    g = lessons.softmax_gradient_norm(logits, factors)
    for f, c in enumerate(factors):
        norms, tops = [], []
        for row in logits * c:
            a = np.exp(row - row.max())
            a /= a.sum()
            norms.append(np.linalg.norm(np.diag(a) - np.outer(a, a)))  # Frobenius
            tops.append(a.max())
        assert g.jacobian_norm[f] == pytest.approx(np.mean(norms), abs=1e-12)
        assert g.max_weight[f] == pytest.approx(np.mean(tops), abs=1e-12)


def test_saturated_softmax_has_a_vanishing_gradient():
    n = 8
    g = lessons.softmax_gradient_norm(factors=(1e-6, 1.0, 100.0), n=n, seed=0)
    uniform = np.sqrt(n - 1) / n  # ||I/n - 11^T/n^2||_F
    assert g.jacobian_norm[0] == pytest.approx(uniform, abs=1e-5)
    assert g.jacobian_norm[2] < 0.01 * g.jacobian_norm[1]
    assert g.max_weight[2] > 0.99
    with pytest.raises(AttentionInputError, match="-inf"):
        lessons.softmax_gradient_norm([[-np.inf, -np.inf]])
    with pytest.raises(AttentionInputError, match="factors"):
        lessons.softmax_gradient_norm(factors=(0.0, 1.0))


# --- Masks -------------------------------------------------------------------------------------


def test_mask_modes():
    n = 5
    assert lessons.build_mask("none", n).all()
    assert np.array_equal(lessons.build_mask("causal", n), np.tril(np.ones((n, n))) == 1)
    pad = lessons.build_mask("padding", n, n_padding=2)
    assert pad[:, :3].all() and not pad[:, 3:].any()
    assert lessons.build_mask("padding", n, n_padding=0).all()
    assert not lessons.build_mask("padding", n, n_padding=n).any()
    for mode in ("none", "causal", "padding"):
        mask = lessons.build_mask(mode, n)
        assert mask.shape == (n, n) and mask.dtype == bool


def test_custom_mask_toggles_cells_from_a_start_matrix():
    n = 4
    mask = lessons.build_mask("custom", n, cells=[(0, 1), (3, 3)])
    expected = np.ones((n, n), dtype=bool)
    expected[0, 1] = expected[3, 3] = False
    assert np.array_equal(mask, expected)
    assert lessons.build_mask("custom", n, cells=[(2, 1), (2, 1)]).all()  # toggled back
    causal = np.tril(np.ones((n, n), dtype=bool))
    mask = lessons.build_mask("custom", n, matrix=causal, cells=np.array([[0, 3]]))
    assert mask[0, 3] and mask.sum() == causal.sum() + 1
    assert lessons.build_mask("custom", n, matrix=causal) is not causal


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        (("diagonal", 3), {}, "mask mode"),
        (("padding", 3), {"n_padding": 4}, "n_padding"),
        (("padding", 3), {"n_padding": True}, "n_padding"),
        (("causal", 3), {"cells": [(0, 1)]}, "custom"),
        (("custom", 3), {"cells": [(0, 3)]}, "inside the 3 x 3"),
        (("custom", 3), {"cells": [(0, -1)]}, "inside the 3 x 3"),
        (("custom", 3), {"cells": [(0, 1, 2)]}, "pair"),
        (("custom", 3), {"matrix": np.ones((3, 3))}, "boolean"),
        (("custom", 3), {"matrix": np.ones((2, 3), dtype=bool)}, "shape"),
        (("none", 0), {}, "n must be"),
    ],
)
def test_mask_errors_say_what_is_wrong(args, kwargs, match):
    with pytest.raises(AttentionInputError, match=match):
        lessons.build_mask(*args, **kwargs)


# --- Temperature and its limits ----------------------------------------------------------------


MASKED_SETTINGS = [
    (DEFAULT, None),  # "the" twice: its two keys tie in every row
    (replace(DEFAULT, mask="causal", d_k=16), None),
    (replace(DEFAULT, text="one two three four five", scale=False), ("padding", 2)),
    (DEFAULT, ("custom", [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (2, 2)])),
]


def _mask_for(s, spec):
    n = len(s.tokens)
    if spec is None:
        return np.tril(np.ones((n, n), dtype=bool)) if s.mask == "causal" else np.ones((n, n), bool)
    mode, arg = spec
    if mode == "padding":
        return lessons.build_mask("padding", n, n_padding=arg)
    return lessons.build_mask("custom", n, cells=arg)


def _cold_reference(logits):
    """The T -> 0 limit from the formula: split evenly over the maximal logits; and the gap."""
    limit, gaps = np.zeros_like(logits), []
    for i, row in enumerate(logits):
        if not np.isfinite(row).any():
            continue
        top = row.max()
        tied = row >= top - 1e-9 * max(1.0, abs(top))
        limit[i, tied] = 1 / tied.sum()
        gaps.append(top - row[~tied].max() if (~tied).any() else np.inf)
    return limit, min(gaps, default=np.inf)


@pytest.mark.parametrize(("s", "spec"), MASKED_SETTINGS)
def test_cold_temperature_gives_one_hot_at_the_argmax(s, spec):
    mask = _mask_for(s, spec)
    X, W = reference_inputs(s)
    S1 = attention_steps(X, *W, scale=s.scale)["scaled_scores"]
    limit, gap = _cold_reference(np.where(mask, S1, -np.inf))
    T = 1e-3
    A = lessons.reattend(compute(s).result, mask=mask, temperature=T).attention
    bound = len(A) * np.exp(-gap / T) + 1e-5  # mass left off the argmax, plus near-tie spread
    assert bound < 1e-4  # the gaps are wide enough that this checks a real one-hot
    assert np.abs(A - limit).max() <= bound
    assert np.all(A[~mask] == 0)
    sweep = lessons.temperature_sweep(result_of(s), [T, 1.0, 1e3], mask=mask)
    assert np.array_equal(sweep.argmax_limit, limit)
    ties = np.maximum((limit > 0).sum(axis=1), 1)
    live = mask.any(axis=1)
    assert np.allclose(sweep.max_weight[0][live], 1 / ties[live], atol=bound)
    assert np.allclose(sweep.entropy[0][live], np.log(ties[live]), atol=1e-3)


@pytest.mark.parametrize(("s", "spec"), MASKED_SETTINGS)
def test_hot_temperature_gives_uniform_over_allowed_keys(s, spec):
    mask = _mask_for(s, spec)
    allowed = mask.sum(axis=1, keepdims=True)
    uniform = np.divide(mask, allowed, out=np.zeros(mask.shape), where=allowed > 0)
    A = lessons.reattend(compute(s).result, mask=mask, temperature=1e3).attention
    assert np.abs(A - uniform).max() < 1e-2
    assert np.all(A[~mask] == 0)
    sweep = lessons.temperature_sweep(result_of(s), [1e-3, 1.0, 1e3], mask=mask)
    assert np.array_equal(sweep.uniform_limit, uniform)
    assert np.allclose(sweep.max_entropy, np.log(np.maximum(allowed[:, 0], 1)))
    assert np.all(sweep.entropy[-1] <= sweep.max_entropy + 1e-12)
    assert np.allclose(sweep.entropy[-1], sweep.max_entropy, atol=1e-3)


@pytest.mark.parametrize(("s", "spec"), MASKED_SETTINGS)
def test_sweep_agrees_with_the_core_and_entropy_grows_with_temperature(s, spec):
    mask = _mask_for(s, spec)
    temperatures = np.logspace(-2, 2, 17)
    sweep = lessons.temperature_sweep(result_of(s), temperatures, mask=mask)
    assert sweep.entropy.shape == sweep.max_weight.shape == (17, len(s.tokens))
    X, W = reference_inputs(s)
    for t in (0, 8, 16):
        A, _ = attention(X, *W, mask=mask, scale=s.scale, temperature=temperatures[t])
        assert np.allclose(sweep.entropy[t], [entropy_by_hand(r) for r in A], atol=1e-10)
        assert np.allclose(sweep.max_weight[t], A.max(axis=1), atol=1e-12)
    # dH/dT >= 0: a hotter softmax is never sharper; the largest weight never rises.
    assert np.all(np.diff(sweep.entropy, axis=0) >= -1e-12)
    assert np.all(np.diff(sweep.max_weight, axis=0) <= 1e-12)


@pytest.mark.parametrize(("s", "spec"), MASKED_SETTINGS)
def test_sweep_is_the_cores_own_softmax_at_each_temperature(s, spec):
    # The sweep reuses the core's masked softmax: at each T its rows are exactly those of
    # self_attention(..., temperature=T) on the same inputs, not a copy that could drift.
    mask = _mask_for(s, spec)
    r = result_of(s)
    temperatures = (0.05, 0.7, 1.0, 7.0)
    sweep = lessons.temperature_sweep(r, temperatures, mask=mask)
    for t, T in enumerate(temperatures):
        A = self_attention(r.X, r.W_Q, r.W_K, r.W_V, mask=mask, scale=r.scale, temperature=T)
        np.testing.assert_array_equal(sweep.entropy[t], lessons.row_entropy(A.attention))
        np.testing.assert_array_equal(sweep.max_weight[t], A.attention.max(axis=1))


def test_sweep_keeps_the_settings_mask_by_default_and_zero_rows_stay_zero():
    s = replace(DEFAULT, mask="causal")
    assert np.array_equal(lessons.temperature_sweep(result_of(s)).mask, result_of(s).mask)
    mask = lessons.build_mask("custom", 6, cells=[(1, j) for j in range(6)])  # row 1 empty
    sweep = lessons.temperature_sweep(result_of(DEFAULT), mask=mask)
    assert np.all(sweep.entropy[:, 1] == 0) and np.all(sweep.max_weight[:, 1] == 0)
    assert not sweep.argmax_limit[1].any() and not sweep.uniform_limit[1].any()
    with pytest.raises(AttentionInputError, match="temperatures"):
        lessons.temperature_sweep(result_of(DEFAULT), [1.0, -1.0])


def _effect(mode, **kwargs):
    r = compute(DEFAULT).result
    mask = None if mode == "none" else lessons.build_mask(mode, r.n, **kwargs)
    plain, masked = lessons.reattend(r, mask=None), lessons.reattend(r, mask=mask)
    return plain.attention, masked, lessons.mask_effect(plain, masked, mask)


def test_mask_effect_tells_the_row_the_mask_cut_most_renormalised():
    plain, masked, e = _effect("causal")
    assert e.allowed.tolist() == [1, 2, 3, 4, 5, 6]
    assert e.partial.tolist() == [0, 1, 2, 3, 4] and e.empty.size == 0
    assert e.row == 1  # row 0 keeps one key: it cannot show the sharing
    assert e.keys.tolist() == [0, 1]
    assert np.array_equal(e.before, plain[1, :2])
    assert e.share == pytest.approx(plain[1, :2].sum(), abs=1e-15)
    assert np.array_equal(e.after, masked.attention[1, :2])
    assert np.allclose(e.after, plain[1, :2] / plain[1, :2].sum(), atol=1e-12)
    assert e.renormalise_error < 1e-12
    assert np.isnan(e.empty_row_sum)
    # only a row that keeps one key is cut: it is the one told
    assert _effect("custom", cells=[(3, j) for j in range(1, 6)])[2].row == 3
    # a row that keeps 2 keys or more is told before one that keeps 1
    cells = [(0, j) for j in range(1, 6)] + [(4, 2)]
    assert _effect("custom", cells=cells)[2].row == 4


def test_mask_effect_without_a_partly_masked_row():
    _, _, e = _effect("none")
    assert e.allowed.tolist() == [6] * 6 and e.partial.size == e.empty.size == 0
    assert e.row is None and np.isnan(e.share) and np.isnan(e.renormalise_error)
    _, masked, e = _effect("padding", n_padding=6)
    assert e.empty.tolist() == list(range(6)) and e.row is None
    assert e.empty_row_sum == 0 and e.empty_output == 0
    assert np.all(masked.attention == 0)


@pytest.mark.parametrize(("T", "end"), [(1e-3, "argmax"), (1e3, "uniform")])
def test_temperature_effect_lies_near_the_limit_it_approaches(T, end):
    s = replace(DEFAULT, mask="causal")
    sweep = lessons.temperature_sweep(result_of(s))
    A = lessons.reattend(compute(s).result, temperature=T).attention
    e = lessons.temperature_effect(A, sweep)
    near, far = (e.to_argmax, e.to_uniform) if end == "argmax" else (e.to_uniform, e.to_argmax)
    assert near < 1e-2 < far
    assert e.any_live
    assert e.entropy == pytest.approx(np.mean([entropy_by_hand(row) for row in A]), abs=1e-12)
    assert e.max_weight == pytest.approx(A.max(axis=1).mean(), abs=1e-12)


def test_temperature_effect_counts_ties_and_skips_rows_with_no_key():
    s = replace(DEFAULT, text="a a")  # two identical keys, no positions: every row ties
    sweep = lessons.temperature_sweep(result_of(s))
    e = lessons.temperature_effect(compute(s).result.attention, sweep)
    assert e.ties == 2 and e.entropy == pytest.approx(np.log(2))
    blocked = np.zeros((2, 2), bool)
    sweep = lessons.temperature_sweep(result_of(s), mask=blocked)
    e = lessons.temperature_effect(np.zeros((2, 2)), sweep)
    assert not e.any_live and np.isnan(e.entropy) and np.isnan(e.max_weight)
    assert e.ties == 0


# --- Positions: permutation equivariance -------------------------------------------------------


def test_permuted_inputs_give_permuted_outputs_without_positions_only():
    exp = lessons.permutation_experiment(*without_and_with_positions(DEFAULT), seed=0)
    perm = exp.permutation
    assert sorted(perm) == list(range(6)) and not np.array_equal(perm, np.arange(6))
    assert exp.permuted_tokens == [DEFAULT.tokens[k] for k in perm]
    # Independently: attention of the shuffled embeddings, from the formula.
    E, _ = embeddings(DEFAULT, DEFAULT.tokens)
    W = projection_weights(DEFAULT.d_model, DEFAULT.d_k, DEFAULT.d_v, DEFAULT.seed)
    position, column = np.arange(6)[:, None], np.arange(8)[None, :]
    angle = position / 10000 ** ((column - column % 2) / 8)  # PE(p, 2i) = sin, PE(p, 2i+1) = cos
    P = np.where(column % 2 == 0, np.sin(angle), np.cos(angle))
    assert np.allclose(exp.P, P, atol=1e-12)
    out_off = attention_steps(E, *W)["output"]
    out_on = attention_steps(E + P, *W)["output"]
    assert np.allclose(exp.permuted_off.output, attention_steps(E[perm], *W)["output"], atol=1e-12)
    assert np.allclose(
        exp.permuted_on.output, attention_steps(E[perm] + P, *W)["output"], atol=1e-12
    )
    assert np.allclose(exp.permuted_off.output, out_off[perm], atol=1e-12)
    assert np.abs(exp.permuted_on.output - out_on[perm]).max() > 1e-3
    assert exp.equivariant_off and exp.max_abs_diff_off < 1e-12
    assert not exp.equivariant_on and exp.max_abs_diff_on > 1e-3
    assert exp.max_abs_output_on == pytest.approx(np.abs(out_on).max(), rel=1e-12)


def test_identical_tokens_get_identical_rows_without_positions_only():
    exp = lessons.permutation_experiment(*without_and_with_positions(DEFAULT), seed=1)
    assert exp.repeated_pairs.tolist() == [[0, 4]]  # "the" at 0 and 4
    off, on = exp.original_off.output, exp.original_on.output
    assert np.array_equal(off[0], off[4]) and exp.same_row_off.tolist() == [True]
    assert np.abs(on[0] - on[4]).max() > 1e-3 and exp.same_row_on.tolist() == [False]
    assert exp.pair_diff_on[0] == pytest.approx(np.abs(on[0] - on[4]).max())


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=9),
    st.integers(0, 2**32 - 1),
    st.sampled_from(["random", "one-hot"]),
    st.booleans(),
    st.sampled_from([0.1, 1.0, 10.0]),
)
def test_permutation_equivariance_without_positions_for_any_tokens(
    tokens, seed, embedding, scale, temperature
):
    s = Settings(
        text=" ".join(tokens),
        d_model=5,
        d_k=3,
        d_v=2,
        seed=seed,
        embedding=embedding,
        positions=True,
        scale=scale,
        temperature=temperature,
    )
    exp = lessons.permutation_experiment(*without_and_with_positions(s), seed=seed)
    perm = exp.permutation
    assert exp.equivariant_off
    assert np.allclose(exp.permuted_off.output, exp.original_off.output[perm], atol=1e-9)
    assert exp.same_row_off.all()
    pairs = [(i, j) for j in range(len(tokens)) for i in range(j) if tokens[i] == tokens[j]]
    assert {tuple(p) for p in exp.repeated_pairs.tolist()} <= set(pairs)
    assert {j for _, j in exp.repeated_pairs.tolist()} == {j for _, j in pairs}
    # The reported flags say what the numbers say.
    diff_on = np.abs(exp.permuted_on.output - exp.original_on.output[perm]).max()
    assert exp.max_abs_diff_on == diff_on
    assert exp.equivariant_on == (diff_on <= exp.tolerance)


def test_permutation_checks_its_argument_and_draws_deterministically():
    for bad in ([0, 1, 2, 3, 4, 4], [0, 1, 2], [0.0, 1, 2, 3, 4, 5]):
        with pytest.raises(AttentionInputError, match="permutation"):
            lessons.permutation_experiment(*without_and_with_positions(DEFAULT), bad)
    given_perm = [5, 4, 3, 2, 1, 0]
    exp = lessons.permutation_experiment(*without_and_with_positions(DEFAULT), given_perm)
    assert exp.permutation.tolist() == given_perm
    for n in range(2, 7):
        for seed in range(20):
            perm = lessons.draw_permutation(n, seed)
            assert sorted(perm.tolist()) == list(range(n))
            assert not np.array_equal(perm, np.arange(n))
            assert np.array_equal(perm, lessons.draw_permutation(n, seed))
    one = lessons.permutation_experiment(
        *without_and_with_positions(replace(DEFAULT, text="alone"))
    )
    assert one.permutation.tolist() == [0] and one.equivariant_off


def test_permutation_needs_one_sentence_without_and_with_positions_and_no_mask():
    off, on = without_and_with_positions(DEFAULT)
    causal = replace(DEFAULT, mask="causal")  # a causal mask would break the symmetry itself
    refused = [
        (
            (compute(replace(causal, positions=False)), compute(replace(causal, positions=True))),
            "mask",
        ),
        ((on, on), "without positional encodings"),
        ((off, off), "with them"),
        ((off, compute(replace(DEFAULT, positions=True, seed=1))), "differ"),
        ((off, compute(replace(DEFAULT, positions=True, text="a b c d e f"))), "differ"),
        ((off, compute(replace(DEFAULT, positions=True, scale=False))), "differ"),
    ]
    for pair, match in refused:
        with pytest.raises(AttentionInputError, match=match):
            lessons.permutation_experiment(*pair)


# --- Predict, then reveal: the quiz --------------------------------------------------------------


SHAPES = {"Q": ("n", "d_k"), "K": ("n", "d_k"), "V": ("n", "d_v"), "S": ("n", "n")}
SHAPES |= {"A": ("n", "n"), "output": ("n", "d_v")}
CONCEPTUAL = {  # kind: its right option whatever the numbers (None: it depends on the settings)
    "shift": "it stays the same",
    "causal_row": None,  # "[1, 0, …, 0]: …", its length written for small n
    "masked_weight": "A_ij = 0 exactly; the other weights are rescaled to sum to 1",
    "scaling_spread": "std(S') = std(S) / √d_k",
    "low_temperature": "one-hot: all its weight on the key with the largest S'_ij",
}


def number_in(text, name):
    """The number written as ``name = <number>`` in ``text``."""
    return float(re.search(rf"\b{re.escape(name)} = (-?[0-9.e+-]+)", text).group(1))


def check_question(q, s, mask, labels):
    """Verify one question's answer from the formula (tests/reference.py), never from the
    code under test: each rule is recomputed here from X, the weights and the mask."""
    assert q.answer in q.options and len(set(q.options)) == len(q.options) >= 2
    assert q.options[q.answer_index] == q.answer
    assert q.text and q.explanation
    X, W = reference_inputs(s)
    ref = attention_steps(X, *W, mask=mask, scale=s.scale, temperature=s.temperature)
    S, S1, A, out = (ref[k] for k in ("scores", "scaled_scores", "attention", "output"))
    n, T = len(labels), s.temperature
    dims = {"n": n, "d_k": s.d_k, "d_v": s.d_v, "d_model": s.d_model}
    allowed = np.ones((n, n), dtype=bool) if mask is None else mask
    logits = np.where(allowed, S1, -np.inf)  # S' + M
    if q.kind == "shape":
        rows, cols = SHAPES[q.matrix]
        assert q.answer == f"{dims[rows]} × {dims[cols]}"
    elif q.kind == "heads_shape":
        h = int(number_in(q.text, "h"))
        expected = (n, h * s.d_v) if q.matrix == "Concat" else (h * s.d_v, s.d_model)
        assert q.answer == "{} × {}".format(*expected)
    elif q.kind == "row_sum":
        assert q.answer == ("1" if allowed[q.row].any() else "0")
        assert float(q.answer) == pytest.approx(A[q.row].sum(), abs=1e-9)
    elif q.kind == "shift":
        c = number_in(q.text, "c")
        z = np.where(allowed[q.row], (S1[q.row] + c) / T, -np.inf)  # the row's scores + c
        e = np.exp(z - z.max())
        np.testing.assert_allclose(e / e.sum(), A[q.row], atol=1e-12)  # softmax as it was
        assert q.answer == CONCEPTUAL["shift"]
    elif q.kind == "causal_row":
        assert mask is not None and np.array_equal(mask, np.tril(np.ones((n, n), dtype=bool)))
        np.testing.assert_array_equal(A[0], np.eye(n)[0])
        assert q.answer.startswith("[1, 0") and "key 0" in q.answer
    elif q.kind == "masked_weight":
        i, j = q.row, q.col
        assert not allowed[i, j] and A[i, j] == 0
        plain = attention_steps(X, *W, scale=s.scale, temperature=T)["attention"][i]
        kept = np.where(allowed[i], plain, 0)
        assert kept.sum() < 1 - 1e-6  # keeping the old values would not sum to 1
        np.testing.assert_allclose(A[i], kept / kept.sum(), atol=1e-9)
        assert A[i].sum() == pytest.approx(1)
        assert q.answer == CONCEPTUAL["masked_weight"]
    elif q.kind == "scaling_spread":
        assert s.d_k > 1
        assert (S / np.sqrt(s.d_k)).std() == pytest.approx(S.std() / np.sqrt(s.d_k))
        assert S.std() / np.sqrt(s.d_k) != pytest.approx(S.std() / s.d_k)
        assert q.answer == CONCEPTUAL["scaling_spread"]
    elif q.kind == "scaling_effect":
        flipped = attention_steps(X, *W, mask=mask, scale=not s.scale, temperature=T)["attention"]
        change = flipped[q.row].max() - A[q.row].max()
        expected = {"rise": change > 1e-10, "fall": change < -1e-10}
        assert expected.get(q.answer, abs(change) <= 1e-10)
        # Theory: max_j softmax(c z)_j never falls as c grows, so switching scaling off
        # (c = sqrt(d_k) >= 1) never lowers the largest weight, and switching it on never raises it.
        assert q.answer != ("fall" if s.scale else "rise")
        if q.answer == "stay the same":  # only for a reason the student can see
            live = logits[q.row][np.isfinite(logits[q.row])]
            assert s.d_k == 1 or live.size == 1 or np.ptp(live) <= 1e-9 * max(1, abs(live).max())
    elif q.kind == "low_temperature":
        row = logits[q.row]
        top2 = np.sort(row[np.isfinite(row)])[-2:]
        assert np.isfinite(top2).all() and top2[1] - top2[0] > 0  # a single largest logit
        assert q.col == int(np.argmax(row))
        T_low = (top2[1] - top2[0]) / 40  # the gap times 40: every other weight below e^-40
        z = (row - row.max()) / T_low
        e = np.exp(z)
        np.testing.assert_allclose(e / e.sum(), np.eye(n)[q.col], atol=1e-12)
        assert q.answer == CONCEPTUAL["low_temperature"]
    elif q.kind == "shuffle":
        assert mask is None
        perm = np.array([row[1] for row in q.table.rows])
        assert sorted(perm) == list(range(n)) and [r[0] for r in q.table.rows] == [
            labels[k] for k in perm
        ]
        E, P = embeddings(s, s.tokens)
        X_perm = E[perm] if P is None else E[perm] + P
        shuffled = attention_steps(X_perm, *W, scale=s.scale, temperature=T)["output"]
        moved = np.abs(shuffled - out[perm]).max()
        if s.positions:
            assert moved > 1e-6 and q.answer == "new numbers: the rows change, not only their order"
        else:
            assert moved < 1e-9 and q.answer == "the same rows as before, moved with their tokens"
        assert np.abs(shuffled - out).max() > 1e-6  # the old order would not fit
    else:
        pytest.fail(f"unknown question kind {q.kind}")


@st.composite
def quiz_cases(draw):
    n = draw(st.integers(1, 7))
    vocab = ["the", "cat", "<b>x</b>", "sat", "a"][: draw(st.integers(1, 5))]
    tokens = draw(st.lists(st.sampled_from(vocab), min_size=n, max_size=n))
    embedding = draw(st.sampled_from(["random", "one-hot"]))
    d_model = draw(st.integers(1, 8))
    if embedding == "one-hot":
        d_model = max(d_model, len(set(tokens)))
    s = Settings(
        text=" ".join(tokens),
        d_model=d_model,
        d_k=draw(st.integers(1, 8)),
        d_v=draw(st.integers(1, 8)),
        seed=draw(st.integers(0, 2**32 - 1)),
        embedding=embedding,
        positions=draw(st.booleans()),
        scale=draw(st.booleans()),
        temperature=draw(st.sampled_from([0.01, 0.3, 1.0, 5.0])),
    )
    kind = draw(st.sampled_from(["none", "causal", "random"]))
    mask = None
    if kind == "causal":
        mask = np.tril(np.ones((n, n), dtype=bool))
    elif kind == "random":
        cells = draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n))
        mask = np.array(cells, dtype=bool).reshape(n, n)
    return s, mask, draw(st.integers(0, 1000))


def quiz_of(s, mask=None, seed=0, **kwargs):
    """The quiz of settings ``s`` under ``mask`` (the sidebar's own mask if "sidebar")."""
    ex = compute(s)
    result = ex.result if isinstance(mask, str) else lessons.reattend(ex.result, mask=mask)
    return lessons.quiz(result, ex.labels, seed, P=ex.P, **kwargs)


ALL = len(lessons.KINDS)  # max_questions that asks every question the settings allow


@settings(max_examples=150, deadline=None)
@given(quiz_cases())
def test_quiz_answers_are_right_for_any_settings(case):
    s, mask, seed = case
    questions = quiz_of(s, mask, seed, max_questions=ALL)
    assert len({q.kind for q in questions}) == len(questions)
    assert [q.kind for q in questions] == [
        k for k in lessons.KINDS if k in {q.kind for q in questions}
    ]
    labels = compute(s).labels
    for q in questions:
        check_question(q, s, mask, labels)
    assert len(quiz_of(s, mask, seed)) <= lessons.MAX_QUESTIONS


# Settings that between them let every kind be asked
VARIED = [
    DEFAULT,
    replace(DEFAULT, mask="causal"),
    replace(DEFAULT, positions=True),
    replace(DEFAULT, scale=False, temperature=0.3),
    replace(DEFAULT, text="a b c d e f g h i j", d_k=1, embedding="one-hot", d_model=10),
]


def test_every_kind_is_asked_for_some_settings_and_right_there():
    asked = set()
    for s in VARIED:
        for seed in range(8):
            for q in quiz_of(s, "sidebar", seed):
                asked.add(q.kind)
                check_question(q, s, compute(s).result.mask, compute(s).labels)
    assert asked == set(lessons.KINDS)


def test_the_right_option_does_not_depend_on_the_random_weights():
    # A student reasons the answer out from the rules; the seed of the embeddings and weights
    # must not change which option is right, nor the options themselves.
    for s in VARIED:
        by_kind = {}
        for weights in range(10):
            for q in quiz_of(replace(s, seed=weights), "sidebar", seed=3, max_questions=ALL):
                by_kind.setdefault((q.kind, q.matrix), set()).add((q.options, q.answer))
        for key, seen in by_kind.items():
            assert len(seen) == 1, (s, key, seen)
        for kind, right in CONCEPTUAL.items():
            for _, answer in by_kind.get((kind, None), ()):
                assert right is None or answer == right


def test_the_quiz_fits_the_settings():
    kinds = lambda s: {q.kind for k in range(10) for q in quiz_of(s, "sidebar", k)}  # noqa: E731
    plain, causal = kinds(DEFAULT), kinds(replace(DEFAULT, mask="causal"))
    assert {"causal_row", "masked_weight"} <= causal and "shuffle" not in causal
    assert "shuffle" in plain and not {"causal_row", "masked_weight"} & plain
    # the situational questions are asked in every set the settings allow them
    for k in range(10):
        asked = {q.kind for q in quiz_of(replace(DEFAULT, mask="causal"), "sidebar", k)}
        assert {"causal_row", "masked_weight"} <= asked
    # shuffled with positions on, the rows change; off, they move
    shuffles = {
        p: next(q for k in range(10) for q in quiz_of(replace(DEFAULT, positions=p), None, k)
                if q.kind == "shuffle")
        for p in (False, True)
    }  # fmt: skip
    assert shuffles[False].answer == "the same rows as before, moved with their tokens"
    assert shuffles[True].answer == "new numbers: the rows change, not only their order"


def test_default_quiz_is_deterministic_and_checks_its_arguments():
    ex = compute(DEFAULT)
    questions = lessons.quiz(ex.result, ex.labels, seed=0)
    assert 3 <= len(questions) <= lessons.MAX_QUESTIONS
    for q in questions:
        check_question(q, DEFAULT, None, ex.labels)
    assert questions == lessons.quiz(ex.result, ex.labels, seed=0)
    assert any(lessons.quiz(ex.result, ex.labels, seed=k) != questions for k in range(1, 10))
    with pytest.raises(AttentionInputError, match="one label per token"):
        lessons.quiz(ex.result, ex.labels[:-1])
    with pytest.raises(AttentionInputError, match="positional encodings"):
        lessons.quiz(ex.result, ex.labels, P=np.zeros((2, 2)))


def test_each_reveal_holds_the_numbers_it_explains():
    s = replace(DEFAULT, mask="causal")
    ex = compute(s)
    A = ex.result.attention
    for q in quiz_of(s, "sidebar", 0, max_questions=ALL):
        for b in q.bars:
            assert b.labels == tuple(ex.labels) and len(b.values) == len(ex.labels)
        if q.kind in ("row_sum", "causal_row"):
            np.testing.assert_array_equal(q.bars[0].values, A[q.row])
        if q.kind in ("shift", "low_temperature"):
            np.testing.assert_allclose(q.bars[0].values, A[q.row], atol=1e-15)
        if q.kind == "shift":
            np.testing.assert_allclose(q.bars[1].values, A[q.row], atol=1e-12)
        if q.kind == "low_temperature":
            assert q.bars[1].values[q.col] == pytest.approx(1)
        if q.kind == "masked_weight":
            assert [row[3] for row in q.table.rows] == list(A[q.row])
            assert q.table.rows[q.col][0] == "no" and q.table.rows[q.col][3] == 0
        if q.kind == "scaling_spread":
            S = ex.result.scores
            assert q.table.rows[0][0] == pytest.approx(S.std())
            assert q.table.rows[1][0] == pytest.approx(S.std() / np.sqrt(s.d_k))


def test_quiz_edge_cases():
    # One token, every dimension 1: no shape question (all 1 x 1), nothing to shuffle or spread.
    s = replace(DEFAULT, text="alone", d_model=1, d_k=1, d_v=1)
    by_kind = {q.kind: q for q in quiz_of(s, max_questions=ALL)}
    assert set(by_kind) == {"heads_shape", "row_sum", "shift", "scaling_effect"}
    assert by_kind["row_sum"].answer == "1"
    assert by_kind["scaling_effect"].answer == "stay the same"  # sqrt(1) = 1
    # Identical tokens without positions tie in every row: no T -> 0 question (no single
    # largest logit), no shuffle (the same sentence), no spread (all scores equal).
    for seed in range(10):
        tied = {q.kind for q in quiz_of(replace(DEFAULT, text="x x x", seed=seed), None, seed,
                                        max_questions=ALL)}  # fmt: skip
        assert not tied & {"low_temperature", "shuffle", "scaling_spread"}
    # A query masked from every key: its row sums to 0, and it is never the masked_weight row.
    mask = np.ones((6, 6), dtype=bool)
    mask[2] = False
    mask[4, 1] = False
    answers, rows = {}, set()
    for k in range(40):
        for q in quiz_of(DEFAULT, mask, k, max_questions=ALL):
            if q.kind == "row_sum":
                answers[q.row] = q.answer
            if q.kind == "masked_weight":
                rows.add((q.row, q.col))
    assert answers[2] == "0" and all(a == "1" for r, a in answers.items() if r != 2)
    assert rows == {(4, 1)}
    # A mask that is not causal asks no causal row; one that is asks it.
    assert "causal_row" not in {q.kind for q in quiz_of(DEFAULT, mask, max_questions=ALL)}


# --- Lessons take results, never settings -----------------------------------------------------


def test_no_lesson_module_reads_the_settings():
    # Read the source: the lessons get results from the page's ui module and never go back up
    # to attnviz.settings (no Settings, no compute) to recompute what the page already holds.
    settings_names = {"settings", "Settings", "compute", "from_query", "Example"}
    folder = Path(lessons.__file__).parent
    modules = sorted(folder.rglob("*.py"))  # the quiz package too
    assert len(modules) >= 6
    for path in modules:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
                assert not any(name.startswith("attnviz.settings") for name in names), path.name
            elif isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("attnviz.settings"), path.name
                if node.module == "attnviz":
                    imported = {alias.name for alias in node.names}
                    assert not imported & settings_names, (path.name, imported)
            elif isinstance(node, ast.Name | ast.Attribute):
                name = node.id if isinstance(node, ast.Name) else node.attr
                assert name not in {"Settings", "compute"}, (path.name, node.lineno)


def test_no_quiz_question_divides_by_a_share_of_zero():
    # Found by hypothesis: at T = 0.01 without scaling the masked keys held every bit of row 0's
    # weight, so "rescale the allowed keys by their share" divided 0 by 0 (NaN in the reveal).
    import warnings

    example = compute(
        Settings(
            text="cat the the the the cat",
            d_model=1,
            d_k=2,
            d_v=1,
            seed=39123,
            scale=False,
            temperature=0.01,
        )
    )
    mask = np.zeros((6, 6), dtype=bool)
    mask[0, [0, 5]] = True
    masked = lessons.reattend(example.result, mask=mask)
    for seed in range(12):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a 0 / 0 would warn before it made a NaN
            questions = lessons.quiz(masked, example.labels, seed)
        assert all(q.kind != "masked_weight" for q in questions)


# --- rotary positions --------------------------------------------------------------------------


def test_rotary_positions_match_complex_rotation_and_depend_on_the_offset_only():
    rng = np.random.default_rng(4)
    q, k = rng.normal(size=(2, 6))
    theta = 10000.0 ** (-np.arange(3) / 3)  # 10000^(-2i/d) for d = 6
    zq, zk = q[0::2] + 1j * q[1::2], k[0::2] + 1j * k[1::2]  # pairs as complex numbers
    rot = lessons.rotary_scores(q, k)
    for (m, n), score in zip(rot.pairs, rot.scores, strict=True):
        reference = np.real(
            np.sum(zq * np.exp(1j * m * theta) * np.conj(zk * np.exp(1j * n * theta)))
        )
        assert score == pytest.approx(reference, abs=1e-12)
    assert max(rot.spread_by_offset.values()) < 1e-12 and len(rot.spread_by_offset) == 3
    assert len({round(float(s), 9) for s in rot.scores}) == 3  # three offsets, three scores
    assert rot.scores[0] == pytest.approx(rot.plain)  # offset 0: the plain q . k
    x = lessons.rotate(np.arange(5.0), 3)  # an odd last dimension stays as it is
    assert x[4] == 4.0 and np.linalg.norm(x) == pytest.approx(np.linalg.norm(np.arange(5.0)))
