r"""Memory-efficient (tiled) attention: the same output without ever holding the (n, n) matrix.

FlashAttention (Dao et al., 2022) walks over the keys in blocks and keeps, for every query row,
only a running maximum, a running normaliser and a running output: the online softmax
(Milakov and Gimelshein, 2018). This is that algorithm in numpy, every query row at once.

Glossary (as in ``attnviz.core``, plus):

    b         block_size: keys per block (the last block may be shorter)
    K_b, V_b  (b, d_k), (b, d_v)  the keys and values of one block
    S_b       (n, b)  the block's logits  Q K_b^T / (sqrt(d_k) T), -inf where the mask forbids
    m         (n,)  running row maximum of the logits seen so far (-inf before any allowed key)
    l         (n,)  running normaliser  sum_j exp(S'_ij - m_i) over the keys seen so far
    O~        (n, d_v)  running unnormalised output  sum_j exp(S'_ij - m_i) v_j

where S'_ij is an entry of the scaled logits S' (S_b holds one block's columns of them), not
of the core's unscaled S = Q K^T.

For each block of keys, in order:

.. math::

    m' = \max(m, \mathrm{rowmax}(S_b)), \quad \tilde P = e^{S_b - m'}, \quad
    l' = e^{m - m'} l + \mathrm{rowsum}(\tilde P), \quad
    \tilde O' = e^{m - m'} \tilde O + \tilde P V_b

and at the end ``output = O~ / l``: exactly ``softmax(S') V``, because every earlier term was
computed against an older maximum and the factor ``exp(m - m')`` moves it to the new one.

The results it returns are ``TiledStep`` (one block of keys) and ``TiledResult`` (the whole
run); ``attention_memory`` counts the bytes each way.
"""

import sys
from dataclasses import dataclass

import numpy as np

from attnviz.checks import (
    AttentionInputError,
    as_matrix,
    check_mask,
    check_positive_int,
    check_temperature,
    float_dtype,
)
from attnviz.limits import MAX_CORE_N, MAX_TOKENS
from attnviz.results import AttentionSizes, freeze_arrays

# Keys per block. Each block also costs work that is not its n x b softmax (rescaling O~,
# n * d_v, and the Python loop), which shows below b = 128: at n = 4096, d_k = 64,
# benchmarks/tiled.py measured b = 32 at 1.3 to 2 times the time of b = 128 .. 4096, which are
# level within noise. Memory grows as n * b, so take the flat part's low end with room to
# spare: 256 (an (n, 256) block is 1/16 of an (n, n) matrix at n = 4096).
DEFAULT_BLOCK_SIZE = 256

ONLINE_SOFTMAX = (
    r"m' = \max\left(m, \max_j S'_{ij}\right),\quad "
    r"l' = e^{m - m'}\, l + \sum_j e^{S'_{ij} - m'},\quad "
    r"\tilde O' = e^{m - m'}\, \tilde O + e^{S'_b - m'} V_b"
)


@dataclass(frozen=True, eq=False)
class TiledStep:
    """What one block of keys did (keys ``start`` to ``stop - 1``; b = stop - start).

    Shapes: scores, logits, weights (n, b); block_max, row_max_before, row_max, rescale,
    row_sum (n,); accumulator (n, d_v). Arrays are read-only.

    - ``scores`` = Q K_b^T, the columns start:stop of the full score matrix.
    - ``logits`` = scores / sqrt(d_k) / T (as scaling and temperature say), -inf where masked.
    - ``block_max`` = the row maxima of ``logits`` (-inf where a row may see none of these keys).
    - ``row_max_before`` and ``row_max``: the running maximum m before and after this block.
    - ``rescale`` = exp(m_before - m_after), what l and O~ were multiplied by: 1 when the
      maximum did not move, 0 while the row had seen no allowed key (nothing to rescale).
    - ``weights`` = exp(logits - m_after), the block's unnormalised softmax numerators.
    - ``row_sum`` = l after the block; ``accumulator`` = O~ after the block.
    """

    index: int
    start: int
    stop: int
    scores: np.ndarray
    logits: np.ndarray
    block_max: np.ndarray
    row_max_before: np.ndarray
    row_max: np.ndarray
    rescale: np.ndarray
    weights: np.ndarray
    row_sum: np.ndarray
    accumulator: np.ndarray

    def __post_init__(self):
        freeze_arrays(self)

    @property
    def output(self):
        """(n, d_v) O~ / l: the output if the keys stopped here (0 for rows with no key yet)."""
        return normalise(self.accumulator, self.row_sum)


@dataclass(frozen=True, eq=False)
class TiledResult(AttentionSizes):
    """Tiled attention's output, the final running values and (with ``trace``) every step.

    Shapes: Q, K (n, d_k); V (n, d_v); mask (n, n) bool or None; output (n, d_v);
    row_max, row_sum (n,), equal to ``self_attention``'s fields of the same name;
    steps: one TiledStep per block when traced, else empty. Arrays are read-only.
    """

    Q: np.ndarray
    K: np.ndarray
    V: np.ndarray
    mask: np.ndarray | None
    block_size: int
    scale: bool
    temperature: float
    output: np.ndarray
    row_max: np.ndarray
    row_sum: np.ndarray
    steps: tuple[TiledStep, ...]

    def __post_init__(self):
        freeze_arrays(self)

    @property
    def n_blocks(self):
        return -(-self.n // self.block_size)

    @property
    def blocks(self):
        """[(start, stop), ...] the key range of every block."""
        return [(s, min(s + self.block_size, self.n)) for s in range(0, self.n, self.block_size)]


def normalise(accumulator, row_sum):
    """O~ / l row by row; a row with l = 0 (no allowed key) stays all zero, never NaN."""
    out = np.zeros_like(accumulator)
    return np.divide(accumulator, row_sum[:, None], out=out, where=row_sum[:, None] > 0)


def _check_qkv(Q, K, V):
    dtype = float_dtype(Q, K, V)
    Q, K, V = (as_matrix(name, M, dtype) for name, M in (("Q", Q), ("K", K), ("V", V)))
    if K.shape != Q.shape:
        raise AttentionInputError(
            f"K must have the same shape as Q {Q.shape}: one key per token, and q_i . k_j needs "
            f"equal widths d_k (got {K.shape}): give K shape {Q.shape}"
        )
    if V.shape[0] != Q.shape[0]:
        raise AttentionInputError(
            f"V must have one row per token, n={Q.shape[0]} like Q and K (got {V.shape}): "
            f"give V shape ({Q.shape[0]}, d_v)"
        )
    return dtype, Q, K, V


def tiled_attention(
    Q,
    K,
    V,
    *,
    block_size=DEFAULT_BLOCK_SIZE,
    mask=None,
    scale=True,
    temperature=1.0,
    trace=False,
):
    r"""softmax(Q K^T / (sqrt(d_k) T)) V computed block by block, with the online softmax.

    Equal to ``self_attention(...).output`` for the same Q, K, V and settings (to rounding),
    but only an (n, b) block of scores exists at any time, never the (n, n) matrix.

    Args:
        Q, K: (n, d_k) queries and keys; V: (n, d_v) values (for example the Q, K, V of an
            ``AttentionResult``).
        block_size: b, keys per block, >= 1. The last block holds the n mod b keys left over;
            b >= n is one block (the plain computation).
        mask: optional (n, n) bool, True where query i may attend to key j, as in
            ``self_attention``. A row that may attend to nothing gets an all-zero output row.
        scale: divide the scores by sqrt(d_k) (True) or leave them as they are (False).
        temperature: T > 0; the softmax sees ``scaled_scores / T``.
        trace: keep every block's scores, running values and rescale factors in ``steps``
            (n^2 numbers in all, so only for n <= MAX_TOKENS).

    Returns:
        TiledResult. Computed in float32 when Q, K and V are all float32, else float64.

    Raises:
        AttentionInputError (a ValueError) for non-2-D, empty, non-finite or mismatched input,
        a bad mask, a block_size below 1, a temperature that is not > 0, or scores that overflow.
    """
    dtype, Q, K, V = _check_qkv(Q, K, V)
    n, d_k = Q.shape
    d_v = V.shape[1]
    block_size = check_positive_int(
        "block_size",
        block_size,
        MAX_CORE_N,
        f"choose how many keys each block holds, from 1 to n={n} (b >= n is a single block)",
    )
    temperature = check_temperature(temperature, dtype)
    if mask is not None:
        mask = check_mask(mask, n)
    if trace and n > MAX_TOKENS:
        raise AttentionInputError(
            f"trace keeps every block's (n, b) scores, n^2 numbers in all: trace at most "
            f"{MAX_TOKENS} tokens (got n={n}), or call with trace=False"
        )
    sqrt_d_k = dtype.type(np.sqrt(d_k))
    T = dtype.type(temperature)

    row_max = np.full(n, -np.inf, dtype)  # m, the running row maximum
    row_sum = np.zeros(n, dtype)  # l, the running normaliser
    O_tilde = np.zeros((n, d_v), dtype)  # O~, the running unnormalised output
    steps = []
    buffer = None if trace else np.empty((n, min(block_size, n)), dtype)  # reused, untraced
    for index, start in enumerate(range(0, n, block_size)):
        stop = min(start + block_size, n)
        out = buffer if buffer is not None and stop - start == buffer.shape[1] else None
        with np.errstate(over="ignore", invalid="ignore"):  # overflow is caught just below
            scores = np.matmul(Q, K[start:stop].T, out=out)  # (n, d_k) @ (d_k, b) -> (n, b)
            S = scores.copy() if trace else scores  # untraced: work in the buffer in place
            if scale:
                S /= sqrt_d_k  # the same operations, in the same order, as self_attention
            if temperature != 1:
                S /= T
        if mask is not None:
            np.copyto(S, dtype.type(-np.inf), where=~mask[:, start:stop])
        block_max = S.max(axis=1)  # (n,)
        if np.isnan(block_max).any() or np.isposinf(block_max).any():
            raise AttentionInputError(
                "the scores overflowed (NaN or +infinity in the softmax input): "
                "use smaller inputs or weights, or a larger temperature"
            )
        row_max_new = np.maximum(row_max, block_max)  # m' = max(m, rowmax(S_b))
        # Subtract a finite shift: a row with no allowed key yet has m' = -inf, and
        # exp(-inf - -inf) would be NaN; exp(-inf - 0) = 0 is the right answer.
        shift = np.where(np.isfinite(row_max_new), row_max_new, 0).astype(dtype, copy=False)
        rescale = np.exp(row_max - shift)  # (n,) exp(m - m'); 0 while m = -inf
        P = np.subtract(S, shift[:, None], out=None if trace else S)  # (n, b)
        np.exp(P, out=P)  # P~ = exp(S_b - m')
        row_sum = rescale * row_sum + P.sum(axis=1)  # l' = exp(m - m') l + rowsum(P~)
        O_tilde *= rescale[:, None]  # O~' = exp(m - m') O~ + P~ V_b
        O_tilde += P @ V[start:stop]  # (n, b) @ (b, d_v) -> (n, d_v)
        if trace:
            steps.append(
                TiledStep(
                    index=index,
                    start=start,
                    stop=stop,
                    scores=scores,
                    logits=S,
                    block_max=block_max,
                    row_max_before=row_max,
                    row_max=row_max_new,
                    rescale=rescale,
                    weights=P,
                    row_sum=row_sum,
                    accumulator=O_tilde.copy(),
                )
            )
        row_max = row_max_new
    return TiledResult(
        Q=Q,
        K=K,
        V=V,
        mask=mask,
        block_size=block_size,
        scale=bool(scale),
        temperature=temperature,
        output=normalise(O_tilde, row_sum),
        row_max=row_max,
        row_sum=row_sum,
        steps=tuple(steps),
    )


@dataclass(frozen=True)
class MemoryFigures:
    """Bytes of one score-sized matrix each way, for n tokens, block b and a float dtype.

    ``full`` = n * n * itemsize: one (n, n) matrix (self_attention keeps several: scores,
    scaled_scores, attention). ``tiled`` = n * min(b, n) * itemsize: one (n, b) block of scores,
    what tiled attention holds instead (both also hold Q, K, V and the output, (n, d) each, and
    tiled attention m, l (n,) and O~ (n, d_v): those grow like n, not n^2).
    """

    n: int
    block_size: int
    itemsize: int
    full: int
    tiled: int

    @property
    def ratio(self):
        """full / tiled = n / min(b, n): how many times less the tiled block takes."""
        return self.full / self.tiled


def attention_memory(n, block_size=DEFAULT_BLOCK_SIZE, dtype=np.float64):
    """MemoryFigures for n tokens: one (n, n) matrix vs one (n, block_size) block, in bytes."""
    hint = "give a whole number of at least 1"
    n = check_positive_int("n", n, sys.maxsize, hint)
    block_size = check_positive_int("block_size", block_size, sys.maxsize, hint)
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise AttentionInputError(
            f"dtype must be a numpy float type (got {dtype!r}): use np.float32 or np.float64"
        ) from None
    if not np.issubdtype(dtype, np.floating):
        raise AttentionInputError(
            f"dtype must be a numpy float type (got {dtype}): use np.float32 or np.float64"
        )
    itemsize = dtype.itemsize
    return MemoryFigures(
        n=n,
        block_size=block_size,
        itemsize=itemsize,
        full=n * n * itemsize,
        tiled=n * min(block_size, n) * itemsize,
    )


__all__ = [
    "DEFAULT_BLOCK_SIZE",
    "ONLINE_SOFTMAX",
    "MemoryFigures",
    "TiledResult",
    "TiledStep",
    "attention_memory",
    "tiled_attention",
]
