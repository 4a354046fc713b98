r"""The LLaMA architecture's forward pass in numpy (SmolLM2), each head through the core's softmax.

Glossary (the names copy the formulas; shapes for one text of n tokens):

    x        (n, d_model) the residual stream entering a block; E[token_ids] for block 0
    x̂        RMSNorm(x) = x / sqrt(mean(x²) + ε) * g   (no mean subtracted, no bias)
    Q_h      (n, 64) = RoPE(x̂ W_Q^h)  query head h = 0 .. 8
    K_g, V_g (n, 64) = RoPE(x̂ W_K^g), x̂ W_V^g   key/value head g = h // 3 (grouped-query
             attention: three query heads share one key and one value head)
    S        Q_h K_gᵀ (n, n);  S′ = S / √64;  A = softmax(S′ + M), M the causal mask
             (-inf above the diagonal: a token never sees the ones after it)
    head_h   A V_g (n, 64);  attention out = Concat(head_0 .. head_8) W_Oᵀ
    MLP      SwiGLU: (SiLU(x̂ W_gateᵀ) ⊙ x̂ W_upᵀ) W_downᵀ, SiLU(z) = z · σ(z)
    logits   RMSNorm(x_final) Eᵀ (n, vocab): the output layer is the embedding matrix (tied)

One block (pre-norm: normalise before each part, add its output to the stream):

.. math::

    x \leftarrow x + \mathrm{Attention}(\mathrm{RMSNorm}(x)), \qquad
    x \leftarrow x + \mathrm{SwiGLU}(\mathrm{RMSNorm}(x))

RoPE (rotary positions) turns each pair of coordinates (i, i + 32) of a query or key at position
p by the angle p·θ_i, θ_i = base^(−2i/64) (Hugging Face's "rotate half" layout). A rotation of q
by p·θ and of k by p′·θ leaves q·k depending only on p − p′: the offset, never the absolute place.

A ``KVCache`` keeps every block's K (after RoPE) and V, so that generating one more token
computes one new row of Q, K and V per head and reuses the old keys and values.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.core import masked_softmax
from attnviz.results import freeze_arrays


def rms_norm(x, g, eps):
    """x / sqrt(mean(x²) + ε) * g over the last axis, as transformers' LlamaRMSNorm."""
    mean_square = np.mean(x * x, axis=-1, keepdims=True)  # (n, 1)
    return x / np.sqrt(mean_square + np.float32(eps)) * g  # (n, d_model)


def silu(z):
    """SiLU(z) = z · σ(z) = z / (1 + e^(−z)); -0 for very negative z, never NaN."""
    with np.errstate(over="ignore"):
        return z / (np.float32(1) + np.exp(-z))


def rope_frequencies(d_head, base):
    """(d_head / 2,) θ_i = base^(−2i / d_head): pair i turns by p·θ_i at position p."""
    return (1.0 / base ** (np.arange(0, d_head, 2) / d_head)).astype(np.float32)


def rope_angles(positions, d_head, base):
    """(n, d_head / 2) p·θ_i for each position p in ``positions`` (n,)."""
    return np.asarray(positions, dtype=np.float32)[:, None] * rope_frequencies(d_head, base)


def rope(x, positions, base):
    """Rotate each (x_i, x_{i + d/2}) of every row of ``x`` (..., n, d) by p·θ_i.

    ``[x1, x2] -> [x1 cos − x2 sin, x2 cos + x1 sin]`` with x1, x2 the two halves of each row.
    """
    d = x.shape[-1]
    angles = rope_angles(positions, d, base)  # (n, d / 2)
    cos, sin = np.cos(angles), np.sin(angles)
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)


@dataclass(frozen=True, eq=False)
class KVCache:
    """Every block's keys (after RoPE) and values so far: K[l], V[l] (n_kv_heads, t, d_head)."""

    K: tuple
    V: tuple

    @property
    def length(self):
        """t, the tokens whose keys and values are kept."""
        return 0 if not self.K else self.K[0].shape[1]

    @property
    def nbytes(self):
        return sum(k.nbytes + v.nbytes for k, v in zip(self.K, self.V, strict=True))


@dataclass(frozen=True, eq=False)
class Forward:
    """One pass over new tokens. Arrays are read-only.

    logits (m, vocab) for the m new tokens; attention (n_layers, n_heads, m, t) every query
    head's A rows over all t = past + m keys; hidden_states (n_layers + 1, m, d_model) the
    stream entering each block and after the last; q_new (n_layers, n_heads, m, d_head) and
    k_new, v_new (n_layers, n_kv_heads, m, d_head): the new rows of Q, K (after RoPE) and V;
    cache the KVCache with these m tokens added.
    """

    logits: np.ndarray
    attention: np.ndarray
    hidden_states: np.ndarray
    q_new: np.ndarray
    k_new: np.ndarray
    v_new: np.ndarray
    cache: KVCache

    def __post_init__(self):
        freeze_arrays(self)


def causal_rows(m, t):
    """(m, t) bool, the last m of t tokens: query i (at t − m + i) sees keys 0 .. t − m + i."""
    return np.arange(t)[None, :] <= np.arange(t - m, t)[:, None]


def attention_block(x_hat, w, config, positions, past_K=None, past_V=None):
    """Grouped-query attention of the m new rows ``x_hat`` (m, d_model) over past + new tokens.

    Returns (out (m, d_model), A (n_heads, m, t), Q (n_heads, m, d), K, V (n_kv_heads, t, d)).
    Each head's A is ``masked_softmax(Q_h K_gᵀ / √d, causal)``: the core's own softmax.
    """
    m, H, G, d = x_hat.shape[0], config.n_heads, config.n_kv_heads, config.d_head
    Q = (x_hat @ w.W_Q.T).reshape(m, H, d).transpose(1, 0, 2)  # (m, H·d) -> (H, m, d)
    K = (x_hat @ w.W_K.T).reshape(m, G, d).transpose(1, 0, 2)  # (G, m, d)
    V = (x_hat @ w.W_V.T).reshape(m, G, d).transpose(1, 0, 2)  # (G, m, d)
    Q, K = rope(Q, positions, config.rope_base), rope(K, positions, config.rope_base)
    if past_K is not None:
        K = np.concatenate([past_K, K], axis=1)  # (G, t, d): the old keys reused, m new rows
        V = np.concatenate([past_V, V], axis=1)
    t = K.shape[1]
    mask = causal_rows(m, t)  # (m, t)
    scale = np.float32(np.sqrt(d))
    A = np.empty((H, m, t), dtype=np.float32)
    heads = np.empty((H, m, d), dtype=np.float32)
    for h in range(H):
        g = config.group_of(h)
        S = Q[h] @ K[g].T  # (m, d) @ (d, t) -> (m, t)
        _, A[h], _, _ = masked_softmax(S / scale, mask)  # S′ = S / √d, causal, row softmax
        heads[h] = A[h] @ V[g]  # (m, t) @ (t, d) -> (m, d)
    concat = heads.transpose(1, 0, 2).reshape(m, H * d)  # Concat(head_0 .. head_8)
    return concat @ w.W_O.T, A, Q, K, V  # (m, H·d) @ (H·d, d_model)


def mlp_block(x_hat, w):
    """SwiGLU: (SiLU(x̂ W_gateᵀ) ⊙ x̂ W_upᵀ) W_downᵀ, (m, d_model) -> (m, d_model)."""
    return (silu(x_hat @ w.W_gate.T) * (x_hat @ w.W_up.T)) @ w.W_down.T  # via (m, d_ff)


def forward(weights, config, token_ids, cache=None):
    """The model over ``token_ids`` (m,) that follow the cache's tokens (none if None) -> Forward.

    Blocks are widened to float32 one at a time (``weights.layer(l)``). The caller checks that
    every id is in the vocabulary and that past + m stays within ``config.max_positions``.
    """
    token_ids = np.asarray(token_ids, dtype=np.int64)
    past = 0 if cache is None else cache.length
    m = token_ids.shape[0]
    positions = np.arange(past, past + m)
    x = weights.embed(token_ids)  # (m, d_model)
    hidden, attention, qs, ks, vs, keys, values = [x], [], [], [], [], [], []
    for layer in range(config.n_layers):
        w = weights.layer(layer)
        past_K = None if cache is None else cache.K[layer]
        past_V = None if cache is None else cache.V[layer]
        out, A, Q, K, V = attention_block(
            rms_norm(x, w.g_attn, config.rms_eps), w, config, positions, past_K, past_V
        )
        x = x + out  # the residual stream
        x = x + mlp_block(rms_norm(x, w.g_ffn, config.rms_eps), w)
        hidden.append(x)
        attention.append(A)
        qs.append(Q)
        ks.append(K[:, past:])
        vs.append(V[:, past:])
        keys.append(K)
        values.append(V)
    logits = weights.unembed(rms_norm(x, weights.g_final, config.rms_eps))  # (m, vocab)
    return Forward(
        logits=logits,
        attention=np.stack(attention),
        hidden_states=np.stack(hidden),
        q_new=np.stack(qs),
        k_new=np.stack(ks),
        v_new=np.stack(vs),
        cache=KVCache(K=tuple(keys), V=tuple(values)),
    )


@dataclass(frozen=True, eq=False)
class HeadSteps:
    """One head of one block, every step kept, for a text of n tokens. Arrays are read-only.

    x (n, d_model) the stream entering the block; x_hat = RMSNorm(x); W_Q (d_head, d_model)
    query head h's rows of W_Q, W_K and W_V those of its key/value head g; Q_raw = x̂ W_Qᵀ and
    K_raw (n, d_head) before RoPE; Q, K after; angles (n, d_head / 2) the angle p·θ_i that
    turned pair i at position p; V (n, d_head); S = Q Kᵀ, S′ = S / √d_head, logits (S′ with -inf
    above the diagonal) and A (n, n); output = A V (n, d_head).
    """

    layer: int
    head: int
    group: int
    x: np.ndarray
    x_hat: np.ndarray
    W_Q: np.ndarray
    W_K: np.ndarray
    W_V: np.ndarray
    Q_raw: np.ndarray
    K_raw: np.ndarray
    Q: np.ndarray
    K: np.ndarray
    angles: np.ndarray
    V: np.ndarray
    S: np.ndarray
    S_scaled: np.ndarray
    logits: np.ndarray
    A: np.ndarray
    mask: np.ndarray
    output: np.ndarray

    def __post_init__(self):
        freeze_arrays(self)


def head_steps(weights, config, x, layer, head):
    """Head ``head`` of block ``layer`` recomputed on its own from the stream ``x`` (n, d_model)
    entering the block (``CausalRun.hidden_states[layer]``) -> HeadSteps."""
    w = weights.layer(layer)
    d, g = config.d_head, config.group_of(head)
    n = x.shape[0]
    positions = np.arange(n)
    W_Q = w.W_Q[head * d : (head + 1) * d]  # (d, d_model)
    W_K = w.W_K[g * d : (g + 1) * d]
    W_V = w.W_V[g * d : (g + 1) * d]
    x_hat = rms_norm(x, w.g_attn, config.rms_eps)  # (n, d_model)
    Q_raw, K_raw = x_hat @ W_Q.T, x_hat @ W_K.T  # (n, d_model) @ (d_model, d) -> (n, d)
    Q, K = rope(Q_raw, positions, config.rope_base), rope(K_raw, positions, config.rope_base)
    V = x_hat @ W_V.T  # (n, d)
    S = Q @ K.T  # (n, d) @ (d, n) -> (n, n)
    S_scaled = S / np.float32(np.sqrt(d))
    mask = causal_rows(n, n)
    logits, A, _, _ = masked_softmax(S_scaled, mask)
    return HeadSteps(
        layer=layer, head=head, group=g, x=x, x_hat=x_hat, W_Q=W_Q, W_K=W_K, W_V=W_V,
        Q_raw=Q_raw, K_raw=K_raw, Q=Q, K=K, angles=rope_angles(positions, d, config.rope_base),
        V=V, S=S, S_scaled=S_scaled, logits=logits, A=A, mask=mask, output=A @ V,
    )  # fmt: skip
