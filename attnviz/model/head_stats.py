r"""What each attention head looks at, measured from its attention matrix (numpy only).

For every head of a model, a few averages over the queries of its attention matrix A (n, n),
whose row i (query i) sums to 1:

    cls       weight on the [CLS] key:                      mean_i  sum_{j: t_j = [CLS]} A_ij
    sep       weight on the [SEP] key(s):                   mean_i  sum_{j: t_j = [SEP]} A_ij
    previous  weight on the word piece just before:         mean_{i >= 1}     A_{i, i-1}
    itself    weight on the query's own position:           mean_i            A_ii
    next      weight on the word piece just after:          mean_{i <= n-2}   A_{i, i+1}
    same      weight on other copies of the query's piece:  mean_{i in R} sum_{j != i, t_j = t_i}
              A_ij, over the queries R whose piece occurs more than once (NaN when none does)
    entropy   how evenly a row spreads, -sum_j A_ij log A_ij / log n, averaged over the rows:
              0 when every query looks at one key, 1 when it looks at all n keys equally

Each is a number from 0 to 1; a head with ``previous`` near 1 is a "previous-token head".
"""

from dataclasses import dataclass, fields

import numpy as np

# Pattern name -> what the head attends to, as the page says it.
PATTERNS = {
    "cls": "[CLS]",
    "sep": "[SEP]",
    "previous": "the previous word piece",
    "itself": "itself",
    "next": "the next word piece",
    "same": "other copies of the same word piece",
}
BROAD_ENTROPY = 0.9  # a head whose mean row entropy is above this share of log n is "broad"


@dataclass(frozen=True)
class HeadStats:
    """Per-head averages, each (n_layers, n_heads), named as in the module docstring."""

    cls: np.ndarray
    sep: np.ndarray
    previous: np.ndarray
    itself: np.ndarray
    next: np.ndarray
    same: np.ndarray
    entropy: np.ndarray

    def __post_init__(self):
        for field in fields(self):
            view = np.asarray(getattr(self, field.name)).view()
            view.flags.writeable = False
            object.__setattr__(self, field.name, view)

    @property
    def shape(self):
        """(n_layers, n_heads)."""
        return self.cls.shape

    def of(self, pattern):
        """The (n_layers, n_heads) array of ``pattern`` (a key of PATTERNS, or "entropy")."""
        if pattern not in PATTERNS and pattern != "entropy":
            raise ValueError(f"unknown pattern {pattern!r}: use one of {[*PATTERNS, 'entropy']}")
        return getattr(self, pattern)

    def head(self, layer, head):
        """{pattern: value} for one head, every pattern of PATTERNS and "entropy"."""
        return {name: float(self.of(name)[layer, head]) for name in [*PATTERNS, "entropy"]}


def head_stats(attention, tokens, *, cls_token="[CLS]", sep_token="[SEP]"):
    """HeadStats of ``attention`` (n_layers, n_heads, n, n) over word pieces ``tokens`` (n,).

    Raises ValueError when the shapes disagree or a sequence is shorter than 2 (no previous or
    next piece to measure).
    """
    A = np.asarray(attention, dtype=np.float64)
    tokens = [str(t) for t in tokens]
    if A.ndim != 4 or A.shape[2] != A.shape[3]:
        raise ValueError(f"attention must be (n_layers, n_heads, n, n) (got shape {A.shape})")
    n = A.shape[-1]
    if len(tokens) != n:
        raise ValueError(f"{len(tokens)} tokens for attention over {n} positions: pass one each")
    if n < 2:
        raise ValueError("a sequence needs at least 2 word pieces to measure these patterns")
    t = np.array(tokens, dtype=object)
    i = np.arange(n)
    diag = A[..., i, i]  # (L, H, n)
    same_key = (t[:, None] == t[None, :]) & (i[:, None] != i[None, :])  # (n, n) other copies
    repeated = same_key.any(axis=1)  # queries whose piece occurs again
    if repeated.any():
        same = (A * same_key).sum(axis=-1)[..., repeated].mean(axis=-1)
    else:
        same = np.full(A.shape[:2], np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(A > 0, A * np.log(A), 0.0)
    return HeadStats(
        cls=A[..., t == cls_token].sum(axis=-1).mean(axis=-1),
        sep=A[..., t == sep_token].sum(axis=-1).mean(axis=-1),
        previous=A[..., i[1:], i[:-1]].mean(axis=-1),
        itself=diag.mean(axis=-1),
        next=A[..., i[:-1], i[1:]].mean(axis=-1),
        same=same,
        entropy=(-plogp.sum(axis=-1) / np.log(n)).mean(axis=-1),
    )


def ranked(values):
    """[(layer, head, value)] of a (n_layers, n_heads) array, largest first, NaN left out."""
    values = np.asarray(values)
    order = np.argsort(-np.nan_to_num(values, nan=-np.inf), axis=None, kind="stable")
    return [
        (int(layer), int(head), float(values[layer, head]))
        for layer, head in zip(*np.unravel_index(order, values.shape), strict=True)
        if not np.isnan(values[layer, head])
    ]


def strongest_pattern(stats, layer, head):
    """(pattern, value): the pattern of PATTERNS that takes most of this head's weight."""
    values = {name: value for name, value in stats.head(layer, head).items() if name in PATTERNS}
    name = max(values, key=lambda k: -np.inf if np.isnan(values[k]) else values[k])
    return name, values[name]


def _heads(entries, top=1):
    """ "layer 2 head 7 (0.92), ... and 5 more" for the first ``top`` of ``entries``."""
    named = ", ".join(
        f"layer {layer} head {head} ({value:.2f})" for layer, head, value in entries[:top]
    )
    return named + (f" and {len(entries) - top} more" if len(entries) > top else "")


def describe(stats, *, threshold=0.5, top=3):
    """Plain sentences saying which heads do what, from the numbers: one per pattern.

    A head "does" a pattern when more than ``threshold`` of its weight goes there on average;
    each sentence names at most ``top`` of the strongest heads. Returns a list of str.
    """
    total = stats.cls.size
    lines = []
    for name, what in PATTERNS.items():
        entries = ranked(stats.of(name))
        if not entries:
            lines.append(f"No word piece occurs twice, so no head can look at {what}.")
            continue
        over = [e for e in entries if e[2] > threshold]
        if over:
            heads = (
                "1 head puts more than {:.0%} of its"
                if len(over) == 1
                else f"{len(over)} of {total} heads put more than {{:.0%}} of their"
            ).format(threshold)
            lines.append(f"{heads} weight on {what}: {_heads(over, top)}.")
        else:
            lines.append(
                f"No head puts more than {threshold:.0%} of its weight on {what}; "
                f"the most is {_heads(entries[:1])}."
            )
    broad = [e for e in ranked(stats.entropy) if e[2] > BROAD_ENTROPY]
    if broad:
        heads = "1 head spreads its" if len(broad) == 1 else f"{len(broad)} heads spread their"
        lines.append(
            f"{heads} weight almost evenly over every word piece (entropy above "
            f"{BROAD_ENTROPY:.0%} of the most possible): {_heads(broad, top)}."
        )
    return lines
