"""Sketch the row: the numbers of a class's (or one student's) predicted row of A.

numpy only. A sketch is ``levels`` (n,) ints in 0 .. SKETCH_LEVELS, one bar per key, as a
phone sets them; what it predicts is the bars renormalised to sum to 1 (a row of A is a
distribution). Keys that the mask hides are fixed at 0.

    weights(levels, allowed)        (n,) the sketch renormalised over the allowed keys
    tv_distance(p, q)               total variation distance, 1/2 sum |p - q|, in [0, 1]
    class_rows(sketches, allowed)   (m, n) every phone's weights
    summary(rows, truth, labels)    a Summary: mean and spread per key, distances, agreement
    snapshots(rows, truth)          which sketch is closest, farthest, the most common shape
    sentence(summary), key_lines(summary), report_tables(summary)   what a reader reads
"""

from dataclasses import dataclass

import numpy as np

from attnviz.lessons.common import TIE_TOLERANCE
from attnviz.limits import MAX_ROOM_TOKENS, SKETCH_LEVELS

HISTOGRAM_BINS = 10  # the distance histogram: [0, 0.1), [0.1, 0.2) ... [0.9, 1.0]


class SketchError(ValueError):
    """A sketch that cannot be read as a row of A: the message says what to change."""


def check_levels(levels, n, allowed=None):
    """``levels`` as a tuple of n ints in 0 .. SKETCH_LEVELS, masked keys (``allowed`` (n,)
    bool False) at 0; SketchError otherwise. A stored or sent answer is checked here."""
    if not 1 <= n <= MAX_ROOM_TOKENS:
        raise SketchError(f"A sketch has 1 to {MAX_ROOM_TOKENS} keys (got {n}).")
    try:
        values = tuple(int(v) for v in levels)
        exact = all(type(v) is int or float(v) == int(v) for v in levels)
    except (TypeError, ValueError, OverflowError):
        raise SketchError("A sketch is one whole number per key.") from None
    if len(values) != n or not exact:
        raise SketchError(f"A sketch is {n} whole numbers, one per key.")
    if any(not 0 <= v <= SKETCH_LEVELS for v in values):
        raise SketchError(f"Each bar of a sketch is 0 to {SKETCH_LEVELS}.")
    if allowed is not None and any(v and not ok for v, ok in zip(values, allowed, strict=True)):
        raise SketchError("A key that the mask hides gets weight 0: its bar stays at 0.")
    return values


def even_levels(allowed):
    """(n,) the "same for all" sketch: level 1 on every allowed key, 0 on the masked ones."""
    return tuple(int(bool(ok)) for ok in allowed)


def weights(levels, allowed=None):
    """(n,) the sketch ``levels`` renormalised to sum to 1 over the ``allowed`` keys (n,) bool
    (None: all); masked keys get 0. SketchError when every allowed bar is at 0."""
    levels = np.asarray(levels, dtype=float)  # (n,)
    if allowed is not None:
        levels = np.where(np.asarray(allowed, dtype=bool), levels, 0.0)
    total = levels.sum()
    if not total > 0:
        raise SketchError("Every bar is at 0: raise at least one bar (a row of A sums to 1).")
    return levels / total


def tv_distance(p, q):
    """Total variation distance between two distributions p, q (n,): 1/2 sum_j |p_j - q_j|,
    0 when equal, 1 when they put their weight on different keys."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    if p.shape != q.shape or p.ndim != 1:
        raise SketchError(f"Two rows of the same length are compared (got {p.shape}, {q.shape}).")
    return float(min(1.0, max(0.0, 0.5 * np.abs(p - q).sum())))


def class_rows(sketches, allowed=None):
    """(m, n) the weights of every sketch in ``sketches`` (m sketches of n levels)."""
    return np.array([weights(s, allowed) for s in sketches], dtype=float).reshape(len(sketches), -1)


def largest_keys(row):
    """The keys (a frozenset of indices) that tie for the largest weight of ``row`` (n,)."""
    row = np.asarray(row, dtype=float)
    top = row.max()
    return frozenset(np.flatnonzero(row >= top - TIE_TOLERANCE * max(1.0, abs(top))).tolist())


def picks_largest(row, truth):
    """Whether sketch ``row`` picked the right largest key: each of its largest keys is a
    largest key of ``truth`` (a sketch that ties two keys, one of them wrong, did not)."""
    return largest_keys(row) <= largest_keys(truth)


@dataclass(frozen=True)
class Summary:
    """A class's sketches against the true row. Shapes: labels, truth, mean, spread (n,);
    distances (m,) one per phone; histogram (HISTOGRAM_BINS,) phones per tenth of distance."""

    labels: tuple
    truth: np.ndarray
    mean: np.ndarray
    spread: np.ndarray
    distances: np.ndarray
    right_largest: int
    histogram: np.ndarray

    @property
    def phones(self):
        return len(self.distances)


def distance_histogram(distances):
    """(HISTOGRAM_BINS,) how many distances fall in each tenth of [0, 1] (1.0 in the last)."""
    d = np.clip(np.asarray(distances, dtype=float), 0.0, 1.0)
    bins = np.minimum((d * HISTOGRAM_BINS).astype(int), HISTOGRAM_BINS - 1)
    return np.bincount(bins, minlength=HISTOGRAM_BINS)


def summary(rows, truth, labels):
    """The Summary of ``rows`` (m, n) sketched weights against ``truth`` (n,), keys named by
    ``labels`` (n,). Mean and spread (standard deviation, over the phones) per key; with no
    sketch both are 0 and there is no distance."""
    truth = np.asarray(truth, dtype=float)
    rows = np.asarray(rows, dtype=float).reshape(-1, truth.size)  # (m, n)
    if len(labels) != truth.size:
        raise SketchError(f"{len(labels)} labels for a row of {truth.size} keys.")
    m = len(rows)
    mean = rows.mean(axis=0) if m else np.zeros_like(truth)
    spread = rows.std(axis=0) if m else np.zeros_like(truth)
    distances = np.array([tv_distance(r, truth) for r in rows], dtype=float)
    right = sum(picks_largest(r, truth) for r in rows)
    return Summary(
        tuple(labels), truth, mean, spread, distances, int(right), distance_histogram(distances)
    )


SNAPSHOT_KINDS = ("closest", "farthest", "most common shape")  # ``snapshots``' picks, in order


def snapshots(rows, truth):
    """{"closest": k, "farthest": k, "most common shape": k}: the sketch (index into ``rows``
    (m, n)) nearest the truth (n,), the farthest, and the one nearest the others (least mean
    distance to the other sketches: the class's typical shape). The first on a tie; {} for none."""
    rows = np.asarray(rows, dtype=float)
    if not len(rows):
        return {}
    d = np.array([tv_distance(r, truth) for r in rows])
    # (m,) each sketch's summed distance to the others, a row at a time: (m, n) memory, not m²n
    between = np.array([0.5 * np.abs(rows - r).sum() for r in rows])
    return {
        "closest": int(np.argmin(d)),
        "farthest": int(np.argmax(d)),
        "most common shape": int(np.argmin(between)),
    }


def phones(count):
    return f"{count} phone" + ("" if count == 1 else "s")


def sentence(s):
    """The reveal in one sentence, every number computed: "The class put 0.41 on mat; the row
    puts 0.62 there; 28 of 35 phones picked the right largest key.\""""
    top = sorted(largest_keys(s.truth))
    j = top[0]
    if not s.phones:
        return f"No phone sketched this row. The row puts {s.truth[j]:.2f} on {s.labels[j]}."
    if len(top) == 1:
        where, which = "there", "the right largest key"
    else:
        where = "each on " + " and on ".join(s.labels[k] for k in top)
        which = "one of the row's largest keys"
    return (
        f"The class put {s.mean[j]:.2f} on {s.labels[j]}; the row puts {s.truth[j]:.2f} "
        f"{where}; {s.right_largest} of {phones(s.phones)} picked {which}."
    )


def distance_sentence(s):
    """The distances in one sentence: their median, and how many were within 0.2."""
    if not s.phones:
        return "No distance: no phone sketched this row."
    close = int((s.distances < 0.2).sum())
    return (
        f"Distance to the true row (total variation, 0 = the same row, 1 = no weight in common): "
        f"median {np.median(s.distances):.2f}; {close} of {phones(s.phones)} under 0.2."
    )


def key_lines(s):
    """The overlay as text, one line a key: "key mat: class 0.41 ± 0.12, true 0.62"."""
    return [
        f"key {label}: class {m:.2f} ± {sd:.2f}, true {t:.2f}"
        for label, m, sd, t in zip(s.labels, s.mean, s.spread, s.truth, strict=True)
    ]


def own_sentence(row, truth, labels):
    """A phone's own result: its distance and whether it picked the largest key."""
    d = tv_distance(row, truth)
    top = sorted(largest_keys(truth))
    named = " / ".join(labels[k] for k in top)
    verdict = "you picked" if picks_largest(row, truth) else "you did not pick"
    return (
        f"Your distance to the true row: {d:.2f} (0 = the same row, 1 = no weight in common); "
        f"{verdict} its largest key ({named}, {truth[top[0]]:.2f})."
    )


def report_tables(s):
    """The lecturer's report of this question, as two tables of plain rows: (per key: key,
    class mean, class spread, true weight), (per tenth of distance: from, to, phones)."""
    keys = [
        (label, round(float(m), 4), round(float(sd), 4), round(float(t), 4))
        for label, m, sd, t in zip(s.labels, s.mean, s.spread, s.truth, strict=True)
    ]
    edges = np.linspace(0.0, 1.0, HISTOGRAM_BINS + 1)
    bins = [
        (round(float(a), 1), round(float(b), 1), int(c))
        for a, b, c in zip(edges[:-1], edges[1:], s.histogram, strict=True)
    ]
    return keys, bins


KEY_COLUMNS = ("key", "class mean", "class spread (sd)", "true weight")
BIN_COLUMNS = ("distance from", "distance to", "phones")
