"""Laws of single-head attention (attnviz.core), checked against an independent reference."""

import dataclasses
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import attnviz
from attnviz.limits import MAX_CORE_DIM, MAX_CORE_N
from tests.reference import attention as reference

FAST = settings(max_examples=60, deadline=None)

finite = st.floats(-5, 5, allow_nan=False, allow_infinity=False, width=64)


def matrix(rows, cols, elements=finite):
    return hnp.arrays(np.float64, (rows, cols), elements=elements)


@st.composite
def problems(draw, max_n=10, max_d=6):
    """(X, W_Q, W_K, W_V) of random shapes and values."""
    n = draw(st.integers(1, max_n))
    d_model = draw(st.integers(1, max_d))
    d_k = draw(st.integers(1, max_d))
    d_v = draw(st.integers(1, max_d))
    return (
        draw(matrix(n, d_model)),
        draw(matrix(d_model, d_k)),
        draw(matrix(d_model, d_k)),
        draw(matrix(d_model, d_v)),
    )


@st.composite
def masks(draw, n):
    return draw(hnp.arrays(np.bool_, (n, n)))


# ---------------------------------------------------------------------------- shapes and steps


@FAST
@given(problems())
def test_shapes_follow_the_dimension_table(problem):
    X, W_Q, W_K, W_V = problem
    n, d_model = X.shape
    d_k, d_v = W_Q.shape[1], W_V.shape[1]
    r = attnviz.self_attention(X, W_Q, W_K, W_V)
    assert r.X.shape == (n, d_model)
    assert r.Q.shape == r.K.shape == (n, d_k)
    assert r.V.shape == (n, d_v)
    for name in ("scores", "scaled_scores", "logits", "attention"):
        assert getattr(r, name).shape == (n, n), name
    assert r.output.shape == (n, d_v)
    assert r.row_max.shape == r.row_sum.shape == (n,)
    assert (r.n, r.d_model, r.d_k, r.d_v) == (n, d_model, d_k, d_v)


@FAST
@given(problems(), st.booleans(), st.floats(0.1, 10))
def test_every_step_is_the_formula(problem, scale, temperature):
    X, W_Q, W_K, W_V = problem
    r = attnviz.self_attention(X, W_Q, W_K, W_V, scale=scale, temperature=temperature)
    np.testing.assert_allclose(r.Q, X @ W_Q, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.K, X @ W_K, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.V, X @ W_V, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.scores, r.Q @ r.K.T, rtol=1e-12, atol=1e-12)
    divisor = np.sqrt(W_Q.shape[1]) if scale else 1.0
    np.testing.assert_allclose(r.scaled_scores, r.scores / divisor, rtol=1e-15, atol=0)
    np.testing.assert_allclose(r.logits, r.scaled_scores / temperature, rtol=1e-15, atol=0)
    np.testing.assert_allclose(r.output, r.attention @ r.V, rtol=1e-12, atol=1e-12)
    assert r.scale is scale
    assert r.temperature == temperature
    assert r.scale_factor == pytest.approx(divisor)


def test_scale_off_leaves_the_scores_unchanged():
    rng = np.random.default_rng(1)
    X, W = rng.standard_normal((5, 4)), rng.standard_normal((4, 9))
    r = attnviz.self_attention(X, W, W, W, scale=False)
    np.testing.assert_array_equal(r.scaled_scores, r.scores)
    assert r.scale_factor == 1.0
    scaled = attnviz.self_attention(X, W, W, W)
    np.testing.assert_allclose(scaled.scaled_scores, scaled.scores / 3, rtol=1e-15)
    assert scaled.scale_factor == 3.0


@FAST
@given(problems(), st.floats(0.05, 20), st.booleans(), st.data())
def test_agrees_with_a_float64_reference(problem, temperature, scale, data):
    X, W_Q, W_K, W_V = problem
    n = X.shape[0]
    mask = data.draw(st.none() | masks(n))
    b_Q, b_K = (data.draw(matrix(1, W_Q.shape[1]))[0] for _ in range(2))
    b_V = data.draw(matrix(1, W_V.shape[1]))[0]
    r = attnviz.self_attention(
        X, W_Q, W_K, W_V, mask=mask, scale=scale, temperature=temperature, b_Q=b_Q, b_K=b_K, b_V=b_V
    )
    A, out = reference(X, W_Q, W_K, W_V, mask, scale, temperature, b_Q, b_K, b_V)
    np.testing.assert_allclose(r.attention, A, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(r.output, out, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(r.Q, X @ W_Q + b_Q, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.K, X @ W_K + b_K, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.V, X @ W_V + b_V, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------------------------ softmax


@FAST
@given(problems())
def test_attention_rows_sum_to_one(problem):
    r = attnviz.self_attention(*problem)
    np.testing.assert_allclose(r.attention.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.row_sums, 1.0, rtol=0, atol=1e-12)
    assert (r.attention >= 0).all() and (r.attention <= 1).all()


@FAST
@given(
    st.integers(1, 8).flatmap(
        lambda m: st.tuples(
            st.integers(1, 12).flatmap(lambda k: matrix(m, k, st.floats(-50, 50))),
            hnp.arrays(np.float64, (m,), elements=st.floats(-1e3, 1e3)),
        )
    )
)
def test_adding_a_constant_to_a_row_changes_nothing(case):
    logits, shift = case
    before, _, _ = attnviz.softmax_rows(logits)
    after, _, _ = attnviz.softmax_rows(logits + shift[:, None])
    np.testing.assert_allclose(after, before, rtol=0, atol=1e-9)


@FAST
@given(st.integers(1, 6), st.integers(1, 30), st.integers(4, 6), st.integers(0, 2**32 - 1))
def test_huge_scores_stay_finite(m, k, exponent, seed):
    rng = np.random.default_rng(seed)
    logits = rng.uniform(-1, 1, (m, k)) * 10.0**exponent  # magnitudes up to 1e4 .. 1e6
    for dtype in (np.float64, np.float32):
        A, row_max, row_sum = attnviz.softmax_rows(logits.astype(dtype))
        assert np.isfinite(A).all() and np.isfinite(row_max).all() and np.isfinite(row_sum).all()
        np.testing.assert_allclose(A.sum(axis=1), 1.0, atol=1e-5)
        assert (A.argmax(axis=1) == logits.argmax(axis=1)).all()


@FAST
@given(problems(max_n=8), st.sampled_from([np.float32, np.float64]))
def test_huge_inputs_stay_finite(problem, dtype):
    X, W_Q, W_K, W_V = problem
    X = np.sign(X) * 1e3 + X  # entries of magnitude about 1e3
    r = attnviz.self_attention(*(a.astype(dtype) for a in (X, W_Q, W_K, W_V)))
    for name in ("scores", "attention", "output", "row_max", "row_sum"):
        assert np.isfinite(getattr(r, name)).all(), name
    np.testing.assert_allclose(r.attention.sum(axis=1), 1.0, atol=1e-5)


def test_softmax_is_the_first_part_of_softmax_rows():
    logits = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, -np.inf]])
    np.testing.assert_array_equal(attnviz.softmax(logits), attnviz.softmax_rows(logits)[0])
    e = np.exp([1.0, 2.0, 3.0])
    np.testing.assert_allclose(attnviz.softmax(logits)[0], e / e.sum(), rtol=1e-15)
    np.testing.assert_array_equal(attnviz.softmax(logits)[1], [0.5, 0.5, 0.0])


@FAST
@given(problems(), st.data())
def test_logits_row_max_and_row_sum_reproduce_attention(problem, data):
    X = problem[0]
    mask = data.draw(st.none() | masks(X.shape[0]))
    r = attnviz.self_attention(*problem, mask=mask)
    live = r.row_sum > 0
    np.testing.assert_array_equal(live, np.isfinite(r.row_max))
    rebuilt = np.exp(r.logits[live] - r.row_max[live, None]) / r.row_sum[live, None]
    np.testing.assert_allclose(r.attention[live], rebuilt, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(r.row_max[live], r.logits[live].max(axis=1))
    assert (r.row_max[~live] == -np.inf).all() and (r.row_sum[~live] == 0).all()
    assert (r.attention[~live] == 0).all()


# ------------------------------------------------------- the softmax subtracts the row maxima


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", [1.0, 1e3])
def test_the_softmax_subtracts_each_row_maximum(monkeypatch, dtype, size):
    # What the inspector tells students: the row maximum is subtracted before exp, whatever the
    # size of the logits (scores of about 1e6 would overflow exp without it).
    from attnviz import core

    seen, real = [], core.softmax_rows
    monkeypatch.setattr(core, "softmax_rows", lambda z: seen.append(z) or real(z))
    rng = np.random.default_rng(7)
    X, W_Q, W_K, W_V = rng.standard_normal((20, 4)) * size, *rng.standard_normal((3, 4, 4))
    args = [a.astype(dtype) for a in (X, W_Q, W_K, W_V)]
    r = attnviz.self_attention(*args)
    assert len(seen) == 1 and np.shares_memory(seen[0], r.logits)
    np.testing.assert_array_equal(r.row_max, r.logits.max(axis=1))
    A, out = reference(*args)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(r.attention, A, rtol=tol, atol=tol)
    np.testing.assert_allclose(r.output, out, rtol=tol, atol=tol * np.abs(out).max())
    np.testing.assert_allclose(r.row_sum, reference_row_sum(r.logits), rtol=tol)


def reference_row_sum(logits):
    logits = np.asarray(logits, np.float64)
    return np.exp(logits - logits.max(axis=1, keepdims=True)).sum(axis=1)


# ------------------------------------------------------------------------------ temperature


@FAST
@given(problems(max_n=8))
def test_small_temperature_gives_argmax_rows(problem):
    plain = attnviz.self_attention(*problem)
    r = attnviz.self_attention(*problem, temperature=1e-6)
    s = plain.scaled_scores
    top2 = np.sort(s, axis=1)[:, -2:]
    clear = (top2[:, 1] - top2[:, 0] > 1e-3) if plain.n > 1 else np.ones(1, bool)
    one_hot = np.eye(plain.n)[s.argmax(axis=1)]
    np.testing.assert_allclose(r.attention[clear], one_hot[clear], atol=1e-9)  # unique maxima
    tied = s >= s.max(axis=1, keepdims=True) - 1e-12  # exact ties share the weight
    exact = (s.max(axis=1, keepdims=True) - np.where(tied, -np.inf, s)).min(axis=1) > 1e-3
    share = tied / tied.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(r.attention[exact], share[exact], atol=1e-6)


def test_small_temperature_picks_the_largest_score():
    X = np.array([[2.0, 0.0], [0.0, 3.0], [1.0, 1.0]])  # scores 4 0 2, 0 9 3, 2 3 2
    r = attnviz.self_attention(X, np.eye(2), np.eye(2), np.eye(2), temperature=1e-3)
    np.testing.assert_allclose(r.attention, [[1, 0, 0], [0, 1, 0], [0, 1, 0]], atol=1e-9)


@FAST
@given(problems(max_n=8))
def test_large_temperature_gives_uniform_rows(problem):
    r = attnviz.self_attention(*problem, temperature=1e9)
    np.testing.assert_allclose(r.attention, 1 / r.n, rtol=1e-5)


# ---------------------------------------------------------------------------------- symmetry


@FAST
@given(problems(), st.data())
def test_permuting_tokens_permutes_the_output(problem, data):
    X, W_Q, W_K, W_V = problem
    n = X.shape[0]
    perm = np.array(data.draw(st.permutations(range(n))), dtype=int)
    mask = data.draw(st.none() | masks(n))
    r = attnviz.self_attention(X, W_Q, W_K, W_V, mask=mask)
    p = attnviz.self_attention(
        X[perm], W_Q, W_K, W_V, mask=None if mask is None else mask[np.ix_(perm, perm)]
    )
    np.testing.assert_allclose(p.output, r.output[perm], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(p.attention, r.attention[np.ix_(perm, perm)], rtol=1e-9, atol=1e-9)


# -------------------------------------------------------------------------------------- masks


@FAST
@given(problems(), st.data())
def test_masked_entries_are_exactly_zero(problem, data):
    n = problem[0].shape[0]
    mask = data.draw(masks(n))
    r = attnviz.self_attention(*problem, mask=mask)
    assert (r.attention[~mask] == 0).all()
    assert (r.logits[~mask] == -np.inf).all()
    assert np.isfinite(r.logits[mask]).all()
    live = mask.any(axis=1)
    np.testing.assert_allclose(r.attention[live].sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_array_equal(r.mask, mask)


@FAST
@given(problems(), st.data())
def test_fully_masked_rows_give_zero_attention_and_zero_output(problem, data):
    n = problem[0].shape[0]
    mask = data.draw(masks(n))
    dead = data.draw(st.integers(0, n - 1))
    mask[dead] = False
    r = attnviz.self_attention(*problem, mask=mask)
    for name in ("scores", "scaled_scores", "attention", "output", "row_sum"):
        assert not np.isnan(getattr(r, name)).any(), name
    assert (r.attention[dead] == 0).all()
    assert (r.output[dead] == 0).all()
    assert r.row_sums[dead] == 0


def test_everything_masked_gives_all_zeros():
    X = np.arange(12.0).reshape(4, 3)
    r = attnviz.self_attention(X, np.eye(3), np.eye(3), np.eye(3), mask=np.zeros((4, 4), bool))
    assert (r.attention == 0).all() and (r.output == 0).all()


@pytest.mark.parametrize("n", [1, 2, 5])
def test_causal_mask_allows_keys_up_to_the_query(n):
    mask = attnviz.causal_mask(n)
    assert mask.dtype == bool and mask.shape == (n, n)
    for i in range(n):
        for j in range(n):
            assert mask[i, j] == (j <= i)


def test_causal_attention_ignores_the_future():
    rng = np.random.default_rng(3)
    X, W = rng.standard_normal((6, 4)), rng.standard_normal((4, 4))
    full = attnviz.self_attention(X, W, W, W, mask=attnviz.causal_mask(6))
    prefix = attnviz.self_attention(X[:4], W, W, W, mask=attnviz.causal_mask(4))
    np.testing.assert_allclose(full.output[:4], prefix.output, rtol=1e-12)
    np.testing.assert_allclose(full.attention[0], [1, 0, 0, 0, 0, 0])


@pytest.mark.parametrize(("n", "n_padding"), [(4, 0), (4, 1), (4, 4), (1, 1)])
def test_padding_mask_blocks_the_last_keys(n, n_padding):
    mask = attnviz.padding_mask(n, n_padding)
    assert mask.dtype == bool and mask.shape == (n, n)
    assert mask[:, : n - n_padding].all()
    assert not mask[:, n - n_padding :].any()


@pytest.mark.parametrize("n_padding", [-1, 5])
def test_padding_mask_rejects_impossible_padding(n_padding):
    with pytest.raises(attnviz.AttentionInputError, match=r"n_padding must be between 0 and n=4"):
        attnviz.padding_mask(4, n_padding)


# ------------------------------------------------------------------------------------- dtypes


@FAST
@given(problems())
def test_float32_in_gives_float32_out(problem):
    r = attnviz.self_attention(*(a.astype(np.float32) for a in problem))
    for field in dataclasses.fields(r):
        value = getattr(r, field.name)
        if isinstance(value, np.ndarray) and value.dtype != bool:
            assert value.dtype == np.float32, field.name
    np.testing.assert_allclose(r.attention.sum(axis=1), 1.0, atol=1e-5)


def test_mixed_or_integer_input_is_computed_in_float64():
    X = np.arange(6, dtype=np.float32).reshape(2, 3)
    r = attnviz.self_attention(X, np.eye(3), np.eye(3, dtype=np.float32), np.eye(3))
    assert r.output.dtype == np.float64
    ints = attnviz.self_attention([[1, 0], [0, 1]], [[1, 0], [0, 1]], np.eye(2), np.eye(2))
    assert ints.attention.dtype == np.float64
    A, _ = reference(np.eye(2), np.eye(2), np.eye(2), np.eye(2))
    np.testing.assert_allclose(ints.attention, A, rtol=1e-12)


# -------------------------------------------------------------------------------- immutability


def test_result_arrays_are_read_only_and_the_callers_are_not():
    rng = np.random.default_rng(2)
    X, W_Q, W_K, W_V = rng.standard_normal((3, 2)), *rng.standard_normal((3, 2, 2))
    b_Q, mask = np.ones(2), attnviz.causal_mask(3)
    r = attnviz.self_attention(X, W_Q, W_K, W_V, mask=mask, b_Q=b_Q)
    arrays = [f.name for f in dataclasses.fields(r) if isinstance(getattr(r, f.name), np.ndarray)]
    assert {"X", "Q", "K", "V", "scores", "attention", "output", "mask", "b_Q"} <= set(arrays)
    for name in arrays:
        value = getattr(r, name)
        assert not value.flags.writeable, name
        with pytest.raises(ValueError, match="read-only"):
            value[(0,) * value.ndim] = 0
    for a in (X, W_Q, W_K, W_V, b_Q, mask):
        assert a.flags.writeable
    X[0, 0] = 1.0  # still writable by its owner
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.attention = None


# ------------------------------------------------------------------------------------- errors

X3 = np.arange(6.0).reshape(2, 3)
W3 = np.ones((3, 2))


def raises(match):
    """pytest.raises for AttentionInputError, which must also be a ValueError."""
    assert issubclass(attnviz.AttentionInputError, ValueError)
    return pytest.raises(attnviz.AttentionInputError, match=match)


def test_the_error_is_a_value_error():
    with pytest.raises(ValueError, match="2-D"):
        attnviz.self_attention(np.ones(3), W3, W3, W3)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((np.ones(3), W3, W3, W3), r"X must be a 2-D matrix \(got 1-D with shape \(3,\)\)"),
        ((X3, np.ones((3, 2, 1)), W3, W3), r"W_Q must be a 2-D matrix \(got 3-D"),
        ((np.ones((0, 3)), W3, W3, W3), r"X is empty \(shape \(0, 3\)\)"),
        ((X3, W3, W3, np.ones((3, 0))), r"W_V is empty"),
        ((X3, np.ones((2, 2)), W3, W3), r"W_Q has 2 rows but X has d_model = 3 columns"),
        (
            (X3, W3, np.ones((3, 4)), W3),
            r"W_Q has 2 columns and W_K 4: queries and keys need the same width d_k",
        ),
        ((X3, W3, np.ones((2, 2)), W3), r"W_K has 2 rows but X has d_model = 3"),
        ((X3, W3, W3, np.ones((4, 2))), r"W_V has 4 rows but X has d_model = 3"),
        ((np.ones((MAX_CORE_N + 1, 1)), *[np.ones((1, 1))] * 3), r"X is too large"),
        ((np.ones((1, MAX_CORE_DIM + 1)), *[np.ones((1, 1))] * 3), r"X is too large"),
        ((np.array([["a", "b", "c"]]), W3, W3, W3), r"X must hold numbers \(got dtype <U1\)"),
        ((X3.astype(object), W3, W3, W3), r"X must hold numbers \(got dtype object\)"),
        (("abc", W3, W3, W3), r"X must hold numbers"),
        ((X3 * 1j, W3, W3, W3), r"X must be real"),
        (([[1.0, 2.0, 3.0], [4.0]], W3, W3, W3), r"X could not be read as a matrix"),
    ],
)
def test_bad_shapes_and_types_are_explained(args, match):
    with raises(match):
        attnviz.self_attention(*args)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("where", range(4))
def test_non_finite_input_is_rejected(bad, where):
    args = [X3.copy(), W3.copy(), W3.copy(), W3.copy()]
    args[where][1, 0] = bad
    name = ("X", "W_Q", "W_K", "W_V")[where]
    with raises(rf"{name} holds a non-finite number \({bad} at row 1, column 0\)"):
        attnviz.self_attention(*args)


@pytest.mark.parametrize(
    ("mask", "match"),
    [
        (np.ones((2, 2), dtype=int), r"mask must be boolean.*got dtype int64"),
        (np.ones((2, 2), dtype=float), r"mask must be boolean"),
        (np.ones((2, 3), dtype=bool), r"mask must have shape \(2, 2\).*got \(2, 3\)"),
        (np.ones(2, dtype=bool), r"mask must have shape \(2, 2\)"),
        ([[True, False], [True]], r"mask could not be read"),
    ],
)
def test_bad_masks_are_explained(mask, match):
    with raises(match):
        attnviz.self_attention(X3, W3, W3, W3, mask=mask)


@pytest.mark.parametrize("temperature", [0, 0.0, -1.0, np.nan, np.inf, -np.inf])
def test_temperature_must_be_positive_and_finite(temperature):
    with raises(r"temperature must be a finite number > 0"):
        attnviz.self_attention(X3, W3, W3, W3, temperature=temperature)


@pytest.mark.parametrize(
    ("dtype", "temperature"),
    [(np.float32, 2.1e-45), (np.float32, 1e-39), (np.float32, 1e39), (np.float64, 1e-320)],
)
def test_temperature_must_fit_the_dtype(dtype, temperature):
    # float32(2.1e-45) is a subnormal 30-50% off the number asked for: the logits would not
    # be what the temperature says (and exceeded the logit bound, giving NaN).
    X, W = np.array([[1.0]], dtype), np.array([[3.6e-22]], dtype)
    name = np.dtype(dtype).name
    with raises(rf"temperature {re.escape(str(temperature))} is out of {name}'s range"):
        attnviz.self_attention(X, W, W, W, scale=False, temperature=temperature)


@pytest.mark.parametrize("scalar", [np.float16, np.float32, np.float64, float, int])
def test_a_numpy_scalar_temperature_is_the_same_number(scalar):
    # The bound is worked out in Python floats: a float16 temperature must neither overflow
    # (warnings are errors in the tests) nor change the result.
    X = X3 * 300  # |q| |k| beyond float16's largest number (65504)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = attnviz.self_attention(X, W3, W3, W3, temperature=scalar(2))
    np.testing.assert_array_equal(
        r.attention, attnviz.self_attention(X, W3, W3, W3, temperature=2.0).attention
    )


@pytest.mark.parametrize("temperature", ["1", None, True, [1.0]])
def test_temperature_must_be_a_number(temperature):
    with raises(r"temperature must be a number"):
        attnviz.self_attention(X3, W3, W3, W3, temperature=temperature)


@pytest.mark.parametrize(
    ("bias", "match"),
    [
        ({"b_Q": np.ones(3)}, r"b_Q must be a vector of length 2 \(got shape \(3,\)\)"),
        ({"b_K": np.ones((1, 2))}, r"b_K must be a vector of length 2"),
        ({"b_V": [np.nan, 0.0]}, r"b_V must hold finite numbers"),
        ({"b_Q": ["a", "b"]}, r"b_Q must hold finite numbers"),
    ],
)
def test_bad_biases_are_explained(bias, match):
    with raises(match):
        attnviz.self_attention(X3, W3, W3, W3, **bias)


@pytest.mark.filterwarnings("error")  # the clear message only, no numpy RuntimeWarning first
@pytest.mark.parametrize(("n", "dtype"), [(2, np.float64), (900, np.float32)])
def test_projections_that_overflow_are_reported(n, dtype):
    # n = 900 in float32 is large enough for the projections to run on several threads.
    big = np.finfo(dtype).max / 4
    X, eye = np.full((n, 2), big, dtype), np.eye(2, dtype=dtype)
    name = np.dtype(dtype).name
    with raises(rf"Q overflowed {name} \(inputs too large\)"):
        attnviz.self_attention(X, np.full((2, 2), 1e10, dtype), eye, eye)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_scores_that_overflow_are_reported(sign):
    # Q and K are finite, but q . k is beyond float32: +inf or -inf, never a silent answer.
    X = np.array([[1e20, 0.0], [0.0, 1e20]], dtype=np.float32)
    W_K = sign * np.eye(2, dtype=np.float32)
    with raises(r"the scores overflowed float32"):
        attnviz.self_attention(X, np.eye(2, dtype=np.float32), W_K, np.eye(2, dtype=np.float32))


@pytest.mark.filterwarnings("error")
def test_a_small_temperature_that_overflows_is_reported():
    X = np.array([[1e18, 0.0], [0.0, 1.0]], dtype=np.float32)
    eye = np.eye(2, dtype=np.float32)
    attnviz.self_attention(X, eye, eye, eye)  # fine at temperature 1
    with raises(r"overflowed"):
        attnviz.self_attention(X, eye, eye, eye, temperature=1e-10)


@pytest.mark.parametrize(
    ("logits", "match"),
    [
        (np.ones(3), r"softmax_rows needs a 2-D matrix \(got shape \(3,\)\)"),
        (np.ones((2, 0)), r"softmax_rows needs at least one key"),
        (np.array([[0.0, np.nan]]), r"the softmax input holds NaN or \+infinity"),
        (np.array([[0.0, np.inf]]), r"the softmax input holds NaN or \+infinity"),
    ],
)
def test_bad_softmax_input_is_explained(logits, match):
    with raises(match):
        attnviz.softmax_rows(logits)


# ----------------------------------------------------------------- a long sequence, both dtypes


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_long_masked_sequence_matches_the_reference(dtype):
    # 700 rows, a random mask with one row that sees nothing, and a temperature.
    n = 700
    rng = np.random.default_rng(n)
    X, W_Q, W_K, W_V = rng.standard_normal((n, 8)), *rng.standard_normal((3, 8, 5))
    mask = rng.random((n, n)) < 0.7
    mask[3] = False
    args = [a.astype(dtype) for a in (X, W_Q, W_K, W_V)]
    r = attnviz.self_attention(*args, mask=mask, temperature=0.7)
    A, out = reference(*args, mask=mask, temperature=0.7)
    tol = 1e-9 if dtype == np.float64 else 1e-4  # float32 sums of 700 terms
    np.testing.assert_allclose(r.attention, A, rtol=tol, atol=tol)
    np.testing.assert_allclose(r.output, out, rtol=tol, atol=tol)
    np.testing.assert_array_equal(r.scaled_scores, r.scores / dtype(np.sqrt(5)))
    np.testing.assert_array_equal(r.logits[mask], (r.scaled_scores / dtype(0.7))[mask])
    assert (r.attention[3] == 0).all() and (r.output[3] == 0).all()
    P, row_max, row_sum = attnviz.softmax_rows(r.logits)  # the same softmax, called alone
    np.testing.assert_array_equal(r.attention, P)
    np.testing.assert_array_equal(row_max, r.row_max)
    np.testing.assert_array_equal(r.row_sum, row_sum)
