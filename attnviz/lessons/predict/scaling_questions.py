"""Quiz questions about scaling by 1/√d_k: what it does to the spread of the scores, and what
turning it off or on does to a row's largest weight.

Both answers follow from the rule S' = S / √d_k (a standard deviation divides by the same
number; multiplying logits by √d_k > 1 sharpens a softmax), and both are checked on the scores
and rows the core computes, with scaling as in the sidebar and flipped.
"""

import numpy as np

from attnviz.checks import AttentionInputError
from attnviz.core import masked_softmax
from attnviz.lessons.common import TIE_TOLERANCE
from attnviz.lessons.predict.question import Question, Table, bars


def _flipped(r):
    """(n, n) the scores that would reach the softmax with scaling flipped: S / √d_k if the
    result is unscaled, S if it is scaled (the core's own division, in the result's dtype)."""
    return r.scores if r.scale else r.scores / r.scores.dtype.type(np.sqrt(r.d_k))


def scaling_spread(g, rng):
    """std(S') = std(S) / √d_k: dividing every score by √d_k divides their spread by it."""
    r = g.r
    if r.d_k < 2 or r.n < 2:
        return None
    S = r.scores  # (n, n)
    S1 = r.scaled_scores if r.scale else _flipped(r)  # S' = S / √d_k
    sd, sd1 = float(S.std()), float(S1.std())
    root = float(np.sqrt(r.d_k))
    if not sd > 1e-9 * max(1.0, float(np.abs(S).max())):  # equal scores: nothing to spread
        return None
    if abs(sd1 * root - sd) > 1e-9 * sd:
        return None
    options = (
        "std(S') = std(S) / √d_k",
        "std(S') = std(S) / d_k",
        "std(S') = std(S): dividing by a constant keeps the spread",
        "std(S') = std(S) · √d_k",
    )
    off = "" if r.scale else " (scaling is off in the sidebar: S' here is S / √d_k as it would be)"
    why = (
        "Dividing every number by the same constant divides their standard deviation by it: "
        f"std(S / √d_k) = std(S) / √d_k. Here std(S) = {sd:.4g} and std(S') = {sd1:.4g} = "
        f"{sd:.4g} / √{r.d_k} = {sd:.4g} / {root:.4g}{off}. This is why attention scales: when "
        "the entries of q and k have variance about 1, each S_ij = q_i · k_j is a sum of d_k "
        "products, so its variance is about d_k and its standard deviation grows like √d_k; "
        "dividing by √d_k brings the standard deviation back to about 1 whatever d_k is, and "
        "keeps the softmax from saturating."
    )
    text = (
        f"With scaling on, S' = S / √d_k (here d_k = {r.d_k}). How does the standard deviation "
        f"of the scaled scores S' compare with that of the scores S, over all n² = {r.n**2} "
        "of them?"
    )
    table = Table(
        "scores",
        ("S = Q Kᵀ", "S' = S / √d_k"),
        ("standard deviation", "smallest", "largest"),
        tuple((float(M.std()), float(M.min()), float(M.max())) for M in (S, S1)),
    )
    return Question("scaling_spread", text, options, options[0], why, table=table)


def scaling_effect(g, rng):
    """Turn scaling off (on): row i's largest weight rises (falls), or stays the same for a
    reason one can see (d_k = 1, one allowed key, equal logits)."""
    r, labels = g.r, g.labels
    try:
        other = masked_softmax(_flipped(r), r.mask, r.temperature)[1]  # (n, n)
    except AttentionInputError:  # the unscaled logits overflowed: no fair question
        return None
    before, after = r.attention.max(axis=1), other.max(axis=1)
    change = after - before
    finite = np.isfinite(r.logits)  # (n, n) the keys each query may see
    top = np.where(finite, r.logits, -np.inf).max(axis=1)  # (n,) -inf for a row that sees none
    with np.errstate(invalid="ignore"):
        spread = top - np.where(finite, r.logits, np.inf).min(axis=1)
    flat = spread <= TIE_TOLERANCE * np.maximum(1, np.abs(top))  # (n,) its logits are all equal
    same = (r.d_k == 1) | (g.allowed == 1) | flat  # (n,) rows that cannot change, and why
    moves = ~same & (np.abs(change) > TIE_TOLERANCE)
    rows = np.flatnonzero((g.allowed > 0) & ((same & (np.abs(change) <= 1e-12)) | moves))
    if not rows.size:
        return None
    i = int(rng.choice(rows))
    answer = "stay the same" if same[i] else ("rise" if change[i] > 0 else "fall")
    turned = "off" if r.scale else "on"
    root = np.sqrt(r.d_k)
    if r.d_k == 1:
        reason = "√d_k = √1 = 1, so scaling changes nothing"
    elif g.allowed[i] == 1:
        reason = "the query may see one key only, which gets weight 1 either way"
    elif flat[i]:
        reason = "its allowed logits are all equal, so the row is uniform either way"
    else:
        verb = "multiplies" if r.scale else "divides"
        reason = (
            f"turning scaling {turned} {verb} its logits by √d_k = {root:.4g}, so the gaps "
            f"between them {'grow' if r.scale else 'shrink'} and the softmax is "
            f"{'sharper' if r.scale else 'flatter'}: the largest weight can only "
            f"{'rise' if r.scale else 'fall'}"
        )
    on, off = (r.attention[i], other[i]) if r.scale else (other[i], r.attention[i])
    shown = (
        bars(f"row {i} of A ({labels[i]}), scaled: S / √d_k", labels, on),
        bars(f"row {i} of A, unscaled: S", labels, off),
    )
    return Question(
        "scaling_effect",
        f"If scaling by 1/√d_k were turned {turned}, would the largest weight in row "
        f"'{labels[i]}' of A rise, fall or stay the same?",
        ("rise", "fall", "stay the same"),
        answer,
        f"It goes from {before[i]:.4f} to {after[i]:.4f}: {reason}.",
        row=i,
        bars=shown,
    )
