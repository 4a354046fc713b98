r"""The tiny GPT's forward pass, its loss and every gradient, written out by hand.

One block (pre-LN, as GPT-2), with x the residual stream (B, T, D):

.. math::

    x_0 = W_E[\mathrm{ids}] + W_{pos}[0..T-1], \qquad
    x \leftarrow x + \mathrm{Attention}(\mathrm{LN}_1(x)), \qquad
    x \leftarrow x + \mathrm{MLP}(\mathrm{LN}_2(x)) \ \text{(if the MLP is on)}

    \mathrm{logits} = \mathrm{LN}_f(x)\, W_U, \qquad
    \mathrm{loss} = \mathrm{mean}_{\text{scored } (b, t)}
        -\log \mathrm{softmax}(\mathrm{logits}_{bt})_{\mathrm{target}_{bt}}

The backward pass runs the same steps in reverse; a residual sum passes its gradient to both
of its inputs unchanged.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.checks import AttentionInputError
from attnviz.results import freeze_arrays
from attnviz.tiny_gpt import layers as nn


@dataclass(frozen=True, eq=False)
class Trace:
    """What one forward pass saw. Arrays are read-only.

    Shapes: logits (B, T, V); head_inputs (n_layers, B, T, D): layer l's heads read
    head_inputs[l] = LN_1(x), the X of ``self_attention``; attention (n_layers, B, H, T, T).
    """

    logits: np.ndarray
    head_inputs: np.ndarray
    attention: np.ndarray

    def __post_init__(self):
        freeze_arrays(self)


def check_ids(config, ids, name="ids"):
    """``ids`` as an int array (B, T) with 1 <= T <= context_length and 0 <= id < vocab_size."""
    ids = np.asarray(ids)
    if ids.ndim != 2 or not np.issubdtype(ids.dtype, np.integer):
        raise AttentionInputError(
            f"{name} must be a 2-D int array (batch, T) (got shape {ids.shape}, dtype "
            f"{ids.dtype}): pass one row of token ids per sequence"
        )
    if not 1 <= ids.shape[1] <= config.context_length:
        raise AttentionInputError(
            f"{name} has {ids.shape[1]} tokens per sequence; the model reads 1 to "
            f"context_length={config.context_length}: cut the sequences"
        )
    if ids.size and (ids.min() < 0 or ids.max() >= config.vocab_size):
        raise AttentionInputError(
            f"{name} must lie in 0 .. vocab_size - 1 = {config.vocab_size - 1} "
            f"(got {ids.min()} .. {ids.max()})"
        )
    return ids


def check_targets(config, ids, targets):
    """``targets`` as an int array shaped like ``ids``, each -1 or a token id, at least one >= 0."""
    targets = np.asarray(targets)
    if (
        targets.shape != ids.shape
        or not np.issubdtype(targets.dtype, np.integer)
        or not (targets >= 0).any()
    ):
        raise AttentionInputError(
            f"targets must be ints shaped like ids {ids.shape} (got {targets.dtype} "
            f"{targets.shape}) and score at least one position (a target >= 0)"
        )
    if targets.min() < -1 or targets.max() >= config.vocab_size:
        raise AttentionInputError(
            f"targets must be -1 (not scored) or a token id below vocab_size={config.vocab_size}"
        )
    return targets


def _forward(params, config, ids):
    """logits (B, T, V) and the caches the backward pass needs, layer by layer."""
    p = params
    T = ids.shape[1]
    x = p["W_E"][ids] + p["W_pos"][:T]  # (B, T, D): token row + position row
    caches = []
    for layer in range(config.n_layers):
        L = f"{layer}."
        h, ln1 = nn.layer_norm(x, p[L + "ln1.g"], p[L + "ln1.b"])  # (B, T, D): the heads' X
        out, att = nn.attention(
            h, p[L + "W_Q"], p[L + "W_K"], p[L + "W_V"], p[L + "W_O"], config.n_heads, config.scale
        )  # (B, T, D)
        x = x + out  # (B, T, D) residual sum
        cache = {"ln1": ln1, "att": att}
        if config.mlp:
            h2, cache["ln2"] = nn.layer_norm(x, p[L + "ln2.g"], p[L + "ln2.b"])  # (B, T, D)
            out, cache["mlp"] = nn.mlp(h2, p[L + "W_1"], p[L + "b_1"], p[L + "W_2"], p[L + "b_2"])
            x = x + out  # (B, T, D) residual sum
        caches.append(cache)
    h, ln_f = nn.layer_norm(x, p["ln_f.g"], p["ln_f.b"])  # (B, T, D)
    logits = h @ p["W_U"]  # (B, T, D) @ (D, V) -> (B, T, V)
    return logits, caches, ln_f, h


def forward(params, config, ids):
    """Run the model on ``ids`` (B, T); returns a Trace (logits, each layer's heads' input X,
    every head's attention)."""
    ids = check_ids(config, ids)
    logits, caches, _, _ = _forward(params, config, ids)
    return Trace(
        logits=logits,
        head_inputs=np.stack([cache["att"]["X"] for cache in caches]),
        attention=np.stack([cache["att"]["A"] for cache in caches]),
    )


def loss_and_grads(params, config, ids, targets):
    """Cross-entropy loss of next-token prediction and its gradient for every parameter.

    ``ids``, ``targets``: int arrays (batch, T); target -1 marks a position that is not scored.
    Returns (loss, {name: gradient with the parameter's shape}).
    """
    ids = check_ids(config, ids)
    targets = check_targets(config, ids, targets)
    p = params
    logits, caches, ln_f, h = _forward(p, config, ids)
    value, d_logits = nn.cross_entropy(logits, targets)  # (B, T, V)

    g = {}
    g["W_U"] = nn.weight_grad(h, d_logits)  # sum_b (D, T) @ (T, V) -> (D, V)
    dh = d_logits @ p["W_U"].T  # (B, T, V) @ (V, D) -> (B, T, D)
    dx, g["ln_f.g"], g["ln_f.b"] = nn.layer_norm_backward(dh, ln_f)  # (B, T, D)
    for layer in reversed(range(config.n_layers)):
        L, cache = f"{layer}.", caches[layer]
        if config.mlp:  # x = x + MLP(LN_2(x)): dx reaches x directly and through the MLP
            dh2, g[L + "W_1"], g[L + "b_1"], g[L + "W_2"], g[L + "b_2"] = nn.mlp_backward(
                dx, cache["mlp"], p[L + "W_1"], p[L + "W_2"]
            )  # dh2 (B, T, D)
            d_in, g[L + "ln2.g"], g[L + "ln2.b"] = nn.layer_norm_backward(dh2, cache["ln2"])
            dx = dx + d_in  # (B, T, D)
        # x = x + Attention(LN_1(x)): the same, through the heads
        dh1, g[L + "W_Q"], g[L + "W_K"], g[L + "W_V"], g[L + "W_O"] = nn.attention_backward(
            dx, cache["att"], p[L + "W_Q"], p[L + "W_K"], p[L + "W_V"], p[L + "W_O"]
        )  # dh1 (B, T, D)
        d_in, g[L + "ln1.g"], g[L + "ln1.b"] = nn.layer_norm_backward(dh1, cache["ln1"])
        dx = dx + d_in  # (B, T, D)
    # x_0 = W_E[ids] + W_pos[:T]: each row of W_E collects the gradient of every place its
    # token appears; each row of W_pos the gradient of its position over the batch.
    one_hot = np.eye(config.vocab_size, dtype=dx.dtype)[ids]  # (B, T, V): row t picks ids[t]
    g["W_E"] = nn.weight_grad(one_hot, dx)  # sum_b (V, T) @ (T, D) -> (V, D): summed per token
    g["W_pos"] = np.zeros_like(p["W_pos"])  # (context_length, D)
    g["W_pos"][: ids.shape[1]] = dx.sum(axis=0)  # (T, D)
    return value, {name: g[name] for name in p}


def loss(params, config, ids, targets):
    """The cross-entropy loss alone (no gradients): what a checkpoint scores on a fixed batch."""
    ids = check_ids(config, ids)
    targets = check_targets(config, ids, targets)
    logits, _, _, _ = _forward(params, config, ids)
    return nn.cross_entropy(logits, targets)[0]


def next_token_logits(params, config, ids):
    """The logits (V,) for the token after the 1-D sequence ``ids`` (its last context_length)."""
    ids = np.asarray(ids)[-config.context_length :][None]  # (1, T)
    logits, _, _, _ = _forward(params, config, check_ids(config, ids, "the prompt"))
    return logits[0, -1]  # (V,)
