"""Things to find among a causal model's heads, computed from their attention (no Streamlit).

For A (n_layers, n_heads, n, n), each a causal attention matrix (row i sums to 1 over keys
0 .. i), every score is an average over the queries it can be measured on:

    previous  mean over i >= 1 of A[i, i − 1]: the head looks at the token just before
    first     mean over i >= 1 of A[i, 0]: weight parked on the first token ("attention sink";
              the first token is seen by every query, so a head with nothing to do can rest
              there)
    induction mean, over the queries i whose token appeared before at some j < i − 1, of
              A[i, j + 1]: the head looks at what followed the last time this token came, the
              copying step of an induction head (Olsson et al., 2022). Needs a repeat.
"""

from dataclasses import dataclass

import numpy as np

SCORES = {
    "previous": "the previous token",
    "first": "the first token (an attention sink)",
    "induction": "what followed this token's earlier appearance (induction)",
}
THRESHOLD = 0.5  # a head is listed when its score is at least this: most of its weight
# A prompt that repeats a phrase of single-token words: SmolLM2's induction heads copy what
# came after it (tests/test_causal_lm.py checks it against head_scores and the next token)
INDUCTION_PROMPT = "The secret code is blue lamp river stone. The secret code is blue lamp"


def induction_pairs(token_ids):
    """(queries, keys): for each query i whose token appeared earlier, the key j + 1 after its
    latest earlier appearance j (with j + 1 < i, so that it is not the previous token)."""
    last, queries, keys = {}, [], []
    for i, token in enumerate(np.asarray(token_ids).tolist()):
        j = last.get(token)
        if j is not None and j + 1 < i:
            queries.append(i)
            keys.append(j + 1)
        last[token] = i
    return np.array(queries, dtype=int), np.array(keys, dtype=int)


@dataclass(frozen=True)
class HeadScores:
    """(n_layers, n_heads) scores per head, NaN where the text gives nothing to measure."""

    previous: np.ndarray
    first: np.ndarray
    induction: np.ndarray
    induction_queries: int  # queries the induction score averages over

    def top(self, name, k=5, threshold=THRESHOLD):
        """[(layer, head, score)] the k best heads at ``name`` scoring at least ``threshold``."""
        scores = getattr(self, name)
        if np.isnan(scores).all():
            return []
        order = np.argsort(-np.nan_to_num(scores, nan=-1.0), axis=None, kind="stable")[:k]
        best = [(*np.unravel_index(i, scores.shape), float(scores.flat[i])) for i in order]
        return [(int(layer), int(head), s) for layer, head, s in best if s >= threshold]


def head_scores(attention, token_ids):
    """HeadScores of every head of ``attention`` (n_layers, n_heads, n, n) over ``token_ids``."""
    A = np.asarray(attention)
    n = A.shape[-1]
    nan = np.full(A.shape[:2], np.nan)
    if n < 2:
        return HeadScores(nan, nan, nan, 0)
    rows = np.arange(1, n)
    previous = A[:, :, rows, rows - 1].mean(axis=-1)  # (n_layers, n_heads)
    first = A[:, :, rows, 0].mean(axis=-1)
    queries, keys = induction_pairs(token_ids)
    induction = A[:, :, queries, keys].mean(axis=-1) if len(queries) else nan
    return HeadScores(previous, first, induction, len(queries))
