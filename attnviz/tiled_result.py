"""Tiled attention's results: what one block of keys did, and the whole run.

The glossary (b, K_b, V_b, S_b, m, l, O~) and the online softmax that fills these are in
``attnviz.tiled``; ``tiled_attention`` builds them, and ``attnviz.tiled`` re-exports both.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.results import AttentionSizes, freeze_arrays


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
