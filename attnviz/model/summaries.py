r"""Summaries of a model's attention, and how one word's attention differs between two sentences.

Numpy only: every function takes attention arrays (n_layers, n_heads, n, n) as
``EncoderTrace.attention`` returns them (row i: query i's weights over the keys, summing to 1),
never settings or a page.

Glossary:

    A_l^h          head h of layer l, (n, n)
    \bar A_l       the heads' average of layer l:  (1/H) sum_h A_l^h                  (head_mean)
    \tilde A_l     with the residual identity mixed in (Abnar & Zuidema, 2020):
                   0.5 \bar A_l + 0.5 I, each row divided by its sum             (with_residual)
    R_l            attention rollout through layer l:  \tilde A_l \tilde A_{l-1} ... \tilde A_0
                   (layers counted from 0, as on the page)                             (rollout)

Row i of R_l estimates how much of input word piece j has flowed into position i after layers
0 .. l, *if* information mixed only linearly, by the attention weights: it ignores the values
(a key weighted heavily whose value is small adds little), W_O, the LayerNorms and the
feed-forward layers, and the 0.5 for the residual path is an assumption, not a measurement.

Two sentences, one word (``pair_difference``): the pieces of sentences a and b are lined up
piece by piece with ``difflib`` (``align``); where they differ (for "... street ... too
tired ." and "... road ... too wide .": "street / road" and "tired / wide") each place is one
slot. A query piece both sentences share puts its weight, in each sentence, on the same slots:
each shared piece, plus one slot per differing place (its pieces' weights summed). The
difference of a head is the total variation distance between the two rows over these slots,

    TVD = 1/2 sum_slots |p_a(slot) - p_b(slot)|,

the share of the word's weight that would have to move to turn one row into the other: 0 when
the head reads both sentences alike, 1 when the two rows share no slot. A differing place is
one slot so that a head that looks at "the differing word" in both sentences counts as not
differing: it moves its weight because the word changed, not because it looks elsewhere.
"""

import difflib
from dataclasses import dataclass

import numpy as np

from attnviz.model.head_stats import ranked

RESIDUAL = 0.5  # the identity's share in \tilde A, as in Abnar & Zuidema (2020)


def _attention(attention):
    """``attention`` as a float64 (n_layers, n_heads, n, n) array, or ValueError."""
    A = np.asarray(attention, dtype=np.float64)
    if A.ndim != 4 or A.shape[2] != A.shape[3] or 0 in A.shape:
        raise ValueError(f"attention must be (n_layers, n_heads, n, n) (got shape {A.shape})")
    return A


def head_mean(attention):
    """(n_layers, n, n): each layer's heads averaged, \bar A_l = (1/H) sum_h A_l^h."""
    return _attention(attention).mean(axis=1)  # (L, H, n, n) -> (L, n, n)


def with_residual(attention, residual=RESIDUAL):
    """(n_layers, n, n): \tilde A_l = (1 - residual) \bar A_l + residual I, rows summing to 1.

    The residual connection adds each position's own input to the heads' output; Abnar and
    Zuidema account for it by mixing the identity into the attention, half and half.
    """
    if not 0 <= residual <= 1:
        raise ValueError(f"residual must be from 0 to 1 (got {residual})")
    mean = head_mean(attention)  # (L, n, n)
    n = mean.shape[-1]
    mixed = (1 - residual) * mean + residual * np.eye(n)  # (L, n, n)
    sums = mixed.sum(axis=-1, keepdims=True)  # (L, n, 1): 1 already for softmax rows
    return np.divide(mixed, sums, out=np.zeros_like(mixed), where=sums > 0)


def rollout(attention, residual=RESIDUAL):
    """(n_layers, n, n): R_l = \tilde A_l ... \tilde A_0, attention rollout through layer l.

    ``R[-1]`` is the rollout through the whole model. Each row of R_l sums to 1: a product of
    matrices whose rows sum to 1.
    """
    mixed = with_residual(attention, residual)  # (L, n, n)
    rolled = np.empty_like(mixed)
    rolled[0] = mixed[0]
    for layer in range(1, len(mixed)):
        rolled[layer] = mixed[layer] @ rolled[layer - 1]  # (n, n) @ (n, n) -> (n, n)
    return rolled


@dataclass(frozen=True)
class Shares:
    """What an (n, n) attention-like matrix M does on average over its rows (queries).

    itself: mean_i M_ii; special: mean_i of the weight on [CLS] and [SEP]; top_key: the key j
    with the largest mean_i M_ij (the piece that every row draws on most), top_weight that mean.
    """

    itself: float
    special: float
    top_key: int
    top_weight: float


def shares(M, tokens, special=("[CLS]", "[SEP]")):
    """Shares of ``M`` (n, n) over word pieces ``tokens`` (n,)."""
    M = np.asarray(M, dtype=np.float64)
    is_special = np.isin(np.array(tokens, dtype=object), list(special))
    column_means = M.mean(axis=0)  # (n,): mean over the rows i of M_ij
    top = int(np.argmax(column_means))
    return Shares(
        itself=float(np.diagonal(M).mean()),
        special=float(M[:, is_special].sum(axis=1).mean()),
        top_key=top,
        top_weight=float(column_means[top]),
    )


@dataclass(frozen=True)
class Alignment:
    """Two sentences' word pieces lined up piece by piece (``difflib``): runs of pieces both
    share, and between them the places where they differ.

    ``opcodes``: difflib's (tag, a0, a1, b0, b1), covering both sentences in order: "equal"
    runs (tokens_a[a0:a1] == tokens_b[b0:b1]) and "replace", "delete" or "insert" places, where
    a0:a1 and b0:b1 (either may be empty) are what differs. A lined-up row has one slot per
    shared piece and one per differing place, in order.
    """

    tokens_a: tuple[str, ...]
    tokens_b: tuple[str, ...]
    opcodes: tuple[tuple[str, int, int, int, int], ...]

    @property
    def n_a(self):
        return len(self.tokens_a)

    @property
    def n_b(self):
        return len(self.tokens_b)

    def differing(self):
        """[(pieces of a, pieces of b)]: each place where the sentences differ, in order."""
        return [
            (self.tokens_a[a0:a1], self.tokens_b[b0:b1])
            for tag, a0, a1, b0, b1 in self.opcodes
            if tag != "equal"
        ]

    @property
    def identical(self):
        """The two sentences have the same pieces."""
        return not self.differing()

    def _slots_of(self, which):
        """(n,) int: the slot of each position of sentence ``which`` ("a" or "b")."""
        if which not in ("a", "b"):
            raise ValueError(f"which must be 'a' or 'b' (got {which!r})")
        out = np.empty(self.n_a if which == "a" else self.n_b, dtype=int)
        slot = 0
        for tag, a0, a1, b0, b1 in self.opcodes:
            lo, hi = (a0, a1) if which == "a" else (b0, b1)
            if tag == "equal":
                out[lo:hi] = np.arange(slot, slot + hi - lo)
                slot += hi - lo
            else:
                out[lo:hi] = slot
                slot += 1
        return out

    @property
    def slots(self):
        """Slots of a lined-up row: each shared piece, and one per differing place."""
        return sum(a1 - a0 if tag == "equal" else 1 for tag, a0, a1, _, _ in self.opcodes)

    def shared(self):
        """[(i_a, i_b)]: the positions of each piece both sentences share, in order."""
        return [
            (a0 + k, b0 + k)
            for tag, a0, a1, b0, _ in self.opcodes
            if tag == "equal"
            for k in range(a1 - a0)
        ]

    def in_b(self, i_a):
        """The position in sentence b of the shared piece at position ``i_a`` of sentence a."""
        for a, b in self.shared():
            if a == i_a:
                return b
        raise ValueError(
            f"position {i_a} of the first sentence is not a piece both sentences share: choose "
            f"one of {[a for a, _ in self.shared()]}"
        )

    def slot(self, i, which):
        """The slot of position ``i`` of sentence ``which`` ("a" or "b") in a lined-up row."""
        return int(self._slots_of(which)[i])

    def slot_labels(self, labels_a, separator=" / "):
        """A label for each slot: the shared pieces' labels (of sentence a), and "a / b" for a
        differing place (its pieces, at most 6 of each, "(nothing)" for none)."""
        labels = []
        for tag, a0, a1, b0, b1 in self.opcodes:
            if tag == "equal":
                labels += list(labels_a[a0:a1])
            else:
                labels.append(
                    _words(self.tokens_a[a0:a1]) + separator + _words(self.tokens_b[b0:b1])
                )
        return labels

    def line_up(self, rows, which):
        """(..., slots): rows over sentence ``which``'s keys ("a" or "b"), summed into slots."""
        rows = np.asarray(rows, dtype=np.float64)
        n = self.n_a if which == "a" else self.n_b
        if which not in ("a", "b") or rows.shape[-1] != n:
            raise ValueError(f"rows must be over sentence {which!r}'s {n} keys (got {rows.shape})")
        into = np.zeros((n, self.slots))  # (n, slots): key j goes to its slot
        into[np.arange(n), self._slots_of(which)] = 1.0
        return rows @ into


def _words(pieces, most=6):
    """Word pieces as one short text: at most ``most``, "(nothing)" for none."""
    text = " ".join(pieces[:most]) + (" …" if len(pieces) > most else "")
    return text or "(nothing)"


def align(tokens_a, tokens_b):
    """The Alignment of two sequences of word pieces, piece by piece: difflib's matching
    blocks (no junk heuristic), so that a word changed in one place and another changed later
    leave every piece between them shared ("street ... tired" / "road ... wide")."""
    a, b = tuple(str(t) for t in tokens_a), tuple(str(t) for t in tokens_b)
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    return Alignment(tokens_a=a, tokens_b=b, opcodes=tuple(matcher.get_opcodes()))


@dataclass(frozen=True, eq=False)
class PairDifference:
    """How one shared word's attention differs between two sentences, head by head.

    rows_a, rows_b: (n_layers, n_heads, slots) the word's rows lined up (``Alignment.line_up``);
    distance: (n_layers, n_heads) their total variation distance (module docstring).
    """

    alignment: Alignment
    query_a: int  # the word's position in sentence a
    query_b: int  # and in sentence b
    rows_a: np.ndarray
    rows_b: np.ndarray
    distance: np.ndarray

    def ranked(self):
        """[(layer, head, distance)] of every head, the largest difference first."""
        return ranked(self.distance)


def pair_difference(attention_a, attention_b, alignment, query_a):
    """PairDifference of the word at position ``query_a`` of sentence a (a piece both share).

    ``attention_a`` (L, H, n_a, n_a) and ``attention_b`` (L, H, n_b, n_b): the same model's
    attention over the two sentences whose pieces ``alignment`` lines up.
    """
    A, B = _attention(attention_a), _attention(attention_b)
    if A.shape[:2] != B.shape[:2]:
        raise ValueError(f"the two runs have different heads: {A.shape[:2]} and {B.shape[:2]}")
    query_b = alignment.in_b(query_a)
    rows_a = alignment.line_up(A[:, :, query_a, :], "a")  # (L, H, n_a) -> (L, H, slots)
    rows_b = alignment.line_up(B[:, :, query_b, :], "b")  # (L, H, n_b) -> (L, H, slots)
    return PairDifference(
        alignment=alignment,
        query_a=query_a,
        query_b=query_b,
        rows_a=rows_a,
        rows_b=rows_b,
        distance=0.5 * np.abs(rows_a - rows_b).sum(axis=-1),  # (L, H)
    )


def strongest_link(attention, query, skip=()):
    """(layer, head, key, weight): the largest weight query ``query`` puts on any key not in
    ``skip`` (positions), over every head. E.g. skip [CLS], [SEP] and the query itself to find
    the head that ties a word most to another word. None when ``skip`` leaves no key."""
    A = _attention(attention)
    row = A[:, :, query, :].copy()  # (L, H, n)
    row[..., list(skip)] = -np.inf
    if np.isneginf(row).all():
        return None
    layer, head, key = np.unravel_index(int(np.argmax(row)), row.shape)
    return int(layer), int(head), int(key), float(A[layer, head, query, key])


@dataclass(frozen=True)
class SharedLink:
    """The word's strongest tie to a piece both sentences share, found in one of the two.

    layer, head: where; key_a, key_b: the piece's position in sentence a and in b; weight: the
    word's weight on it in the sentence where it was found; other: that head's weight on the
    same piece in the other sentence.
    """

    layer: int
    head: int
    key_a: int
    key_b: int
    weight: float
    other: float


def strongest_shared_links(
    attention_a, attention_b, alignment, query_a, special=("[CLS]", "[SEP]")
):
    """(link in a, link in b): in each sentence, the largest weight the word at ``query_a``
    (shared) puts on a shared piece other than ``special``, itself and its two neighbours (those
    are habits of position), with that head's weight on the same piece in the other sentence.
    A SharedLink, or None when no piece is left to look at.
    """
    A, B = _attention(attention_a), _attention(attention_b)
    query = (query_a, alignment.in_b(query_a))
    pairs = [
        (i_a, i_b)
        for i_a, i_b in alignment.shared()
        if alignment.tokens_a[i_a] not in special
        and abs(i_a - query[0]) > 1
        and abs(i_b - query[1]) > 1
    ]
    links = []
    for side, (here, there) in enumerate(((A, B), (B, A))):
        keys = [pair[side] for pair in pairs]
        other_keys = [pair[1 - side] for pair in pairs]
        found = strongest_link(
            here, query[side], skip=sorted(set(range(here.shape[-1])) - set(keys))
        )
        if found is None:
            links.append(None)
            continue
        layer, head, key, weight = found
        other_key = other_keys[keys.index(key)]
        key_a, key_b = (key, other_key) if side == 0 else (other_key, key)
        links.append(
            SharedLink(
                layer=layer,
                head=head,
                key_a=key_a,
                key_b=key_b,
                weight=weight,
                other=float(there[layer, head, query[1 - side], other_key]),
            )
        )
    return tuple(links)


__all__ = [
    "RESIDUAL",
    "Alignment",
    "PairDifference",
    "SharedLink",
    "Shares",
    "align",
    "head_mean",
    "pair_difference",
    "rollout",
    "shares",
    "strongest_link",
    "strongest_shared_links",
    "with_residual",
]
