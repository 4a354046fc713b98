"""Preset heads attend where their names say, on the app's own inputs; multi-head weights."""

from dataclasses import replace

import numpy as np
import pytest

from attnviz import (
    AttentionInputError,
    Settings,
    causal_mask,
    compute,
    multi_head_attention,
    projection_weights,
    self_attention,
    sinusoidal_positions,
    token_embeddings,
)
from attnviz.lessons.hand_built_heads import (
    DEFAULT_SHARPNESS,
    PRESETS,
    back_rotation,
    constant_readout,
    first_token_head,
    multi_head_weights,
    position_features,
    position_kernel,
    position_readout,
    previous_token_head,
    replace_head,
    same_token_head,
)
from attnviz.lessons.head_rules import rule_targets  # tested in test_head_rules

TEXTS = ["the cat sat on the mat", "to be or not to be", "a a a a a", "hello"]


def cases():
    for text in TEXTS:
        for d_model, d_k in [(8, 4), (8, 2), (16, 8), (32, 4), (64, 64)]:
            yield Settings(text=text, d_model=d_model, d_k=d_k)
    for d_model, d_k in [(20, 4), (32, 8), (64, 16), (128, 32)]:
        yield Settings(generated=True, n=20, d_model=d_model, d_k=d_k)
    yield Settings(embedding="one-hot", d_model=8)


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("case", list(cases()), ids=str)
def test_each_row_attends_where_the_preset_says(name, case):
    preset, _ = PRESETS[name]
    for seed in (0, 1, 7, 2024):
        example = compute(replace(case, seed=seed, positions=True))
        n = len(example.tokens)
        W_Q, W_K = preset(example.E, example.P, case.d_k)
        assert W_Q.shape == W_K.shape == (case.d_model, case.d_k)
        _, _, W_V = projection_weights(case.d_model, case.d_k, case.d_v, seed)
        rows, keys = rule_targets(name, n)
        for mask in (None, causal_mask(n)):
            result = self_attention(example.result.X, W_Q, W_K, W_V, mask=mask)
            np.testing.assert_array_equal(result.attention[rows].argmax(axis=1), keys)
            # the gain leaves every other key at most e^-sharpness of the target's weight
            floor = 1 / (1 + (n - 1) * np.exp(-DEFAULT_SHARPNESS))
            assert (result.attention[rows, keys] >= floor - 1e-9).all()
        for scale, temperature in ((False, 1.0), (True, 3.0)):  # sharper or flatter, same peak
            result = self_attention(
                example.result.X, W_Q, W_K, W_V, scale=scale, temperature=temperature
            )
            np.testing.assert_array_equal(result.attention[rows].argmax(axis=1), keys)


@pytest.mark.parametrize("name", PRESETS)
def test_scores_depend_only_on_positions(name):
    """q_i . k_j = g * sum_t cos((target_i - j) w_t): the tokens have dropped out exactly."""
    preset, _ = PRESETS[name]
    n, d_model, d_k = 6, 8, 4
    P = sinusoidal_positions(n, d_model)
    scores = []
    for seed in (0, 5):
        E = token_embeddings(["the", "cat", "sat", "on", "the", "mat"], d_model, seed)
        W_Q, W_K = preset(E, P, d_k)
        scores.append(((E + P) @ W_Q) @ ((E + P) @ W_K).T)  # (n, n)
    rows, keys = rule_targets(name, n)
    offsets = keys[:, None] - np.arange(n)  # target_i - j
    kernel = position_kernel(offsets, d_model, d_k)
    for S in scores:
        gain = S[rows, keys][0] / position_kernel(0, d_model, d_k)
        np.testing.assert_allclose(S[rows], gain * kernel, rtol=1e-8, atol=1e-8 * gain)
    np.testing.assert_allclose(scores[0], scores[1], rtol=1e-8, atol=1e-8 * np.abs(scores[0]).max())


def test_building_blocks():
    d_model, d_k = 16, 6
    p = np.arange(-3, 9)
    R = back_rotation(d_model, d_k)  # one step back in each (sin, cos) pair
    np.testing.assert_allclose(
        position_features(p, d_model, d_k) @ R, position_features(p - 1, d_model, d_k), atol=1e-12
    )
    P = sinusoidal_positions(9, d_model)
    np.testing.assert_allclose(position_features(range(9), d_model, d_k), P[:, :6], atol=1e-12)
    E = token_embeddings([f"w{i}" for i in range(9)], d_model, 3)
    W_pos = position_readout(E, P, d_k)
    np.testing.assert_allclose((E + P) @ W_pos, P[:, :6], atol=1e-9)
    np.testing.assert_allclose((E + P) @ constant_readout(E, P, d_k), 1, atol=1e-9)
    W_Q, W_K = previous_token_head(E, P, d_k)
    np.testing.assert_array_equal(W_K, W_pos)
    np.testing.assert_allclose(W_Q / np.abs(W_Q).max(), (W_pos @ R) / np.abs(W_pos @ R).max())
    assert position_kernel(0, d_model, d_k) == 3  # three pairs, each cos(0) = 1


def test_odd_widths_pad_with_zero_columns():
    example = compute(Settings(positions=True, d_model=9, d_k=5))
    for preset in (previous_token_head, same_token_head, first_token_head):
        W_Q, W_K = preset(example.E, example.P, 5)
        assert W_Q.shape == (9, 5)
        np.testing.assert_array_equal(W_Q[:, 4:], 0)
        np.testing.assert_array_equal(W_K[:, 4:], 0)


@pytest.mark.parametrize(
    ("settings", "d_k", "match"),
    [
        (Settings(positions=False), 4, "positions are off"),
        (Settings(positions=True, generated=True, n=12, d_model=8), 4, "raise d_model to 12"),
        (Settings(positions=True), 1, "d_k >= 2"),
        (Settings(positions=True), 0, "d_k must be >= 1"),
        (Settings(positions=True, text="a", d_model=1, d_k=1), 2, "d_model >= 2"),
    ],
)
def test_presets_say_which_settings_they_need(settings, d_k, match):
    example = compute(settings)
    for preset in (previous_token_head, same_token_head, first_token_head):
        with pytest.raises(AttentionInputError, match=match):
            preset(example.E, example.P, d_k)


def test_presets_reject_other_positions_and_dependent_rows():
    example = compute(Settings(positions=True))
    with pytest.raises(AttentionInputError, match="sinusoidal positional encodings"):
        same_token_head(example.E, example.P * 2, 4)
    E = 1 - example.P  # every row of X = E + P is the same vector
    with pytest.raises(AttentionInputError, match="linearly dependent"):
        same_token_head(E, example.P, 4)
    with pytest.raises(AttentionInputError, match="sharpness"):
        same_token_head(example.E, example.P, 4, sharpness=0)


def test_multi_head_weights():
    W_Q, W_K, W_V, W_O = multi_head_weights(8, 2, seed=3)
    assert W_Q.shape == W_K.shape == W_V.shape == (8, 8) and W_O.shape == (8, 8)
    single = projection_weights(8, 4, 4, 3)  # head 0 is the single-head lesson's head
    for W, W_single in zip((W_Q, W_K, W_V), single, strict=True):
        np.testing.assert_array_equal(W[:, :4], W_single)
    again = multi_head_weights(8, 2, seed=3)
    for a, b in zip((W_Q, W_K, W_V, W_O), again, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(W_O, multi_head_weights(8, 2, seed=4)[3])
    W_Q, _, W_V, W_O = multi_head_weights(8, 3, d_k=5, d_v=2)
    assert W_Q.shape == (8, 15) and W_V.shape == (8, 6) and W_O.shape == (6, 8)
    with pytest.raises(AttentionInputError, match="must divide d_model"):
        multi_head_weights(8, 3)
    with pytest.raises(AttentionInputError, match="n_heads must be >= 1"):
        multi_head_weights(8, 0)
    with pytest.raises(AttentionInputError, match=r"n_heads \* d_k must be <="):
        multi_head_weights(8, 64, d_k=64, d_v=1)


@pytest.mark.parametrize("name", PRESETS)
@pytest.mark.parametrize("head", [0, 1, 3])
def test_a_preset_in_one_head_shows_its_pattern_in_that_head(name, head):
    settings = Settings(positions=True, d_model=16, seed=5)
    example = compute(settings)
    n_heads, d_k = 4, 4
    W_Q, W_K, W_V, W_O = multi_head_weights(16, n_heads, seed=5)
    preset, _ = PRESETS[name]
    W_Q_h, W_K_h = preset(example.E, example.P, d_k)
    W_Q2 = replace_head(W_Q, n_heads, head, W_Q_h)
    W_K2 = replace_head(W_K, n_heads, head, W_K_h)
    X = example.result.X
    before = multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads=n_heads)
    after = multi_head_attention(X, W_Q2, W_K2, W_V, W_O, n_heads=n_heads)
    rows, keys = rule_targets(name, len(example.tokens))
    np.testing.assert_array_equal(after.heads[head].attention[rows].argmax(axis=1), keys)
    for other in set(range(n_heads)) - {head}:  # the other heads are untouched
        np.testing.assert_array_equal(after.heads[other].attention, before.heads[other].attention)
    assert after.output.shape == (6, 16)


def test_replace_head_checks_its_arguments():
    W = np.zeros((4, 6))
    np.testing.assert_array_equal(replace_head(W, 3, 2, np.ones((4, 2)))[:, 4:], 1)
    assert (W == 0).all()  # a copy; the original is left alone
    with pytest.raises(AttentionInputError, match="head must be a whole number from 0 to 2"):
        replace_head(W, 3, 3, np.ones((4, 2)))
    with pytest.raises(AttentionInputError, match=r"W_head must have shape \(4, 2\)"):
        replace_head(W, 3, 0, np.ones((4, 3)))
    with pytest.raises(AttentionInputError, match="must divide the width"):
        replace_head(W, 4, 0, np.ones((4, 2)))
