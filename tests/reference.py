"""The independent oracle the tests hold attnviz to: scaled dot-product self-attention written
once, from the formula, in plain float64 numpy. It imports nothing of attnviz, so a bug there
cannot hide here.

    A = softmax(mask(Q K^T / sqrt(d_k) / T)),  output = A V,  Q = X W_Q + b_Q, and so for K, V

A masked cell gets weight 0; a row the mask hides entirely is all zeros (and so its output).
"""

import numpy as np


def softmax(logits):
    """Softmax of each row (the last axis) of ``logits``; -inf cells get 0, an all -inf row is
    all zeros. Shape kept."""
    logits = np.asarray(logits, dtype=np.float64)
    top = logits.max(axis=-1, keepdims=True)
    e = np.exp(logits - np.where(np.isfinite(top), top, 0.0))
    total = e.sum(axis=-1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def attend(Q, K, V, mask=None, scale=True, temperature=1.0):
    """Queries Q (n, d_k) attending to keys K (m, d_k) and values V (m, d_v); ``mask`` (n, m)
    bool, True where a query may look. -> {"scores" S = Q K^T (n, m), "scaled_scores"
    S' = S / sqrt(d_k) or S when ``scale`` is off, "logits" S' / T with -inf where masked,
    "attention" A (n, m), "output" A V (n, d_v)}."""
    Q, K, V = (np.asarray(M, dtype=np.float64) for M in (Q, K, V))
    S = Q @ K.T
    S1 = S / np.sqrt(K.shape[1]) if scale else S
    logits = S1 / temperature
    if mask is not None:
        logits = np.where(np.asarray(mask, dtype=bool), logits, -np.inf)
    A = softmax(logits)
    return {"scores": S, "scaled_scores": S1, "logits": logits, "attention": A, "output": A @ V}


def attention_steps(X, W_Q, W_K, W_V, mask=None, scale=True, temperature=1.0, b_Q=0, b_K=0, b_V=0):
    """Every step of self-attention on X (n, d_model) with weights W_Q, W_K (d_model, d_k), W_V
    (d_model, d_v) and optional biases: ``attend``'s dict plus "X", "Q", "K", "V"."""
    X = np.asarray(X, dtype=np.float64)
    Q = X @ np.asarray(W_Q, dtype=np.float64) + b_Q
    K = X @ np.asarray(W_K, dtype=np.float64) + b_K
    V = X @ np.asarray(W_V, dtype=np.float64) + b_V
    return {"X": X, "Q": Q, "K": K, "V": V} | attend(Q, K, V, mask, scale, temperature)


def attention(X, W_Q, W_K, W_V, *options, **named):
    """(A (n, n), output (n, d_v)) of self-attention on X; the options as ``attention_steps``."""
    steps = attention_steps(X, W_Q, W_K, W_V, *options, **named)
    return steps["attention"], steps["output"]
