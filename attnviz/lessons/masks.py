r"""Masks and temperature: which keys a query may see, and how sharp its softmax is.

.. math::

    A = \mathrm{softmax}\left(\frac{S'}{T} + M\right), \qquad
    M_{ij} = 0 \text{ where query } i \text{ may attend to key } j, \text{ else } -\infty

As T -> 0 each row goes one-hot at its largest allowed logit (argmax), split evenly among keys
that tie for it; as T -> infinity it goes uniform over the allowed keys. A row masked from every
key stays all zero.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.checks import AttentionInputError, check_positive_int
from attnviz.core import masked_softmax
from attnviz.lessons.common import TIE_TOLERANCE, check_positive, row_entropy
from attnviz.limits import MAX_TOKENS
from attnviz.masking import causal_mask, check_mask, padding_mask
from attnviz.results import freeze_arrays

MASK_MODES = ("none", "causal", "padding", "custom")
DEFAULT_TEMPERATURES = tuple(np.logspace(-2, 2, 41))  # 0.01 .. 100, the app's slider range


def _is_index(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def build_mask(mode, n, *, n_padding=1, cells=(), matrix=None):
    """The (n, n) bool mask for ``mode``, True where query i may attend to key j.

    none: all True (bidirectional, as in BERT). causal: keys 0..i (GPT). padding: the last
    ``n_padding`` keys are blocked for every query. custom: start from ``matrix`` (an (n, n)
    bool array; all True if None), then flip each (query, key) cell in ``cells``, so a cell
    listed twice is back where it started (a toggle).
    """
    if mode not in MASK_MODES:
        raise AttentionInputError(
            f"mask mode must be one of {', '.join(MASK_MODES)} (got {mode!r}): pick one of them"
        )
    n = check_positive_int("n", n, MAX_TOKENS, f"choose 1 to {MAX_TOKENS} tokens")
    cells = [tuple(np.atleast_1d(cell)) for cell in cells]
    if mode != "custom" and (matrix is not None or cells):
        raise AttentionInputError(
            f"cells and matrix are only for mode='custom' (got mode={mode!r}): "
            "drop them or choose the custom mode"
        )
    if mode == "none":
        return np.ones((n, n), dtype=bool)
    if mode == "causal":
        return causal_mask(n)
    if mode == "padding":
        if not _is_index(n_padding):
            raise AttentionInputError(
                f"n_padding must be a whole number (got {n_padding!r}): the count of padding "
                "tokens at the end"
            )
        return padding_mask(n, int(n_padding))
    mask = np.ones((n, n), dtype=bool) if matrix is None else check_mask(matrix, n).copy()
    for cell in cells:
        if len(cell) != 2 or not all(_is_index(x) and 0 <= x < n for x in cell):
            raise AttentionInputError(
                f"cell {cell!r} is not a (query, key) pair inside the {n} x {n} mask: "
                f"give two whole numbers from 0 to {n - 1}"
            )
        mask[cell] = not mask[cell]
    return mask


def argmax_limit(logits):
    """(n, n) the attention as T -> 0: each row one-hot at its largest logit, ties split evenly.

    ``logits`` (n, n) hold ``-inf`` for masked keys. Logits within TIE_TOLERANCE * max(1, |max|)
    of the row's maximum count as tied (identical tokens can differ by rounding); a row of only
    ``-inf`` (masked from every key) stays zero.
    """
    logits = np.asarray(logits, dtype=float)
    top = logits.max(axis=1, keepdims=True)  # (n, 1)
    live = np.isfinite(top)
    tol = TIE_TOLERANCE * np.maximum(1, np.abs(np.where(live, top, 0)))
    ties = live & (logits >= top - tol)  # (n, n)
    return ties / np.maximum(ties.sum(axis=1, keepdims=True), 1)


def uniform_limit(mask):
    """(n, n) the attention as T -> infinity: each row uniform over its allowed keys."""
    mask = np.asarray(mask, dtype=bool)
    return mask / np.maximum(mask.sum(axis=1, keepdims=True), 1)


@dataclass(frozen=True, eq=False)
class TemperatureSweep:
    """Each row's entropy and largest weight as the temperature T varies.

    Shapes: temperature (t,); entropy (nats), max_weight (t, n), row i of the sentence at each
    T; max_entropy (n,) = log(allowed keys of row i), the entropy of a uniform row; mask (n, n)
    the mask used (all True for none); argmax_limit, uniform_limit (n, n) the attention as
    T -> 0 and as T -> infinity.
    """

    temperature: np.ndarray
    entropy: np.ndarray
    max_weight: np.ndarray
    max_entropy: np.ndarray
    mask: np.ndarray
    argmax_limit: np.ndarray
    uniform_limit: np.ndarray

    def __post_init__(self):
        freeze_arrays(self)


def temperature_sweep(result, temperatures=DEFAULT_TEMPERATURES, *, mask=None):
    """Sweep the softmax temperature for one sentence: A = softmax(S' / T + M) at each T.

    ``result`` is the sentence's AttentionResult: its scaled scores S' (scaled or not, as it was
    computed) are kept and its temperature is replaced by each T. ``temperatures`` default to 41
    log-spaced values from 0.01 to 100. ``mask`` is an (n, n) bool array (see build_mask); None
    keeps the result's own mask. Each A is the core's masked_softmax, the step
    self_attention(..., temperature=T) takes.
    """
    temperatures = check_positive("temperatures", temperatures)
    n = result.n
    if mask is None:
        mask = np.ones((n, n), dtype=bool) if result.mask is None else result.mask
    mask = check_mask(mask, n)
    entropy, max_weight = [], []
    for T in temperatures:
        A = masked_softmax(result.scaled_scores, mask, T)[1]  # (n, n) softmax(S' / T + M)
        entropy.append(row_entropy(A))
        max_weight.append(A.max(axis=1))
    logits = masked_softmax(result.scaled_scores, mask)[0]  # (n, n) S' + M: -inf where masked
    return TemperatureSweep(
        temperature=temperatures,
        entropy=np.array(entropy),
        max_weight=np.array(max_weight),
        max_entropy=np.log(np.maximum(mask.sum(axis=1), 1)),
        mask=mask,
        argmax_limit=argmax_limit(logits),
        uniform_limit=uniform_limit(mask),
    )


@dataclass(frozen=True, eq=False)
class MaskEffect:
    """What a mask did to a sentence's attention: which rows it cut, and one row in detail.

    ``allowed`` (n,) how many keys each query may see; ``partial`` the rows that see some keys
    but not all, ``empty`` the rows that see none (index arrays). ``row``: the partly masked row
    told in detail (None when no row is partly masked): of the rows that keep 2 keys or more
    (else of all partly masked rows), the one the mask cut most. ``keys`` (k,) its allowed keys,
    ``before`` (k,) their weights without the mask, ``share`` = sum(before), ``after`` (k,) their
    weights with it. ``renormalise_error``: the largest difference between the masked attention
    and the unmasked rows cut to their allowed keys and rescaled to sum 1. ``empty_row_sum`` and
    ``empty_output``: the largest row sum and largest |output| over the empty rows (0 by design).
    """

    allowed: np.ndarray
    partial: np.ndarray
    empty: np.ndarray
    row: int | None = None
    keys: np.ndarray | None = None
    before: np.ndarray | None = None
    share: float = np.nan
    after: np.ndarray | None = None
    renormalise_error: float = np.nan
    empty_row_sum: float = np.nan
    empty_output: float = np.nan

    def __post_init__(self):
        freeze_arrays(self)


def mask_effect(plain, masked, mask):
    """The MaskEffect of ``mask`` ((n, n) bool, or None for no mask) on one sentence.

    ``plain`` and ``masked`` are the AttentionResults of the same logits without and with it.
    """
    n = plain.n
    allowed = np.full(n, n) if mask is None else mask.sum(axis=1)  # (n,) keys each query sees
    partial = np.flatnonzero((allowed > 0) & (allowed < n))
    empty = np.flatnonzero(allowed == 0)
    told = {}
    if partial.size:
        wide = partial[allowed[partial] >= 2]  # a row that keeps 2 keys or more shows the sharing
        pool = wide if wide.size else partial
        i = int(pool[np.argmin(allowed[pool])])  # of those, the row the mask cut most
        keep = mask[i]
        before = plain.attention[i, keep]
        cut = np.where(mask, plain.attention, 0)  # (n, n) each row cut to its allowed keys
        sums = cut.sum(axis=1, keepdims=True)  # (n, 1)
        expect = np.divide(cut, sums, out=np.zeros_like(cut), where=sums > 0)
        told = dict(
            row=i,
            keys=np.flatnonzero(keep),
            before=before,
            share=float(before.sum()),
            after=masked.attention[i, keep],
            renormalise_error=float(np.abs(expect - masked.attention).max()),
        )
    if empty.size:
        told.update(
            empty_row_sum=float(masked.row_sums[empty].max()),
            empty_output=float(np.abs(masked.output[empty]).max()),
        )
    return MaskEffect(allowed=allowed, partial=partial, empty=empty, **told)


@dataclass(frozen=True, eq=False)
class TemperatureEffect:
    """Where the attention A at one temperature lies between the limits T -> 0 and T -> inf.

    Over the rows that may attend to some key (NaN if none): ``entropy`` the mean row entropy
    (nats), ``max_weight`` the mean largest weight. ``to_argmax``, ``to_uniform``: the largest
    difference between A and the argmax and uniform limits. ``ties``: the rows of the argmax
    limit that split their weight between tied keys.
    """

    any_live: bool
    entropy: float
    max_weight: float
    to_argmax: float
    to_uniform: float
    ties: int


def temperature_effect(A, sweep):
    """The TemperatureEffect of A (n, n), attention at one T, against the TemperatureSweep's
    limits (the sweep and A use the same mask)."""
    live = sweep.mask.sum(axis=1) > 0  # (n,) rows that may attend to some key
    any_live = bool(live.any())
    return TemperatureEffect(
        any_live=any_live,
        entropy=float(row_entropy(A)[live].mean()) if any_live else np.nan,
        max_weight=float(A.max(axis=1)[live].mean()) if any_live else np.nan,
        to_argmax=float(np.abs(A - sweep.argmax_limit).max()),
        to_uniform=float(np.abs(A - sweep.uniform_limit).max()),
        ties=int(np.sum((sweep.argmax_limit > 0).sum(axis=1) > 1)),
    )
