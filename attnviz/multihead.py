r"""Multi-head attention: h single heads side by side, concatenated, then projected by W_O.

.. math::

    \mathrm{head}_i = \mathrm{Attention}(XW_Q^{(i)}, XW_K^{(i)}, XW_V^{(i)}), \quad
    \mathrm{MultiHead}(X) = \mathrm{Concat}(\mathrm{head}_0, \dots, \mathrm{head}_{h-1}) W_O

for h heads numbered 0 to h - 1, as the app numbers them.

Head h uses the contiguous column block h of W_Q and W_K (width d_k each) and of W_V
(width d_v), exactly as PyTorch's ``nn.MultiheadAttention`` splits its projections.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.checks import (
    AttentionInputError,
    as_matrix,
    as_vector,
    check_positive_int,
    float_dtype,
)
from attnviz.core import AttentionResult, self_attention
from attnviz.limits import MAX_CORE_DIM
from attnviz.results import freeze_arrays


@dataclass(frozen=True, eq=False)
class MultiHeadResult:
    """Every head's full single-head result, the concatenation and the projected output.

    Shapes: heads[h] is an AttentionResult with Q, K (n, d_k), V (n, d_v), attention (n, n);
    concat (n, n_heads * d_v); W_O (n_heads * d_v, d_model); output (n, d_model).
    """

    heads: tuple[AttentionResult, ...]
    concat: np.ndarray
    W_O: np.ndarray
    b_O: np.ndarray | None
    output: np.ndarray

    def __post_init__(self):
        freeze_arrays(self)

    @property
    def n_heads(self):
        return len(self.heads)

    @property
    def attention(self):
        """(n_heads, n, n) every head's attention matrix."""
        return np.stack([head.attention for head in self.heads])


def column_blocks(W, n_heads, name):
    """Split ``W`` (rows, n_heads * width) into n_heads contiguous column blocks (rows, width)."""
    if W.shape[1] % n_heads:
        raise AttentionInputError(
            f"n_heads={n_heads} must divide the width of {name} (got {W.shape[1]} columns): "
            f"choose a number of heads that divides {W.shape[1]}, or resize {name}"
        )
    width = W.shape[1] // n_heads
    return [W[:, h * width : (h + 1) * width] for h in range(n_heads)]


def multi_head_attention(
    X,
    W_Q,
    W_K,
    W_V,
    W_O,
    *,
    n_heads,
    mask=None,
    scale=True,
    temperature=1.0,
    b_Q=None,
    b_K=None,
    b_V=None,
    b_O=None,
):
    """Multi-head self-attention of ``X`` (n, d_model).

    Args:
        W_Q, W_K: (d_model, n_heads * d_k); W_V: (d_model, n_heads * d_v);
        W_O: (n_heads * d_v, d_model); optional biases b_Q, b_K (n_heads * d_k,),
        b_V (n_heads * d_v,), b_O (d_model,).
        n_heads: number of heads; must divide the widths of W_Q, W_K and W_V.
        mask, scale, temperature: as in ``self_attention``, shared by every head.

    Returns:
        MultiHeadResult whose ``output`` is (n, d_model).
    """
    dtype = float_dtype(X, W_Q, W_K, W_V, W_O)
    X = as_matrix("X", X, dtype)
    W_Q, W_K, W_V, W_O = (
        as_matrix(name, W, dtype)
        for name, W in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V), ("W_O", W_O))
    )
    n_heads = check_positive_int(
        "n_heads", n_heads, MAX_CORE_DIM, "use at least one head and no more than the widths"
    )
    blocks = {
        "W_Q": column_blocks(W_Q, n_heads, "W_Q"),
        "W_K": column_blocks(W_K, n_heads, "W_K"),
        "W_V": column_blocks(W_V, n_heads, "W_V"),
    }
    biases = {}
    for name, b, W in (("b_Q", b_Q, W_Q), ("b_K", b_K, W_K), ("b_V", b_V, W_V)):
        if b is None:
            biases[name] = [None] * n_heads
        else:
            b = as_vector(name, b, W.shape[1], dtype)
            width = W.shape[1] // n_heads
            biases[name] = [b[h * width : (h + 1) * width] for h in range(n_heads)]
    heads = tuple(
        self_attention(
            X,
            blocks["W_Q"][h],
            blocks["W_K"][h],
            blocks["W_V"][h],
            mask=mask,
            scale=scale,
            temperature=temperature,
            b_Q=biases["b_Q"][h],
            b_K=biases["b_K"][h],
            b_V=biases["b_V"][h],
        )
        for h in range(n_heads)
    )
    concat = np.concatenate([head.output for head in heads], axis=1)  # (n, n_heads * d_v)
    if W_O.shape[0] != concat.shape[1]:
        raise AttentionInputError(
            f"W_O must have n_heads * d_v = {concat.shape[1]} rows to multiply the concatenated "
            f"heads (got {W_O.shape}): give it shape ({concat.shape[1]}, d_model)"
        )
    if W_O.shape[1] != X.shape[1]:
        raise AttentionInputError(
            f"W_O must have d_model = {X.shape[1]} columns so the output matches X "
            f"(got {W_O.shape}): give it shape ({W_O.shape[0]}, {X.shape[1]})"
        )
    output = concat @ W_O  # (n, n_heads * d_v) @ (n_heads * d_v, d_model) -> (n, d_model)
    if b_O is not None:
        b_O = as_vector("b_O", b_O, W_O.shape[1], dtype)
        output += b_O
    return MultiHeadResult(heads=heads, concat=concat, W_O=W_O, b_O=b_O, output=output)
