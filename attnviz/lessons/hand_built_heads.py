r"""Hand-built heads: W_Q, W_K that make a head attend to the previous token, itself or the first.

The app's input is X = E + P: random (or one-hot) token embeddings E plus the sinusoidal
positional encodings P of ``attnviz.inputs.sinusoidal_positions``. In each (sin, cos) pair t of
P, with frequency w_t = 1 / 10000^(2t / d_model), position p sits at angle p w_t, so moving one
position back is a fixed rotation R_t by -w_t:

.. math::

    (\sin((p-1)w), \cos((p-1)w)) = (\sin pw, \cos pw)
    \begin{pmatrix} \cos w & \sin w \\ -\sin w & \cos w \end{pmatrix}

A preset head is built in three steps:

1. ``W_pos`` (d_model, 2 pairs) reads the position features phi(p) (the first d_k / 2 pairs of
   P) out of X exactly: X W_pos = phi. E is random in every column, so no fixed matrix can
   ignore it (reading P's columns straight from X puts the largest weight on the previous
   token in under a fifth of the rows); W_pos is solved for this sentence, W_pos = X^+ phi,
   which needs n <= d_model.
2. The key reads the position as it is: W_K = W_pos, so k_j = phi(j).
3. The query asks for the position it wants: ``previous`` rotates phi(i) back one step
   (q_i = g phi(i - 1)), ``same`` keeps it (q_i = g phi(i)), ``first`` asks every row for
   position 0 (q_i = g phi(0)).

Then q_i . k_j = g sum_t cos((target_i - j) w_t), which is largest exactly at j = target_i
whatever the tokens are, and the gain g makes the softmax put nearly all the weight there.

What every preset needs: positions on (P given), 1 <= n <= d_model (so that X W = phi can be
solved), d_model >= 2 and d_k >= 2 (room for one (sin, cos) pair).
"""

import numpy as np

from attnviz.checks import (
    AttentionInputError,
    as_matrix,
    check_positive_int,
    check_positive_number,
)
from attnviz.inputs import check_seed, projection_weights, sinusoidal_positions
from attnviz.limits import MAX_D_K, MAX_D_MODEL, MAX_D_V, MAX_HEADS

# Smallest logit gap (after the sqrt(d_k) scaling, temperature 1) between the key a preset
# wants and any other key: every other key gets at most e^-5 (0.7%) of the target's weight.
DEFAULT_SHARPNESS = 5.0
_OUTPUT_STREAM = 3  # W_O's random stream (inputs.py uses 1 for embeddings, 2 for W_Q, W_K, W_V)


def frequencies(d_model, d_k):
    """(pairs,) w_t = 1 / 10000^(2t / d_model) of the pairs a head of width d_k uses.

    The first min(d_k // 2, d_model // 2) (sin, cos) pairs of P: the fastest-turning ones.
    """
    t = np.arange(min(d_k // 2, d_model // 2))
    return 1 / 10000 ** (2 * t / d_model)  # the same frequencies as sinusoidal_positions


def position_features(positions, d_model, d_k):
    """(len(positions), 2 * pairs) the columns of P a head of width d_k uses, at ``positions``.

    Columns 2t and 2t + 1 of P for t = 0 .. pairs - 1: (sin(p w_t), cos(p w_t)).
    """
    w = frequencies(d_model, d_k)  # (pairs,)
    angle = np.asarray(positions, dtype=float)[:, None] * w  # (len, pairs)
    features = np.empty((angle.shape[0], 2 * w.size))
    features[:, 0::2] = np.sin(angle)
    features[:, 1::2] = np.cos(angle)
    return features


def position_kernel(offsets, d_model, d_k):
    """sum_t cos(offset w_t): phi(p) . phi(p - offset), what a preset's score is made of."""
    w = frequencies(d_model, d_k)
    return np.cos(np.asarray(offsets, dtype=float)[..., None] * w).sum(axis=-1)


def back_rotation(d_model, d_k, steps=1):
    """(2 pairs, 2 pairs) block-diagonal R with phi(p) R = phi(p - steps): each pair's rotation.

    Block t is [[cos(s w_t), sin(s w_t)], [-sin(s w_t), cos(s w_t)]] for s = steps.
    """
    w = steps * frequencies(d_model, d_k)  # (pairs,) angles s w_t
    R = np.zeros((2 * w.size, 2 * w.size))
    R[0::2, 0::2] = np.diag(np.cos(w))
    R[0::2, 1::2] = np.diag(np.sin(w))
    R[1::2, 0::2] = np.diag(-np.sin(w))
    R[1::2, 1::2] = np.diag(np.cos(w))
    return R


def _readout(E, P, d_k, targets):
    """X^+ @ targets for X = E + P, checked to be exact (X W = targets); see the module doc."""
    E = as_matrix("E", E, np.float64)
    n, d_model = E.shape
    d_k = check_positive_int("d_k", d_k, MAX_D_K, f"choose a key dimension of 2 to {MAX_D_K}")
    if P is None:
        raise AttentionInputError(
            "the preset heads find tokens by position, and positions are off: turn positional "
            "encodings on (positions=on)"
        )
    P = as_matrix("P", P, np.float64)
    if P.shape != E.shape or not np.allclose(P, sinusoidal_positions(n, d_model), atol=1e-12):
        raise AttentionInputError(
            f"P must be the sinusoidal positional encodings of shape {E.shape}: pass "
            f"sinusoidal_positions({n}, {d_model})"
        )
    if d_model < 2 or d_k < 2:
        raise AttentionInputError(
            f"the preset heads need d_model >= 2 and d_k >= 2 for one (sin, cos) pair "
            f"(got d_model={d_model}, d_k={d_k}): raise them to at least 2"
        )
    if n > d_model:
        raise AttentionInputError(
            f"the preset heads need no more tokens than d_model, to read the positions out of "
            f"X exactly (got n={n} tokens, d_model={d_model}): raise d_model to {n} or more, or "
            f"use at most {d_model} tokens"
        )
    X = E + P  # (n, d_model)
    targets = targets(n, d_model, d_k)  # (n, width)
    W = np.linalg.pinv(X) @ targets  # (d_model, n) @ (n, width) -> (d_model, width)
    if not np.allclose(X @ W, targets, rtol=0, atol=1e-8):
        raise AttentionInputError(
            "the tokens' vectors X = E + P are (nearly) linearly dependent, so their positions "
            "cannot be read out of X exactly (one-hot embeddings of a few distinct words do "
            "this, and so can n close to d_model): use random embeddings, raise d_model or use "
            "fewer tokens"
        )
    return W


def position_readout(E, P, d_k):
    """W_pos (d_model, 2 pairs) with (E + P) W_pos = phi(0 .. n-1) exactly: see the module doc.

    Raises AttentionInputError unless positions are on, n <= d_model and d_model, d_k >= 2.
    """
    return _readout(E, P, d_k, lambda n, d_model, d_k: position_features(range(n), d_model, d_k))


def constant_readout(E, P, d_k):
    """c (d_model, 1) with (E + P) c = 1 for every token: a feature that ignores the token."""
    return _readout(E, P, d_k, lambda n, d_model, d_k: np.ones((n, 1)))


def _gain(n, d_model, d_k, sharpness):
    """g such that the scaled score of the target beats every other key's by >= sharpness."""
    check_positive_number(
        "sharpness", sharpness, "5 puts about 99% of a short row's weight on the target"
    )
    offsets = np.arange(1, n)  # a target and another key are 1 .. n-1 positions apart
    gap = position_kernel(0, d_model, d_k) - position_kernel(offsets, d_model, d_k)
    margin = gap.min() if n > 1 else 1.0  # > 0: cos(offset * 1) < 1 for whole offsets != 0
    return float(sharpness) * np.sqrt(d_k) / margin


def _pad(W, d_k):
    return np.pad(W, ((0, 0), (0, d_k - W.shape[1])))  # columns past the pairs stay zero


def previous_token_head(E, P, d_k, *, sharpness=DEFAULT_SHARPNESS):
    """(W_Q, W_K), each (d_model, d_k): query i attends to key i - 1 (rows i >= 1).

    W_K = W_pos and W_Q = g W_pos R: read the position, then rotate it back one step.
    E: (n, d_model) token embeddings; P: (n, d_model) sinusoidal_positions(n, d_model), or None
    when positions are off (an error). For X = E + P. Row 0 has no previous token; it attends
    to the keys nearest position -1 (itself, mostly). Needs n <= d_model, d_k >= 2.
    """
    W_pos = position_readout(E, P, d_k)  # (d_model, 2 pairs)
    n, d_model = np.shape(E)
    g = _gain(n, d_model, d_k, sharpness)
    W_Q = g * W_pos @ back_rotation(d_model, d_k)  # (d_model, 2p) @ (2p, 2p) -> (d_model, 2p)
    return _pad(W_Q, d_k), _pad(W_pos, d_k)


def same_token_head(E, P, d_k, *, sharpness=DEFAULT_SHARPNESS):
    """(W_Q, W_K), each (d_model, d_k): query i attends to key i, itself, even when the same
    word occurs twice. W_Q = g W_pos, W_K = W_pos. Arguments and needs as previous_token_head."""
    W_pos = position_readout(E, P, d_k)
    n, d_model = np.shape(E)
    g = _gain(n, d_model, d_k, sharpness)
    return _pad(g * W_pos, d_k), _pad(W_pos, d_k)


def first_token_head(E, P, d_k, *, sharpness=DEFAULT_SHARPNESS):
    """(W_Q, W_K), each (d_model, d_k): every query attends to key 0, the first token.

    W_Q = g c phi(0)^T, with c the constant readout ((E + P) c = 1): every query asks for
    position 0 whatever its token. W_K = W_pos. Arguments and needs as previous_token_head.
    """
    W_pos = position_readout(E, P, d_k)
    c = constant_readout(E, P, d_k)  # (d_model, 1)
    n, d_model = np.shape(E)
    g = _gain(n, d_model, d_k, sharpness)
    W_Q = g * c @ position_features([0], d_model, d_k)  # (d_model, 1) @ (1, 2p) -> (d_model, 2p)
    return _pad(W_Q, d_k), _pad(W_pos, d_k)


# name -> (function, what it does): the choices a page offers.
PRESETS = {
    "previous": (previous_token_head, "attend to the previous token"),
    "same": (same_token_head, "attend to the same token (itself)"),
    "first": (first_token_head, "attend to the first token"),
}


def multi_head_weights(d_model, n_heads, seed=0, *, d_k=None, d_v=None):
    """W_Q, W_K (d_model, n_heads d_k), W_V (d_model, n_heads d_v), W_O (n_heads d_v, d_model).

    d_k and d_v default to d_model / n_heads (n_heads must divide d_model). Deterministic, from
    ``projection_weights(d_model, n_heads * d_k, n_heads * d_v, seed)``, which draws column by
    column: head 0 gets exactly the single-head weights ``projection_weights(d_model, d_k, d_v,
    seed)``. W_O has its own stream, entries from N(0, 1 / (n_heads d_v)).
    """
    d_model = check_positive_int(
        "d_model", d_model, MAX_D_MODEL, f"choose an embedding width of 1 to {MAX_D_MODEL}"
    )
    n_heads = check_positive_int(
        "n_heads", n_heads, MAX_HEADS, f"choose 1 to {MAX_HEADS} heads that divide d_model"
    )
    seed = check_seed(seed)
    if (d_k is None or d_v is None) and d_model % n_heads:
        raise AttentionInputError(
            f"n_heads={n_heads} must divide d_model={d_model} for d_k = d_v = d_model / n_heads:"
            f" choose a number of heads that divides {d_model}, or give d_k and d_v"
        )
    d_k = d_model // n_heads if d_k is None else d_k
    d_v = d_model // n_heads if d_v is None else d_v
    for name, width, limit in (("d_k", d_k, MAX_D_K), ("d_v", d_v, MAX_D_V)):
        check_positive_int(name, width, limit, f"choose a {name} of 1 to {limit}")
        if n_heads * width > limit:
            raise AttentionInputError(
                f"n_heads * {name} must be <= {limit} (got {n_heads} * {width}): use fewer "
                f"heads or a smaller {name}"
            )
    W_Q, W_K, W_V = projection_weights(d_model, n_heads * d_k, n_heads * d_v, seed)
    rng = np.random.default_rng([seed, _OUTPUT_STREAM, d_model])
    W_O = rng.standard_normal((n_heads * d_v, d_model)) / np.sqrt(n_heads * d_v)
    return W_Q, W_K, W_V, W_O


def replace_head(W, n_heads, head, W_head):
    """A copy of W (d_model, n_heads * width) with head ``head``'s column block set to W_head.

    Head h owns columns h * width to (h + 1) * width - 1, as ``multi_head_attention`` splits.
    """
    W = as_matrix("W", W, np.float64)
    n_heads = check_positive_int("n_heads", n_heads, MAX_HEADS, "use the model's head count")
    if W.shape[1] % n_heads:
        raise AttentionInputError(
            f"n_heads={n_heads} must divide the width of W (got {W.shape[1]} columns): use the "
            "head count the weights were built for"
        )
    width = W.shape[1] // n_heads
    if (
        isinstance(head, bool)
        or not isinstance(head, (int, np.integer))
        or not (0 <= head < n_heads)
    ):
        raise AttentionInputError(
            f"head must be a whole number from 0 to {n_heads - 1} (got {head!r}): heads count "
            "from 0"
        )
    W_head = as_matrix("W_head", W_head, np.float64)
    if W_head.shape != (W.shape[0], width):
        raise AttentionInputError(
            f"W_head must have shape ({W.shape[0]}, {width}), one head's block of W (got "
            f"{W_head.shape}): build the preset with d_k={width}"
        )
    W = W.copy()
    W[:, head * width : (head + 1) * width] = W_head
    return W


def read_weight_table(values, shape, name):
    """A hand-edited weight table as a finite float array of ``shape``, or a clear error.

    ``values`` is anything 2-D: a DataFrame from ``st.data_editor``, nested lists, an array. Cells
    may hold numbers or number text ("0.5"); an empty cell (None, NaN), text that is not a number
    or an infinity raises AttentionInputError naming the first bad cell, as does a table whose
    shape is not ``shape`` (rows added or deleted).
    """
    arr = np.asarray(values, dtype=object)
    if arr.ndim != 2 or arr.shape != tuple(shape):
        raise AttentionInputError(
            f"{name} must have shape {tuple(shape)}, one row per input dimension and one column "
            f"per head dimension (got {arr.shape}): give it {shape[0]} rows of {shape[1]} "
            "numbers, or reset the table"
        )
    out = np.empty(arr.shape)
    for (r, c), cell in np.ndenumerate(arr):
        empty = cell is None or (isinstance(cell, str) and not cell.strip())
        try:
            if empty or isinstance(cell, (bool, np.bool_)):
                raise TypeError
            number = float(cell.strip()) if isinstance(cell, str) else float(cell)
        except (TypeError, ValueError):
            number = None
        if number is not None and np.isnan(number) and not isinstance(cell, str):
            empty = True  # a cleared cell of a number column arrives as NaN
        if empty:
            raise AttentionInputError(
                f"{name} has an empty cell at row {r}, column {c}: every weight must be a "
                "number; type one there (0 if unsure)"
            )
        if number is None or not np.isfinite(number):
            raise AttentionInputError(
                f"{name} has {cell!r} at row {r}, column {c}, which is not a finite number: "
                "type a number such as 0.5 or -1.2"
            )
        out[r, c] = number
    return out
