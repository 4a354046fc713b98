"""Tiled (FlashAttention-style) attention against the full computation, step by step."""

import dataclasses
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz import AttentionInputError, causal_mask, padding_mask, self_attention
from attnviz.limits import MAX_TOKENS
from attnviz.tiled import DEFAULT_BLOCK_SIZE, attention_memory, tiled_attention

TOL = {"rtol": 1e-12, "atol": 1e-12}


def example(n, d_k=4, d_v=3, d_model=5, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d_model)).astype(dtype)
    W_Q, W_K, W_V = (  # entries of variance 1 / d_model, as projection_weights draws them
        (rng.standard_normal((d_model, d)) / np.sqrt(d_model)).astype(dtype)
        for d in (d_k, d_k, d_v)
    )
    return X, W_Q, W_K, W_V


def make_mask(kind, n, rng):
    if kind == "none":
        return None
    if kind == "causal":
        return causal_mask(n)
    if kind == "padding":
        return padding_mask(n, int(rng.integers(0, n + 1)))  # may pad every key: empty rows
    mask = rng.random((n, n)) < rng.uniform(0.05, 0.95)
    mask[rng.random(n) < 0.2] = False  # some queries may attend to nothing
    return mask


def assert_same(tiled, full, tol=TOL):
    """tiled agrees with full on the output and on the softmax's row max and row sum."""
    np.testing.assert_allclose(tiled.output, full.output, **tol)
    np.testing.assert_array_equal(np.isneginf(tiled.row_max), np.isneginf(full.row_max))
    seen = np.isfinite(full.row_max)
    np.testing.assert_allclose(tiled.row_max[seen], full.row_max[seen], **tol)
    np.testing.assert_allclose(tiled.row_sum, full.row_sum, **tol)
    assert not np.isnan(tiled.output).any()


def run_both(X, W_Q, W_K, W_V, **kwargs):
    block_size = kwargs.pop("block_size")
    full = self_attention(X, W_Q, W_K, W_V, **kwargs)
    with np.errstate(divide="raise", over="raise", invalid="raise"):  # no -inf - -inf, 0/0
        tiled = tiled_attention(full.Q, full.K, full.V, block_size=block_size, **kwargs)
    return tiled, full


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 40),
    d_k=st.integers(1, 8),
    d_v=st.integers(1, 6),
    block=st.integers(1, 50),
    mask_kind=st.sampled_from(["none", "causal", "padding", "random"]),
    scale=st.booleans(),
    temperature=st.sampled_from([0.05, 0.5, 1.0, 2.0, 10.0]),
    amplitude=st.sampled_from([0.01, 1.0, 5.0]),  # flat to sharp softmax rows
    seed=st.integers(0, 2**32 - 1),
)
def test_equals_full_attention(n, d_k, d_v, block, mask_kind, scale, temperature, amplitude, seed):
    X, W_Q, W_K, W_V = example(n, d_k, d_v, seed=seed)
    X = amplitude * X
    mask = make_mask(mask_kind, n, np.random.default_rng(seed))
    tiled, full = run_both(
        X, W_Q, W_K, W_V, block_size=block, mask=mask, scale=scale, temperature=temperature
    )
    assert_same(tiled, full)
    assert tiled.output.dtype == np.float64


@pytest.mark.parametrize("block", [1, 2, 3, 5, 12, 13, 1000])  # divides 12 or not, 1, >= n
@pytest.mark.parametrize("mask_kind", ["none", "causal", "padding", "random"])
def test_block_sizes_that_do_and_do_not_divide_n(block, mask_kind):
    X, W_Q, W_K, W_V = example(12, seed=block)
    mask = make_mask(mask_kind, 12, np.random.default_rng(7))
    tiled, full = run_both(X, W_Q, W_K, W_V, block_size=block, mask=mask)
    assert_same(tiled, full)
    assert tiled.n_blocks == -(-12 // block) == len(tiled.blocks)


def test_fully_masked_rows_and_blocks_give_zero_rows_never_nan():
    mask = causal_mask(9)
    mask[4] = False  # query 4 may attend to nothing
    X, W_Q, W_K, W_V = example(9)
    for block in (1, 2, 4, 9):  # row 0 sees only key 0: every later block is empty for it
        tiled, full = run_both(X, W_Q, W_K, W_V, block_size=block, mask=mask)
        assert_same(tiled, full)
        np.testing.assert_array_equal(tiled.output[4], 0)
        assert tiled.row_max[4] == -np.inf and tiled.row_sum[4] == 0
    tiled, _ = run_both(X, W_Q, W_K, W_V, block_size=2, mask=np.zeros((9, 9), bool))
    np.testing.assert_array_equal(tiled.output, 0)


def test_huge_magnitudes_do_not_overflow():
    X, W_Q, W_K, W_V = example(20, seed=3)
    tiled, full = run_both(1e3 * X, W_Q, W_K, W_V, block_size=3, mask=causal_mask(20))
    assert np.isfinite(tiled.output).all()
    # logits near 1e6 carry rounding of about 1e-10 that exp turns into relative error
    np.testing.assert_allclose(tiled.output, full.output, rtol=1e-8, atol=1e-8 * 1e3)


@pytest.mark.parametrize("block", [1, 7, 64, 300])
@pytest.mark.parametrize("mask_kind", ["none", "causal", "random"])
def test_float32_works(block, mask_kind):
    X, W_Q, W_K, W_V = example(100, d_k=16, d_v=8, d_model=16, seed=block, dtype=np.float32)
    mask = make_mask(mask_kind, 100, np.random.default_rng(1))
    tiled, full32 = run_both(X, W_Q, W_K, W_V, block_size=block, mask=mask, temperature=0.5)
    assert tiled.output.dtype == np.float32 and tiled.row_sum.dtype == np.float32
    assert_same(tiled, full32, tol={"rtol": 1e-4, "atol": 1e-5})
    full64 = self_attention(*(a.astype(np.float64) for a in (X, W_Q, W_K, W_V)), mask=mask)
    assert not np.isnan(tiled.output).any()
    assert np.abs(full64.output).max() < 1e3  # sanity: the comparison below is meaningful
    rerun = tiled_attention(full32.Q, full32.K, full32.V, block_size=block, mask=mask)
    np.testing.assert_allclose(rerun.output, full64.output, rtol=1e-3, atol=1e-3)


def test_trace_steps_through_the_blocks():
    n, block = 7, 3
    X, W_Q, W_K, W_V = example(n, d_v=2, seed=11)
    mask = causal_mask(n)
    full = self_attention(X, W_Q, W_K, W_V, mask=mask, temperature=0.8)
    tiled = tiled_attention(
        full.Q, full.K, full.V, block_size=block, mask=mask, temperature=0.8, trace=True
    )
    assert [(s.start, s.stop) for s in tiled.steps] == tiled.blocks == [(0, 3), (3, 6), (6, 7)]
    assert [s.index for s in tiled.steps] == [0, 1, 2]
    before = np.full(n, -np.inf)
    for step in tiled.steps:
        b = step.stop - step.start
        assert step.scores.shape == step.logits.shape == step.weights.shape == (n, b)
        for a in (step.block_max, step.row_max, step.rescale, step.row_sum):
            assert a.shape == (n,)
        assert step.accumulator.shape == step.output.shape == (n, 2)
        cols = slice(step.start, step.stop)
        np.testing.assert_allclose(step.scores, full.scores[:, cols], **TOL)
        np.testing.assert_allclose(step.logits, full.logits[:, cols], **TOL)
        np.testing.assert_array_equal(step.row_max_before, before)
        np.testing.assert_array_equal(step.row_max, np.maximum(before, step.block_max))
        assert ((step.rescale >= 0) & (step.rescale <= 1)).all()
        seen = np.isfinite(before)
        np.testing.assert_allclose(
            step.rescale[seen], np.exp(before[seen] - step.row_max[seen]), **TOL
        )
        np.testing.assert_array_equal(step.rescale[~seen], 0)
        np.testing.assert_array_equal(step.weights[~mask[:, cols]], 0)  # exp(-inf) = 0
        # After the block, l and O~ are the softmax pieces over keys 0 .. stop-1 alone.
        seen_keys = mask & (np.arange(n) < step.stop)
        upto = self_attention(X, W_Q, W_K, W_V, mask=seen_keys, temperature=0.8)
        np.testing.assert_allclose(step.output, upto.output, **TOL)
        before = step.row_max
    last = tiled.steps[-1]
    np.testing.assert_array_equal(last.row_max, tiled.row_max)
    np.testing.assert_array_equal(last.row_sum, tiled.row_sum)
    np.testing.assert_allclose(last.output, tiled.output, **TOL)
    np.testing.assert_allclose(tiled.output, full.output, **TOL)


def test_trace_is_off_by_default_and_limited_to_short_sequences():
    X, W_Q, W_K, W_V = example(5)
    full = self_attention(X, W_Q, W_K, W_V)
    assert tiled_attention(full.Q, full.K, full.V, block_size=2).steps == ()
    Q = np.ones((MAX_TOKENS + 1, 2))
    with pytest.raises(AttentionInputError, match="trace at most"):
        tiled_attention(Q, Q, Q, block_size=64, trace=True)


def test_result_is_frozen_and_read_only():
    X, W_Q, W_K, W_V = example(6)
    full = self_attention(X, W_Q, W_K, W_V)
    tiled = tiled_attention(full.Q, full.K, full.V, block_size=4, trace=True)
    with pytest.raises(dataclasses.FrozenInstanceError):
        tiled.output = None
    for array in (tiled.output, tiled.row_max, tiled.steps[0].scores, tiled.steps[1].accumulator):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1
    assert tiled.block_size == 4 and tiled.scale and tiled.temperature == 1.0
    assert tiled.scale_factor == pytest.approx(2.0) and (tiled.n, tiled.d_k, tiled.d_v) == (6, 4, 3)


def test_never_holds_an_n_by_n_matrix():
    n, block = 2048, 64
    rng = np.random.default_rng(0)
    Q, K, V = (rng.standard_normal((n, 16)) for _ in range(3))
    mask = causal_mask(n)
    tracemalloc.start()
    try:
        tiled_attention(Q, K, V, block_size=block, mask=mask)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < n * n * 8 / 4, peak  # well under one float64 (n, n) matrix


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"block_size": 0}, "block_size must be >= 1"),
        ({"block_size": -3}, "block_size must be >= 1"),
        ({"block_size": 2.5}, "block_size must be a whole number"),
        ({"block_size": True}, "block_size must be a whole number"),
        ({"temperature": 0}, "temperature must be a finite number > 0"),
        ({"temperature": float("nan")}, "temperature must be a finite number > 0"),
        ({"temperature": "hot"}, "temperature must be a number"),
        ({"mask": np.ones((4, 4), bool)}, r"mask must have shape \(5, 5\)"),
        ({"mask": np.ones((5, 5))}, "mask must be boolean"),
    ],
)
def test_bad_settings_say_how_to_fix(kwargs, match):
    Q = np.ones((5, 2))
    kwargs = {"block_size": 2, **kwargs}
    with pytest.raises(AttentionInputError, match=match):
        tiled_attention(Q, Q, Q, **kwargs)


@pytest.mark.parametrize(
    ("Q", "K", "V", "match"),
    [
        (np.ones((5, 2)), np.ones((5, 3)), np.ones((5, 2)), "K must have the same shape as Q"),
        (np.ones((5, 2)), np.ones((4, 2)), np.ones((5, 2)), "K must have the same shape as Q"),
        (np.ones((5, 2)), np.ones((5, 2)), np.ones((4, 2)), "V must have one row per token"),
        (np.ones(5), np.ones((5, 2)), np.ones((5, 2)), "Q must be a 2-D matrix"),
        (np.ones((0, 2)), np.ones((0, 2)), np.ones((0, 2)), "Q is empty"),
        (np.full((5, 2), np.nan), np.ones((5, 2)), np.ones((5, 2)), "Q holds a non-finite"),
        (np.full((2, 2), 1e200), np.full((2, 2), 1e200), np.ones((2, 2)), "overflowed"),
    ],
)
def test_bad_arrays_say_how_to_fix(Q, K, V, match):
    with pytest.raises(AttentionInputError, match=match) as info:
        tiled_attention(Q, K, V, block_size=2)
    assert isinstance(info.value, ValueError)


def test_memory_figures():
    figures = attention_memory(1024, 256, np.float32)
    assert figures.full == 1024 * 1024 * 4 and figures.tiled == 1024 * 256 * 4
    assert figures.ratio == 4
    assert attention_memory(8192, dtype=np.float64).full == 512 * 2**20
    assert attention_memory(100, 1000).ratio == 1  # a block of every key is the full matrix
    assert attention_memory(10).block_size == DEFAULT_BLOCK_SIZE
    for bad in ({"n": 0}, {"n": 2.0}, {"block_size": 0}, {"dtype": np.int64}, {"dtype": "x"}):
        with pytest.raises(AttentionInputError):
            attention_memory(**{"n": 10, **bad})
