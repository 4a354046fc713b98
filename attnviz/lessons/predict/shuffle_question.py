r"""The quiz question about shuffling the tokens: without positions the output rows move with
their tokens (permutation equivariance, Attention(X_π) = Attention(X)_π); with positions they
change.

Asked only without a mask (a causal mask is itself information about order). The shuffled
sentence is run through the core with the same weights: each token keeps its embedding row E,
and with positions on, P stays with the positions (X_π = E_π + P).
"""

import numpy as np

from attnviz.core import self_attention
from attnviz.lessons.common import TIE_TOLERANCE
from attnviz.lessons.positions import draw_permutation
from attnviz.lessons.predict.question import Question, Table
from attnviz.limits import MAX_SEED

MAX_NAMED = 8  # tokens of the shuffled order named in the question
CLEAR = 1e-6  # rows that differ by more than this (times the outputs' size) count as changed

MOVED = "the same rows as before, moved with their tokens"
STAYED = "the same rows as before, in their old order"
CHANGED = "new numbers: the rows change, not only their order"


def shuffle(g, rng):
    """Shuffle the tokens: are the output rows the old rows moved, or new rows?"""
    r, labels, n = g.r, g.labels, g.r.n
    if r.mask is not None or n < 2:
        return None
    perm = draw_permutation(n, int(rng.integers(MAX_SEED + 1)))  # position i gets token perm[i]
    E = r.X if g.P is None else r.X - g.P  # (n, d_model) the tokens' own embeddings
    size_E = max(1.0, float(np.abs(E).max()))
    if np.abs(E[perm] - E).max() <= TIE_TOLERANCE * size_E:  # only equal tokens changed places
        return None
    X = E[perm] if g.P is None else E[perm] + g.P
    out = self_attention(
        X, r.W_Q, r.W_K, r.W_V, scale=r.scale, temperature=r.temperature,
        b_Q=r.b_Q, b_K=r.b_K, b_V=r.b_V,
    ).output  # fmt: skip
    size = max(1.0, float(np.abs(r.output).max()), float(np.abs(out).max()))
    moved = np.abs(out - r.output[perm]).max(axis=1)  # (n,) row i against token perm[i]'s row
    stayed = float(np.abs(out - r.output).max())
    if stayed <= CLEAR * size:  # the old order would look right too: no fair question
        return None
    if g.P is None and moved.max() <= TIE_TOLERANCE * size:
        answer = MOVED
        why = (
            "Without positions, X holds only the tokens' embeddings, so shuffling the tokens "
            "shuffles the rows of X, and with them the rows of Q, K and V. Each pair of tokens "
            "keeps its score S_ij = q_i · k_j, so each token keeps its weights and its output "
            "row, only at its new place: Attention(X_π) = Attention(X)_π (permutation "
            "equivariance). Attention alone cannot tell word order. Computed: the largest "
            f"difference between the new rows and the old rows moved is {moved.max():.2g}."
        )
    elif g.P is not None and moved.max() > CLEAR * size:
        answer = CHANGED
        why = (
            "With positions, each token's row of X is its embedding plus the encoding of its "
            "position, E_token + P_position. A token that moves gets a new P added, so its q, "
            "k and v change, and so do its scores, its weights and its output row. Computed: "
            "the largest difference between the new rows and the old rows moved is "
            f"{moved.max():.4g}. This is why Transformers add positional encodings: without "
            "them the output would not depend on word order."
        )
    else:
        return None
    order = ", ".join(labels[k] for k in perm[:MAX_NAMED]) + (", …" if n > MAX_NAMED else "")
    where = (
        "with no positional encoding (X holds only the token embeddings)"
        if g.P is None
        else "with the positional encodings on (each token moves, P stays with the positions)"
    )
    text = (
        f"Shuffle the tokens into the order {order}, {where}, and no mask. What happens to the "
        "rows of the output A V?"
    )
    table = Table(
        "position",
        tuple(range(n)),
        ("token now", "its old position", "largest |new row − its old row|"),
        tuple((labels[k], int(k), float(d)) for k, d in zip(perm, moved, strict=True)),
    )
    options = (MOVED, STAYED, CHANGED)
    return Question("shuffle", text, options, answer, why, table=table)
