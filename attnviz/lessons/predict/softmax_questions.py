r"""Quiz questions about the softmax over keys: what a row sums to, adding c to a row of scores,
row 0 under the causal mask, what a mask does to a row, and the limit T -> 0.

Each answer is a rule of the softmax (rows sum to 1, only differences of logits matter,
e^(−∞) = 0, T -> 0 gives argmax); each is checked on rows the core computes for the current
settings with ``masked_softmax``, and a question whose rule the numbers would not show clearly
(a tie, a row already one-hot to rounding) is not asked.
"""

import numpy as np

from attnviz.checks import AttentionInputError
from attnviz.core import masked_softmax
from attnviz.lessons.masks import argmax_limit
from attnviz.lessons.predict.question import Question, Table, bars, exact_tolerance, numbers
from attnviz.limits import MIN_TEMPERATURE
from attnviz.masking import causal_mask

SHIFTS = (-5.0, 2.0, 10.0, 100.0)  # the constants c the shift question adds to a row
LOW_T_GAP = 30  # at the low temperature, the largest logit beats the next by this much (e^-30)


def row_sum(g, rng):
    """What does row i of A sum to? 1 whatever the scores, 0 for a query that sees no key."""
    r, labels = g.r, g.labels
    i = int(rng.integers(r.n))
    total = float(r.row_sums[i])
    options = ("0", "1") + ((str(r.n),) if r.n >= 2 else ()) + ("it depends on the scores",)
    if g.allowed[i] == 0 and total == 0:
        answer = "0"
        why = (
            f"The mask forbids query '{labels[i]}' every key, so all its logits are −∞; attnviz "
            "gives such a row all zeros (never NaN), so it sums to 0."
        )
    elif abs(total - 1) < 1e-6:
        answer = "1"
        why = (
            f"The softmax divides each e^(z_j) by their sum over the keys, so row "
            f"'{labels[i]}' is a probability distribution over the {g.allowed[i]} key(s) it may "
            f"see, whatever the scores: Σ_j A_ij = {total:.6f} (the row: "
            f"{numbers(r.attention[i], digits=4)})."
        )
    else:
        return None
    shown = bars(f"row {i} of A ({labels[i]}): weight on each key", labels, r.attention[i])
    text = f"What does row '{labels[i]}' of the attention matrix A sum to?"
    return Question("row_sum", text, options, answer, why, row=i, bars=(shown,))


def shift(g, rng):
    """Add c to every score of row i: A's row does not change (only differences matter)."""
    r, labels = g.r, g.labels
    live = np.flatnonzero(g.allowed > 0)
    if not live.size:
        return None
    i = int(rng.choice(live))
    c = float(rng.choice(SHIFTS))
    row = r.scaled_scores[i : i + 1]  # (1, n) S'_i
    try:
        before = masked_softmax(row, g.mask_row(i), r.temperature)[1][0]  # (n,)
        after = masked_softmax(row + c, g.mask_row(i), r.temperature)[1][0]
    except AttentionInputError:  # S' / T overflowed: no fair question
        return None
    change = float(np.abs(after - before).max())
    if change > exact_tolerance(r):
        return None
    T = r.temperature
    masked = "" if r.mask is None else " (−∞ for a masked key)"
    by_T = "" if T == 1 else f" (the sidebar's T = {T:g} divides it too: c / T = {c / T:.4g})"
    why = (
        f"Row '{labels[i]}' of A is the softmax of its logits z_j = S'_ij / T{masked}. "
        f"Adding c = {c:g} to every S'_ij adds the same number d = c / T to every logit{by_T}, "
        "and softmax(z + d)_j = e^(z_j + d) / Σ_k e^(z_k + d) = e^d · e^(z_j) / "
        "(e^d · Σ_k e^(z_k)) = softmax(z)_j: the factor e^d cancels. Only the differences "
        "between a row's scores "
        f"matter. Computed with the core's masked_softmax: before {numbers(before)}, after "
        f"{numbers(after)}; the largest difference is {change:.2g}."
    )
    options = (
        "it stays the same",
        "every weight is multiplied by e^c",
        "it gets sharper: the largest weight rises",
        "it gets flatter: closer to uniform",
    )
    text = (
        f"Add c = {c:g} to every score S'_ij of row '{labels[i]}' (the same c for every key "
        "j). What happens to that row of A?"
    )
    shown = (
        bars(f"row {i} of A ({labels[i]})", labels, before),
        bars(f"row {i} after adding c = {c:g} to its scores", labels, after),
    )
    return Question("shift", text, options, options[0], why, row=i, bars=shown)


def _one_hot_text(n):
    return "[1, 0]" if n == 2 else "[1, 0, 0]" if n == 3 else "[1, 0, …, 0]"


def causal_row(g, rng):
    """Under the causal mask, row 0 of A is [1, 0, …, 0]: query 0 may see key 0 only."""
    r, labels, n = g.r, g.labels, g.r.n
    if n < 2 or r.mask is None or not np.array_equal(r.mask, causal_mask(n)):
        return None
    A0 = r.attention[0]
    expected = np.eye(n)[0]
    if np.abs(A0 - expected).max() > exact_tolerance(r) or (A0[1:] != 0).any():
        return None
    options = (
        f"{_one_hot_text(n)}: all its weight on key 0, itself",
        f"uniform: 1/{n} on each key",
        "its largest weight on the key with the largest score S'_0j",
        "all zeros: it may see no key",
    )
    why = (
        f"The causal mask lets query i see keys 0 … i only, so query 0 ('{labels[0]}') sees "
        "key 0 alone: every other logit of its row is −∞ and gets e^(−∞) = 0, and the one "
        "finite logit z gets e^z / e^z = 1, whatever its score (here S'_00 = "
        f"{r.scaled_scores[0, 0]:.4g}). The first token of a decoder can attend only to "
        f"itself. Computed row 0 of A: {numbers(A0)}."
    )
    text = (
        f"The causal mask is on. What is row 0 of A, the weights of query '{labels[0]}' (the "
        "first token)?"
    )
    shown = bars(f"row 0 of A ({labels[0]}) under the causal mask", labels, A0)
    return Question("causal_row", text, options, options[0], why, row=0, col=0, bars=(shown,))


def masked_weight(g, rng):
    """The mask forbids key j to query i: A_ij = 0 exactly, and the rest of row i is the
    unmasked row cut to the allowed keys and rescaled to sum 1."""
    r, labels, n = g.r, g.labels, g.r.n
    if r.mask is None:
        return None
    plain = masked_softmax(r.scaled_scores, None, r.temperature)[1]  # (n, n) A without the mask
    share = np.where(r.mask, plain, 0).sum(axis=1)  # (n,) weight the allowed keys had
    # rows the mask changes, whose allowed keys kept a share to rescale (at a tiny temperature
    # the masked keys can hold every bit of the weight: then there is nothing to divide)
    rows = np.flatnonzero((g.allowed >= 2) & (g.allowed < n) & (share < 1 - 1e-6) & (share > 1e-3))
    if not rows.size:
        return None
    i = int(rng.choice(rows))
    keep = r.mask[i]
    j = int(rng.choice(np.flatnonzero(~keep)))
    A = r.attention[i]
    rescaled = np.where(keep, plain[i], 0) / share[i]
    if A[j] != 0 or abs(A.sum() - 1) > 1e-9 or np.abs(A - rescaled).max() > 1e-9:
        return None
    k = int(np.flatnonzero(keep)[0])
    options = (
        "A_ij = 0 exactly; the other weights are rescaled to sum to 1",
        "A_ij = 0 exactly; the other weights keep their values, so the row sums to less than 1",
        "A_ij is small but above 0; the row sums to 1",
        "A_ij = −∞",
    )
    why = (
        f"The mask sets the logit of key '{labels[j]}' to −∞ before the softmax, and "
        f"e^(−∞) = 0, so A_ij = 0 exactly, not just small. The softmax then divides by the sum "
        f"over the allowed keys only: without the mask they held {share[i]:.4f} of row "
        f"'{labels[i]}', and each is divided by that share, so the row still sums to "
        f"{A.sum():.6f}. For example key '{labels[k]}': {plain[i, k]:.4f} without the mask, "
        f"{plain[i, k]:.4f} / {share[i]:.4f} = {A[k]:.4f} with it."
    )
    text = (
        f"The mask forbids query '{labels[i]}' to see key '{labels[j]}'. What is A_ij, and "
        f"what happens to the rest of row '{labels[i]}'?"
    )
    table = Table(
        "key",
        tuple(labels),
        ("may see", "A_ij without the mask", "÷ the allowed share", "A_ij with the mask"),
        tuple(
            ("yes" if keep[m] else "no", float(plain[i, m]), float(rescaled[m]), float(A[m]))
            for m in range(n)
        ),
    )
    return Question("masked_weight", text, options, options[0], why, row=i, col=j, table=table)


def low_temperature(g, rng):
    """As T -> 0, row i becomes one-hot at its largest logit (the argmax limit), checked against
    the row at a small T."""
    r, labels = g.r, g.labels
    if r.n < 2:
        return None
    z = masked_softmax(r.scaled_scores, r.mask)[0]  # (n, n) S' + M: -inf where masked
    top2 = -np.sort(-z, axis=1)[:, :2]  # (n, 2) each row's largest two logits
    with np.errstate(invalid="ignore"):  # -inf - -inf: a row that sees no key
        gap = top2[:, 0] - top2[:, 1]  # (n,) inf for a row that sees one key
    clear = (g.allowed >= 2) & np.isfinite(gap)
    clear &= gap > 1e-6 * np.maximum(1, np.abs(np.where(clear, top2[:, 0], 0)))
    if not clear.any():
        return None
    i = int(rng.choice(np.flatnonzero(clear)))
    T_low = min(MIN_TEMPERATURE, float(gap[i]) / LOW_T_GAP)
    try:
        low = masked_softmax(r.scaled_scores[i : i + 1], g.mask_row(i), T_low)[1][0]
    except AttentionInputError:
        return None
    limit = argmax_limit(z[i : i + 1])[0]
    if np.abs(low - limit).max() > 1e-9:
        return None
    j, j2 = (int(k) for k in np.argsort(-z[i])[:2])
    options = (
        "one-hot: all its weight on the key with the largest S'_ij",
        "uniform: the same weight on every key it may see",
        "it stays the same: T does not change A",
    )
    why = (
        f"The softmax sees S'_ij / T. The largest allowed score of row '{labels[i]}', "
        f"S' = {z[i, j]:.4g} for key '{labels[j]}', beats the next, {z[i, j2]:.4g} for key "
        f"'{labels[j2]}', by {gap[i]:.4g}; divided by T the gap grows without bound as T → 0, "
        "and every other weight, at most e^(−gap / T) times the largest, goes to 0: the row "
        "becomes one-hot at its argmax (as T → ∞ it goes uniform instead). Computed: at "
        f"T = {T_low:.3g} the row puts {low[j]:.9f} on '{labels[j]}' (the limit: 1); at the "
        f"sidebar's T = {r.temperature:g} it puts {r.attention[i, j]:.4f} there."
    )
    text = (
        f"Lower the softmax temperature T towards 0. What does row '{labels[i]}' of "
        "A = softmax(S' / T + M) become?"
    )
    shown = (
        bars(f"row {i} of A ({labels[i]}) at the sidebar's T = {r.temperature:g}", labels,
             r.attention[i]),
        bars(f"row {i} of A at T = {T_low:.3g}", labels, low),
    )  # fmt: skip
    return Question("low_temperature", text, options, options[0], why, row=i, col=j, bars=shown)
