"""What a quiz question is: its text, options and answer, the explanation, and what its reveal
draws (rows as bars, a small table), all small frozen values that a cache can share.

The question builders (``shape_questions``, ``softmax_questions``, ``scaling_questions``,
``shuffle_question``) each take a ``Given`` and a numpy Generator and return a Question, or None
when the current settings cannot show the question's rule clearly.
"""

from dataclasses import dataclass

import numpy as np

from attnviz.core import AttentionResult


@dataclass(frozen=True)
class Bars:
    """One vector drawn as bars, one bar per label: e.g. a row of A over its keys.

    ``labels`` and ``values`` are tuples of the same length (str and float).
    """

    title: str
    labels: tuple
    values: tuple
    value_name: str = "A_ij"


@dataclass(frozen=True)
class Table:
    """A small table: one row per entry of ``index`` (its header ``index_name``), ``rows`` one
    tuple of cells per row, one cell per entry of ``columns``."""

    index_name: str
    index: tuple
    columns: tuple
    rows: tuple


@dataclass(frozen=True)
class Question:
    """One question: ``answer`` is one of ``options``; ``explanation`` quotes the real numbers.

    ``kind`` names the rule asked about (``predict.KINDS``); ``row`` (query) and ``col`` (key)
    say which cell it asks about, ``matrix`` which matrix (shape questions). The reveal draws
    ``bars`` side by side, then ``table``. Text, options and explanation are plain text (√, ·,
    ×, →, −∞ as characters) that may hold token labels: escape them before markdown.
    """

    kind: str
    text: str
    options: tuple
    answer: str
    explanation: str
    row: int | None = None
    col: int | None = None
    matrix: str | None = None
    bars: tuple = ()
    table: Table | None = None

    @property
    def answer_index(self):
        return self.options.index(self.answer)


@dataclass(frozen=True, eq=False)
class Given:
    """What every question builder reads: the result, the token labels (n,), ``allowed`` (n,)
    how many keys each query may see, and ``P`` (n, d_model) the positional encodings that were
    added to X, or None."""

    r: AttentionResult
    labels: list
    allowed: np.ndarray
    P: np.ndarray | None

    def mask_row(self, i):
        """Row i of the mask as a (1, n) array, or None when there is no mask."""
        return None if self.r.mask is None else self.r.mask[i : i + 1]


def exact_tolerance(r):
    """Differences up to this count as rounding in a result of ``r``'s dtype (2.2e-13 for
    float64): for results that are equal in exact arithmetic (a shifted row, a shuffled row)."""
    return 1000 * float(np.finfo(r.attention.dtype).eps)


def numbers(values, limit=6, digits=3):
    """'0.123, 0.456, …': the first ``limit`` of ``values``, in brackets."""
    shown = ", ".join(f"{v:.{digits}f}" for v in list(values)[:limit])
    return "[" + shown + (", …" if len(values) > limit else "") + "]"


def shape_text(shape):
    """'6 × 4' for the shape (6, 4)."""
    return " × ".join(str(d) for d in shape)


def bars(title, labels, values, value_name="A_ij"):
    """A Bars of ``values`` (m,) over ``labels`` (m,), as plain tuples."""
    return Bars(title, tuple(labels), tuple(float(v) for v in values), value_name)
