"""Multi-head attention is single heads on column blocks, concatenated and projected by W_O."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import attnviz
from tests.reference import attention

FAST = settings(max_examples=50, deadline=None)

finite = st.floats(-3, 3, allow_nan=False, allow_infinity=False, width=64)


def matrix(*shape):
    return hnp.arrays(np.float64, shape, elements=finite)


@st.composite
def problems(draw):
    """X, W_Q, W_K, W_V, W_O, biases and n_heads, with widths that n_heads divides."""
    n_heads = draw(st.integers(1, 4))
    n, d_model = draw(st.integers(1, 7)), draw(st.integers(1, 6))
    d_k, d_v = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    hk, hv = n_heads * d_k, n_heads * d_v
    arrays = {
        "X": draw(matrix(n, d_model)),
        "W_Q": draw(matrix(d_model, hk)),
        "W_K": draw(matrix(d_model, hk)),
        "W_V": draw(matrix(d_model, hv)),
        "W_O": draw(matrix(hv, d_model)),
    }
    biases = {}
    if draw(st.booleans()):
        biases = {
            "b_Q": draw(matrix(hk)),
            "b_K": draw(matrix(hk)),
            "b_V": draw(matrix(hv)),
            "b_O": draw(matrix(d_model)),
        }
    mask = draw(st.none() | hnp.arrays(np.bool_, (n, n)))
    return arrays, biases, mask, n_heads


@FAST
@given(problems())
def test_multi_head_is_per_head_attention_concatenated_and_projected(problem):
    arrays, biases, mask, h = problem
    X, W_Q, W_K, W_V, W_O = arrays.values()
    r = attnviz.multi_head_attention(**arrays, **biases, n_heads=h, mask=mask)
    d_k, d_v = W_Q.shape[1] // h, W_V.shape[1] // h
    k_blocks = [slice(i * d_k, (i + 1) * d_k) for i in range(h)]
    v_blocks = [slice(i * d_v, (i + 1) * d_v) for i in range(h)]
    heads = [
        attnviz.self_attention(
            X,
            W_Q[:, kb],
            W_K[:, kb],
            W_V[:, vb],
            mask=mask,
            b_Q=biases["b_Q"][kb] if biases else None,
            b_K=biases["b_K"][kb] if biases else None,
            b_V=biases["b_V"][vb] if biases else None,
        )
        for kb, vb in zip(k_blocks, v_blocks, strict=True)
    ]
    concat = np.concatenate([head.output for head in heads], axis=1)
    expected = concat @ W_O + (biases["b_O"] if biases else 0)
    assert r.n_heads == h and len(r.heads) == h
    np.testing.assert_allclose(r.concat, concat, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.output, expected, rtol=1e-12, atol=1e-12)
    for mine, theirs in zip(r.heads, heads, strict=True):
        np.testing.assert_allclose(mine.attention, theirs.attention, rtol=1e-12, atol=1e-12)
    assert r.output.shape == X.shape
    assert r.attention.shape == (h, X.shape[0], X.shape[0])

    # The same, from the formula without attnviz at all.
    allowed = np.ones((X.shape[0],) * 2, bool) if mask is None else mask
    b = biases or {"b_Q": 0 * W_Q[0], "b_K": 0 * W_K[0], "b_V": 0 * W_V[0], "b_O": 0}
    ref = np.concatenate(
        [
            attention(X, W_Q[:, kb], W_K[:, kb], W_V[:, vb], allowed,
                      b_Q=b["b_Q"][kb], b_K=b["b_K"][kb], b_V=b["b_V"][vb])[1]
            for kb, vb in zip(k_blocks, v_blocks, strict=True)
        ],
        axis=1,
    ) @ W_O + b["b_O"]  # fmt: skip
    np.testing.assert_allclose(r.output, ref, rtol=1e-9, atol=1e-9)


def test_one_head_is_self_attention_then_w_o():
    rng = np.random.default_rng(5)
    X, W_Q, W_K, W_V, W_O = (rng.standard_normal((4, 4)) for _ in range(5))
    r = attnviz.multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads=1)
    single = attnviz.self_attention(X, W_Q, W_K, W_V)
    np.testing.assert_allclose(r.output, single.output @ W_O, rtol=1e-12)


def test_heads_see_different_blocks():
    # Two heads: the first reads only column 0 of X, the second only column 1.
    X = np.array([[1.0, 0.0], [0.0, 5.0], [2.0, 1.0]])
    W = np.eye(2)
    r = attnviz.multi_head_attention(X, W, W, W, np.eye(2), n_heads=2)
    first = attnviz.self_attention(X[:, :1], np.ones((1, 1)), np.ones((1, 1)), np.ones((1, 1)))
    np.testing.assert_allclose(r.heads[0].attention, first.attention, rtol=1e-12)
    np.testing.assert_allclose(r.concat[:, 0], first.output[:, 0], rtol=1e-12)


def test_a_fully_masked_row_has_a_zero_concatenation():
    rng = np.random.default_rng(6)
    X, W = rng.standard_normal((3, 4)), rng.standard_normal((4, 4))
    mask = np.ones((3, 3), bool)
    mask[1] = False
    b_O = np.arange(4.0)
    r = attnviz.multi_head_attention(X, W, W, W, W, n_heads=2, mask=mask, b_O=b_O)
    assert (r.concat[1] == 0).all()
    np.testing.assert_array_equal(r.output[1], b_O)
    assert not np.isnan(r.output).any()


def test_float32_in_gives_float32_out():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((5, 4)).astype(np.float32)
    W = rng.standard_normal((4, 4)).astype(np.float32)
    r = attnviz.multi_head_attention(X, W, W, W, W, n_heads=2)
    assert r.output.dtype == r.concat.dtype == np.float32
    assert all(head.attention.dtype == np.float32 for head in r.heads)


def test_result_arrays_are_read_only_and_the_callers_are_not():
    rng = np.random.default_rng(8)
    X, W = rng.standard_normal((3, 4)), rng.standard_normal((4, 4))
    b_O = np.zeros(4)
    r = attnviz.multi_head_attention(X, W, W, W, W, n_heads=4, b_O=b_O)
    for value in (r.concat, r.W_O, r.b_O, r.output, r.heads[0].attention):
        assert not value.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            value[0] = 1
    assert X.flags.writeable and W.flags.writeable and b_O.flags.writeable


# ------------------------------------------------------------------------------------- errors

X = np.ones((3, 4))
W = np.ones((4, 4))


def raises(match):
    assert issubclass(attnviz.AttentionInputError, ValueError)
    return pytest.raises(attnviz.AttentionInputError, match=match)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_heads": 3}, r"n_heads=3 must divide the width of W_Q \(got 4 columns\)"),
        ({"n_heads": 0}, r"n_heads must be >= 1 \(got 0\)"),
        ({"n_heads": -2}, r"n_heads must be >= 1"),
        ({"n_heads": 2.0}, r"n_heads must be a whole number \(got 2.0\)"),
        ({"n_heads": True}, r"n_heads must be a whole number"),
        ({"n_heads": 2, "W_V": np.ones((4, 6))}, r"W_O must have n_heads \* d_v = 6 rows"),
        ({"n_heads": 4, "W_V": np.ones((4, 6))}, r"n_heads=4 must divide the width of W_V"),
        ({"n_heads": 2, "W_O": np.ones((3, 4))}, r"W_O must have n_heads \* d_v = 4 rows"),
        ({"n_heads": 2, "W_O": np.ones((4, 3))}, r"W_O must have d_model = 4 columns"),
        ({"n_heads": 2, "W_K": np.ones((4, 2))}, r"W_Q has 2 columns and W_K 1"),
        ({"n_heads": 2, "b_Q": np.ones(2)}, r"b_Q must be a vector of length 4"),
        ({"n_heads": 2, "b_O": np.ones(3)}, r"b_O must be a vector of length 4"),
        ({"n_heads": 2, "temperature": 0}, r"temperature must be a finite number > 0"),
        ({"n_heads": 2, "mask": np.ones((3, 3))}, r"mask must be boolean"),
        ({"n_heads": 2, "W_O": np.full((4, 4), np.nan)}, r"W_O holds a non-finite number"),
    ],
)
def test_bad_multi_head_input_is_explained(kwargs, match):
    arrays = {"X": X, "W_Q": W, "W_K": W, "W_V": W, "W_O": W}
    arrays.update({k: v for k, v in kwargs.items() if k in arrays})
    options = {k: v for k, v in kwargs.items() if k not in arrays}
    with raises(match):
        attnviz.multi_head_attention(**arrays, **options)
