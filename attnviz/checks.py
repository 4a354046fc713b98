"""The one error attnviz raises for bad input, and the checks that raise it.

Every message says what was wrong and how to fix it, for example
``d_k must be >= 1 (got 0): choose a key dimension of at least 1``.
"""

import numpy as np

from attnviz.limits import MAX_CORE_DIM, MAX_CORE_N


class AttentionInputError(ValueError):
    """Bad input to attnviz: wrong shape, non-finite number, bad mask or out-of-range setting."""


def float_dtype(*arrays):
    """float32 if every array is float32 (or narrower float), else float64.

    Anything numpy cannot read (a ragged list, say) counts as float64 here; ``as_matrix`` then
    says what is wrong with it. (``np.result_type`` itself would read a nested list or a string
    as a dtype description and raise TypeError.)
    """
    try:
        dtype = np.result_type(*(np.asarray(a) for a in arrays))
    except (TypeError, ValueError):
        return np.dtype(np.float64)
    if np.issubdtype(dtype, np.floating) and dtype.itemsize <= 4:
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def _read_array(name, a, wanted):
    """``np.asarray(a)``, or AttentionInputError saying to pass ``wanted`` instead."""
    try:
        return np.asarray(a)
    except (TypeError, ValueError) as exc:
        raise AttentionInputError(
            f"{name} could not be read as a matrix ({exc}): pass {wanted}"
        ) from None


def as_matrix(name, a, dtype=None, *, max_rows=MAX_CORE_N, max_cols=MAX_CORE_DIM):
    """Return ``a`` as a finite 2-D float array of ``dtype``, or raise AttentionInputError."""
    arr = _read_array(name, a, "a 2-D array of numbers")
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.bool_)
    ):
        raise AttentionInputError(
            f"{name} must hold numbers (got dtype {arr.dtype}): pass a 2-D array of floats"
        )
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise AttentionInputError(f"{name} must be real (got complex numbers): pass real floats")
    if arr.ndim != 2:
        raise AttentionInputError(
            f"{name} must be a 2-D matrix (got {arr.ndim}-D with shape {arr.shape}): "
            "reshape it to (rows, columns)"
        )
    if arr.size == 0:
        raise AttentionInputError(
            f"{name} is empty (shape {arr.shape}): it needs at least one row and one column"
        )
    if arr.shape[0] > max_rows or arr.shape[1] > max_cols:
        raise AttentionInputError(
            f"{name} is too large (shape {arr.shape}; at most {max_rows} x {max_cols}): "
            "use fewer tokens or smaller dimensions"
        )
    arr = arr.astype(dtype or float_dtype(arr), copy=False)
    if not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise AttentionInputError(
            f"{name} holds a non-finite number ({arr[tuple(bad)]} at row {bad[0]}, "
            f"column {bad[1]}): replace NaN and infinity with finite values"
        )
    return arr


def as_vector(name, b, length, dtype):
    """Return the bias ``b`` as a finite 1-D float array of ``length``, or raise."""
    arr = np.asarray(b)
    if arr.ndim != 1 or arr.shape[0] != length:
        raise AttentionInputError(
            f"{name} must be a vector of length {length} (got shape {arr.shape}): "
            "give one bias per output column"
        )
    if not np.issubdtype(arr.dtype, np.number) or not np.isfinite(arr).all():
        raise AttentionInputError(f"{name} must hold finite numbers: replace NaN and infinity")
    return arr.astype(dtype, copy=False)


def check_positive_int(name, value, maximum, hint):
    """Raise unless ``1 <= value <= maximum`` for an integer ``value``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise AttentionInputError(f"{name} must be a whole number (got {value!r}): {hint}")
    if value < 1:
        raise AttentionInputError(f"{name} must be >= 1 (got {value}): {hint}")
    if value > maximum:
        raise AttentionInputError(f"{name} must be <= {maximum} (got {value}): {hint}")
    return int(value)


def check_positive_number(name, value, hint):
    """Raise unless ``value`` is a real number, finite and > 0 (``hint``: what to give)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise AttentionInputError(f"{name} must be a number (got {value!r})")
    if not (np.isfinite(value) and value > 0):
        raise AttentionInputError(f"{name} must be a finite number > 0 (got {value}): {hint}")


def check_temperature(temperature, dtype=np.float64):
    """Return the softmax temperature T as a Python float, or raise AttentionInputError.

    T must be a finite number > 0 that ``dtype`` can hold (the logits are divided by it).
    """
    check_positive_number(
        "temperature",
        temperature,
        "use 1 for the plain softmax, smaller to sharpen it, larger to flatten it",
    )
    info = np.finfo(dtype)
    if not float(info.tiny) <= float(temperature) <= float(info.max):
        raise AttentionInputError(
            f"temperature {temperature} is out of {np.dtype(dtype)}'s range ({info.tiny:.3g} "
            f"to {info.max:.3g}): a temperature of 0.01 already gives nearly the argmax, and "
            "100 a nearly uniform row"
        )
    return float(temperature)


def check_mask(mask, n):
    """Return ``mask`` as an (n, n) bool array, or raise AttentionInputError."""
    mask = _read_array("mask", mask, f"an ({n}, {n}) boolean array")
    if mask.shape != (n, n):
        raise AttentionInputError(
            f"mask must have shape ({n}, {n}), one row per query and one column per key "
            f"(got {mask.shape}): build it with causal_mask(n) or padding_mask(n, k)"
        )
    if mask.dtype != np.bool_:
        raise AttentionInputError(
            f"mask must be boolean, True where query i may attend to key j (got dtype "
            f"{mask.dtype}): convert it with mask.astype(bool)"
        )
    return mask


def check_projection_shapes(X, W_Q, W_K, W_V):
    """Raise AttentionInputError unless X (n, d_model) and the weights W_Q, W_K (d_model, d_k)
    and W_V (d_model, d_v) fit together (the seed's table), saying which does not and why."""
    d_model = X.shape[1]
    for name, W in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V)):
        if W.shape[0] != d_model:
            raise AttentionInputError(
                f"{name} has {W.shape[0]} rows but X has d_model = {d_model} columns: X W needs "
                f"one row of {name} per column of X"
            )
    if W_Q.shape[1] != W_K.shape[1]:
        raise AttentionInputError(
            f"W_Q has {W_Q.shape[1]} columns and W_K {W_K.shape[1]}: queries and keys need the "
            "same width d_k, since S_ij = q_i . k_j"
        )


def check_attention_inputs(X, W_Q, W_K, W_V, b_Q, b_K, b_V, mask, temperature):
    """self_attention's arguments checked and converted to one float dtype, or raise.

    Returns (X, W_Q, W_K, W_V, b_Q, b_K, b_V, mask, temperature): float32 arrays when every
    matrix is float32, else float64; biases and mask may stay None. See ``self_attention``
    for the shapes.
    """
    dtype = float_dtype(X, W_Q, W_K, W_V)
    X = as_matrix("X", X, dtype)
    W_Q, W_K, W_V = (
        as_matrix(name, W, dtype) for name, W in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V))
    )
    check_projection_shapes(X, W_Q, W_K, W_V)
    n = X.shape[0]
    d_k, d_v = W_Q.shape[1], W_V.shape[1]
    b_Q = None if b_Q is None else as_vector("b_Q", b_Q, d_k, dtype)
    b_K = None if b_K is None else as_vector("b_K", b_K, d_k, dtype)
    b_V = None if b_V is None else as_vector("b_V", b_V, d_v, dtype)
    mask = None if mask is None else check_mask(mask, n)
    temperature = check_temperature(temperature, dtype)
    return X, W_Q, W_K, W_V, b_Q, b_K, b_V, mask, temperature


def check_finite(what, **arrays):
    """Raise AttentionInputError naming the first of ``arrays`` with a non-finite entry.

    For results of arithmetic on finite inputs: a non-finite entry there means overflow.
    """
    for name, M in arrays.items():
        if not np.isfinite(M).all():
            raise AttentionInputError(
                f"{name} overflowed {M.dtype} ({what} too large): rescale X or the weights"
            )
