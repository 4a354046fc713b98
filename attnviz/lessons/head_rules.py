"""What a head's attention pattern does: which rule each query row follows (numpy only).

A head's rule shows in where each query row puts its largest weight (its "top key"). The three
rules the preset heads of ``attnviz.lessons.hand_built_heads`` build are counted here:

    previous  row i's top key is i - 1 (rows 1 .. n-1: row 0 has no previous token)
    same      row i's top key is i, the token itself
    first     row i's top key is 0, the first token

A row that may attend to no key (an all-zero row of A) has no top key and counts for no rule.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.checks import AttentionInputError
from attnviz.lessons.common import TIE_TOLERANCE

RULES = {
    "previous": "the previous token",
    "same": "the token itself",
    "first": "the first token",
}


def top_keys(attention):
    """(n,) the key column of each row's largest weight (the first one on a tie); -1 where the
    row is all zero (the query may attend to no key)."""
    A = np.asarray(attention, dtype=float)
    top = A.argmax(axis=1)
    return np.where(A.max(axis=1) > 0, top, -1)


def tied_rows(attention):
    """How many rows of ``attention`` (n, n) share their largest (non-zero) weight among two or
    more keys, to TIE_TOLERANCE: their top key is the first of those (``top_keys``)."""
    A = np.asarray(attention, dtype=float)
    top = A.max(axis=1, keepdims=True)  # (n, 1)
    at_top = np.abs(A - top) <= TIE_TOLERANCE * np.maximum(1.0, np.abs(top))
    return int(np.sum((at_top.sum(axis=1) > 1) & (top[:, 0] > 0)))


def rule_targets(rule, n):
    """(rows, keys): the query rows ``rule`` speaks for and the key each should attend to."""
    rows = np.arange(n)
    if rule == "previous":
        return rows[1:], rows[1:] - 1
    if rule == "same":
        return rows, rows
    if rule == "first":
        return rows, np.zeros(n, dtype=int)
    raise AttentionInputError(f"rule must be one of {', '.join(RULES)} (got {rule!r})")


@dataclass(frozen=True)
class RuleCount:
    """``hits`` of the ``rows`` query rows that ``rule`` speaks for put their top key there."""

    rule: str
    hits: int
    rows: int

    @property
    def all(self):
        return self.rows > 0 and self.hits == self.rows


def rule_count(attention, rule):
    """How many rows of ``attention`` (n, n) put their largest weight where ``rule`` says."""
    top = top_keys(attention)
    rows, keys = rule_targets(rule, top.size)
    return RuleCount(rule, int(np.sum(top[rows] == keys)), int(rows.size))


def rule_counts(attention):
    """{rule: RuleCount} for every rule in RULES."""
    return {rule: rule_count(attention, rule) for rule in RULES}


def disagreement(attentions):
    """How the heads differ, from their top keys.

    Args:
        attentions: (h, n, n) every head's attention matrix.

    Returns:
        (tops, n_distinct, row): tops (h, n) each head's top key per row; n_distinct (n,) how
        many different top keys the heads pick for each row; row, the clearest example of heads
        attending differently: among the rows with the most different top keys, the one whose
        heads are most decided (the largest mean of their top weights).
    """
    A = np.asarray(attentions, dtype=float)
    tops = np.stack([top_keys(a) for a in A])  # (h, n)
    n_distinct = np.array([np.unique(tops[:, i]).size for i in range(tops.shape[1])])
    decided = A.max(axis=2).mean(axis=0)  # (n,) in [0, 1]
    row = int(np.lexsort((-decided, -n_distinct))[0])  # most distinct first, then most decided
    return tops, n_distinct, row
