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


def as_matrix(name, a, dtype=None, *, max_rows=MAX_CORE_N, max_cols=MAX_CORE_DIM):
    """Return ``a`` as a finite 2-D float array of ``dtype``, or raise AttentionInputError."""
    try:
        arr = np.asarray(a)
    except (TypeError, ValueError) as exc:
        raise AttentionInputError(
            f"{name} could not be read as a matrix ({exc}): pass a 2-D array of numbers"
        ) from None
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
