r"""The tiny GPT's pieces, each a forward and a hand-written backward, in plain numpy.

Shapes: B sequences in a batch, T tokens each, D = d_model, H heads of width d_k = D / H,
F = d_ff, V = vocab_size. A forward returns its output and a cache; the backward takes the
gradient of the loss with respect to that output (``d_out``, same shape) and the cache, and
returns the gradients of its inputs and weights. A weight's gradient sums over every position
of every sequence: ``weight_grad``.

Causal self-attention, one layer, every head at once (head h uses column block h of W_Q, W_K,
W_V, as ``attnviz.multi_head_attention`` splits them):

.. math::

    Q = XW_Q,\ K = XW_K,\ V = XW_V, \quad S = QK^T, \quad S' = S / \sqrt{d_k}, \quad
    A = \mathrm{softmax}(S' + M), \quad C = \mathrm{Concat}_h(A_h V_h), \quad \mathrm{out} = C W_O

and its backward, head by head (dC is the gradient of the head's block of C), the chain rule
read from right to left:

.. math::

    dA = dC\,V^T, \quad dV = A^T dC, \quad
    dS'_{ij} = A_{ij}\left(dA_{ij} - \textstyle\sum_k A_{ik}\, dA_{ik}\right), \quad
    dS = dS' / \sqrt{d_k}, \quad dQ = dS\,K, \quad dK = dS^T Q
"""

import functools

import numpy as np

from attnviz.core import masked_softmax
from attnviz.masking import causal_mask

LN_EPS = 1e-5  # added to the variance in the layer norm, as PyTorch's nn.LayerNorm does


def weight_grad(X, d_out):
    """The gradient of W in ``X @ W``: sum over the sequences b of X_b^T d_out_b.

    X (B, T, n_in), d_out (B, T, n_out) -> (n_in, n_out). One small product per sequence, then
    a sum: numpy's OpenBLAS splits a single (n_in, B T) @ (B T, n_out) product over threads,
    which at these sizes costs far more than it saves (measured: benchmarks/tiny_gpt.py).
    """
    return (X.swapaxes(-1, -2) @ d_out).sum(axis=0)  # (B, n_in, T) @ (B, T, n_out) -> sum_b


def split_heads(M, n_heads):
    """(B, T, D) -> (B, H, T, d_k): head h gets column block h (width d_k) of every row."""
    B, T, D = M.shape
    return M.reshape(B, T, n_heads, D // n_heads).transpose(0, 2, 1, 3)


def merge_heads(M):
    """(B, H, T, d_k) -> (B, T, H d_k): Concat(head_0, ..., head_(H-1)), the heads side by side."""
    B, H, T, d_k = M.shape
    return M.transpose(0, 2, 1, 3).reshape(B, T, H * d_k)


def causal_softmax(scaled_scores):
    """A = softmax(S' + M) under the causal mask for a stack of (T, T) score matrices.

    ``scaled_scores`` (..., T, T) -> A (..., T, T). Every row of every matrix goes through
    ``attnviz.core.masked_softmax``, the function ``self_attention`` calls, as one tall
    (rows, T) matrix with the causal mask repeated for each matrix: the same numbers as
    ``self_attention(X, W_Q, W_K, W_V, mask=causal_mask(T))`` head by head (tested).
    """
    T = scaled_scores.shape[-1]
    mask = tall_causal_mask(scaled_scores.size // (T * T), T)  # (rows, T)
    _, A, _, _ = masked_softmax(scaled_scores.reshape(-1, T), mask)  # (rows, T), rows sum to 1
    return A.reshape(scaled_scores.shape)  # (..., T, T); A_ij = 0 for every key j > i


@functools.lru_cache(maxsize=16)
def tall_causal_mask(n_matrices, T):
    """causal_mask(T) stacked n_matrices times: (n_matrices T, T) bool, read-only (kept)."""
    mask = np.tile(causal_mask(T), (n_matrices, 1))  # (n_matrices T, T)
    mask.flags.writeable = False
    return mask


def layer_norm(x, g, b):
    """y = g * (x - mean) / sqrt(var + eps) + b over the last axis. x (B, T, D) -> y (B, T, D)."""
    mu = x.mean(axis=-1, keepdims=True)  # (B, T, 1)
    xc = x - mu  # (B, T, D)
    rstd = 1.0 / np.sqrt((xc * xc).mean(axis=-1, keepdims=True) + LN_EPS)  # (B, T, 1)
    xhat = xc * rstd  # (B, T, D): mean 0, variance 1 in each row
    return xhat * g + b, (xhat, rstd, g)  # (B, T, D) * (D,) + (D,) -> (B, T, D)


def layer_norm_backward(d_out, cache):
    """Gradients (dx, dg, db) of the layer norm, from d_out (B, T, D)."""
    xhat, rstd, g = cache
    dg = (d_out * xhat).sum(axis=(0, 1))  # (D,): g scales every xhat
    db = d_out.sum(axis=(0, 1))  # (D,)
    dxhat = d_out * g  # (B, T, D)
    # xhat = (x - mean) * rstd: the mean and the variance depend on every x of the row, which
    # removes the gradient's own mean and its component along xhat.
    dx = rstd * (
        dxhat
        - dxhat.mean(axis=-1, keepdims=True)  # (B, T, 1)
        - xhat * (dxhat * xhat).mean(axis=-1, keepdims=True)  # (B, T, D) * (B, T, 1)
    )  # (B, T, D)
    return dx, dg, db


def attention(X, W_Q, W_K, W_V, W_O, n_heads, scale):
    """Causal multi-head self-attention of X (B, T, D) -> (out (B, T, D), cache).

    ``cache["A"]`` (B, H, T, T) holds every head's attention matrix for every sequence.
    """
    d_k = X.shape[-1] // n_heads
    c = X.dtype.type(np.sqrt(d_k) if scale else 1.0)  # what S is divided by, in X's dtype
    Q = split_heads(X @ W_Q, n_heads)  # (B, T, D) @ (D, D) -> (B, T, D) -> (B, H, T, d_k)
    K = split_heads(X @ W_K, n_heads)  # (B, T, D) @ (D, D) -> (B, T, D) -> (B, H, T, d_k)
    V = split_heads(X @ W_V, n_heads)  # (B, T, D) @ (D, D) -> (B, T, D) -> (B, H, T, d_k)
    S = Q @ K.swapaxes(-1, -2)  # S = QK^T: (B, H, T, d_k) @ (B, H, d_k, T) -> (B, H, T, T)
    A = causal_softmax(S / c)  # A = softmax(S' + M): (B, H, T, T), rows sum to 1
    heads = merge_heads(A @ V)  # (B, H, T, T) @ (B, H, T, d_k) -> (B, H, T, d_k) -> (B, T, D)
    out = heads @ W_O  # (B, T, D) @ (D, D) -> (B, T, D)
    return out, {"X": X, "Q": Q, "K": K, "V": V, "A": A, "heads": heads, "c": c, "n_heads": n_heads}


def attention_backward(d_out, cache, W_Q, W_K, W_V, W_O):
    """Gradients (dX, dW_Q, dW_K, dW_V, dW_O) of ``attention``, from d_out (B, T, D)."""
    X, Q, K, V, A, heads, c = (cache[k] for k in ("X", "Q", "K", "V", "A", "heads", "c"))
    n_heads = cache["n_heads"]
    dW_O = weight_grad(heads, d_out)  # sum_b (D, T) @ (T, D) -> (D, D)
    d_heads = split_heads(d_out @ W_O.T, n_heads)  # (B, T, D) @ (D, D) -> (B, H, T, d_k)
    dA = d_heads @ V.swapaxes(-1, -2)  # (B, H, T, d_k) @ (B, H, d_k, T) -> (B, H, T, T)
    dV = A.swapaxes(-1, -2) @ d_heads  # (B, H, T, T) @ (B, H, T, d_k) -> (B, H, T, d_k)
    # The softmax's Jacobian, diag(a) - a a^T, applied to each row a of A: masked keys have
    # A_ij = 0 and so get no gradient, exactly as if they were not there.
    dS_scaled = A * (dA - (A * dA).sum(axis=-1, keepdims=True))  # (B, H, T, T)
    dS = dS_scaled / c  # S' = S / sqrt(d_k): (B, H, T, T)
    dQ = merge_heads(dS @ K)  # (B, H, T, T) @ (B, H, T, d_k) -> (B, H, T, d_k) -> (B, T, D)
    dK = merge_heads(dS.swapaxes(-1, -2) @ Q)  # (B, H, T, T) @ (B, H, T, d_k) -> (B, T, D)
    dV = merge_heads(dV)  # (B, T, D)
    dW_Q = weight_grad(X, dQ)  # sum_b (D, T) @ (T, D) -> (D, D)
    dW_K = weight_grad(X, dK)  # sum_b (D, T) @ (T, D) -> (D, D)
    dW_V = weight_grad(X, dV)  # sum_b (D, T) @ (T, D) -> (D, D)
    dX = dQ @ W_Q.T + dK @ W_K.T + dV @ W_V.T  # 3 x (B, T, D) @ (D, D) -> (B, T, D)
    return dX, dW_Q, dW_K, dW_V, dW_O


def mlp(X, W_1, b_1, W_2, b_2):
    """The feed-forward block ReLU(X W_1 + b_1) W_2 + b_2: X (B, T, D) -> (out (B, T, D), cache)."""
    u = X @ W_1 + b_1  # (B, T, D) @ (D, F) + (F,) -> (B, T, F)
    r = np.maximum(u, 0)  # (B, T, F)
    return r @ W_2 + b_2, (X, u, r)  # (B, T, F) @ (F, D) + (D,) -> (B, T, D)


def mlp_backward(d_out, cache, W_1, W_2):
    """Gradients (dX, dW_1, db_1, dW_2, db_2) of ``mlp``, from d_out (B, T, D)."""
    X, u, r = cache
    dW_2 = weight_grad(r, d_out)  # sum_b (F, T) @ (T, D) -> (F, D)
    db_2 = d_out.sum(axis=(0, 1))  # (D,)
    du = (d_out @ W_2.T) * (u > 0)  # (B, T, D) @ (D, F) -> (B, T, F); ReLU passes u > 0 only
    dW_1 = weight_grad(X, du)  # sum_b (D, T) @ (T, F) -> (D, F)
    db_1 = du.sum(axis=(0, 1))  # (F,)
    return du @ W_1.T, dW_1, db_1, dW_2, db_2  # dX: (B, T, F) @ (F, D) -> (B, T, D)


def cross_entropy(logits, targets):
    """Mean of -log p(target) over the scored positions, and its gradient d logits.

    logits (B, T, V); targets (B, T) ints, -1 where a position is not scored (its answer cannot
    be known). Returns (loss, d_logits (B, T, V)).
    """
    scored = targets >= 0  # (B, T)
    n = int(scored.sum())
    z = logits - logits.max(axis=-1, keepdims=True)  # (B, T, V), each row's max is 0
    log_p = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))  # (B, T, V) log softmax
    t = np.where(scored, targets, 0)[..., None]  # (B, T, 1) the target's index
    nll = -np.take_along_axis(log_p, t, axis=-1)[..., 0]  # (B, T): -log p(target)
    loss = float((nll * scored).sum() / n)
    # d loss / d logits = (softmax - onehot(target)) / n at each scored position, else 0
    d_logits = np.exp(log_p)  # (B, T, V) softmax
    np.put_along_axis(d_logits, t, np.take_along_axis(d_logits, t, axis=-1) - 1, axis=-1)
    d_logits *= scored[..., None] / n  # (B, T, V) * (B, T, 1)
    return loss, d_logits
