"""What a head's attention pattern does, and reading a hand-edited head's weights (numpy only).

A head's rule shows in where each query row puts its largest weight (its "top key"). The three
rules the preset heads of ``attnviz.heads`` build are counted here:

    previous  row i's top key is i - 1 (rows 1 .. n-1: row 0 has no previous token)
    same      row i's top key is i, the token itself
    first     row i's top key is 0, the first token

A row that may attend to no key (an all-zero row of A) has no top key and counts for no rule.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.errors import AttentionInputError

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


def read_weight_table(values, shape, name):
    """A hand-edited weight table as a finite float array of ``shape``, or a clear error.

    ``values`` is anything 2-D: a DataFrame from ``st.data_editor``, nested lists, an array. Cells
    may hold numbers or number text ("0.5"); an empty cell (None, NaN), text that is not a number
    or an infinity raises AttentionInputError naming the first bad cell, as does a table whose
    shape is not ``shape`` (rows added or deleted).
    """
    arr = np.asarray(values, dtype=object)
    if arr.ndim != 2 or arr.shape != tuple(shape):
        raise AttentionInputError(
            f"{name} must have shape {tuple(shape)}, one row per input dimension and one column "
            f"per head dimension (got {arr.shape}): give it {shape[0]} rows of {shape[1]} "
            "numbers, or reset the table"
        )
    out = np.empty(arr.shape)
    for (r, c), cell in np.ndenumerate(arr):
        empty = cell is None or (isinstance(cell, str) and not cell.strip())
        try:
            if empty or isinstance(cell, (bool, np.bool_)):
                raise TypeError
            number = float(cell.strip()) if isinstance(cell, str) else float(cell)
        except (TypeError, ValueError):
            number = None
        if number is not None and np.isnan(number) and not isinstance(cell, str):
            empty = True  # a cleared cell of a number column arrives as NaN
        if empty:
            raise AttentionInputError(
                f"{name} has an empty cell at row {r}, column {c}: every weight must be a "
                "number; type one there (0 if unsure)"
            )
        if number is None or not np.isfinite(number):
            raise AttentionInputError(
                f"{name} has {cell!r} at row {r}, column {c}, which is not a finite number: "
                "type a number such as 0.5 or -1.2"
            )
        out[r, c] = number
    return out
