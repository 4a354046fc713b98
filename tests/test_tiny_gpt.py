"""The tiny GPT: every gradient against finite differences, each head against the lessons'
self_attention."""

import itertools

import numpy as np
import pytest

from attnviz import causal_mask, multi_head_attention, self_attention
from attnviz.tiny_gpt import Config, forward, init_params, loss, loss_and_grads
from attnviz.tiny_gpt import layers as nn

# Gradients -------------------------------------------------------------------------------------

EPS = 1e-5  # central differences in float64: truncation ~EPS^2, rounding ~1e-16 / EPS
ENTRIES = 6  # entries checked per parameter, drawn at random (every parameter is checked)


def numerical_grad(params, config, ids, targets, name, index):
    P = params[name]
    old = P[index]
    P[index] = old + EPS
    up = loss(params, config, ids, targets)
    P[index] = old - EPS
    down = loss(params, config, ids, targets)
    P[index] = old
    return (up - down) / (2 * EPS)


@pytest.mark.parametrize(
    ("n_layers", "mlp", "scale"), list(itertools.product((1, 2), (False, True), (True, False)))
)
def test_every_gradient_matches_central_differences(n_layers, mlp, scale):
    rng = np.random.default_rng([n_layers, mlp, scale])
    n_heads = int(rng.integers(1, 3))
    config = Config(
        vocab_size=int(rng.integers(4, 8)),
        context_length=7,
        d_model=4 * n_heads,
        n_layers=n_layers,
        n_heads=n_heads,
        mlp=mlp,
        scale=scale,
        seed=int(rng.integers(100)),
    )
    params = init_params(config)
    T = 6  # shorter than the context: W_pos's last row gets no gradient
    ids = rng.integers(0, config.vocab_size, (3, T))
    targets = rng.integers(-1, config.vocab_size, (3, T))  # -1: some positions not scored
    value, grads = loss_and_grads(params, config, ids, targets)
    assert value == loss(params, config, ids, targets)
    assert grads.keys() == params.keys()
    for name, P in params.items():
        assert grads[name].shape == P.shape
        picks = rng.choice(P.size, size=min(ENTRIES, P.size), replace=False)
        worst = 0.0
        for flat_index in picks:
            index = np.unravel_index(flat_index, P.shape)
            numerical = numerical_grad(params, config, ids, targets, name, index)
            worst = max(worst, abs(numerical - grads[name][index]))
        scale_of = np.abs(grads[name]).max()
        if scale_of == 0:  # e.g. a position no sequence reached
            assert worst < 1e-12, name
        else:
            assert worst / scale_of < 1e-6, (name, worst / scale_of)


def test_an_unused_position_gets_no_gradient():
    config = Config(vocab_size=5, context_length=8, d_model=4)
    ids, targets = np.zeros((2, 5), int), np.ones((2, 5), int)
    _, grads = loss_and_grads(init_params(config), config, ids, targets)
    assert not grads["W_pos"][5:].any() and grads["W_pos"][:5].any()


# The lessons' formula --------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [True, False])
def test_each_head_is_self_attention_with_the_causal_mask(scale):
    config = Config(vocab_size=7, context_length=6, d_model=12, n_layers=2, n_heads=3, scale=scale)
    params = init_params(config)
    ids = np.random.default_rng(1).integers(0, 7, (2, 6))
    trace = forward(params, config, ids)
    d_k = config.d_k
    for layer, b, h in itertools.product(range(2), range(2), range(3)):
        cols = slice(h * d_k, (h + 1) * d_k)
        X = trace.head_inputs[layer, b]  # (T, d_model): LN_1 of the residual stream
        r = self_attention(
            X,
            params[f"{layer}.W_Q"][:, cols],
            params[f"{layer}.W_K"][:, cols],
            params[f"{layer}.W_V"][:, cols],
            mask=causal_mask(6),
            scale=scale,
        )
        np.testing.assert_allclose(trace.attention[layer, b, h], r.attention, rtol=0, atol=1e-13)


def test_the_attention_layer_is_the_lessons_multi_head_attention():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((2, 5, 8))
    W_Q, W_K, W_V, W_O = (rng.standard_normal((8, 8)) / 3 for _ in range(4))
    out, cache = nn.attention(X, W_Q, W_K, W_V, W_O, 2, True)
    for b in range(2):
        mh = multi_head_attention(X[b], W_Q, W_K, W_V, W_O, n_heads=2, mask=causal_mask(5))
        np.testing.assert_allclose(out[b], mh.output, rtol=0, atol=1e-12)
        np.testing.assert_allclose(cache["A"][b], mh.attention, rtol=0, atol=1e-13)


def test_bad_ids_and_targets_are_refused_with_what_was_wrong():
    config = Config(vocab_size=5, context_length=4)
    params = init_params(config)
    for ids, targets, match in (
        (np.zeros((2, 5), int), np.zeros((2, 5), int), "context_length=4"),
        (np.full((1, 3), 5), np.zeros((1, 3), int), "vocab_size - 1 = 4"),
        (np.zeros((1, 3), int), np.full((1, 3), -1), "at least one position"),
        (np.zeros((1, 3), int), np.zeros((1, 3)), "ints"),
    ):
        with pytest.raises(ValueError, match=match):
            loss_and_grads(params, config, ids, targets)
